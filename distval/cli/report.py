"""``distval report RESULTS_DIR``: figures, report.html and report.md of a results directory;
for a suite's directory (one with ``suite.json``) its tables and figures."""

from __future__ import annotations

import argparse

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "results_dir", metavar="RESULTS_DIR", help="a run's (or a suite's) output directory"
    )
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
    from distval.live.cli import add_arguments as add_live_arguments

    add_live_arguments(parser)  # --live: serve the run's live page instead


def main(args: argparse.Namespace) -> int:
    from pathlib import Path

    if args.live:
        from distval.live.cli import serve_directory, serve_until_interrupted

        if (Path(args.results_dir) / "grid.json").is_file():  # a type I/II grid's
            from distval.experiments.type_errors.live import ended_grid_state

            return serve_until_interrupted(args, ended_grid_state(args.results_dir))
        return serve_directory(args, args.results_dir)
    if (Path(args.results_dir) / "suite.json").is_file():
        return _suite_report(args)
    from distval.report import make_report

    formats = [f.strip().lower() for f in args.format.split(",") if f.strip()]
    path = make_report(args.results_dir, args.output, formats=formats, dpi=args.dpi)
    print(f"report: {path}")
    print(f"summary: {path.with_name('report.md')}")
    return 0


def _suite_report(args: argparse.Namespace) -> int:
    """A suite's directory: its tables (Markdown, LaTeX) and figures, from ``suite.json``."""
    from pathlib import Path

    from distval.errors import DistvalError
    from distval.experiments.suite import load_suite
    from distval.experiments.suite.figures import write_figures
    from distval.experiments.suite.page import write_suite_page
    from distval.experiments.suite.tables import write_suite_files

    data = load_suite(args.results_dir)
    out = Path(args.output or args.results_dir)
    out.mkdir(parents=True, exist_ok=True)
    formats = tuple(f.strip().lower() for f in args.format.split(",") if f.strip())
    bad = sorted(set(formats) - {"png", "pdf", "svg"})
    if bad:
        raise DistvalError(f"--format: unknown {', '.join(bad)}; choose among png, pdf, svg")
    written = write_suite_files(out, data, figures=False)
    written += write_figures(out, data, tuple(dict.fromkeys(("svg", "pdf", *formats))))
    written.append(write_suite_page(out, data))
    for path in written:
        print(f"wrote {path}")
    return 0
