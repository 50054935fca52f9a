"""The verdict line says what its inputs say, in the winner's terms, and names disagreements."""

import numpy as np
import pytest

from distval.statistics.anytime import DifferenceCS, decide
from distval.statistics.pair_verdicts import PairVerdicts
from distval.statistics.verdict import Crossing, Evidence, crossing_row, twin_line, verdict_line


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
    from distval.statistics.anytime import confidence_sequence

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


# -- probabilistic measures -----------------------------------------------------------------


def sklearn_row_loss(measure: str, y: int, p: np.ndarray) -> float:
    """One row's loss by scikit-learn: Brier of p[1] (two classes), log-loss with p[y] clipped
    below at 1e-4 (the documented floor) by capping scikit-learn's loss at -log(1e-4)."""
    from sklearn.metrics import brier_score_loss, log_loss

    if measure == "brier":
        return float(brier_score_loss([y], [p[1]], pos_label=1))
    return min(float(log_loss([y], [p], labels=[0, 1])), -np.log(1e-4))


def probabilistic_feed(measure: str, n: int = 400, k: int = 6, seed: int = 0):
    """An aggregator of learners a (informed) and b (noise) fed (predictions, probabilities)
    with random tested rows; the rows, probabilities and tested masks fed."""
    from distval.aggregator.core import Aggregator
    from distval.aggregator.settings import ComparisonSettings, TrackerSettings

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p_a = np.clip(np.where(y == 1, 0.8, 0.2) + rng.normal(0, 0.15, (k, n)), 0, 1)
    p_a[:, :5] = np.where(y[:5] == 1, 0.0, 1.0)  # confidently wrong: log-loss hits the floor
    p_b = rng.random((k, n))
    p1 = np.concatenate([p_a, p_b])  # slots: learner-major
    proba = np.stack([1 - p1, p1], axis=2)
    tested = rng.random((2 * k, n)) < 0.7
    pred = np.where(tested, (p1 > 0.5).astype(np.int64), -1)
    agg = Aggregator(["a", "b"], k, trackers=TrackerSettings(forgetting="window", window=150),
                     comparison=ComparisonSettings(measure=measure), test_every=n,
                     n_classes=2)
    snaps = []
    for lo in range(0, n, 100):
        part = (pred[:, lo:lo + 100], proba[:, lo:lo + 100])
        snap = agg.update(lo, y[lo:lo + 100], [(np.arange(2 * k), part)])
        snaps += [snap] if snap else []
    return agg, snaps, y, proba, tested


@pytest.mark.parametrize("measure", ["brier", "log_loss"])
def test_loss_sequence_is_the_running_mean_of_sklearn_per_row_differences(measure):
    """The pair's sequence runs over each row's mean over folds of loss_b - loss_a on the
    folds that tested the row with both learners, each loss scikit-learn's for that row."""
    k = 6
    agg, _, y, proba, tested = probabilistic_feed(measure, k=k)
    xs = []
    for i in range(len(y)):
        d = [sklearn_row_loss(measure, int(y[i]), proba[k + f, i])
             - sklearn_row_loss(measure, int(y[i]), proba[f, i])
             for f in range(k) if tested[f, i] and tested[k + f, i]]
        if d:
            xs.append(np.mean(d))
    cs = agg.verdicts.sequences[0]
    assert cs.t == len(xs)
    assert cs.mean == pytest.approx(np.mean(xs), rel=1e-12)
    bound = 1.0 if measure == "brier" else -np.log(1e-4)
    assert (cs.lo, cs.hi) == pytest.approx((-bound, bound))
    assert max(abs(x) for x in xs) > (0.5 if measure == "brier" else 5.0)  # floor reached


