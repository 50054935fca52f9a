"""Log-loss, Brier score and ROC AUC per (learner, fold), against scikit-learn on the rows of
each window (cumulative, sliding window, ADWIN, fading), from the probabilities the learner
hosts recorded."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

import distval
from distval.aggregator.core import Aggregator
from distval.config import RunConfig
from distval.engine.loop import iter_batches, open_config_stream
from distval.learners.host import LearnerHost
from distval.learners.schema import Schema
from distval.metrics import ScoreWindows, proba_measures

GRID = 4096  # the documented AUC resolution: scores rounded down to multiples of 1/4096


def rounded(p: np.ndarray) -> np.ndarray:
    return np.floor(p * GRID) / GRID


def bound(score: np.ndarray, positive: np.ndarray, w: np.ndarray | None = None) -> float:
    """Half the weight share of (positive, negative) pairs whose scores share a bin."""
    w = np.ones(len(score)) if w is None else w
    b = np.floor(score * GRID).astype(int)
    pos = np.bincount(b, weights=w * positive, minlength=GRID + 1)
    neg = np.bincount(b, weights=w * ~positive, minlength=GRID + 1)
    return float((pos * neg).sum() / (pos.sum() * neg.sum()) / 2)


def sklearn_measures(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> dict:
    """scikit-learn's three measures (macro one-vs-rest AUC over the classes present)."""
    c = p.shape[1]
    labels = list(range(c))
    out = {"log_loss": log_loss(y, p, labels=labels, sample_weight=w)}
    if c == 2:
        out["brier"] = brier_score_loss(y, p[:, 1], sample_weight=w, pos_label=1)
    else:
        out["brier"] = brier_score_loss(y, p, labels=labels, sample_weight=w)
    return out | {"auc": sklearn_auc(p, y, w)}


