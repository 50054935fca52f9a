"""``distval describe STREAM``: class counts, P(M), P(T), baselines and Δ(ℓ) of a stream.

The characteristics of zliobaite2015 Table 3 (rows, attributes, classes, P(M), P(T)), the
prequential accuracies of the Majority and Persistent classifiers (§4.1) and Δ(ℓ) for
ℓ = 1 ... L (§6.8, Fig. 5), read in one streaming pass (constant memory) from a file or a
generator. ``--shuffle`` describes an iid or within-class shuffled copy instead (held in
memory).

Example::

    distval describe elec2 --lags 3
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from distval.cli.argtypes import positive_integer, progress_wanted

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``distval describe``."""
    parser.add_argument(
        "stream",
        metavar="STREAM",
        help="a .parquet/.csv/.csv.gz/.arff file, 'elec2', or a generator such as 'SEA(50)'",
    )
    # Repeat kept: argparse options, alike cli/reproduce.py's in shape only.
    parser.add_argument("--target", default=None, metavar="COLUMN", help="label column")
    parser.add_argument(
        "--n-rows",
        type=positive_integer,
        default=None,
        metavar="N",
        help="read at most N rows (generators: stream length, default 100000)",
    )
    parser.add_argument(
        "--lags", type=positive_integer, default=5, metavar="L", help="Δ(ℓ) for ℓ = 1..L (5)"
    )
    parser.add_argument(
        "--shuffle",
        choices=("iid", "within-class"),
        default=None,
        help="describe a shuffled copy: iid permutation or within-class shuffle",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of generators and shuffles (1)")
    parser.add_argument(
        "--json", default=None, metavar="FILE", help="also write the description as JSON"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--task",
        choices=("classification", "regression"),
        default="classification",
        help="regression: a numeric target's autocorrelation and its persistent and mean "
        "baselines' errors (docs/regression.md)",
    )


def main(args: argparse.Namespace) -> int:
    """Run ``distval describe``; returns the exit status."""
    from distval.experiments.diagnostics import describe_stream, format_description
    from distval.streams import open_stream
    from distval.streams.permuted import PermutedStream
    from distval.tasks import task_named

    if task_named(args.task).numeric_target:
        return _regression(args)
    stream = open_stream(args.stream, target=args.target, n_rows=args.n_rows, seed=args.seed)
    if args.shuffle:
        stream = PermutedStream(stream, args.shuffle, seed=args.seed)
    progress = progress_wanted(args)
    d = describe_stream(stream, max_lag=args.lags, progress=progress)
    return _show(format_description(d), d, args.json)


def _regression(args: argparse.Namespace) -> int:
    """``distval describe --task regression``: the numeric target's description."""
    from distval.errors import DistvalError
    from distval.experiments.target_diagnostics import describe_target, format_target_description
    from distval.streams.regression import open_regression_stream

    if args.shuffle:
        raise DistvalError("--shuffle describes a classification stream's copy, not a target")
    stream = open_regression_stream(args.stream, target=args.target, n_rows=args.n_rows,
                                    seed=args.seed)
    d = describe_target(stream, max_lag=args.lags)
    return _show(format_target_description(d), d, args.json)


def _show(text: str, description: dict[str, Any], json_path: str | None) -> int:
    """Print ``text``; with ``--json``, also write ``description`` there and say where."""
    import json

    from distval.files import write_file

    print(text)
    if json_path:
        path = Path(json_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, json.dumps(description, indent=2, default=float) + "\n")
        print(f"description: {path}")
    return 0
