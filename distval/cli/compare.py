"""``distval compare RUN_A RUN_B``: the answers of two saved runs side by side (each verdict
and its price, the tables the screen shows, what each learner cost) and their final tests."""

from __future__ import annotations

import argparse

__all__ = ["add_arguments", "main"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run_a", metavar="RUN_A", help="a run's output directory")
    parser.add_argument("run_b", metavar="RUN_B", help="another run's output directory")
    parser.add_argument(
        "--markdown", action="store_true", help="Markdown tables instead of plain text"
    )


def main(args: argparse.Namespace) -> int:
    import textwrap

    from distval.results import markdown_table, text_table
    from distval.results.compact import wrap
    from distval.results.saved import comparison

    lines = []
    for caption, cols, rows, align in comparison(args.run_a, args.run_b):
        if args.markdown:
            lines += [caption, "", markdown_table(cols, rows, align), ""]
        elif cols == ["run", "verdict"]:  # sentences: wrapped at word boundaries
            lines += textwrap.wrap(caption, 100, break_on_hyphens=False)
            for run, line in rows:
                lines += wrap(f"{run}: {line}", 100)
            lines += [""]
        else:
            lines += [*textwrap.wrap(caption.replace("`", ""), 100, break_on_hyphens=False),
                      text_table(cols, rows, align), ""]
    print("\n".join(lines).rstrip())
    return 0
