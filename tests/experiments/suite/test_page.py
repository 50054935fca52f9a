"""``suite.html`` (distval/experiments/suite/page.py) read back with html.parser: its results
table holds every value and sd, the best of each stream in bold (numpy's argmax), the
ROPE-tied and plain average ranks (a plain loop), and both figures as PNGs."""

from __future__ import annotations

import base64
from html.parser import HTMLParser

import numpy as np

from distval.experiments.suite.page import suite_html
from distval.experiments.suite.statistics import compare


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.bold: list[str] = []
        self.images: list[str] = []
        self._cell: list[str] | None = None
        self._in_bold = False

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "b":
            self._in_bold = True
        elif tag == "img":
            self.images.append(dict(attrs)["src"])

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._in_bold:
            self.bold.append(data)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None
        elif tag == "b":
            self._in_bold = False


def test_the_suite_page_holds_the_table_the_ranks_and_the_figures():
    values = np.array([[0.70, 0.8500, 0.8496], [0.72, 0.8610, 0.8594], [0.69, 0.8420, 0.8412],
                       [0.75, 0.8000, 0.8300]])
    spread = np.full_like(values, 0.01)
    learners, streams = ["nb", "ht", "majority"], ["a", "b", "c", "d"]
    res = compare(values, learners, streams=streams, spread=spread, rope=0.01, n_samples=2000)
    data = {"measure": "accuracy", "config": {"forgetting": "cumulative"},
            "comparison": res.to_dict()}
    page = _Page()
    page.feed(suite_html(data))
    results = page.tables[0]
    assert results[0] == ["stream", *learners]
    for row, v in zip(results[1:5], values):
        assert row[1:] == [f"{x:.4f} ± 0.0100" for x in v]
    assert page.bold == [f"{row.max():.4f} ± 0.0100" for row in values]
    tied = [[1 + sum(w - u > 0.01 for w in row) + 0.5 * sum(
        abs(w - u) <= 0.01 for k, w in enumerate(row) if k != j) for j, u in enumerate(row)]
        for row in values]
    assert results[5][0] == "average rank (ties within ± 0.01)"
    assert [float(x) for x in results[5][1:]] == np.mean(tied, axis=0).round(2).tolist()
    plain = np.argsort(np.argsort(-values, axis=1), axis=1) + 1  # no exact ties here
    assert [float(x) for x in results[6][1:]] == plain.mean(axis=0).round(2).tolist()
    assert len(page.images) == 2
    for uri in page.images:
        assert base64.b64decode(uri.split(",", 1)[1])[:4] == b"\x89PNG"
