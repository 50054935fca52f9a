"""``distval reproduce``: reproduce the experiments of the papers.

``distval reproduce type-errors`` runs the type I / type II error grid of bifet2015 §4.1
(Tables 2, 3 and 4; [experiments](experiments.md)) and writes the tables beside the paper's
values, with the decisions at every look (the peeking tables: "ever rejected", alpha
spending, e-process); see :mod:`distval.experiments.type_errors` for the Python API.

Example
-------
>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_arguments(p)
>>> p.parse_args(["type-errors", "--runs", "2"]).runs
2
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from distval.cli.argtypes import add_private, positive_integer, ray_address

if TYPE_CHECKING:
    from distval.experiments.type_errors import GridConfig

__all__ = ["add_arguments", "main"]


def _streams(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:  # split on commas outside parentheses: "SEA(50),HYP(10,0.001)"
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [s for s in out if s]


def _pnoise(text: str) -> tuple[float, ...]:
    """``--pnoise``: comma-separated probabilities in (0, 1)."""
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of numbers: {text!r}") from None
    if not values or any(not 0 < v < 1 for v in values):
        raise argparse.ArgumentTypeError(f"each pnoise must be in (0, 1), got {text!r}")
    return values


def _fraction(text: str) -> float:
    """``--att-noise``: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return value


def _count(text: str) -> int:
    """An int >= 0 (``--max-cells 0``: tables of the stored cells, no new cell)."""
    return 0 if text.strip() == "0" else positive_integer(text)


_PROFILE_HELP = "quick, standard, shape or paper (default: quick)"


