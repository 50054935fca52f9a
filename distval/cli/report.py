"""``distval report RESULTS_DIR``: figures, report.html and report.md of a results directory."""

from __future__ import annotations

import argparse

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results_dir", metavar="RESULTS_DIR", help="a run's output directory")
    parser.add_argument(
        "--output",
        default=None,
        metavar="DIR",
        help="where to write the PNG figures, report.html and report.md (default: RESULTS_DIR)",
    )


def main(args: argparse.Namespace) -> int:
    from distval.report import make_report

    path = make_report(args.results_dir, args.output)
    print(f"report: {path}")
    print(f"summary: {path.with_name('report.md')}")
    return 0
