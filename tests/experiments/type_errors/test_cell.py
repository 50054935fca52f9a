"""One cell: the noise filter, the decisions of a pass, every look recorded
(distval.experiments.type_errors.cell)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st
from type_error_grids import BEFORE_LOOKS, PER_LOOK, QUICK, fixed_rows, tiny

from distval.errors import DistvalError
from distval.experiments.type_errors import GridConfig, noise_filter, run_cell
from distval.experiments.type_errors.cell import label_noise, one_pair_per_row


@pytest.mark.parametrize("c, p0, pnoise", [(2, 0.8, 0.05), (4, 0.7, 0.10), (10, 0.3, 0.10)])
def test_noise_filter_accuracy_matches_formula(c, p0, pnoise):
    # bifet2015 §4.1 (docs/experiments.md): p = p0 (1 - pnoise) + (1 - p0) pnoise / (c - 1).
    rng = np.random.default_rng(42)
    n = 400_000
    y = rng.integers(0, c, n)
    correct = rng.random(n) < p0
    wrong = (y + rng.integers(1, c, n)) % c
    pred = np.where(correct, y, wrong).astype(np.int32)
    noisy = noise_filter(pred, pnoise, c, np.random.default_rng(7))
    acc = float((noisy == y).mean())
    p0_emp = float(correct.mean())
    expected = p0_emp * (1 - pnoise) + (1 - p0_emp) * pnoise / (c - 1)
    sd = np.sqrt(expected * (1 - expected) / n)
    assert abs(acc - expected) < 4 * sd
    changed = noisy != pred
    # a changed prediction is never the original class, and its offset is uniform on 1..c-1
    assert abs(changed.mean() - pnoise) < 4 * np.sqrt(pnoise * (1 - pnoise) / n)
    if c > 2:
        offsets = ((noisy - pred) % c)[changed]
        counts = np.bincount(offsets, minlength=c)[1:]
        assert st.chisquare(counts).pvalue > 1e-4


def test_noise_filter_keeps_untested_and_is_seeded():
    pred = np.array([[-1, 0, 1, 2] * 50])
    a = noise_filter(pred, 0.5, 3, np.random.default_rng(3))
    b = noise_filter(pred, 0.5, 3, np.random.default_rng(3))
    assert (a[pred == -1] == -1).all()
    assert np.array_equal(a, b)


def test_identical_learners_never_differ_and_noise_discordance_matches_pnoise():
    # "majority" has no seed: A and A' are the same model, so no test may reject on "no
    # change", and every McNemar discordant pair comes from the noise filter: in the
    # prequential variant about pnoise * k * n of them (binomial expectation).
    cfg = tiny(learner="majority", streams=(("SEA(50)", "SEA(50)"),), n_rows=400)
    cell = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "bootstrap")
    res = pd.DataFrame(cell["results"])
    null = res[res.pnoise == 0]
    assert not null.reject.any()
    assert (null[null.test == "mcnemar"].n == 0).all()
    assert (null.mean_a == null.mean_b).all()
    for p in cfg.pnoise:
        row = res[(res.pnoise == p) & (res.test == "mcnemar") & res.prequential].iloc[0]
        trials = cfg.n_folds * 400
        assert abs(row.n - p * trials) < 4 * np.sqrt(trials * p * (1 - p))
        assert row.mean_b < row.mean_a
        # McNemar's statistic as scipy's chi-square on the counts (n01 + n10 = n, n01 < n10)
        assert 0 <= row.pvalue <= 1
        assert row.pvalue == pytest.approx(st.chi2.sf(row.statistic, 1))


def test_non_prequential_cv_tests_each_row_once():
    # cv, non-prequential: each row is tested by one fold only (bifet2015 §3), so with the
    # noise filter the discordant pairs are about pnoise * n, k times fewer than prequential.
    cfg = tiny(learner="majority", streams=(("SEA(50)", "SEA(50)"),), n_rows=1000)
    cell = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "cv")
    res = pd.DataFrame(cell["results"])
    row = res[(res.pnoise == 0.10) & (res.test == "mcnemar") & ~res.prequential].iloc[0]
    assert abs(row.n - 100) < 4 * np.sqrt(1000 * 0.1 * 0.9)


def test_moa_learners_of_a_cell_differ_only_by_seed():
    from distval.learners import parse_learner, replica_seed
    from distval.learners.host import LearnerHost

    # run_cell hosts [learner, learner]: learner 0 (A) and 1 (A') get different seeds per fold
    seeds_a = [replica_seed(7, 0, f) for f in range(10)]
    seeds_b = [replica_seed(7, 1, f) for f in range(10)]
    assert not set(seeds_a) & set(seeds_b)
    spec = parse_learner("nb")
    host = LearnerHost([spec, spec], [(i, f) for i in range(2) for f in range(2)], ["x"], seed=7)
    assert host.labels[0] == host.labels[1]


def _end_rows(cell: dict) -> list[dict]:
    """A cell's end-of-stream rows without the per-look fields (as ``at`` holds them)."""
    return [{k: v for k, v in r.items() if k not in PER_LOOK} for r in cell["results"]
            if r["test"] != "sign_evalue"]


