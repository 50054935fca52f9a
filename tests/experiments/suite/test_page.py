"""``suite.html`` (distval/experiments/suite/page.py) read back with html.parser: its results
table holds every value and sd in percent, the best rank of each stream in bold (ties
within the ROPE, a plain loop), one average-rank row with its best in bold, and both
figures as PNGs."""

from __future__ import annotations

import base64

import numpy as np
from screen_tables import HtmlTables

from distval.experiments.suite.page import suite_html
from distval.experiments.suite.statistics import compare


class _Page(HtmlTables):
    """The tables, and the bold texts and images beside them."""

    strip = False

    def __init__(self) -> None:
        super().__init__()
        self.bold: list[str] = []
        self.images: list[str] = []
        self._in_bold = False

    def handle_starttag(self, tag, attrs):
        super().handle_starttag(tag, attrs)
        if tag == "b":
            self._in_bold = True
        elif tag == "img":
            self.images.append(dict(attrs)["src"])

    def handle_data(self, data):
        super().handle_data(data)
        if self._in_bold:
            self.bold.append(data)

    def handle_endtag(self, tag):
        super().handle_endtag(tag)
        if tag == "b":
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
        assert row[1:] == [f"{100 * x:.1f} ±1.0" for x in v]
    tied = np.array([[1 + sum(w - u > 0.01 for w in row) + 0.5 * sum(
        abs(w - u) <= 0.01 for k, w in enumerate(row) if k != j) for j, u in enumerate(row)]
        for row in values])
    average = tied.mean(axis=0)
    want_bold = [f"{100 * x:.1f} ±1.0" for row, r in zip(values, tied)
                 for x, q in zip(row, r) if q == r.min()]
    want_bold += [f"{a:.2f}" for a in average if a == average.min()]
    assert page.bold == want_bold
    assert len(results) == 6 and results[5][0] == "average rank"  # one rank row
    assert [float(x) for x in results[5][1:]] == average.round(2).tolist()
    assert len(page.images) == 2
    for uri in page.images:
        assert base64.b64decode(uri.split(",", 1)[1])[:4] == b"\x89PNG"
