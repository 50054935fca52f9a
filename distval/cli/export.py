"""``distval export RESULTS_DIR``: every table of a results directory as a CSV file."""

from __future__ import annotations

import argparse

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_dir", metavar="RESULTS_DIR", help="a run's output directory")
    parser.add_argument(
        "--output",
        default=None,
        metavar="DIR",
        help="where to write folds.csv, tests.csv, q.csv, events.csv, paired.csv, "
        "verdicts.csv and cost.csv (a regression run: q.csv and events.csv empty) "
        "(default: RESULTS_DIR/csv)",
    )


def main(args: argparse.Namespace) -> int:
    from distval.results.saved import export_csv

    for path in export_csv(args.results_dir, args.output):
        print(path)
    return 0
