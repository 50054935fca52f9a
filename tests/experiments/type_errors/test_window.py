"""The window at the end of a cell (distval.experiments.type_errors.window) and the cell's
windowed decisions."""

from __future__ import annotations

import numpy as np
import pytest

from distval.experiments.type_errors import GridConfig, run_cell
from distval.experiments.type_errors.window import Tail


@pytest.mark.parametrize("size, rate", [(50, 1.0), (50, 0.1), (7, 0.37), (2000, 0.5)])
def test_tail_keeps_each_folds_last_tested_pairs(size, rate):
    """Against the pairs picked directly from the whole pass: per (variant, fold), the last
    ``size`` tested positions (all of them when fewer), batches of uneven length."""
    rng = np.random.default_rng(size)
    tail, whole = Tail(size), []
    for n in rng.integers(1, 120, 40):
        masks = rng.random((2, 3, n)) < np.array([1.0, rate])[:, None, None]
        ca = rng.random((3, n)) < 0.5
        cb = rng.random((2, 3, n)) < 0.5
        tail.add(ca, cb, masks, masks & (rng.random((2, 3, n)) < 0.5))
        whole.append((ca, cb, masks))
    ca_all, cb_all, masks_all = (np.concatenate(p, axis=-1) for p in zip(*whole))
    ca, cb, keep, picks = tail.trimmed()
    offset = ca_all.shape[1] - ca.shape[1]
    for v in range(2):
        for f in range(3):
            want = np.flatnonzero(masks_all[v, f])[-size:]
            got = np.flatnonzero(keep[v, f]) + offset
            np.testing.assert_array_equal(got, want)
            # the kept rows' outcomes are the pass's own
            assert (ca[f] == ca_all[f, offset:]).all() and (cb == cb_all[..., offset:]).all()
    assert (picks <= keep).all()
    assert ca.shape[1] < ca_all.shape[1] or size >= 2000


def _cfg(**kw):
    return GridConfig(streams=(("SEA(50)", "SEA(50)"),), runs=1, n_rows=1000,
                      learner="majority", n_folds=4, looks=2, batch_size=100,
                      noise_on="training", **kw)


def test_a_window_as_long_as_the_stream_decides_as_the_cumulative_accuracy():
    """With a window longer than the stream, every fold's window is all it tested: the
    windowed rows are the cumulative ones; a shorter window changes the fold accuracies
    and leaves the cumulative rows as they were without a window."""
    keys = ("prequential", "pnoise", "test", "reject", "pvalue", "mean_a", "mean_b")
    plain = run_cell(_cfg(), "SEA(50)", "SEA(50)", 0, "bootstrap")
    long = run_cell(_cfg(window=5000), "SEA(50)", "SEA(50)", 0, "bootstrap")
    short = run_cell(_cfg(window=100), "SEA(50)", "SEA(50)", 0, "bootstrap")
    assert "window" not in plain

    def rows(cell, part):  # the fixed-alpha decisions (the e-process runs over looks only)
        return [tuple(r[k] for k in keys) for r in cell[part] if r["test"] != "sign_evalue"]

    assert rows(long, "window") == rows(long, "results")
    assert rows(short, "results") == rows(plain, "results")
    assert [r["mean_a"] for r in short["window"]] != [r["mean_a"] for r in short["results"]]


@pytest.mark.parametrize("kw, message", [
    ({"window": 0}, "--window"),
    ({"att_noise": 1.5}, "--att-noise"),
    ({"att_noise": 0.1, "noise_on": "predictions"}, "--noise-on training"),
])
def test_bad_window_or_attribute_noise_is_one_clear_error(kw, message):
    from distval.errors import DistvalError

    base = {"streams": (("SEA(50)", "SEA(50)"),), "learner": "majority"} | kw
    with pytest.raises(DistvalError, match=message):
        GridConfig(**base)