def test_checkpoints_give_the_decisions_of_shorter_streams():
    # RBF and HYP do not depend on the stream length (SEA and LED place drifts at n/4, n/2)
    rbf = (("RBF(10,0.001)", "RBF(10,0.001)"),)
    cfg = tiny(streams=rbf, runs=1, n_rows=100)
    long = run_cell(cfg, *rbf[0], 0, "bootstrap", checkpoints=(50, 100))
    short = run_cell(tiny(streams=rbf, runs=1, n_rows=50), *rbf[0], 0, "bootstrap")
    assert long["at"]["100"] == _end_rows(long)
    assert long["at"]["50"] == _end_rows(short)


def test_a_cell_gives_the_decisions_committed_before_per_look_recording():
    """A quick cell as the first, single-module harness wrote it (before per-look
    recording) comes out the same: the cell now compares through the aggregator's
    PairComparison."""
    cfg = GridConfig.from_dict(json.loads((BEFORE_LOOKS / "grid.json").read_text()))
    lines = (BEFORE_LOOKS / "cells.jsonl").read_text().splitlines()
    old = next(c for c in map(json.loads, lines) if c["key"] == "SEA(50)|0|split")
    new = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "split")
    assert "sd_diff" not in old["results"][0]  # written before sd_diff existed
    assert [{k: v for k, v in r.items() if k not in ("sd_diff", "d")}
            for r in fixed_rows(new)] == (
        old["results"]
    )


def test_every_look_is_recorded_and_agrees_with_the_end():
    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), runs=1, n_rows=300, looks=6)
    cell = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "bootstrap")
    assert cell["looks"] == [50, 100, 150, 200, 250, 300]
    assert len(cell["boundaries"]) == 6
    assert all(a < b for a, b in zip(cell["boundaries"], cell["boundaries"][1:]))
    for r in cell["results"]:
        if r["test"] in ("mcnemar_row", "mcnemar_fold"):  # decided at the end only
            assert "pvalues" not in r
            continue
        assert len(r["pvalues"]) == 6 and r["pvalues"][-1] == pytest.approx(r["pvalue"], 1e-3)
        if r["test"] == "sign_evalue":
            marks = r["decisions"]["evalue"]
            assert r["ever_reject"] == r["reject"] == marks.endswith("1")
            assert "10" not in marks  # an e-process rejection stays
            assert min(r["pvalues"]) >= 1 / 46.6  # 10 folds: the e-value is at most 1/P0(R)
            continue
        fixed, spent = r["decisions"]["fixed"], r["decisions"]["spending"]
        assert fixed[-1] == ("1" if r["reject"] else "0")
        assert [c == "1" for c in fixed] == [p <= cfg.alpha for p in r["pvalues"]]
        assert r["ever_reject"] == ("1" in fixed) and r["spending_reject"] == spent.endswith("1")
        assert "10" not in spent  # a spending rejection stays
        if "1" in spent:  # its first rejection: a p-value below the (smaller) spending limit
            first = spent.index("1")
            assert fixed[first] == "1" and r["pvalues"][first] <= cell["boundaries"][first] * 1.001


def test_noise_on_same_compares_a_with_its_own_noisy_copy():
    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), runs=1, n_rows=400, noise_on="predictions",
               noise_learner="same")
    c = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "cv")
    r = {(x["prequential"], x["pnoise"], x["test"]): x for x in c["results"]}
    # noise(A) is only ever wrong where the filter changed a correct prediction of A
    assert r[(True, 0.1, "mcnemar")]["mean_b"] < r[(True, 0.1, "mcnemar")]["mean_a"]
    with pytest.raises(DistvalError, match="noise-on"):
        tiny(noise_on="both")
    with pytest.raises(DistvalError, match="noise-learner"):
        tiny(noise_learner="both")