class _PlanHelp(argparse.HelpFormatter):
    """Help whose ``--profile`` text gives each profile's cost as ``--plan`` projects it
    (computed only when the help is shown: it imports the experiment's modules)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.help is not _PROFILE_HELP:
            return action.help
        return (
            f"quick: 5 runs, 3000 rows, river bagging of 2 Hoeffding trees "
            f"({_cost('quick')}); standard: 10 runs, 50,000 rows, MOA OzaBag of 10 Hoeffding "
            f"trees ({_cost('standard')}); shape: 4 synthetic streams x 20 runs, the first "
            "10,000 rows of 1,000,000-row streams, OzaBag, noise on the training labels, "
            f"the paper's sign rule ({_cost('shape')}; one core); paper: 50 runs, whole "
            "streams (1,000,000 generated rows), MOA LeveragingBag, noise on the training "
            f"labels ({_cost('paper')}; use a cluster, --address). Costs are --plan's "
            "projection from reference per-row CPU costs, without CovType and Poker "
            "(default: quick)"
        )


def _cost(profile: str) -> str:
    """A profile's projected cost as ``--plan`` prints it (reference costs, no cell run).

    >>> _cost("paper")
    '~1,065 core-hours, ~533 h on 2 cores'
    """
    from distval.experiments.type_errors import make_grid, project

    hours = project(make_grid(profile)).core_hours
    if hours >= 10:
        return f"~{hours:,.0f} core-hours, ~{hours / 2:,.0f} h on 2 cores"
    return f"~{hours:.1f} core-hours, ~{hours * 30:.0f} min on 2 cores"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``type-errors`` under ``distval reproduce``."""
    sub = parser.add_subparsers(dest="experiment", metavar="EXPERIMENT")
    te = sub.add_parser(
        "type-errors",
        help="type I/II error rates of McNemar, Sign, Wilcoxon (bifet2015 Tables 2-4)",
        description="Run the grid streams x runs x {bootstrap, cv, split} x {non-prequential, "
        "prequential} x {McNemar, Sign, Wilcoxon} of bifet2015 §4.1 and print Tables 2-4 "
        "beside the paper's values. Finished cells are stored at once; rerunning the same "
        "command resumes.",
        formatter_class=_PlanHelp,
    )
    te.add_argument(
        "--profile",
        choices=("quick", "standard", "shape", "paper"),
        default="quick",
        help=_PROFILE_HELP,  # the costs are filled in when --help is shown (_PlanHelp)
    )
    te.add_argument("--runs", type=positive_integer, default=None, help="runs per stream")
    te.add_argument(
        "--n-rows", type=positive_integer, default=None, metavar="N", help="rows per stream"
    )
    te.add_argument("--learner", default=None, help="randomised learner (distval run syntax)")
    te.add_argument(
        "--streams",
        type=_streams,
        default=None,
        metavar="LIST",
        help="comma-separated among CovType, Electricity, Poker, LED(50000), SEA(50), "
        "SEA(50000), HYP(10,0.001), HYP(10,0.0001), RBF(0,0), RBF(50,0.001), "
        "RBF(10,0.001), RBF(50,0.0001), RBF(10,0.0001) (default: all available)",
    )
    te.add_argument("--covtype", default=None, metavar="PATH", help="CoverType file (csv/arff)")
    te.add_argument("--poker", default=None, metavar="PATH", help="Poker-Hand file (csv/arff)")
    te.add_argument(
        "--schemes",
        type=_streams,
        default=None,
        metavar="LIST",
        help="comma-separated among bootstrap, cv, split (default: all)",
    )
    te.add_argument(
        "--sign-method", choices=("exact", "critical"), default=None, help="sign test rule"
    )
    te.add_argument(
        "--noise-on",
        choices=("training", "predictions"),
        default=None,
        help="what the noise filter of the type II pair changes: the labels the filtered "
        "learner learns from (MOA AddNoiseFilter; shape and paper profiles) or its "
        "predictions (quick and standard profiles)",
    )
    te.add_argument(
        "--noise-learner",
        choices=("other", "same"),
        default=None,
        help="which learner is filtered: A' (other, default: the change holds the seed "
        "difference too) or A itself (same)",
    )
    te.add_argument(
        "--att-noise",
        type=_fraction,
        default=None,
        metavar="P",
        help="MOA AddNoiseFilter -a P on the noisy learner's stream as well (training noise "
        "only): numeric values shifted by N(0,1) x running sd x P, nominal values redrawn "
        "with probability P (default: 0, labels only)",
    )
    te.add_argument(
        "--window",
        type=positive_integer,
        default=None,
        metavar="ROWS",
        help="also decide every test on each fold's accuracy over its last ROWS tested rows "
        "(MOA EvaluatePrequential's -w 1000), in the same pass (default: off)",
    )
    te.add_argument(
        "--pnoise",
        type=_pnoise,
        default=None,
        metavar="LIST",
        help="comma-separated noise probabilities of the type II pairs (default: 0.05,0.10)",
    )
    te.add_argument("--seed", type=int, default=None, help="seed of the grid (1)")
    te.add_argument(
        "--looks",
        type=positive_integer,
        default=None,
        metavar="N",
        help="looks per stream, equally spaced: every test is decided at each, for the type I "
        "error of a user who watches the live results and for alpha spending and the "
        "e-process (default: 20)",
    )
    te.add_argument(
        "--backend",
        choices=("ray", "inprocess"),
        default="ray",
        help="ray: cells as Ray tasks, one CPU each (default); inprocess: one at a time",
    )
    te.add_argument("--address", default=None, help="join a Ray cluster ('auto', ray://...)")
    add_private(te)
    te.add_argument(
        "--max-cells",
        type=_count,
        default=None,
        metavar="N",
        help="stop after N new cells (rerun to resume); 0 only rewrites the tables of the "
        "stored cells",
    )
    te.add_argument(
        "--output",
        default=None,
        metavar="DIR",
        help="results directory (default: distval-results/type-errors-<profile>)",
    )
    te.add_argument("--overwrite", action="store_true", help="discard the cells stored in --output")
    te.add_argument("--no-progress", action="store_true", help="no progress line")
    from distval.live.cli import add_arguments as add_live_arguments

    add_live_arguments(te.add_argument_group("live page"))  # --live: cells and tables
    te.add_argument(
        "--cost-from",
        default=None,
        metavar="DIR",
        help="project with the per-row CPU costs measured by the cells of another grid's "
        "output directory (same learner), e.g. a standard run before a paper run",
    )
    te.add_argument(
        "--plan",
        action="store_true",
        help="print the grid's projected CPU cost (per cell, core-hours, cores to finish "
        "overnight) from measured per-row costs and the cells already in --output; run nothing",
    )


