"""One answer, read as a person reads it: on a run whose recent paired windows favour the
learner the verdict puts behind (SGD against naive Bayes on SEA: the curves cross), the
screen, ``summary.md``, ``report.md`` and the notebook show the same pair table; each row puts
the verdict's winner first, its values over all rows are pandas' means of the saved fold
table, A − B is the verdict's running mean, the recent windows are labelled and equal
pandas' means of the paired table; no accuracy prints as a fraction; every "pts" of the live
line is said with its basis. (Before this model the table under the verdict named the loser
ahead, unlabelled, and repr printed ``accuracy 0.8286``.)"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pandas as pd
import pytest
from screen_tables import check_pair_rows, first_table, markdown_tables, tables

import distval
from distval.aggregator.snapshot import Snapshot
from distval.engine.run import live_status
from distval.report import make_report


@pytest.fixture(scope="module")
def crossing(tmp_path_factory):
    d = tmp_path_factory.mktemp("crossing")
    res = distval.evaluate(stream="sea", n_rows=20000, n_folds=10, test_every=2000,
                           learners={"sgd": "sklearn:SGDClassifier(loss='log_loss')",
                                     "nb": "nb"}, output_dir=d)
    make_report(d)
    return d, res


def test_the_premise_the_recent_windows_favour_the_verdicts_loser(crossing):
    _, res = crossing
    v = res.verdicts()
    v = v[v["position"] == v["position"].max()].iloc[0]
    paired = res.paired()
    last = paired[paired["position"] == paired["position"].max()]
    winner = v["learner_a"] if v["decision"] == "A" else v["learner_b"]
    ahead = v["learner_a"] if last["value_a"].mean() > last["value_b"].mean() else v["learner_b"]
    assert v["decision"] in ("A", "B") and ahead != winner


def test_every_surface_shows_the_answers_pair_table(crossing):
    d, res = crossing
    screen = res.to_text()
    assert check_pair_rows(res, first_table(screen),
                           tables(screen)["A, recent windows"][1:]) == 1
    for page in ("summary.md", "report.md"):
        md = markdown_tables((d / page).read_text())
        assert check_pair_rows(res, md["A, all rows"][1:], md["A, recent windows"][1:]) == 1
    html = _HtmlTables()
    html.feed(res._repr_html_())
    by_head = {t[0][2]: t for t in html.tables if len(t[0]) > 2}
    assert check_pair_rows(res, by_head["A, all rows"][1:],
                           by_head["A, recent windows"][1:]) == 1


def test_no_accuracy_prints_as_a_fraction(crossing):
    d, res = crossing
    text = repr(res)
    assert not re.search(r"accuracy 0\.\d", text), text
    folds = res.final_folds()
    cum = folds[folds["forgetting"] == "cumulative"].groupby("learner")["accuracy"].mean()
    for label, acc in cum.items():
        assert f"{label}: accuracy {100 * acc:.1f} % over all rows" in text
    tests = markdown_tables((d / "summary.md").read_text())["test"]
    head = tests[0]
    for row in tests[1:]:
        if row[head.index("compares")].startswith("accuracy"):
            assert all(float(row[i]) > 1 for i in (4, 5)), row  # percent, not 0.9xxx


def _columns(df: pd.DataFrame) -> dict:
    return {c: df[c].to_numpy(dtype=object if df[c].dtype == object else None) for c in df}


def test_every_points_of_the_live_line_says_its_basis(crossing):
    _, res = crossing
    folds, tests, paired, verdicts = res.folds(), res.tests(), res.paired(), res.verdicts()
    seen = 0
    for pos in sorted(folds["position"].unique()):
        snap = Snapshot(int(pos), _columns(folds[folds["position"] == pos]),
                        _columns(tests[tests["position"] == pos]),
                        paired=_columns(paired[paired["position"] == pos]),
                        verdicts=_columns(verdicts[verdicts["position"] == pos]))
        for part in live_status(snap, res.config).split(" | "):
            for m in re.finditer(r"pts", part):
                seen += 1
                assert part[m.end():].startswith(" over all rows") or part.startswith(
                    "recent windows"), part
    assert seen


class _HtmlTables(HTMLParser):
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
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