def test_a_cells_seeds_come_from_its_key_not_from_the_order_of_schemes():
    """``--schemes split`` alone gives the committed quick cell ``SEA(50)|0|split`` (run
    by the CLI with bootstrap, cv, split, in another process), every look's p-value and
    decision included, and reordering the schemes of a grid changes none of its cells."""
    import dataclasses

    cfg = GridConfig.from_dict(json.loads((QUICK / "grid.json").read_text()))
    alone = dataclasses.replace(cfg, schemes=("split",))
    lines = (QUICK / "cells.jsonl").read_text().splitlines()
    old = next(c for c in map(json.loads, lines) if c["key"] == "SEA(50)|0|split")
    new = run_cell(alone, "SEA(50)", "SEA(50)", 0, "split")
    assert len(old["looks"]) == cfg.looks and any("pvalues" in r for r in old["results"])
    assert json.loads(json.dumps(new["results"])) == old["results"]
    assert (new["looks"], new["boundaries"]) == (old["looks"], old["boundaries"])
    forward = tiny(schemes=("bootstrap", "cv", "split"), runs=1)
    backward = tiny(schemes=("split", "cv", "bootstrap"), runs=1)
    for scheme in ("bootstrap", "cv", "split"):
        a = run_cell(forward, "SEA(50)", "SEA(50)", 0, scheme)
        b = run_cell(backward, "SEA(50)", "SEA(50)", 0, scheme)
        assert fixed_rows(a) == fixed_rows(b)


# -- noise on the training labels (MOA AddNoiseFilter), McNemar poolings -------------------


def test_label_noise_flips_at_the_binomial_rate_to_another_seen_class():
    """MOA's AddNoiseFilter rule: each label flips with probability pnoise (Binomial count,
    scipy's exact test), always to a *different* class, uniform over the other classes
    seen so far (chi-square goodness of fit), and not before two classes have been seen."""
    rng = np.random.default_rng(5)
    y = np.concatenate([np.zeros(50, int), rng.integers(0, 3, 30_000)])
    seen = np.zeros(3, dtype=bool)
    noisy, flip = label_noise(y, 0.1, np.random.default_rng(11), seen)
    assert (noisy != y).tolist() == flip.tolist()  # differ exactly where the mask says
    first_other = int(np.flatnonzero(y != 0)[0])
    assert not flip[:first_other].any()  # one class seen: nothing to flip to
    rows = len(y) - first_other
    assert st.binomtest(int(flip.sum()), rows, 0.1).pvalue > 1e-3
    moves = (noisy[flip] - y[flip]) % 3  # 1 or 2 steps round the 3 classes, evenly
    assert set(moves.tolist()) == {1, 2}
    counts = np.bincount(moves, minlength=3)[1:]
    assert st.chisquare(counts).pvalue > 1e-3
    again, flip2 = label_noise(y, 0.1, np.random.default_rng(11), np.zeros(3, dtype=bool))
    assert (again == noisy).all() and (flip2 == flip).all()  # seeded


def test_one_pair_per_row_picks_each_tested_fold_evenly():
    masks = np.zeros((2, 5, 20_000), dtype=bool)
    masks[0, :3] = True  # variant 0: folds 0-2 test every row
    masks[1, 4, ::2] = True  # variant 1: fold 4 tests every other row
    pick = one_pair_per_row(masks, np.random.default_rng(2))
    assert (pick <= masks).all()
    assert pick[0].sum(axis=0).tolist() == [1] * 20_000
    assert pick[1].sum(axis=0).tolist() == [1, 0] * 10_000
    assert st.chisquare(pick[0, :3].sum(axis=1)).pvalue > 1e-3


def test_training_noise_cells_quick_grid():
    """Two streams, two runs: the learner trained on noisy labels is A' itself (same
    seeds) but for the flipped labels, so with a vanishing pnoise it predicts exactly as A'
    does, and with pnoise 0.10 it does not; its flips follow Binomial(rows, pnoise); the
    grid's streams follow the MOA drift convention."""
    cfg = tiny(noise_on="training", pnoise=(1e-9, 0.10), runs=2, n_rows=400,
               schemes=("cv",), drift_length=1_000_000)
    flips, rows, changed = 0, 0, []
    for label, spec in cfg.streams:
        for run in range(cfg.runs):
            c = run_cell(cfg, label, spec, run, "cv")
            r = {(x["prequential"], x["pnoise"], x["test"]): x for x in c["results"]}
            for v in (False, True):
                assert r[(v, 1e-9, "wilcoxon")]["mean_b"] == r[(v, 0.0, "wilcoxon")]["mean_b"]
                assert r[(v, 1e-9, "mcnemar_row")]["n"] == r[(v, 0.0, "mcnemar_row")]["n"]
            assert c["label_flips"][0] == 0
            flips += c["label_flips"][1]
            rows += c["n_rows"]
            b_noisy, b_clean = r[(True, 0.1, "wilcoxon")], r[(True, 0.0, "wilcoxon")]
            changed.append(b_noisy["mean_b"] != b_clean["mean_b"])
    assert st.binomtest(flips, rows, 0.10).pvalue > 1e-3
    assert all(changed)  # the flips changed what B learnt in every cell
