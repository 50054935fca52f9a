"""``distval suite``: many streams x many learners, one run per stream, cross-stream tables.

Streams, learners and run options come from the command line or a TOML file (the command
line wins); see :func:`distval.experiments.suite.suite` for the Python API.

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_arguments(p)
>>> a = p.parse_args(["--streams", "elec2", "SEA(50)", "--learners", "ht", "nb", "--n-rows", "500"])
>>> settings(a)["streams"], settings(a)["learners"], settings(a)["n_rows"]
(['elec2', 'SEA(50)'], ['ht', 'nb'], 500)
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import warnings
from pathlib import Path
from typing import Any

from distval.cli.argtypes import add_private, positive_integer, progress_wanted, ray_address
from distval.cli.run import _one_line, _say_which_ray, add_config_arguments
from distval.config import RunConfig
from distval.errors import DistvalError, DistvalWarning

__all__ = ["DESCRIPTION", "add_arguments", "main", "read_toml", "settings"]

DESCRIPTION = (
    "Evaluate learners on many streams (one run per stream, as Ray tasks or one after "
    "another) and compare them across streams: the results table, average ranks, Friedman "
    "with Iman-Davenport, Nemenyi's critical difference, Wilcoxon-Holm per pair and the "
    "Bayesian signed-rank test. Rerunning the same command resumes."
)

#: Keys of a suite's TOML file besides RunConfig's fields.
SUITE_KEYS = ("streams", "rope", "final", "output", "backend", "address", "private", "tasks")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "toml",
        nargs="?",
        default=None,
        metavar="SUITE.toml",
        help="a TOML file with streams, learners and run options (options given here win)",
    )
    parser.add_argument(
        "--streams",
        nargs="+",
        default=argparse.SUPPRESS,
        metavar="SPEC",
        help='catalogue names (elec2), generator specs ("SEA(50)"), files, or directories '
        "of stream files",
    )
    add_config_arguments(parser, skip=("stream",))
    g = parser.add_argument_group("suite")
    g.add_argument(
        "--final",
        choices=("cumulative", "windowed"),
        default=argparse.SUPPRESS,
        help="the value the tables compare: over the whole stream, or under the run's "
        "--forgetting (default: cumulative)",
    )
    g.add_argument(
        "--rope",
        type=float,
        default=argparse.SUPPRESS,
        metavar="R",
        help="region of practical equivalence of the Bayesian signed-rank test, in units of "
        "the measure (default: 0.01)",
    )
    g.add_argument(
        "--backend",
        choices=("ray", "inprocess"),
        default=argparse.SUPPRESS,
        help="ray: each stream a Ray task on one core (default); inprocess: one after another",
    )
    g.add_argument(
        "--address", default=argparse.SUPPRESS, help="join a Ray cluster ('auto', ray://...)"
    )
    add_private(g, default=argparse.SUPPRESS)
    g.add_argument(
        "--tasks",
        type=positive_integer,
        default=argparse.SUPPRESS,
        metavar="N",
        help="at most N streams at once on Ray (default: as many as Ray schedules)",
    )
    g.add_argument(
        "--output",
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="the suite's directory (default: distval-results/<TOML name> or "
        "distval-results/suite); finished streams in it are not run again",
    )
    g.add_argument(
        "--overwrite", action="store_true", help="discard the streams stored in --output"
    )
    g.add_argument("--no-progress", action="store_true", help="no progress line")
    from distval.live.cli import add_arguments as add_live_arguments

    add_live_arguments(parser.add_argument_group("live page"))  # --live: streams and ranks
    g.add_argument(
        "--plan",
        action="store_true",
        help="print the projected core-hours and wall time per number of cores (from costs "
        "measured in --output, --cost-from, or a short probe of each stream); run nothing",
    )
    g.add_argument(
        "--cost-from",
        default=None,
        metavar="DIR",
        help="with --plan: per-row costs measured by another suite's directory",
    )


def read_toml(path: str) -> dict[str, Any]:
    """A suite's TOML file as a dict (``tomllib``; ``tomli`` on Python 3.10)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
    try:
        with open(path, "rb") as fh:
            data: dict[str, Any] = tomllib.load(fh)
    except OSError as exc:
        raise DistvalError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise DistvalError(f"{path} is not valid TOML: {exc}") from None
    except UnicodeDecodeError as exc:  # TOML is UTF-8 text
        raise DistvalError(f"{path} is not valid TOML: not UTF-8 text ({exc.reason} at "
                           f"byte {exc.start})") from None
    fields = {f.name for f in dataclasses.fields(RunConfig)} - {"stream", "labels"}
    unknown = sorted(set(data) - fields - set(SUITE_KEYS) - {"folds"})
    if unknown:
        raise DistvalError(f"{path}: unknown key(s) {', '.join(unknown)}")
    if "folds" in data:  # the command line's spelling of n_folds
        data["n_folds"] = data.pop("folds")
    return data


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The suite's settings: the TOML file's, then the options given."""
    base = read_toml(args.toml) if args.toml else {}
    names = {f.name for f in dataclasses.fields(RunConfig)} | set(SUITE_KEYS)
    given = {k: v for k, v in vars(args).items() if k in names}
    out = base | given
    for key in ("streams", "learners"):
        if isinstance(out.get(key), str):
            out[key] = [out[key]]
    return out


def main(args: argparse.Namespace) -> int:
    from distval.experiments.suite import make_suite, plan_suite, suite

    s = settings(args)
    streams = s.pop("streams", None)
    if not streams:
        raise DistvalError("give the streams: --streams SPEC ... or streams = [...] in a TOML file")
    backend = s.pop("backend", "ray")
    address = ray_address(s.pop("address", None), bool(s.pop("private", False)))
    tasks = s.pop("tasks", None)
    if address is not None and backend != "ray":
        raise DistvalError("--address and --private need --backend ray")
    default = Path("distval-results") / (Path(args.toml).stem if args.toml else "suite")
    output = Path(s.pop("output", None) or default)
    final = s.pop("final", "cumulative")
    rope = s.pop("rope", 0.01)
    for key in ("learners", "tests"):
        if isinstance(s.get(key), list):
            s[key] = tuple(s[key])
    from distval.live.cli import live_suite

    with warnings.catch_warnings(), live_suite(args, output):
        warnings.simplefilter("once", DistvalWarning)  # the same notice for every stream: once
        warnings.showwarning = _one_line
        cfg = make_suite(
            streams,
            forgetting="cumulative" if final == "cumulative" else s.get("forgetting", "adwin"),
            rope=rope,
            **s,
        )
        if args.plan:
            out_dir = output if (output / "suite.json").is_file() else None
            from distval.experiments.suite.plan import RAY_START_SECONDS

            start = RAY_START_SECONDS if backend == "ray" and address in (None, "local") \
                else 0.0
            print(plan_suite(cfg, out_dir, cost_from=args.cost_from, startup=start,
                             workers=None if backend == "ray" else 1).to_text())
            return 0
        if backend == "ray":
            _say_which_ray(address, backend)
        try:
            result = suite(
                cfg,
                output_dir=output,
                overwrite=args.overwrite,
                backend=backend,
                address=address,
                n_tasks=tasks,
                progress=progress_wanted(args) or not args.no_progress,
            )
        except KeyboardInterrupt:
            print(f"\ndistval: interrupted; finished streams are in {output}", file=sys.stderr)
            return 130
    if result.complete and not result.computed:
        print(f"distval: this suite is complete in {output} (every stream finished there, on "
              "the data it reads now); nothing to compute (--overwrite computes it again)",
              file=sys.stderr)
    print(result.to_markdown())
    print(f"results: {output.absolute()}")
    return 0