@pytest.mark.parametrize("measure", ["brier", "log_loss", "auc"])
def test_probabilistic_verdicts_name_the_better_learner(measure):
    """a's probabilities are informed, b's are noise: the verdict names a (by the sequence
    for the losses, by the fold test for AUC) and the line says which evidence it used."""
    _, snaps, *_ = probabilistic_feed(measure, n=3000, k=6)
    row = {k: v[0] for k, v in snaps[-1].verdicts.items()}
    assert row["decision"] == "A" and row["favours"] == "a"
    assert len(snaps[-1].paired["fold"]) == 6  # the paired windows: one per fold
    line = row["line"]
    if measure == "auc":
        assert line.startswith("a better than b: AUC") and "no confidence sequence" in line
        assert "on the last 150 paired rows" in line
        assert row["test"] == "wilcoxon" and row["pvalue"] <= 0.05
    else:
        name = {"brier": "Brier score", "log_loss": "log-loss"}[measure]
        assert line.startswith(f"a better than b: {name} ") and line.endswith("peeking")
        assert 0 < row["lower"] <= row["mean"] <= row["upper"]


@pytest.mark.parametrize("measure", ["auc", "brier", "log_loss"])
def test_probabilistic_fold_tests_compare_both_learners_on_the_same_rows(measure):
    """Each fold's value of a and of b, the paired table and the Wilcoxon row all come from
    the same rows: the last 150 rows that fold tested with both learners (window 150),
    checked against scikit-learn on those rows (AUC on the scores rounded down to 1/4096,
    as the histograms count them), and the Wilcoxon p-value against scipy's."""
    from scipy import stats
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

    from distval.metrics.probabilistic import AUC_BINS

    k = 6
    _, snaps, y, proba, tested = probabilistic_feed(measure, n=3000, k=k, seed=3)
    paired = snaps[-1].paired
    want_a, want_b = [], []
    for f in range(k):
        rows = np.flatnonzero(tested[f] & tested[k + f])[-150:]
        for side, want in ((f, want_a), (k + f, want_b)):
            p1 = proba[side, rows, 1]
            if measure == "auc":
                want.append(roc_auc_score(y[rows], np.floor(p1 * AUC_BINS) / AUC_BINS))
            elif measure == "brier":
                want.append(brier_score_loss(y[rows], p1))
            else:
                want.append(log_loss(y[rows], np.clip(p1, 1e-15, 1 - 1e-15), labels=[0, 1]))
    assert paired["value_a"] == pytest.approx(want_a, rel=1e-9)
    assert paired["value_b"] == pytest.approx(want_b, rel=1e-9)
    assert paired["width"].tolist() == [150.0] * k
    tests = {t: i for i, t in enumerate(snaps[-1].tests["test"])}
    sign = -1 if measure != "auc" else 1  # the tests see "higher is better" values
    want_p = stats.wilcoxon(sign * np.array(want_a), sign * np.array(want_b)).pvalue
    assert snaps[-1].tests["pvalue"][tests["wilcoxon"]] == pytest.approx(want_p)


@pytest.mark.parametrize("bound", [1.0, 2.0, float(-np.log(1e-4))])
def test_rescaled_loss_sequence_covers_the_mean_at_every_look(bound):
    """Per-row loss differences in [-bound, bound] (Brier: 1 or 2, log-loss: -log of the
    floor): rows of known drifting, dependent mean scaled by ``bound`` are covered at every
    look in at least 1 - alpha of the runs (binomial slack), as for the 0/1 loss."""
    from drifting_rows import drifting_rows
    from scipy import stats

    from distval.statistics.anytime import confidence_sequence

    rng = np.random.default_rng(7)
    runs, n, alpha = 300, 3000, 0.1
    x, mu = drifting_rows(rng, runs, n)
    x, mu = bound * x, bound * mu
    looks = np.arange(20, n + 1, 20)
    delta = (np.cumsum(mu, axis=1) / np.arange(1, n + 1))[:, looks - 1]
    _, lower, upper = confidence_sequence(x, alpha=alpha, lo=-bound, hi=bound,
                                          v_opt=1000.0 * bound**2, at=looks)
    missed = ((delta < lower) | (delta > upper)).any(axis=1).sum()
    assert missed <= stats.binom.ppf(0.999, runs, alpha)
    assert np.median(upper[:, -1] - lower[:, -1]) < bound  # and it narrows