def sklearn_auc(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> float:
    """scikit-learn's ROC AUC (macro one-vs-rest over the classes present for more than 2)."""
    if p.shape[1] == 2:
        return float(roc_auc_score(y, p[:, 1], sample_weight=w))
    present = [k for k in range(p.shape[1]) if 0 < (y == k).sum() < len(y)]
    return float(np.mean([roc_auc_score(y == k, p[:, k], sample_weight=w) for k in present]))


@pytest.mark.parametrize("c", [2, 3, 5])
@pytest.mark.parametrize("weighted", [False, True])
def test_measures_equal_scikit_learn_with_ties_and_weights(c, weighted):
    rng = np.random.default_rng(c)
    n = 400
    raw = rng.integers(1, 6, size=(n, c)).astype(float)  # few distinct values: many ties
    p = raw / raw.sum(axis=1, keepdims=True)
    y = rng.integers(0, c, size=n)
    w = 0.99 ** np.arange(n)[::-1] if weighted else None
    ours, theirs = proba_measures(p, y, w), sklearn_measures(p, y, w)
    for k in theirs:
        assert ours[k] == pytest.approx(theirs[k], rel=1e-12), k


def test_all_classes_present_macro_auc_is_sklearns_ovr_macro():
    rng = np.random.default_rng(9)
    p = rng.dirichlet([1, 1, 1, 1], size=300)
    y = rng.integers(0, 4, size=300)
    assert proba_measures(p, y)["auc"] == pytest.approx(
        roc_auc_score(y, p, multi_class="ovr", average="macro"), rel=1e-12
    )


def recorded_run(cfg: RunConfig):
    """Host and aggregator of ``cfg`` in this process, recording every slot's probabilities
    and classes of the rows it tested; the aggregator's last snapshot."""
    stream = open_config_stream(cfg)
    slots = [(i, f) for i in range(len(cfg.learners)) for f in range(cfg.n_folds)]
    host = LearnerHost(cfg.specs, slots, stream.feature_names, cfg.seed, Schema.of(stream),
                       proba=True)
    agg = Aggregator.from_config(cfg, n_classes=getattr(stream, "n_classes", None))
    ids = np.arange(len(slots))
    seen: list[list[tuple[np.ndarray, int]]] = [[] for _ in slots]
    for batch in iter_batches(stream, cfg):
        preds, probs = host.process(batch)
        for s in range(len(slots)):
            for i in np.flatnonzero(preds[s] >= 0):
                seen[s].append((probs[s, i], int(batch.y[i])))
        agg.update(batch.start, batch.y, [(ids, (preds, probs))])
    return agg.finish() or agg.last, seen


def window_rows(seen, kind: str, width: float, size: int, factor: float):
    c = max(len(p) for p, _ in seen)
    rows = seen
    if kind in ("adwin",):
        rows = seen[len(seen) - int(width):]
    elif kind == "window":
        rows = seen[-size:]
    p = np.array([np.pad(r[0], (0, c - len(r[0]))) for r in rows])
    y = np.array([r[1] for r in rows])
    w = factor ** np.arange(len(rows))[::-1] if kind == "fading" else None
    return p, y, w


@pytest.mark.parametrize(
    ("forgetting", "stream", "learners"),
    [
        ("adwin", "SEA(50)", ("nb", "ht(grace_period=50)")),
        ("window", "rbf(n_classes=3)", ("nb",)),
        ("fading", "sea(noise=0.1)", ("logreg",)),
    ],
)
def test_fold_values_equal_scikit_learn_on_each_window(forgetting, stream, learners):
    """Every (learner, fold) value of the final snapshot, under the run's forgetting and
    cumulative, equals scikit-learn on that slot's rows in the window (ADWIN: its last
    ``width`` rows, the width its tracker reports; fading: every row weighted by its age)."""
    adwin = forgetting == "adwin"  # every row in every fold: the drifts make ADWIN cut
    cfg = RunConfig(stream=stream, n_rows=6000 if adwin else 3000, learners=learners,
                    n_folds=3, forgetting=forgetting, window=700, fading=0.995, measure="auc",
                    batch_size=350, test_every=1500, scheme="bootstrap", prequential=adwin)
    snap, seen = recorded_run(cfg)
    folds = snap.folds
    checked = 0
    for r in range(len(folds["learner"])):
        slot = cfg.labels.index(folds["learner"][r]) * cfg.n_folds + int(folds["fold"][r])
        kind = folds["forgetting"][r]
        p, y, w = window_rows(seen[slot], kind, folds["width"][r], cfg.window, cfg.fading)
        theirs = sklearn_measures(p, y, w)
        for k in ("log_loss", "brier"):
            assert folds[k][r] == pytest.approx(theirs[k], rel=1e-9), (kind, k)
        # AUC: exactly scikit-learn's on the scores rounded to the grid, and within the
        # documented bound of scikit-learn's on the raw scores
        assert folds["auc"][r] == pytest.approx(sklearn_auc(rounded(p), y, w), rel=1e-9), kind
        classes = [1] if p.shape[1] == 2 else range(p.shape[1])
        slack = max(bound(p[:, j], y == j, w) for j in classes if 0 < (y == j).sum() < len(y))
        assert abs(folds["auc"][r] - theirs["auc"]) <= slack + 1e-12, kind
        checked += 1
    assert checked == 2 * len(learners) * cfg.n_folds
    if forgetting == "adwin":  # ADWIN's window is not the whole stream somewhere
        widths = folds["width"][folds["forgetting"] == "adwin"]
        assert (widths < np.array([len(s) for s in seen])).any()


def test_river_probabilities_are_predict_proba_one_of_a_plain_loop():
    """The probabilities the host records are river's predict_proba_one in a plain
    test-then-train loop of one replica trained on every row."""
    from river import naive_bayes

    cfg = RunConfig(stream="sea(noise=0.1)", n_rows=600, learners=("nb",), n_folds=2,
                    measure="log_loss", batch_size=150)
    stream = open_config_stream(cfg)
    host = LearnerHost(cfg.specs, [(0, 0)], stream.feature_names, 1, proba=True)
    model = naive_bayes.GaussianNB()
    names = stream.feature_names
    for batch in iter_batches(stream, cfg):
        ones = np.ones((len(batch), 1), np.int32)
        b = type(batch)(batch.start, batch.X, batch.y, ones, ones > 0)
        _, probs = host.process(b)
        for i, (x, c) in enumerate(zip(batch.X.tolist(), batch.y.tolist())):
            d = model.predict_proba_one(dict(zip(names, x)))
            want = np.array([d.get(0, 0.0), d.get(1, 0.0)]) if d else np.array([0.5, 0.5])
            assert probs[0, i] == pytest.approx(want / want.sum(), rel=1e-12)
            model.learn_one(dict(zip(names, x)), c)


def test_probabilities_are_computed_only_when_asked_for():
    cfg = RunConfig(stream="sea", n_rows=500, learners=("nb",), n_folds=2, test_every=500)
    stream = open_config_stream(cfg)
    from distval.engine.loop import LocalEvaluation

    local = LocalEvaluation(cfg, stream)
    assert not local.host.proba and local.aggregator.scores is None
    res = distval.evaluate(cfg)
    assert res.final_folds()["auc"].isna().all()  # null: not computed
    asked = distval.evaluate(stream="sea", n_rows=500, learners=("nb",), n_folds=2,
                             test_every=500, measure="brier")
    assert np.isfinite(asked.final_folds()["brier"]).all()


def test_lower_is_better_measures_favour_the_lower_learner():
    """log_loss: the learner with the lower mean loss is the one the tests favour."""
    res = distval.evaluate(stream="sea(noise=0.1)", n_rows=3000, learners=("nb", "majority"),
                           n_folds=6, measure="log_loss", test_every=3000, scheme="cv")
    tests = res.final_tests()
    sign = tests[tests["test"] == "sign"].iloc[0]
    assert sign["value_a"] < sign["value_b"]  # nb's loss is lower
    assert sign["favours"] == "nb"


@pytest.mark.parametrize("n_classes", [None, 2])
@pytest.mark.parametrize("seed", range(3))
def test_binned_auc_is_sklearns_on_rounded_scores_and_within_the_bound_of_the_raw(
    seed, n_classes
):
    """Continuous scores (no two alike): the windows' AUC after every batch equals
    scikit-learn's on the rounded scores and differs from scikit-learn's on the raw scores by
    at most the bound; the bound is small when the scores spread over the bins."""
    rng = np.random.default_rng(seed)
    sw = ScoreWindows("cumulative", n_slots=1, n_classes=n_classes)
    scores, labels = [], []
    for _ in range(30):
        n = int(rng.integers(1, 400))
        yb = (rng.random(n) < 0.4).astype(np.int64)
        s = np.clip(0.3 * yb + rng.beta(2, 3, n), 0, 1)
        sw.update(yb, np.zeros((1, n), np.int64), np.stack([1 - s, s], axis=1)[None])
        scores.append(s)
        labels.append(yb)
        y, p = np.concatenate(labels), np.concatenate(scores)
        if 0 < y.sum() < len(y):
            got = float(sw.get()["auc"][0])
            assert got == pytest.approx(roc_auc_score(y, rounded(p)), rel=1e-12)
            slack = bound(p, y == 1)
            assert abs(got - roc_auc_score(y, p)) <= slack + 1e-15
            assert float(sw.error_bound()[0]) == pytest.approx(slack, rel=1e-12)
    assert slack < 1e-3


@pytest.mark.parametrize("n_classes", [None, 2])
@pytest.mark.parametrize("kind", ["cumulative", "fading", "window", "adwin"])
def test_memory_does_not_grow_with_the_rows(kind, n_classes):
    """Cumulative and fading keep no rows; window keeps its size, adwin its widths; the
    histograms' size is fixed by the classes and the grid, not by the rows; the values stay
    scikit-learn's on the window's rows."""
    rng = np.random.default_rng(1)
    n_slots, size = 3, 500
    sw = ScoreWindows(kind, n_slots=n_slots, size=size, n_classes=n_classes)
    shapes, ys, ss = set(), [], []
    for i in range(40):
        n = 250
        y = rng.integers(0, 2, n)
        s = rng.random((n_slots, n))
        widths = np.array([300, 1200, 5000]) if kind == "adwin" else None
        sw.update(y, np.zeros((n_slots, n), np.int64), np.stack([1 - s, s], axis=2), widths)
        shapes.add(sw._hist.shape)
        seen = (i + 1) * n
        want = {"cumulative": 0, "fading": 0, "window": n_slots * min(size, seen),
                "adwin": sum(min(w, seen) for w in (300, 1200, 5000))}[kind]
        assert sw.kept_rows() == want
        ys.append(y)
        ss.append(s)
    y, s = np.concatenate(ys), np.concatenate(ss, axis=1)
    for j in range(n_slots):
        last = {"window": size, "adwin": (300, 1200, 5000)[j]}.get(kind, len(y))
        w = 0.999 ** np.arange(len(y))[::-1] if kind == "fading" else None
        yj, sj = y[-last:], s[j, -last:]
        assert float(sw.get()["auc"][j]) == pytest.approx(
            roc_auc_score(yj, rounded(sj), sample_weight=w), rel=1e-9)
        assert float(sw.get()["brier"][j]) == pytest.approx(
            brier_score_loss(yj, sj, sample_weight=w), rel=1e-9)
    # one histogram per class; two classes announced: class 1's only
    assert shapes == {(n_slots, 1 if n_classes == 2 else 2, GRID + 1, 2)}


def test_classes_that_appear_later_count_earlier_rows_as_zero_probability():
    """A third class appears in the second batch: the macro AUC and the Brier score are
    scikit-learn's on all rows with the earlier rows' probabilities padded with 0."""
    rng = np.random.default_rng(3)
    sw = ScoreWindows("cumulative", n_slots=1)
    p1 = rng.dirichlet([1, 1], 300)
    y1 = rng.integers(0, 2, 300)
    sw.update(y1, np.zeros((1, 300), np.int64), p1[None])
    p2 = rng.dirichlet([1, 1, 1], 300)
    y2 = rng.integers(0, 3, 300)
    sw.update(y2, np.zeros((1, 300), np.int64), p2[None])
    p = np.concatenate([np.pad(p1, ((0, 0), (0, 1))), p2])
    y = np.concatenate([y1, y2])
    got = sw.get()
    assert float(got["auc"][0]) == pytest.approx(sklearn_auc(rounded(p), y), rel=1e-12)
    assert float(got["brier"][0]) == pytest.approx(sklearn_measures(p, y)["brier"], rel=1e-12)
    assert float(got["log_loss"][0]) == pytest.approx(sklearn_measures(p, y)["log_loss"],
                                                      rel=1e-12)
