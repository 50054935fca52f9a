"""Command line: ``distval run`` (and ``distval learners``).

The command line only parses arguments into a :class:`~distval.config.RunConfig` and calls
the library; bad input ends with one line ``distval: error: ...`` and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

from distval.argtypes import integer, number
from distval.config import TESTS
from distval.errors import DistvalError
from distval.metrics import FORGETTING, MEASURES
from distval.validation import FOLD_CHOICES, SCHEMES

__all__ = ["main"]

#: Further commands: module with ``add_arguments(parser)`` (light imports only) and
#: ``main(args) -> int``.
COMMANDS = {
    "describe": ("distval.describe", "stream diagnostics: classes, P(M), P(T), baselines"),
    "report": ("distval.report", "figures, HTML and Markdown report of a results directory"),
    "reproduce": ("distval.reproduce", "reproduce the paper's experiments (type I/II errors)"),
}


def _tests(text: str) -> tuple[str, ...]:
    if text.lower() in ("", "none"):
        return ()
    return tuple(t.strip() for t in text.split(",") if t.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="distval",
        description="Distributed k-fold evaluation of stream classifiers with significance tests.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser(
        "run",
        help="evaluate learners on a stream (default: ht vs nb, 10-fold bootstrap, Electricity)",
        description="Evaluate two or more learners on a stream under k-fold distributed "
        "validation, with per-fold measures and across-fold tests while the stream flows.",
    )
    g = run.add_argument_group("stream")
    g.add_argument(
        "--stream",
        default=None,
        metavar="SPEC",
        help="a .parquet/.csv/.csv.gz/.arff file, 'elec2' (bundled, default), or a "
        "generator such as 'sea', 'SEA(50)', 'HYP(10,0.001)', 'rbf(n_classes=3)'",
    )
    g.add_argument(
        "--target",
        default=None,
        metavar="COLUMN",
        help="label column of a file (default: the last column)",
    )
    g.add_argument(
        "--n-rows",
        type=integer,
        default=None,
        metavar="N",
        help="stop after N rows (generators: stream length, default 100000)",
    )
    g = run.add_argument_group("learners and validation")
    g.add_argument(
        "--learners",
        nargs="+",
        default=["ht", "nb"],
        metavar="LEARNER",
        help="built-in names (ht, hat, nb, arf, lb, logreg, majority, persistent, "
        "tc(base=...), ta(base=..., lags=...)), "
        "or package.module:Class, each optionally NAME(key=value,...)",
    )
    g.add_argument("--folds", type=integer, default=10, metavar="K", help="number of folds (10)")
    g.add_argument(
        "--scheme", choices=SCHEMES, default="bootstrap", help="validation scheme (bootstrap)"
    )
    g.add_argument(
        "--prequential",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="test every fold on every row before training (default: yes)",
    )
    g.add_argument(
        "--fold-choice",
        choices=FOLD_CHOICES,
        default="random",
        help="how cv/split pick the special fold: random (paper) or round-robin (MOA)",
    )
    g.add_argument(
        "--seed", type=integer, default=1, help="seed of fold routing, replicas and generators (1)"
    )
    g = run.add_argument_group("measures and tests")
    g.add_argument(
        "--forgetting",
        choices=FORGETTING,
        default="adwin",
        help="window of the per-fold measures (adwin)",
    )
    g.add_argument(
        "--window",
        type=integer,
        default=1000,
        metavar="W",
        help="sliding window size, also McNemar's window (1000)",
    )
    g.add_argument(
        "--fading",
        type=number,
        default=0.999,
        metavar="F",
        help="fading factor in (0, 1); ewma forgetting decays by 1 - F (0.999)",
    )
    g.add_argument("--delta", type=number, default=0.002, help="ADWIN confidence (0.002)")
    g.add_argument("--alpha", type=number, default=0.05, help="significance level (0.05)")
    g.add_argument(
        "--measure",
        choices=MEASURES,
        default="accuracy",
        help="per-fold value compared by the sign, Wilcoxon and Friedman tests",
    )
    g.add_argument(
        "--tests",
        type=_tests,
        default=None,
        metavar="LIST",
        help=f"comma-separated, among {','.join(TESTS)} (default: all), or 'none'",
    )
    g.add_argument(
        "--sign-method",
        choices=("exact", "critical"),
        default="exact",
        help="exact binomial sign test, or the paper's critical-value rule",
    )
    g.add_argument(
        "--mcnemar-alpha",
        type=number,
        default=None,
        metavar="A",
        help="significance level of McNemar's decisions (default: --alpha; 0.01 is "
        "gama2013's threshold 6.635)",
    )
    g.add_argument(
        "--drift",
        action="store_true",
        help="Page-Hinkley drift detection on each fold's error estimates "
        "(cumulative, --window, --fading, and short/long ratios); events.parquet",
    )
    g.add_argument("--ph-delta", type=number, default=0.1, help="Page-Hinkley delta (0.1)")
    g.add_argument(
        "--ph-lambda", type=number, default=100.0, help="Page-Hinkley threshold lambda (100)"
    )
    g.add_argument(
        "--test-every",
        type=integer,
        default=1000,
        metavar="N",
        help="compute measures and tests every N rows (1000)",
    )
    g = run.add_argument_group("execution and output")
    g.add_argument(
        "--backend",
        choices=("auto", "ray", "inprocess"),
        default="auto",
        help="ray: learner actors on all local cores (or a cluster with --address); "
        "inprocess: no Ray; auto (default): ray unless the job is small",
    )
    g.add_argument(
        "--address", default=None, help="join a Ray cluster: 'auto' or 'ray://host:10001'"
    )
    g.add_argument(
        "--actors",
        type=integer,
        default=None,
        metavar="N",
        help="learner actors (default: one per CPU)",
    )
    g.add_argument(
        "--batch-size",
        type=integer,
        default=1000,
        metavar="N",
        help="rows per batch sent to the learners (1000)",
    )
    g.add_argument(
        "--output",
        default=None,
        metavar="DIR",
        help="results directory (default: distval-results/run-<time>)",
    )
    g.add_argument(
        "--overwrite",
        action="store_true",
        help="allow a non-empty output directory (replaces its result files)",
    )
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g.add_argument(
        "--report",
        action="store_true",
        help="also write figures, report.html and report.md into the output directory",
    )
    g = run.add_argument_group("robustness over permuted copies of the stream")
    g.add_argument(
        "--permute",
        default=None,
        metavar="KIND[:p=P|:k=K]",
        help="evaluate on permuted copies too: time:p=0.5, speed:p=0.5, shape:k=1000, random",
    )
    g.add_argument(
        "--repeats",
        type=integer,
        default=10,
        metavar="R",
        help="number of permuted copies with --permute (10)",
    )
    sub.add_parser("learners", help="list the built-in learners")
    for name, (module, help_text) in COMMANDS.items():
        try:
            mod = importlib.import_module(module)
        except ImportError:
            continue
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        mod.add_arguments(cmd)
    return parser


def _run(args) -> int:
    from distval.config import RunConfig
    from distval.engine import evaluate

    config = RunConfig(
        stream=args.stream,
        target=args.target,
        n_rows=args.n_rows,
        learners=tuple(args.learners),
        scheme=args.scheme,
        n_folds=args.folds,
        prequential=args.prequential,
        fold_choice=args.fold_choice,
        forgetting=args.forgetting,
        window=args.window,
        fading=args.fading,
        delta=args.delta,
        alpha=args.alpha,
        measure=args.measure,
        tests=args.tests,
        sign_method=args.sign_method,
        test_every=args.test_every,
        seed=args.seed,
        batch_size=args.batch_size,
        mcnemar_alpha=args.mcnemar_alpha,
        drift=args.drift,
        ph_delta=args.ph_delta,
        ph_lambda=args.ph_lambda,
    )
    output = args.output or Path("distval-results") / time.strftime("run-%Y%m%d-%H%M%S")
    options = {}
    if args.backend != "inprocess":
        options = {"address": args.address, "n_actors": args.actors}
    elif args.address or args.actors:
        raise DistvalError("--address and --actors need --backend ray")
    if args.actors is not None and args.actors < 1:
        raise DistvalError(f"--actors must be at least 1, got {args.actors}")
    progress = (not args.no_progress and sys.stderr.isatty()) or os.environ.get("DISTVAL_PROGRESS")
    common = {
        "output_dir": output,
        "overwrite": args.overwrite,
        "progress": bool(progress),
        "backend": args.backend,
        **options,
    }
    try:
        if args.permute:
            from distval.permutations import run_robustness

            result = run_robustness(config, permute=args.permute, repeats=args.repeats, **common)
        else:
            result = evaluate(config, **common)
    except KeyboardInterrupt:
        print(f"\ndistval: interrupted; results so far are in {output}", file=sys.stderr)
        return 130
    print(result.to_markdown())
    if args.report:
        from distval.report import make_report

        print(f"report: {make_report(output)}")
    print(f"results: {output}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        if args.command == "learners":
            from distval.learners import BUILTIN, moa

            for name, (_, what) in BUILTIN.items():
                print(f"{name:12s} {what}")
            moa.print_families()
            return 0
        if args.command in COMMANDS:
            return importlib.import_module(COMMANDS[args.command][0]).main(args)
        return _run(args)
    except DistvalError as exc:
        print(f"distval: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
