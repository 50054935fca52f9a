"""``_repr_html_`` of a run's result (distval/results/notebook.py), read back with the standard
library's HTML parser: the verdict cells are the result's verdict lines, the first measures
table is each pair's accuracy on the same rows (pandas' means of the saved paired table), the
own-window table's cumulative accuracy is the folds' mean and sd computed here with numpy,
and the figure is a PNG that Pillow opens."""

from __future__ import annotations

import base64
import io
from html.parser import HTMLParser

import numpy as np
from PIL import Image
from screen_tables import paired_means

import distval


class _Page(HTMLParser):
    """The text of every cell by table, the verdict cells, the baseline and the images."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.verdicts: list[str] = []
        self.baseline = ""
        self.images: list[str] = []
        self._cell: list[str] | None = None
        self._kind = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th", "p"):
            self._cell, self._kind = [], (a.get("class") or tag)
        elif tag == "img":
            self.images.append(a["src"] or "")

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "p") and self._cell is not None:
            text = "".join(self._cell)
            if self._kind == "verdict":
                self.verdicts.append(text)
            if self._kind == "baseline":
                self.baseline = text
            if tag != "p":
                self.tables[-1][-1].append(text)
            self._cell = None


def test_a_result_in_jupyter_shows_its_verdicts_measures_and_a_figure():
    res = distval.evaluate(stream="sea", n_rows=900, learners=("nb", "majority", "ht"),
                           n_folds=3, test_every=300)
    page = _Page()
    page.feed(res._repr_html_())
    s = res.summary()
    assert page.verdicts == [v["line"] for v in s["verdicts"]] and len(page.verdicts) == 3
    assert page.baseline == s["baseline"]["line"]
    # the verdicts, all rows, the recent windows, the learners, their cost
    assert len(page.tables) == 5
    recent = page.tables[2]
    assert recent[0] == ["A", "B", "A, recent windows", "B, recent windows", "folds"]
    want = paired_means(res)
    assert len(recent) - 1 == len(want) == 3
    for a, b, va, vb, folds in recent[1:]:
        pair, flip = ((a, b), False) if (a, b) in want.index else ((b, a), True)
        m = want.loc[pair]
        wa, wb = (m["value_b"], m["value_a"]) if flip else (m["value_a"], m["value_b"])
        assert [float(va.split(" ±")[0]), float(vb.split(" ±")[0]), int(folds)] == [
            round(100 * wa, 1), round(100 * wb, 1), m["folds"]]
    measures = page.tables[3]
    head = measures[0]
    assert head[2] == "accuracy (own)"
    col = head.index("accuracy, all rows")
    final = res.final_folds()
    for row in measures[1:]:
        acc = final[(final["learner"] == row[0]) & (final["forgetting"] == "cumulative")]
        acc = acc["accuracy"].to_numpy(dtype=float)
        assert row[col] == f"{100 * acc.mean():.1f} ±{100 * np.std(acc, ddof=1):.1f}"
    assert [r[0] for r in measures[1:]] == ["nb", "majority", "ht"]
    (uri,) = page.images
    assert uri.startswith("data:image/png;base64,")
    png = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))
    assert png.format == "PNG" and png.size[0] > 300
