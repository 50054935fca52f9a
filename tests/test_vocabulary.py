"""Issue 46: on four runs (the default job made short, a three-learner run, a ``--sequential
spending`` run and a three-learner suite) no line or table names a learner as ahead where
the verdict beside it names the other without saying why.

Checked, from the files and the result objects, with plain string parsing:

- every verdict line: a fold count for the learner the verdict puts behind comes with the
  winner's own count (both sides said);
- every live line, rebuilt from each check's saved tables with
  :func:`distval.engine.run.live_status`: the first learner named is the verdict's winner,
  or the line says that the recent paired windows favour the other;
- ``summary.md``'s tests table: a spending row that says "yes" beside a p-value above its
  limit names the earlier check's row;
- "valid under peeking" is said only of the verdict (its confidence sequence);
- the end-of-run screen (``to_text``) leads with the numbers the verdicts compare: its first
  table is each pair's accuracy on the same rows, equal to pandas' means of the saved paired
  table, and the learner it puts ahead is the verdict's winner, or the verdict line says that
  folds favour it (:mod:`screen_tables`).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest
from screen_tables import check_first_table

import distval
from distval.aggregator.snapshot import Snapshot
from distval.engine.run import live_status
from distval.experiments.suite import suite

WINNER = re.compile(r"^(\S+) better than (\S+)")


def _check_verdict_line(line: str) -> None:
    m = WINNER.match(line)
    if not m:
        return
    win, lose = m.groups()
    counts = dict((who, n) for n, who in re.findall(r"(\d+)/\d+ (?:folds )?favour (\S+?)[,;) ]",
                                                    line + " "))
    if lose in counts:  # the other side's count: only with the winner's beside it
        assert win in counts, line


def _columns(df: pd.DataFrame) -> dict[str, np.ndarray]:
    return {c: df[c].to_numpy(dtype=object if df[c].dtype == object else None) for c in df}


def _check_live_lines(res) -> int:
    folds, tests = res.folds(), res.tests()
    paired, verdicts = res.paired(), res.verdicts()
    checked = 0
    for pos in sorted(folds["position"].unique()):
        snap = Snapshot(
            int(pos), _columns(folds[folds["position"] == pos]),
            _columns(tests[tests["position"] == pos]),
            paired=_columns(paired[paired["position"] == pos]),
            verdicts=_columns(verdicts[verdicts["position"] == pos]),
        )
        line = live_status(snap, res.config)
        v = verdicts[verdicts["position"] == pos]
        decided = v[v["decision"].isin(["A", "B"])]
        if decided.empty:
            continue
        found = {n: m.start() for n in res.config.labels
                 if (m := re.search(rf"(?<![\w~(=]){re.escape(n)}(?=[ >=])", line))}
        first = min(found, key=found.get) if found else None
        winners = {r.learner_a if r.decision == "A" else r.learner_b
                   for r in decided.itertuples()}
        if first is not None and first not in winners:
            assert "recent windows favour" in line, line
        assert "valid under peeking" not in line, line
        checked += 1
    return checked


def _check_run(res) -> int:
    """The checks of the module's docstring; the number of pairs with a decided verdict
    whose same-row numbers the screen's first table was checked against."""
    for v in res.summary()["verdicts"]:
        _check_verdict_line(v["line"])
    for line in res.verdicts()["line"]:
        _check_verdict_line(line)
    assert _check_live_lines(res) > 0
    if not hasattr(res, "to_text"):  # a suite's runs, read back, have no screen
        return 0
    return check_first_table(res, higher_is_better=True, scale=100, tolerance=0.05 + 1e-9)


@pytest.mark.parametrize("options", [
    {"stream": "elec2", "n_rows": 2000, "learners": ("ht", "nb")},  # the default job, short
    {"stream": "SEA(50)", "n_rows": 2000, "learners": ("ht", "nb", "majority")},
])
def test_the_default_job_and_a_three_learner_run_name_one_leader(tmp_path, options):
    res = distval.evaluate(**options, n_folds=10, test_every=250, output_dir=tmp_path / "r")
    assert _check_run(res) >= len(options["learners"]) - 1


def test_a_spending_run_names_the_row_of_an_earlier_rejection(tmp_path):
    d = tmp_path / "spend"
    res = distval.evaluate(stream="SEA(50)", n_rows=3000, learners=("ht", "hat"), n_folds=10,
                           test_every=250, sequential="spending", output_dir=d)
    _check_run(res)
    md = (d / "summary.md").read_text()
    said = [line for line in md.splitlines() if "valid under peeking" in line]
    assert said and all(" better than " in line and line.endswith("; valid under peeking")
                        for line in said), said  # the verdict lines only
    header = next(line for line in md.splitlines() if "| reject H0 |" in line)
    cols = [c.strip() for c in header.strip("|").split("|")]
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in md.splitlines()
            if line.startswith("| ht | hat |")]
    rows = [r for r in rows if len(r) == len(cols)]  # the tests table's (not the Q table's)
    assert rows
    for r in rows:
        p, limit, reject = (r[cols.index("p-value")], r[cols.index("p limit")],
                            r[cols.index("reject H0")])
        if reject.startswith("yes") and float(p.replace("< ", "")) > float(limit):
            assert re.match(r"yes, at row [\d,]+ \(p [\d.e+-]+, for \w+\)", reject), r


def test_a_three_learner_suite_names_its_ranking_and_its_runs_one_leader(tmp_path):
    out = tmp_path / "suite"
    suite(["SEA(50)", "elec2"], learners=("ht", "nb", "majority"), n_rows=800, n_folds=10,
          test_every=200, output_dir=out, figures=False)
    data = json.loads((out / "suite.json").read_text())
    md = (out / "suite.md").read_text()
    points = 100 * data["comparison"]["rope"]  # accuracy prints in percent: the ROPE in points
    assert f"within ± {points:g} point" in md
    assert "over all rows (cumulative)" in md and "p = <" not in md
    for name in ("SEA-50", "elec2"):
        _check_run(distval.load_results(out / name))
