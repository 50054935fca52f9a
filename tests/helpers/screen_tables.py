"""The end-of-run screen's tables read back as a person reads them, and checked against the
run's saved tables with pandas (tests only)."""

from __future__ import annotations

import itertools
import re
from html.parser import HTMLParser

import pandas as pd

from distval.statistics.verdict import short_names

_NUMBER = re.compile(r"[+-]?\d+(?:\.\d+)?")


def columns_of(lines: list[str]) -> list[list[str]]:
    """An aligned text table (header, a rule of dashes, rows) cut into cells by its rule."""
    spans, start = [], None
    for i, c in enumerate(lines[1] + " "):
        if c == "-" and start is None:
            start = i
        elif c != "-" and start is not None:
            spans.append((start, i))
            start = None
    cuts = [0, *(b for _, b in spans[:-1]), None]
    return [[line[a:b].strip() for a, b in itertools.pairwise(cuts)] for line in lines]


def tables(text: str) -> dict[str, list[list[str]]]:
    """Every aligned table of a screen, by its third column's title (``A, all rows``,
    ``A, recent windows``, ...): header then rows."""
    lines = text.splitlines()
    out: dict[str, list[list[str]]] = {}
    for i in range(1, len(lines)):
        if lines[i] and set(lines[i]) <= {"-", " "} and i >= 1 and lines[i - 1].strip():
            end = next((j for j in range(i + 1, len(lines)) if not lines[j].strip()),
                       len(lines))
            cells = columns_of(lines[i - 1:end])
            out.setdefault(cells[0][2] if len(cells[0]) > 2 else cells[0][0],
                           [cells[0], *cells[2:]])
    return out


def first(cell: str) -> float:
    """The first number of a cell (``94.6 ±0.1`` -> 94.6, ``+1.3 pts (0.8 to 1.8)`` -> 1.3)."""
    m = _NUMBER.search(cell)
    assert m, cell
    return float(m[0])


def first_table(text: str) -> list[list[str]]:
    """The rows of the table of what the verdicts rest on (header ``A  B  A, all rows ...``)."""
    table = tables(text)["A, all rows"]
    assert table[0][:2] == ["A", "B"], table[0]
    return table[1:]


def check_first_table(res, *, higher_is_better: bool, scale: float, tolerance: float,
                      diff_scale: float = 100.0) -> int:
    """The screen's first table (``res.to_text()``) against pandas on the run's tables: each
    row's A is the learner its verdict puts ahead (decided: the winner; else the side of the
    running mean); A's and B's values over all rows are the mean over folds of the verdict's
    measure under cumulative forgetting at the last position; A − B is the verdict's running
    mean (``diff_scale`` times, on A's side, to its one decimal); the recent windows are the
    paired table's means (``higher_is_better``: kept for the callers' reading).
    Returns the number of pairs with a decided verdict."""
    text = res.to_text()
    return check_pair_rows(res, first_table(text),
                           tables(text).get("A, recent windows", [])[1:], scale=scale,
                           tolerance=tolerance, diff_scale=diff_scale)


def markdown_tables(text: str) -> dict[str, list[list[str]]]:
    """Every Markdown table of a page, by its third column's title: header then rows."""
    out: dict[str, list[list[str]]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("| ") and lines[i + 1].startswith("|---"):
            rows = []
            for row in lines[i:]:
                if not row.startswith("|"):
                    break
                rows.append([c.strip() for c in row.strip().strip("|").split(" | ")])
            head = rows[0]
            out.setdefault(head[2] if len(head) > 2 else head[0], [head, *rows[2:]])
    return out


def check_pair_rows(res, rows, recent, *, scale: float = 100.0, tolerance: float = 0.05 + 1e-9,
                    diff_scale: float = 100.0) -> int:
    """:func:`check_first_table` on rows read from any surface (``recent``: the recent
    windows' rows, A, B, A's value, B's value, ...)."""
    recent_rows = {(r[0], r[1]): r for r in recent}
    cfg = res.config
    names = short_names(cfg.labels)
    label = {v: k for k, v in names.items()}
    verdicts = res.verdicts()
    verdicts = verdicts[verdicts["position"] == verdicts["position"].max()]
    assert len(rows) == len(verdicts)
    folds = res.folds()
    last = folds[(folds["position"] == folds["position"].max())
                 & (folds["forgetting"] == "cumulative")]
    total = cfg.measure
    recent = paired_means(res)
    decided = 0
    for row in rows:
        a, b = label[row[0]], label[row[1]]
        v = verdicts[((verdicts["learner_a"] == a) & (verdicts["learner_b"] == b))
                     | ((verdicts["learner_a"] == b) & (verdicts["learner_b"] == a))].iloc[0]
        mean = float(v["mean"])
        if v["decision"] in ("A", "B"):
            decided += 1
            winner = v["learner_a"] if v["decision"] == "A" else v["learner_b"]
        else:
            winner = v["learner_a"] if mean >= 0 else v["learner_b"]
        assert a == winner, (row, v["decision"], mean)
        for name, cell in ((a, row[2]), (b, row[3])):
            want = scale * last[last["learner"] == name][total].mean()
            assert abs(first(cell) - want) <= tolerance, (name, cell, want)
        if mean == mean:
            assert abs(first(row[4]) - diff_scale * abs(mean)) <= 0.05 + 1e-9, (row[4], mean)
            assert not row[4].startswith("-")
        pair = (v["learner_a"], v["learner_b"])
        if pair in recent.index:
            m = recent.loc[pair]
            ra, rb = (m["value_a"], m["value_b"]) if pair[0] == a else (m["value_b"],
                                                                        m["value_a"])
            r = recent_rows[(row[0], row[1])]  # the same pair, in the same order
            assert abs(first(r[2]) - scale * ra) <= tolerance, (r[2], ra)
            assert abs(first(r[3]) - scale * rb) <= tolerance, (r[3], rb)
    return decided


def paired_means(res) -> pd.DataFrame:
    """Per pair (the index), A's and B's mean over the folds where both have a value at the
    last position of ``res.paired()`` (a saved run's ``res.paired``) and the number of those
    folds."""
    paired = res.paired() if callable(res.paired) else res.paired
    last = paired[paired["position"] == paired["position"].max()]
    both = last.dropna(subset=["value_a", "value_b"]).groupby(["learner_a", "learner_b"],
                                                              sort=False)
    return both[["value_a", "value_b"]].mean().assign(folds=both.size())


class HtmlTables(HTMLParser):
    """Every ``<table>`` of a page as rows of cell texts (``strip``: without the spaces
    around them); subclasses read more of the page through the same hooks."""

    strip = True

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            text = "".join(self._cell)
            self.tables[-1][-1].append(text.strip() if self.strip else text)
            self._cell = None
