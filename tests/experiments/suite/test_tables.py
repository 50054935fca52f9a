"""What a person reads of a suite: ``suite.md``, ``suite.html``, the CD diagram and the rank
figure of a tiny real suite, parsed back and checked against the streams' own runs.

nb and logreg on SEA(50), SEA(7) and Agrawal (400 rows, 2 folds): logreg is ahead by less
than the ROPE (1 point of accuracy) on both SEA streams and far behind on Agrawal. Counting
every difference would make logreg the leader (ranks 1, 1, 2); under the suite's one rule
(ties within the ROPE) nb leads (1.5, 1.5, 1). Every surface must show that one rule: one
average-rank row, its leader in bold, each stream's best rank in bold, the CD diagram's ranks
those of the table, and accuracy in percent (never a fraction like 0.7812).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import rankdata

from distval.experiments.suite import suite
from distval.experiments.suite.figures import plot_ranks

STREAMS = ["SEA(50)", "SEA(7)", "agrawal"]
LEARNERS = ("nb", "logreg")
ROPE = 0.01  # the default: 1 point of accuracy
FRACTION = re.compile(r"(?<![\d.])0\.\d{3,}")  # 0.7812, 0.0135: a share not in percent


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("suite")
    suite(STREAMS, learners=LEARNERS, n_rows=400, n_folds=2, test_every=200,
          output_dir=out, figures=True)
    return out


def _expected(out: Path) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """From each stream's own run (its summary.json): the stream names, the mean and sd of
    cumulative accuracy over folds, and each learner's rank with ties within the ROPE: per
    pair, scipy's rankdata of the two values, or 1.5 each when they differ by at most the
    ROPE; a learner's rank is 1 + what it lost in its pairs."""
    streams = json.loads((out / "suite.json").read_text())["config"]["names"]
    means, sds = [], []
    for name in streams:
        learners = json.loads((out / name / "summary.json").read_text())["learners"]
        means.append([learners[lab]["cumulative"]["accuracy"]["mean"] for lab in LEARNERS])
        sds.append([learners[lab]["cumulative"]["accuracy"]["std"] for lab in LEARNERS])
    values = np.array(means)
    ranks = np.ones_like(values)
    for s, row in enumerate(values):
        for i, j in combinations(range(len(LEARNERS)), 2):
            tie = abs(row[i] - row[j]) <= ROPE
            pair = np.array([1.5, 1.5]) if tie else rankdata(-row[[i, j]])
            ranks[s, i] += pair[0] - 1
            ranks[s, j] += pair[1] - 1
    return streams, values, np.array(sds), ranks


def _markdown_table(md: str) -> list[list[str]]:
    """The first table of ``suite.md``: its rows of cells, the separator left out."""
    lines = md.split("\n\n| stream |", 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("|").split("|") for line in ("| stream |" + lines).splitlines()]
    return [[c.strip() for c in row] for row in rows if not row[0].startswith("---")]


class _Text(HTMLParser):
    """``suite.html``'s first table (cells, each with whether it is bold) and its text."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, bool]]] = []
        self.text: list[str] = []
        self._tables = 0
        self._cell: list[str] | None = None
        self._bold = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._tables += tag == "table"
        if tag == "tr" and self._tables == 1:
            self.rows.append([])
        elif tag in ("td", "th") and self._tables == 1:
            self._cell, self._bold = [], False
        elif tag == "b":
            self._bold = True

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(("".join(self._cell), self._bold))
            self._cell = None


def _check_table(rows: list[list[tuple[str, bool]]], out: Path) -> None:
    """Header, one row per stream, one average-rank row; values in percent; bold exactly
    at each stream's best rank and at the best average rank."""
    streams, values, sds, ranks = _expected(out)
    assert [c for c, _ in rows[0]] == ["stream", *LEARNERS]
    rank_rows = [r for r in rows if "rank" in r[0][0]]
    assert len(rank_rows) == 1 and rank_rows[0][0][0] == "average rank", rank_rows
    assert [r[0][0] for r in rows[1:]] == [*streams, "average rank"]
    for row, mean, sd, rank in zip(rows[1:-1], values, sds, ranks, strict=True):
        for (cell, _), m, e in zip(row[1:], mean, sd, strict=True):
            assert not FRACTION.search(cell), cell
            got = re.fullmatch(r"(\d+\.\d) ±(\d+\.\d)", cell)
            assert got, cell
            assert float(got[1]) == pytest.approx(100 * m, abs=0.051)
            assert float(got[2]) == pytest.approx(100 * e, abs=0.051)
        assert [b for _, b in row[1:]] == [r == rank.min() for r in rank]
    average = ranks.mean(axis=0)
    shown = [float(c) for c, _ in rows[-1][1:]]
    assert shown == pytest.approx(average.tolist(), abs=0.005)
    leader = LEARNERS[int(np.argmin(average))]
    assert [b for _, b in rows[-1][1:]] == [lab == leader for lab in LEARNERS]
    assert LEARNERS[int(np.argmin(shown))] == leader


def test_the_data_has_a_tie_within_the_rope_that_every_difference_would_break(written):
    """The premise: counting every difference would lead with the other learner."""
    _, values, _, ranks = _expected(written)
    plain = rankdata(-values, axis=1).mean(axis=0)
    assert np.argmin(plain) != np.argmin(ranks.mean(axis=0))
    assert (ranks == 1.5).any()


def test_suite_md_shows_one_rank_rule_its_leader_in_bold_and_percent(written):
    md = (written / "suite.md").read_text()
    rows = [[(c.strip("*"), c.startswith("**") and c.endswith("**")) for c in row]
            for row in _markdown_table(md)]
    _check_table(rows, written)
    assert "every difference" not in md
    caption = md.split("\n\n")[1]
    assert "accuracy" in caption and "in percent" in caption and not FRACTION.search(caption)
    assert "within ± 1 point" in caption and "Bold: the best rank" in caption
    assert "ROPE ± 0.01" not in md and "(ROPE ± 1 point)" in md


def test_suite_html_shows_the_same_table(written):
    page = _Text()
    page.feed((written / "suite.html").read_text())
    _check_table(page.rows, written)
    text = "".join(page.text)
    assert "every difference" not in text and "ROPE ± 1 point" in text
    assert "ROPE ± 0.01" not in text


def test_the_figures_show_the_tables_ranks(written):
    """cd.svg's labels (matplotlib keeps each text as a comment: " nb (1.33) ") hold the
    table's average ranks; the rank figure plots each stream's ROPE-tied ranks and dashes
    their averages."""
    _, _, _, ranks = _expected(written)
    average = ranks.mean(axis=0)
    svg = (written / "cd.svg").read_text()
    drawn = dict(re.findall(r"<!--\s+(\S+) \((\d+\.\d\d)\)\s+-->", svg))
    assert drawn == {lab: f"{a:.2f}" for lab, a in zip(LEARNERS, average, strict=True)}
    data = json.loads((written / "suite.json").read_text())
    ax = plot_ranks(data).axes[0]
    lines = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    for j, line in enumerate(lines):
        assert list(line.get_ydata()) == ranks[:, j].tolist()
        assert list(dashed[j].get_ydata()) == pytest.approx([average[j]] * 2, abs=1e-4)
