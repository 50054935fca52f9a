"""The end summary: aligned text for a terminal, Markdown for summary.md, and what ran."""

from __future__ import annotations

import pytest

import distval
from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.engine.run import Run
from distval.results import EvaluationResult


def test_a_ray_run_says_which_part_evaluated_the_rows():
    res = EvaluationResult(RunConfig(learners=("nb", "ht")), n_rows=5000, backend="ray")
    res.evaluated_by = {"driver": 5000}
    text = res.to_text()
    assert "Rows evaluated: 5000 by the driver." in text
    assert "Ray's actors evaluated no row" in text and "Ray's actors" in res.to_markdown()
    res.evaluated_by = {"driver": 2000, "actors": 3000}
    assert "2000 by the driver, 3000 by the Ray actors" in res.to_text()
    assert "evaluated no row" not in res.to_text()
    assert "Rows evaluated" not in EvaluationResult(RunConfig(), backend="inprocess").to_text()


def test_repr_is_short_and_text_tables_are_aligned():
    res = distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"), n_folds=2,
                           test_every=200)
    text = repr(res)
    assert len(text.splitlines()) <= 6 and "nb: accuracy" in text
    # the Python summary carries what the terminal says: the verdict and the baseline line
    s = res.summary()
    assert s["verdicts"][0]["line"] in text and s["baseline"]["line"] in text
    assert "baseline: every learner beats the no-change" in res.to_text()
    lines = res.to_text().splitlines()
    rules = [i for i, line in enumerate(lines) if set(line) <= {"-", " "} and line]
    firsts = [lines[i - 1].split()[0] for i in rules]
    # the pair over all rows, over the recent windows, then each learner and its cost
    assert firsts == ["A", "A", "learner", "learner"]
    for rule, first in zip(rules, firsts):
        widths = [len(part) for part in lines[rule].split("  ")]
        assert lines[rule - 1].startswith(first.ljust(widths[0]))


@pytest.mark.ray
def test_a_short_ray_job_reports_that_the_driver_did_everything(ray_local):
    from distval.ray_backend.engine import RayRun

    cfg = RunConfig(stream="sea", n_rows=5000, learners=("nb", "majority"), n_folds=2)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream, backend="ray")
    # the driver warms up on every batch: what happens when actors boot slower than the stream
    for step in RayRun(cfg, stream, n_actors=2, warm_up_batches=10**6).steps():
        run.feed(step)
    res = run.close()
    assert res.evaluated_by == {"driver": 5000}
    assert res.summary()["evaluated_by"] == {"driver": 5000}
    assert "Ray's actors evaluated no row" in res.to_text()


def test_the_null_twin_reports_every_rule_at_the_end_and_at_any_look():
    res = distval.evaluate(stream="sea", n_rows=3000, learners=("nb", "hat"), null_twin="hat",
                           n_folds=3, test_every=500, sequential="evalue")
    twin = res.summary()["null_twin"]
    assert twin["pair"] == ["hat", "hat~twin"] and not twin["identical"]
    tests = [t for t in res.test_rows if (t["learner_a"], t["learner_b"]) == ("hat", "hat~twin")]
    by_rule = {r["rule"]: r for r in twin["rules"]}
    assert set(by_rule) == {"confidence sequence"} | {t["test"] for t in tests}
    for name, rule in by_rule.items():
        if name == "confidence sequence":
            continue
        rows = [t for t in tests if t["test"] == name]
        assert rule["at_end"] == rows[-1]["reject"]
        assert rule["at_any_look"] == any(t["reject"] for t in rows)
        assert rule["anytime_valid"] == rows[-1]["anytime_valid"]
    assert twin["line"].startswith("null twin hat vs hat~twin: ")
    assert twin["line"] in " ".join(res.to_text().split()) or "null twin" in res.to_text()


def test_a_seedless_learners_twin_is_identical_and_said_to_check_nothing():
    res = distval.evaluate(stream="sea", n_rows=1000, learners=("nb", "majority"),
                           null_twin="nb", n_folds=2, test_every=500)
    twin = res.summary()["null_twin"]
    assert twin["identical"] and "identical" in twin["line"]


def test_the_null_twin_at_any_look_is_what_a_loop_over_every_check_finds():
    res = distval.evaluate(stream="sea", n_rows=6000, learners=("nb", "hat"), null_twin="hat",
                           n_folds=3, test_every=300)
    rules = {r["rule"]: r for r in res.summary()["null_twin"]["rules"]}
    tests = res.tests()
    pair = tests[(tests["learner_a"] == "hat") & (tests["learner_b"] == "hat~twin")]
    last = pair["position"].max()
    for name, rows in pair.groupby("test", sort=False):
        assert rules[name]["at_any_look"] == bool(rows["reject"].any()), name
        end = rows.iloc[-1]
        assert rules[name]["at_end"] == (bool(end["reject"]) and end["position"] == last)
    v = res.verdicts()
    v = v[(v["learner_a"] == "hat") & (v["learner_b"] == "hat~twin")]
    assert rules["confidence sequence"]["at_any_look"] == bool((v["decision"] != "undecided").any())


def test_the_measures_caption_says_what_rows_each_forgetting_covers():
    """Under cumulative forgetting the learners' table covers every row the folds tested (no
    'own window' column); under adwin it says that each learner's own window may hold other
    rows than another learner's. The Markdown summary says the same."""
    opts = {"stream": "sea", "n_rows": 600, "learners": ("nb", "majority"), "n_folds": 2,
            "test_every": 300}
    cum = distval.evaluate(forgetting="cumulative", **opts)
    text = " ".join(cum.to_text().split())
    assert "Each learner over all rows (cumulative forgetting)" in text
    assert "own window" not in text and "own windows" not in cum.to_markdown()
    adwin = " ".join(distval.evaluate(**opts).to_text().split())
    assert "over its own adwin window" in adwin and "other rows than another learner" in adwin
