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

from distval.argtypes import positive_integer

__all__ = ["add_arguments", "format_description", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``distval describe``."""
    parser.add_argument(
        "stream",
        metavar="STREAM",
        help="a .parquet/.csv/.csv.gz/.arff file, 'elec2', or a generator such as 'SEA(50)'",
    )
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


def format_description(d: dict, max_classes: int = 30) -> str:
    """Markdown text of a :func:`distval.temporal.describe_stream` result.

    >>> d = {"name": "s", "rows": 4, "attributes": 1, "nominal": 0, "classes": ["a", "b"],
    ...      "class_counts": [3, 1], "p_majority": 0.75, "p_persistence": 2 / 3,
    ...      "majority_accuracy": 0.75, "persistent_accuracy": 0.75,
    ...      "delta": [[0.1], [float("nan")]]}
    >>> print(format_description(d).splitlines()[0])
    # s
    """
    lines = [f"# {d['name']}", ""]
    lines += ["| rows | attributes | classes | P(M) | P(T) | Majority acc. | Persistent acc. |"]
    lines += ["|---:|---:|---:|---:|---:|---:|---:|"]
    lines += [
        f"| {d['rows']:,} | {d['attributes']} ({d['nominal']} nominal) | {len(d['classes'])} "
        f"| {d['p_majority']:.4f} | {d['p_persistence']:.4f} | {d['majority_accuracy']:.4f} "
        f"| {d['persistent_accuracy']:.4f} |",
        "",
    ]
    n = max(d["rows"], 1)
    lags = len(d["delta"][0]) if d["delta"] else 0
    head = "| class | count | P(i) | " + " | ".join(f"Δ({lag})" for lag in range(1, lags + 1))
    lines += [head + " |", "|---|---:|---:|" + "---:|" * lags]
    order = sorted(range(len(d["classes"])), key=lambda i: -d["class_counts"][i])
    for i in order[:max_classes]:
        deltas = " | ".join("" if v != v else f"{v:+.4f}" for v in d["delta"][i])
        lines.append(
            f"| {d['classes'][i]} | {d['class_counts'][i]:,} | {d['class_counts'][i] / n:.4f} "
            f"| {deltas} |"
        )
    if len(order) > max_classes:
        lines.append(f"| ({len(order) - max_classes} more classes) | | | |")
    lines += [
        "",
        "P(M): share of the majority class; P(T): share of consecutive equal labels; "
        "accuracies are prequential (test, then count); Δ(ℓ) = P(y_t=i | ℓ previous labels i) "
        "- P(y_t=i | ℓ-1 previous labels i), Δ(1) = P(i|i) - P(i) (zliobaite2015 §6.8).",
    ]
    return "\n".join(lines)


def main(args) -> int:
    """Run ``distval describe``; returns the exit status."""
    import json
    import os
    import sys

    from distval.streams import open_stream
    from distval.temporal import PermutedStream, describe_stream

    stream = open_stream(args.stream, target=args.target, n_rows=args.n_rows, seed=args.seed)
    if args.shuffle:
        stream = PermutedStream(stream, args.shuffle, seed=args.seed)
    progress = (not args.no_progress and sys.stderr.isatty()) or bool(
        os.environ.get("DISTVAL_PROGRESS")
    )
    d = describe_stream(stream, max_lag=args.lags, progress=progress)
    print(format_description(d))
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(d, indent=2, default=float) + "\n")
        print(f"description: {path}")
    return 0
