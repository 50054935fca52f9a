"""distval's attribute noise against MOA's own ``AddNoiseFilter -a`` in a real JVM, on the
same clean rows of MOA's generators (the filter's Java random stream cannot be replayed in
numpy, so the comparison is statistical, plus an exact check of the running sd)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from distval.experiments.type_errors.attnoise import AttributeNoise

pytestmark = pytest.mark.moa


def _moa_rows(generator: str, filter_options: str, n: int) -> tuple[np.ndarray, np.ndarray,
                                                                    list[int]]:
    """``n`` rows of a MOA generator, clean and through MOA's ``AddNoiseFilter`` (an
    identically seeded copy), with the indices of its nominal attributes."""
    import jpype

    from distval.learners.moa import jvm

    jvm.start_jvm()
    gen = jpype.JClass(f"moa.streams.generators.{generator}")
    clean, source = gen(), gen()
    for g in (clean, source):
        g.prepareForUse()
    noisy = jpype.JClass("moa.streams.filters.AddNoiseFilter")()
    noisy.getOptions().setViaCLIString(filter_options)
    noisy.setInputStream(source)
    noisy.prepareForUse()
    a, b = [], []
    for _ in range(n):
        a.append(list(clean.nextInstance().getData().toDoubleArray()))
        b.append(list(noisy.nextInstance().getData().toDoubleArray()))
    header = clean.getHeader()
    d = header.numAttributes() - 1  # the class is last
    nominal = [i for i in range(d) if header.attribute(i).isNominal()]
    return np.array(a)[:, :d], np.array(b)[:, :d], nominal


def _distval(x: np.ndarray, fraction: float, nominal: list[int], seed: int) -> np.ndarray:
    noise = AttributeNoise(fraction, x.shape[1], nominal, np.random.default_rng(seed))
    return np.concatenate([noise(x[i:i + 500]) for i in range(0, len(x), 500)])


def test_numeric_shift_is_gaussian_times_the_running_sd_like_moas():
    """SEA (numeric): MOA's shift and distval's, divided by P x the running sd (pandas'
    expanding std, n - 1), are both N(0, 1) and alike (KS); distval's equals its own
    Gaussians times that sd exactly, batches of 500 carrying the running estimate."""
    clean, moa, _ = _moa_rows("SEAGenerator", "-c 0 -a 0.1", 4000)
    ours = _distval(clean, 0.1, [], seed=5)
    sd = pd.DataFrame(clean).expanding().std().fillna(0.0).to_numpy()
    assert (moa[0] == clean[0]).all() and (ours[0] == clean[0]).all()  # sd 0 at row 0
    for name, noisy in (("moa", moa), ("distval", ours)):
        z = ((noisy - clean)[2:] / (0.1 * sd[2:])).ravel()
        assert stats.kstest(z, "norm").pvalue > 1e-3, name
    rng = np.random.default_rng(5)
    gauss = np.concatenate([rng.standard_normal((500, 3)) for _ in range(8)])
    np.testing.assert_allclose(ours - clean, gauss * sd * 0.1, rtol=1e-7, atol=1e-12)
    for j in range(3):
        assert stats.ks_2samp((moa - clean)[:, j], (ours - clean)[:, j]).pvalue > 1e-3


def test_nominal_redraws_match_moas_filter():
    """RandomTreeGenerator (5 nominal attributes of 5 values, 5 numeric): the share of
    nominal values redrawn and where they go (the other seen values, uniformly) agree with
    MOA's filter on the same rows; numeric attributes are shifted alike."""
    clean, moa, nominal = _moa_rows("RandomTreeGenerator", "-c 0 -a 0.2", 4000)
    assert len(nominal) == 5
    ours = _distval(clean, 0.2, nominal, seed=7)
    nom = np.array(nominal)
    changed_moa = moa[:, nom] != clean[:, nom]
    changed_ours = ours[:, nom] != clean[:, nom]
    table = [[changed_moa.sum(), (~changed_moa).sum()], [changed_ours.sum(), (~changed_ours).sum()]]
    assert stats.chi2_contingency(table).pvalue > 1e-3
    assert abs(changed_ours.mean() - 0.2) < 0.01  # every value has been seen early on
    # where redrawn values go, by (original, new) code: MOA's and ours alike
    pairs = {}
    for label, noisy, changed in (("moa", moa, changed_moa), ("ours", ours, changed_ours)):
        old = clean[:, nom][changed].astype(int)
        new = noisy[:, nom][changed].astype(int)
        assert (old != new).all()
        pairs[label] = np.bincount(old * 5 + new, minlength=25)
    both = np.array([pairs["moa"], pairs["ours"]])
    both = both[:, both.sum(axis=0) > 0]
    assert stats.chi2_contingency(both).pvalue > 1e-3
    num = [j for j in range(clean.shape[1]) if j not in nominal]
    for j in num:
        assert stats.ks_2samp((moa - clean)[:, j], (ours - clean)[:, j]).pvalue > 1e-3


def test_nothing_is_redrawn_before_two_values_are_seen():
    """As MOA: a nominal value is redrawn only once another value has been seen, and only
    to a seen one (checked row by row against the set of codes seen so far)."""
    x = np.concatenate([np.zeros(300), np.tile([0.0, 1.0, 2.0], 400), [3.0] * 10])[:, None]
    out = _distval(x, 0.5, [0], seed=1)
    assert (out[:300] == 0).all()
    changed = np.flatnonzero(out[:, 0] != x[:, 0])
    first_seen = {v: int(np.argmax(x[:, 0] == v)) for v in (0.0, 1.0, 2.0, 3.0)}
    assert all(first_seen[out[i, 0]] <= i for i in changed)
    assert 0.4 < len(changed) / (len(x) - 300) < 0.6