def test_three_class_brier_sequence_uses_sklearns_multiclass_rows_on_a_range_of_two():
    """Three classes, not announced to the aggregator: a row's Brier loss is scikit-learn's
    multi-class one (the sum over classes, in [0, 2]) and the sequence's range is [-2, 2]."""
    from sklearn.metrics import brier_score_loss

    from distval.aggregator.core import Aggregator
    from distval.aggregator.settings import ComparisonSettings

    rng = np.random.default_rng(5)
    n, k = 300, 4
    y = rng.integers(0, 3, n)
    proba = rng.dirichlet([1, 1, 1], size=(2 * k, n))
    proba[:k, np.arange(n), y] += 2.0  # a leans to the true class
    proba /= proba.sum(axis=2, keepdims=True)
    tested = rng.random((2 * k, n)) < 0.6
    pred = np.where(tested, proba.argmax(axis=2), -1)
    agg = Aggregator(["a", "b"], k, comparison=ComparisonSettings(measure="brier"),
                     test_every=n)
    for lo in range(0, n, 100):
        part = (pred[:, lo:lo + 100], proba[:, lo:lo + 100])
        agg.update(lo, y[lo:lo + 100], [(np.arange(2 * k), part)])
    xs = []
    for i in range(n):
        d = [brier_score_loss([y[i]], proba[k + f, i][None], labels=[0, 1, 2])
             - brier_score_loss([y[i]], proba[f, i][None], labels=[0, 1, 2])
             for f in range(k) if tested[f, i] and tested[k + f, i]]
        if d:
            xs.append(np.mean(d))
    cs = agg.verdicts.sequences[0]
    assert (cs.lo, cs.hi) == (-2.0, 2.0)
    assert cs.t == len(xs) and cs.mean == pytest.approx(np.mean(xs), rel=1e-12)
    assert max(abs(x) for x in xs) > 1.0  # beyond the two-class range


def test_a_p_value_below_double_precision_never_prints_as_zero():
    """A Wilcoxon or McNemar p-value that underflows to 0.0 prints as '< 1e-16' in the
    verdict line, the live status and the summary tables, never as 0."""
    from distval.config import RunConfig
    from distval.engine.run import live_status
    from distval.results.summary import tests_block

    ev = Evidence("ht", "nb", rows=5000, mean=0.1, lower=0.08, upper=0.12, level=0.95,
                  decision="A", fold_diffs=np.full(10, 0.1), window_rows=900.0,
                  wilcoxon=(0.0, "ht", True))
    assert "Wilcoxon p < 1e-16 on the last 900 paired rows" in verdict_line(ev)
    folds = {"learner": np.array(["ht", "nb"], dtype=object),
             "forgetting": np.array(["adwin"] * 2, dtype=object),
             "accuracy": np.array([0.9, 0.7])}
    tests = {"test": np.array(["wilcoxon"], dtype=object),
             "learner_a": np.array(["ht"], dtype=object),
             "learner_b": np.array(["nb"], dtype=object), "pvalue": np.array([0.0]),
             "favours": np.array(["ht"], dtype=object), "reject": np.array([True])}
    from distval.aggregator.snapshot import Snapshot

    status = live_status(Snapshot(100, folds, tests), RunConfig(learners=("ht", "nb")))
    assert status.endswith("wilcoxon p < 1e-16 (ht)")
    row = {"learner_a": "ht", "learner_b": "nb", "test": "mcnemar", "measure": "errors",
           "forgetting": "cumulative", "value_a": 1.0, "value_b": 9.0, "statistic": 80.0,
           "pvalue": 0.0, "reject": True, "favours": "ht"}
    _, _, rows, _ = tests_block([row], 0.05)
    assert rows[0][7] == "< 1e-16"
