"""The verdict line says what its inputs say, in the winner's terms, and names disagreements."""

import numpy as np
import pytest

from distval.anytime import DifferenceCS, decide
from distval.verdict import (
    Crossing,
    Evidence,
    PairVerdicts,
    crossing_row,
    twin_line,
    verdict_line,
)


def evidence(**kw):
    base = dict(a="ht", b="nb", rows=45000, mean=0.042, lower=0.031, upper=0.053, level=0.95,
                decision="A", fold_diffs=np.full(10, 0.03), window_rows=1250.0,
                wilcoxon=(0.002, "ht", True))
    return Evidence(**(base | kw))


def test_b_better_is_told_in_bs_terms_with_the_interval_flipped():
    line = verdict_line(evidence(mean=-0.02, lower=-0.03, upper=-0.01, decision="B",
                                 fold_diffs=np.r_[np.full(9, -0.02), 0.01],
                                 wilcoxon=(0.01, "nb", True)))
    assert line.startswith("nb better than ht: error 2.0 points lower over 45,000 rows")
    assert "(95% CS 1.0 to 3.0)" in line
    assert "9/10 folds favour nb" in line and line.endswith("valid under peeking")


def test_a_significant_recent_window_against_the_verdict_is_named_with_the_crossing():
    line = verdict_line(evidence(wilcoxon=(0.01, "nb", True), crossing=30000))
    assert "but the recent paired windows favour nb (Wilcoxon p 0.01 on the last 1,250" in line
    assert "crossed near row 30,000" in line


def test_no_verdict_says_so_and_is_not_called_valid_under_peeking():
    line = verdict_line(evidence(mean=0.003, lower=-0.004, upper=0.01, decision="undecided",
                                 wilcoxon=(0.03, "ht", True)))
    assert line.startswith("ht vs nb: no verdict yet: error 0.3 points lower for ht over 45,000 r")
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
    assert crossing_row([(1, 0.1, 1), (2, np.nan, 1), (3, 0.0, 1), (4, 0.2, 1)]) is None
    assert crossing_row([(1000, 0.1, 50), (2000, -0.1, 50), (3000, 0.1, 450)]) == 2600
    assert "no rule named a winner (4 rules)" in twin_line("a", "b", [("x", False)] * 4)
    assert "identical" in twin_line("nb", "nb~twin", [], identical=True)


def test_crossing_one_look_at_a_time_is_the_whole_history_loop():
    # The verdict keeps a Crossing instead of every look's history: at every look it must
    # name the row the loop over the whole history names (plain loop, signs by np.sign).
    def loop(history):
        last, prev = None, 0.0
        for pos, value, width in history:
            if not np.isfinite(value) or value == 0:
                continue
            if prev and np.sign(value) != np.sign(prev):
                last = max(0, round((pos - (width if np.isfinite(width) else 0.0)) / 100) * 100)
            prev = value
        return last

    rng = np.random.default_rng(5)
    for _ in range(50):
        values = rng.choice([-0.02, -0.01, 0.0, np.nan, 0.01, 0.03], 60)
        widths = rng.choice([0.0, 50.0, 149.0, 1500.0, np.nan], 60)
        history = [
            (1000 * (i + 1), float(v), float(w)) for i, (v, w) in enumerate(zip(values, widths))
        ]
        crossing = Crossing()
        for i, look in enumerate(history):
            assert crossing.add(*look) == loop(history[: i + 1])
        assert crossing_row(history) == loop(history)


def test_pair_verdicts_follow_a_plain_loop_over_rows_and_folds():
    # three learners, non-prequential cv (each row tested by one fold), batches of any size:
    # each pair's sequence is the one of the per-row loss differences computed in a loop, at
    # alpha / 3; the fold tests cited are Holm-adjusted across the three pairs.
    from distval.anytime import confidence_sequence

    rng = np.random.default_rng(9)
    n, k = 6000, 4
    y = rng.integers(0, 2, n)
    fold = rng.integers(0, k, n)
    pred = np.full((3, k, n), -1)
    for i, err in enumerate((0.2, 0.25, 0.32)):
        guess = np.where(rng.random(n) < err, 1 - y, y)
        pred[i, fold, np.arange(n)] = guess
    v = PairVerdicts(("a", "b", "c"), n_folds=k)
    for part in np.array_split(np.arange(n), [10, 2500, 2501]):
        v.update(y[part], pred[:, :, part], np.ones(len(part), bool))
    tests = [{"test": "wilcoxon", "learner_a": a, "learner_b": b, "pvalue": p,
              "favours": a, "reject": p <= 0.05}
             for (a, b), p in zip([("a", "b"), ("a", "c"), ("b", "c")], [0.01, 0.04, 0.03])]
    _, rows = v.look(n, tests)
    for (ia, ib), row in zip([(0, 1), (0, 2), (1, 2)], rows):
        x = []
        for t in range(n):
            f = [j for j in range(k) if pred[ia, j, t] >= 0 and pred[ib, j, t] >= 0]
            x.append(np.mean([int(pred[ib, j, t] != y[t]) - int(pred[ia, j, t] != y[t])
                              for j in f]))
        m, lo, hi = confidence_sequence(np.array(x), alpha=0.05 / 3, at=[n])
        # the exact sequence, its boundary rounded up by at most 0.5 % (a table)
        assert row["mean"] == pytest.approx(m[0])
        assert m[0] - 1.005 * (m[0] - lo[0]) <= row["lower"] <= lo[0] + 1e-12
        assert hi[0] - 1e-12 <= row["upper"] <= m[0] + 1.005 * (hi[0] - m[0])
        assert row["level"] == pytest.approx(1 - 0.05 / 3)
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    holm = multitest.multipletests([0.01, 0.04, 0.03], method="holm")[1]
    assert [r["pvalue"] for r in rows] == pytest.approx(list(holm))
    assert rows[1]["decision"] == "A" and rows[1]["favours"] == "a"  # 12 points on 6,000 rows


def test_an_e_process_that_settled_for_the_other_learner_is_named():
    line = verdict_line(evidence(evalues=(("sign_evalue", 25.0, "nb", True),)))
    assert "sign evalue reached 1/alpha for nb (e-value 25, against the verdict's ht): it" in line
    assert line.endswith("valid under peeking")
    quiet = verdict_line(evidence(evalues=(("sign_evalue", 25.0, "ht", True),)))
    assert "evalue" not in quiet


def test_no_verdict_with_e_processes_for_one_learner_and_recent_windows_for_the_other():
    # the SEA(50) case of issue 26: equal cumulative error, recent windows favour ht, the
    # settled e-processes reached 1/alpha for nb early on
    line = verdict_line(evidence(mean=0.0002, lower=-0.003, upper=0.003, decision="undecided",
                                 wilcoxon=(0.014, "ht", True),
                                 evalues=(("sign_evalue", 46.5, "nb", True),)))
    assert "no verdict yet: the same error to 0.1 points over 45,000 rows" in line
    assert "Wilcoxon p 0.014 favours ht" in line
    assert "for nb (e-value 46.5, with no verdict yet): it keeps each fold" in line
