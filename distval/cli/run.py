"""``distval run``: its options, parsed into a :class:`~distval.config.RunConfig`, then the run."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from distval.cli.argtypes import integer, number, progress_wanted
from distval.config import TESTS, RunConfig
from distval.errors import DistvalError
from distval.evaluation import evaluate
from distval.metrics import FORGETTING, MEASURES
from distval.validation import FOLD_CHOICES, SCHEMES

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "main"]

HELP = "evaluate learners on a stream (default: ht vs nb, 10-fold bootstrap, Electricity)"
DESCRIPTION = (
    "Evaluate two or more learners on a stream under k-fold distributed "
    "validation, with per-fold measures and across-fold tests while the stream flows."
)

def _tests(text: str) -> tuple[str, ...]:
    if text.lower() in ("", "none"):
        return ()
    return tuple(t.strip() for t in text.split(",") if t.strip())


def add_arguments(run: argparse.ArgumentParser) -> None:
    """Options of ``distval run``."""
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


def main(args: argparse.Namespace) -> int:
    """Run ``distval run``; returns the exit status."""
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
    progress = progress_wanted(args)
    common = {
        "output_dir": output,
        "overwrite": args.overwrite,
        "progress": progress,
        "backend": args.backend,
        **options,
    }
    try:
        if args.permute:
            from distval.experiments.robustness import run_robustness

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
