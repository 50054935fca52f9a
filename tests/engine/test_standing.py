"""The live status line shows the numbers the verdict compares: each learner's measure over
the rows both learners of a pair were tested on, never a leader its verdict contradicts."""

import re

import numpy as np
import pandas as pd
import pytest

from distval.aggregator.core import Aggregator
from distval.aggregator.settings import ComparisonSettings, TrackerSettings
from distval.config import RunConfig
from distval.engine.loop import iter_inprocess, open_config_stream
from distval.engine.run import live_status
from distval.engine.standing import standing
from distval.metrics.trackers import MIN_SCORED
from distval.statistics.verdict import clearest_verdict, verdict_winner

NUMBER = r"([+-]?\d+\.\d+)"


def scored_feed(skill: dict[str, float], n: int = 3000, k: int = 6, window: int = 150,
                seed: int = 3):
    """An aggregator (AUC, window forgetting) fed class-1 probabilities of learners whose
    scores lean to the true class by ``skill``; each (learner, fold) tests 70 % of the rows.
    Returns (snapshots, y, probabilities (slots, rows), tested (slots, rows))."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p1 = np.concatenate([np.clip(0.5 + s * (y - 0.5) + rng.normal(0, 0.25, (k, n)), 0, 1)
                         for s in skill.values()])
    tested = rng.random(p1.shape) < 0.7
    pred = np.where(tested, (p1 > 0.5).astype(np.int64), -1)
    proba = np.stack([1 - p1, p1], axis=2)
    agg = Aggregator(list(skill), k, trackers=TrackerSettings(forgetting="window", window=window),
                     comparison=ComparisonSettings(measure="auc"), test_every=n, n_classes=2)
    snaps = []
    for lo in range(0, n, 250):
        part = (pred[:, lo:lo + 250], proba[:, lo:lo + 250])
        snap = agg.update(lo, y[lo:lo + 250], [(np.arange(len(p1)), part)])
        snaps += [snap] if snap else []
    return snaps, y, p1, tested


def sklearn_paired_auc(y, p1, tested, a: int, b: int, k: int, window: int = 150):
    """Learner ``a``'s and ``b``'s AUC by scikit-learn, mean over folds, each fold over the
    last ``window`` rows it tested with both (scores rounded down to the histograms' bins)."""
    from sklearn.metrics import roc_auc_score

    from distval.metrics.probabilistic import AUC_BINS

    out = []
    for side, other in ((a, b), (b, a)):
        per_fold = []
        for f in range(k):
            rows = np.flatnonzero(tested[side * k + f] & tested[other * k + f])[-window:]
            scores = np.floor(p1[side * k + f, rows] * AUC_BINS) / AUC_BINS
            per_fold.append(roc_auc_score(y[rows], scores))
        out.append(float(np.mean(per_fold)))
    return out


def test_two_learners_show_scikit_learns_auc_over_the_rows_both_were_tested_on():
    snaps, y, p1, tested = scored_feed({"ht": 0.5, "nb": 0.0})
    cfg = RunConfig(learners=("ht", "nb"), n_folds=6, measure="auc", forgetting="window",
                    window=150)
    status = live_status(snaps[-1], cfg)
    ht, nb = sklearn_paired_auc(y, p1, tested, 0, 1, k=6)
    assert ht > nb + 0.2  # informed against noise
    parts = status.split(" | ")
    assert parts[0] == "ht>nb AUC (fold test)", status  # the verdict first
    # then the numbers, labelled with their basis: the leader first, on the same rows
    assert parts[1] == f"recent windows: ht {ht:.3f} nb {nb:.3f}", status
    # the same numbers as the Wilcoxon row of the final summary's tests
    tests = pd.DataFrame(snaps[-1].tests)
    w = tests[tests["test"] == "wilcoxon"].iloc[0]
    assert (w["value_a"], w["value_b"]) == pytest.approx((ht, nb), rel=1e-9)


def test_three_learners_show_each_ones_difference_to_the_leader_on_the_rows_they_share():
    """ht leads (it is ahead of both); its number is over the rows it shares with the
    learner of the verdict shown (Holm-adjusted fold tests over 10 folds decide it)."""
    snaps, y, p1, tested = scored_feed({"ht": 0.5, "nb": 0.0, "lb": 0.3}, k=10)
    cfg = RunConfig(learners=("ht", "nb", "lb"), n_folds=10, measure="auc",
                    forgetting="window", window=150)
    status = live_status(snaps[-1], cfg)
    verdict = clearest_verdict([dict(zip(snaps[-1].verdicts, r))
                                for r in zip(*snaps[-1].verdicts.values())])
    assert verdict_winner(verdict, "auc") == "ht"
    partner = ({verdict["learner_a"], verdict["learner_b"]} - {"ht"}).pop()
    ht_vs = {o: sklearn_paired_auc(y, p1, tested, 0, i, k=10) for i, o in ((1, "nb"), (2, "lb"))}
    head = re.match(rf"recent windows: ht {NUMBER}", status.split(" | ")[1])
    assert head and float(head.group(1)) == pytest.approx(ht_vs[partner][0], abs=5e-4), status
    for other, (lead, value) in ht_vs.items():
        assert f"{other} {value - lead:+.3f}" in status, status
    assert status.index(" lb ") < status.index(" nb ")  # the closer learner first


def test_the_line_names_no_leader_its_verdict_contradicts():
    """Accuracy: the sequence decides over every row, the paired windows cover the recent
    ones; where they point to different learners the line gives the verdict and labels the
    numbers as the paired windows'."""
    from distval.columns import PAIRED_SCHEMA, VERDICT_SCHEMA, to_columns

    paired = to_columns([{f: None for f in PAIRED_SCHEMA.names} | {
        "position": 9, "learner_a": "ht", "learner_b": "nb", "fold": f,
        "value_a": 0.6 + 0.01 * f, "value_b": 0.7} for f in range(3)], PAIRED_SCHEMA)
    verdict = to_columns([{f: None for f in VERDICT_SCHEMA.names} | {
        "position": 9, "learner_a": "ht", "learner_b": "nb", "rows": 9, "mean": 0.03,
        "lower": 0.01, "upper": 0.05, "decision": "A"}], VERDICT_SCHEMA)
    got = standing({}, paired, [dict(zip(verdict, r)) for r in zip(*verdict.values())],
                   measure="accuracy", forgetting="adwin")
    assert got is not None and got.kind == "disputed"
    assert got.values == pytest.approx({"nb": 0.7, "ht": np.mean([0.6, 0.61, 0.62])})


def assert_agrees(status: str, snap, cfg) -> None:
    """The line's numbers are the pair's paired means (pandas, folds where both have a
    value; accuracy in percent, AUC as a plain number), and its first learner is not behind
    the other on them."""
    paired = pd.DataFrame(snap.paired).dropna(subset=["value_a", "value_b"])
    if paired.empty:
        return
    want = {"ht": paired["value_a"].mean(), "nb": paired["value_b"].mean()}
    got = dict(re.findall(rf"\b(ht|nb) ({NUMBER[1:-1]}(?: %)?)", status))
    shown = (lambda v: f"{100 * v:.1f} %") if cfg.measure == "accuracy" else (
        lambda v: f"{v:.3f}")
    assert got == {k: shown(v) for k, v in want.items()}, status
    verdict = pd.DataFrame(snap.verdicts)
    values = next(p for p in status.split(" | ") if p.startswith("recent windows"))
    if not values.startswith("recent windows favour "):  # the first named leads on them
        lead = values.split(": ", 1)[1].split(" ")[0]
        assert want[lead] >= max(want.values()), status
        if len(verdict) and verdict["decision"].iloc[0] in ("A", "B"):
            assert lead == {"A": "ht", "B": "nb"}[verdict["decision"].iloc[0]], status
    else:  # the verdict against the numbers: said in words, not shown as a leader
        assert " | recent windows favour " in status, status


@pytest.mark.parametrize("measure", ["auc", "accuracy"])
def test_at_every_look_of_a_run_with_delayed_labels_the_numbers_are_the_paired_ones(measure):
    """A real in-process run with labels 1,000 rows late (the case where each learner's
    own AUC window and the verdict's rows differ most): at every look the live line's two
    numbers are the paired windows' means, and no leader is shown against the verdict."""
    cfg = RunConfig(stream="sea(noise=0.1)", n_rows=6000, learners=("ht", "nb"), n_folds=5,
                    delay=1000, measure=measure, test_every=500, batch_size=250)
    looks = waiting = 0
    for step in iter_inprocess(cfg, open_config_stream(cfg)):
        if step.snapshot is None:
            continue
        looks += 1
        status = live_status(step.snapshot, cfg)
        folds = pd.DataFrame(step.snapshot.folds)
        fewest = int(folds.loc[folds["forgetting"] == "cumulative", "n"].min())
        if fewest < MIN_SCORED:  # the first looks score a handful of rows: no number yet
            waiting += 1
            assert status == (f"waiting for labels: {fewest}/{MIN_SCORED} rows scored in the "
                              "sparsest fold"), status
            continue
        assert_agrees(status, step.snapshot, cfg)
    assert looks >= 10 and 1 <= waiting < looks


def test_with_three_learners_every_number_of_the_line_has_its_unit():
    """Accuracy, three learners, no verdict yet: nb leads (ahead of both on the rows it
    shares with each), its accuracy in percent over the rows it shares with the closest
    learner, the others' differences to it in points; the numbers are pandas' means."""
    from distval.aggregator.snapshot import Snapshot
    from distval.columns import PAIRED_SCHEMA, to_columns

    values = {("ht", "nb"): (0.80, 0.90), ("ht", "lb"): (0.70, 0.75), ("nb", "lb"): (0.92, 0.70)}
    paired = to_columns([{f: None for f in PAIRED_SCHEMA.names} | {
        "position": 100, "learner_a": a, "learner_b": b, "fold": f, "value_a": va + 0.01 * f,
        "value_b": vb} for (a, b), (va, vb) in values.items() for f in range(3)], PAIRED_SCHEMA)
    status = live_status(Snapshot(100, {}, {}, paired=paired),
                         RunConfig(learners=("ht", "nb", "lb"), n_folds=3))
    means = pd.DataFrame(paired).groupby(["learner_a", "learner_b"])[["value_a", "value_b"]]
    m = means.mean()
    nb_vs_ht = m.loc[("ht", "nb"), "value_b"] - m.loc[("ht", "nb"), "value_a"]
    nb_vs_lb = m.loc[("nb", "lb"), "value_a"] - m.loc[("nb", "lb"), "value_b"]
    assert nb_vs_ht < nb_vs_lb  # ht is the closer learner
    # every number with its unit, and the points with their basis (the recent windows)
    assert status == (f"recent windows: nb {100 * m.loc[('ht', 'nb'), 'value_b']:.1f} % "
                      f"ht {-100 * nb_vs_ht:+.1f} pts vs nb lb {-100 * nb_vs_lb:+.1f} pts vs nb")
    numbers = re.findall(r"[+-]?\d+\.\d+( %| pts)?", status)
    assert len(numbers) == 3 and all(numbers), status
