"""MkDocs hook: every marked table of a page is drawn from its benchmark's result file.

A page marks a table with ``<!-- result: NAME KEY -->`` ... ``<!-- /result -->``; on every
build the block is replaced by table ``KEY`` of ``benchmarks/results/NAME.json`` and a line
naming the benchmark, its date and machine (:func:`benchmarks.render.render_page`). A result
file or table that is missing fails the build. ``python -m benchmarks.render --check`` holds
the committed pages (the README's Times table among them) to the same files.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.render import MissingResult, render_page


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """The page's Markdown with its result tables drawn from the result files."""
    try:
        return render_page(markdown)
    except MissingResult as e:
        raise PluginError(f"{page.file.src_path}: {e}") from e
