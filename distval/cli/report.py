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
        help="where to write the figures, report.html and report.md (default: RESULTS_DIR)",
    )
    parser.add_argument(
        "--format",
        default="png",
        metavar="LIST",
        help="figure files, comma-separated among png, pdf, svg (default: png)",
    )
    parser.add_argument(
        "--dpi",
        type=int,
        default=None,
        help="resolution of the figure files (default: compact 90-dpi PNGs, 150 for PDF/SVG)",
    )


def main(args: argparse.Namespace) -> int:
    from distval.report import make_report

    formats = [f.strip().lower() for f in args.format.split(",") if f.strip()]
    path = make_report(args.results_dir, args.output, formats=formats, dpi=args.dpi)
    print(f"report: {path}")
    print(f"summary: {path.with_name('report.md')}")
    return 0