def main(args: argparse.Namespace) -> int:
    """Run the chosen experiment; returns the exit status."""
    import sys

    from distval.errors import DistvalError

    if getattr(args, "experiment", None) != "type-errors":
        raise DistvalError("choose an experiment: distval reproduce type-errors [options]")
    from distval.experiments.type_errors import run_grid

    address = ray_address(args.address, args.private)
    if address is not None and args.backend != "ray":
        raise DistvalError("--address and --private need --backend ray")
    config = _grid(args)
    output = Path(args.output or Path("distval-results") / f"type-errors-{args.profile}")
    _print_projection(args, config, output)
    if args.plan:
        return 0
    progress = not args.no_progress
    from distval.experiments.type_errors.live import grid_state
    from distval.live.cli import live_served

    try:
        with live_served(args, lambda: grid_state(output, config, args.backend)):
            result = run_grid(
                config,
                output_dir=output,
                overwrite=args.overwrite,
                backend=args.backend,
                address=address,
                progress=progress,
                max_cells=args.max_cells,
            )
    except KeyboardInterrupt:
        print(f"\ndistval: interrupted; finished cells are in {output}", file=sys.stderr)
        return 130
    print(result.to_markdown())
    total = len(config.streams) * config.runs * len(config.schemes)
    if len(result.cells) < total:
        print(f"\n{len(result.cells)} of {total} cells done; rerun to resume.")
    print(f"results: {output}")
    return 0


def _grid(args: argparse.Namespace) -> GridConfig:
    """The grid of the profile with the options given; notes the streams left out."""
    import sys

    from distval.experiments.type_errors import make_grid

    overrides = {
        "runs": args.runs,
        "n_rows": args.n_rows,
        "learner": args.learner,
        "sign_method": args.sign_method,
        "noise_on": args.noise_on,
        "noise_learner": args.noise_learner,
        "pnoise": args.pnoise,
        "seed": args.seed,
        "looks": args.looks,
        "window": args.window,
        "att_noise": args.att_noise,
    }
    if args.schemes is not None:
        overrides["schemes"] = tuple(args.schemes)
    config = make_grid(
        args.profile, streams=args.streams, covtype=args.covtype, poker=args.poker, **overrides
    )
    missing = [
        f"{name} (give {opt})"
        for name, opt, given in (
            ("CovType", "--covtype", args.covtype),
            ("Poker", "--poker", args.poker),
        )
        if given is None and args.streams is None
    ]
    if missing:
        print(f"note: skipping {', '.join(missing)}", file=sys.stderr)
    return config


def _print_projection(args: argparse.Namespace, config: GridConfig, output: Path) -> None:
    """The grid's projected cost from the cells in ``output`` (or ``--cost-from``'s): on
    stdout for ``--plan`` (where a projection that cannot be made is an error), else stderr."""
    import sys

    from distval.errors import DistvalError
    from distval.experiments.type_errors import (
        GridConfig,
        measured_costs,
        project,
        read_cells,
    )

    cells = read_cells(output) if (output / "grid.json").is_file() else []
    if cells:
        stored = json.loads((output / "grid.json").read_text())
        if stored.get("learner") != config.learner:
            cells = []  # another learner's costs do not project this one
    costs = None
    if args.cost_from is not None:
        source = Path(args.cost_from)
        stored = json.loads((source / "grid.json").read_text())
        if stored.get("learner") != config.learner:
            raise DistvalError(
                f"--cost-from {source}: its learner {stored.get('learner')!r} is not "
                f"{config.learner!r}"
            )
        # a cell's cost is about proportional to the learners it trains
        ratio = config.learners_per_cell / GridConfig.from_dict(stored).learners_per_cell
        costs = {k: v * ratio for k, v in measured_costs(read_cells(source)).items()}
    try:
        projection = project(config, cells, costs=costs)
    except DistvalError as exc:
        if args.plan:
            raise
        print(f"note: no projection: {exc}", file=sys.stderr)
    else:
        print(projection.to_text(), file=sys.stdout if args.plan else sys.stderr, flush=True)
