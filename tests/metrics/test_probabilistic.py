"""Log-loss, Brier score and ROC AUC per (learner, fold), against scikit-learn on the rows of
each window (cumulative, sliding window, ADWIN, fading), from the probabilities the learner
hosts recorded."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

import distval
from distval.aggregator import Aggregator
from distval.config import RunConfig
from distval.engine import iter_batches, open_config_stream
from distval.learners.host import LearnerHost
from distval.learners.schema import Schema
from distval.metrics import proba_measures


def sklearn_measures(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> dict:
    """scikit-learn's three measures (macro one-vs-rest AUC over the classes present)."""
    c = p.shape[1]
    labels = list(range(c))
    out = {"log_loss": log_loss(y, p, labels=labels, sample_weight=w)}
    if c == 2:
        out["brier"] = brier_score_loss(y, p[:, 1], sample_weight=w, pos_label=1)
        out["auc"] = roc_auc_score(y, p[:, 1], sample_weight=w)
    else:
        out["brier"] = brier_score_loss(y, p, labels=labels, sample_weight=w)
        present = [k for k in labels if 0 < (y == k).sum() < len(y)]
        out["auc"] = np.mean([roc_auc_score(y == k, p[:, k], sample_weight=w) for k in present])
    return out


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
        for k, v in theirs.items():
            assert folds[k][r] == pytest.approx(v, rel=1e-9), (kind, k)
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
    from distval.engine import LocalEvaluation

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


@pytest.mark.parametrize("seed", range(5))
def test_incremental_pair_counts_equal_scikit_learn_after_every_batch(seed):
    """PairCount (sorted runs of earlier scores, merged as they grow) gives scikit-learn's
    AUC of all rows so far after every batch, ties across batches included."""
    from distval.metrics.probabilistic import PairCount

    rng = np.random.default_rng(seed)
    pc, scores, labels = PairCount(), [], []
    for _ in range(40):
        n = int(rng.integers(1, 60))
        s = rng.integers(0, 30, size=n) / 30.0
        pos = rng.random(n) < 0.4
        pc.add(s, pos)
        scores.append(s)
        labels.append(pos)
        y = np.concatenate(labels)
        if 0 < y.sum() < len(y):
            want = roc_auc_score(y, np.concatenate(scores))
            assert pc.value() == pytest.approx(want, rel=1e-12)
    assert len(pc.pos) + len(pc.neg) < 20  # runs merged, not one per batch
