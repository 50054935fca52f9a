"""Tables as text: the one Markdown table writer and aligned plain text for a terminal."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["markdown_table", "text_table"]


def markdown_table(
    columns: Iterable[object], rows: Iterable[Iterable[object]], align: str | None = None
) -> str:
    """The one Markdown table writer: a header, a rule and one line per row.

    ``align`` has one character per column, ``l`` or ``r`` (default: every column left).

    >>> print(markdown_table(["a", "b"], [[1, "x"]], align="rl"))
    | a | b |
    |---:|---|
    | 1 | x |
    """
    cols = [str(c) for c in columns]
    rule = ["---:" if a == "r" else "---" for a in (align or "l" * len(cols))]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(
    columns: Iterable[object], rows: Iterable[Iterable[object]], align: str | None = None
) -> str:
    """Columns padded to their widest cell, a rule under the header (for a terminal).

    >>> print(text_table(["a", "bb"], [[10, "x"]], align="rl"))
     a  bb
    --  --
    10  x
    """
    cols = [str(c) for c in columns]
    cells = [[str(v) for v in r] for r in rows]
    widths = [max(len(x) for x in [c, *(r[i] for r in cells)]) for i, c in enumerate(cols)]
    align = align or "l" * len(cols)

    def line(values: Sequence[str]) -> str:
        out = [v.rjust(w) if a == "r" else v.ljust(w) for v, w, a in zip(values, widths, align)]
        return "  ".join(out).rstrip()

    return "\n".join([line(cols), line(["-" * w for w in widths]), *map(line, cells)])

