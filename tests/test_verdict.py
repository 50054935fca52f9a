"""The verdict line says what its inputs say, in the winner's terms, and names disagreements."""

import numpy as np

from distval.anytime import DifferenceCS, decide
from distval.verdict import Evidence, crossing_row, twin_line, verdict_line


def evidence(**kw):
    base = dict(a="ht", b="nb", rows=45000, mean=0.042, lower=0.031, upper=0.053, level=0.95,
                decision="A", fold_diffs=np.full(10, 0.03), window_rows=1250.0,
                wilcoxon=(0.002, "ht", True))
    return Evidence(**(base | kw))


def test_b_better_is_told_in_bs_terms_with_the_interval_flipped():
    line = verdict_line(evidence(mean=-0.02, lower=-0.03, upper=-0.01, decision="B",
                                 fold_diffs=np.r_[np.full(9, -0.02), 0.01],
                                 wilcoxon=(0.01, "nb", True)))
    assert line.startswith("nb better than ht: error 2.0 points lower (95% CS 1.0 to 3.0)")
    assert "9/10 folds" in line and line.endswith("valid under peeking")


def test_a_significant_recent_window_against_the_verdict_is_named_with_the_crossing():
    line = verdict_line(evidence(wilcoxon=(0.01, "nb", True), crossing=30000))
    assert "but the recent paired windows favour nb (Wilcoxon p 0.01 on the last 1,250" in line
    assert "crossed near row 30,000" in line


def test_no_verdict_says_so_and_is_not_called_valid_under_peeking():
    line = verdict_line(evidence(mean=0.003, lower=-0.004, upper=0.01, decision="undecided",
                                 wilcoxon=(0.03, "ht", True)))
    assert line.startswith("ht vs nb: no verdict yet: error 0.3 points lower for ht so far")
    assert "not yet confirmed by the sequence" in line
    assert "valid under peeking" not in line


def test_equivalence_within_a_margin():
    line = verdict_line(evidence(mean=0.001, lower=-0.004, upper=0.006, decision="equivalent",
                                 margin=0.01, wilcoxon=(0.5, None, False)))
    assert line.startswith("ht and nb equivalent within 1.0 points")
    assert line.endswith("valid under peeking")


def test_the_decision_of_a_real_sequence_reads_the_same_in_the_line():
    rng = np.random.default_rng(3)
    cs = DifferenceCS()
    cs.update(-(rng.random(30000) < 0.08).astype(float) + (rng.random(30000) < 0.05))
    d = cs.to_dict()
    assert d["decision"] == decide(cs.lower, cs.upper) == "B"
    line = verdict_line(evidence(mean=cs.mean, lower=cs.lower, upper=cs.upper,
                                 decision=d["decision"], wilcoxon=None))
    lo, hi = -100 * cs.upper, -100 * cs.lower
    assert f"(95% CS {lo:.1f} to {hi:.1f})" in line and line.startswith("nb better than ht")


def test_crossing_and_twin_lines():
    assert crossing_row([(1, 0.1), (2, np.nan), (3, 0.0), (4, 0.2)]) is None
    assert crossing_row([(1, 0.1), (2, -0.1), (3, 0.1)]) == 3
    assert "no rule named a winner (4 rules)" in twin_line("a", "b", [("x", False)] * 4)
    assert "identical" in twin_line("nb", "nb~twin", [], identical=True)
