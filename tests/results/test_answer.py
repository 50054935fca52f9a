"""One answer, read as a person reads it: on a run whose recent paired windows favour the
learner the verdict puts behind (SGD against naive Bayes on SEA: the curves cross), the
screen, ``summary.md``, ``report.md`` and the notebook show the same pair table; each row puts
the verdict's winner first, its values over all rows are pandas' means of the saved fold
table, A − B is the verdict's running mean, the recent windows are labelled and equal
pandas' means of the paired table; no accuracy prints as a fraction; every "pts" of the live
line is said with its basis. (Before this model the table under the verdict named the loser
ahead, unlabelled, and repr printed ``accuracy 0.8286``.)"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from screen_tables import HtmlTables, check_pair_rows, first_table, markdown_tables, tables

import distval
from distval.aggregator.snapshot import Snapshot
from distval.cli import main as cli_main
from distval.engine.run import live_status
from distval.live import LiveState
from distval.report import make_report
from distval.streams import open_stream


@pytest.fixture(scope="module")
def crossing(tmp_path_factory):
    d = tmp_path_factory.mktemp("crossing")
    res = distval.evaluate(stream="sea", n_rows=12000, n_folds=6, test_every=2000,
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
    html = HtmlTables()
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


def test_the_live_pages_charts_draw_in_the_texts_units(crossing):
    """Each point of the live page's fold chart is 100 × pandas' mean over folds of the saved
    fold table (percent, as the text), each point of its verdict chart 100 × the verdict
    table's running mean (points), under axis titles that say so. (Before: fractions, 0–0.1
    under "difference".)"""
    d, res = crossing
    charts = json.loads(LiveState.from_directory(d).to_json())["charts"]
    assert charts["axes"] == {"folds": "accuracy (%)", "verdict": "accuracy difference (pts)"}
    folds = res.folds()
    primary = folds[folds["forgetting"] == res.config.forgetting]
    for label, drawn in charts["folds"].items():
        want = primary[primary["learner"] == label].groupby("position")["accuracy"].mean()
        assert drawn["mean"]["x"] == want.index.tolist()
        np.testing.assert_allclose(drawn["mean"]["y"], 100 * want.to_numpy(), rtol=1e-12)
    v = res.verdicts()
    (pair,) = charts["pairs"]
    for part in ("mean", "lower", "upper"):
        np.testing.assert_allclose(pair[part]["y"], 100 * v[part].to_numpy(), rtol=1e-12)
    assert max(abs(y) for y in pair["mean"]["y"]) > 0.5  # points, not a fraction


def test_the_notebook_figure_draws_in_percent(crossing):
    _, res = crossing
    ax = res.plot().axes[0]
    assert ax.get_ylabel().startswith("accuracy (%)")
    folds = res.folds()
    primary = folds[folds["forgetting"] == res.config.forgetting]
    for line in ax.get_lines():
        want = primary[primary["learner"] == line.get_label()].groupby("position")["accuracy"]
        np.testing.assert_allclose(line.get_ydata(), 100 * want.mean().to_numpy(), rtol=1e-12)


def test_describe_prints_shares_in_percent(capsys):
    """``distval describe elec2``: P(M), P(T) and the two baselines' accuracies are numpy's
    shares of the label sequence, in percent ("Persistent acc. 0.8533" before)."""
    assert cli_main(["describe", "elec2", "--lags", "1", "--no-progress"]) == 0
    text = capsys.readouterr().out
    head, row = (line for line in text.splitlines() if line.startswith("| ") and "---" not in
                 line and ("rows" in line or "45,312" in line))
    cells = dict(zip(head.strip("| ").split(" | "), row.strip("| ").split(" | ")))
    y = np.concatenate([c.y for c in open_stream("elec2").chunks(10_000)]).astype(str)
    _, counts = np.unique(y, return_counts=True)
    persistent = np.mean(y[1:] == y[:-1])
    for name, share in (("P(M)", counts.max() / len(y)), ("P(T)", persistent),
                        ("Persistent acc.", persistent)):
        assert re.fullmatch(r"\d+\.\d %", cells[name]), cells
        assert float(cells[name][:-2]) == pytest.approx(100 * share, abs=0.05 + 1e-9)
    assert not re.search(r"\b0\.\d{4}\b", text), text
