"""The confidence sequence: its boundary against the mixture's defining integral, its
running sums against a plain loop, its coverage by simulation with a known mean."""

import math

import numpy as np
import pytest
from drifting_rows import drifting_rows
from scipy import integrate, stats

from distval.errors import DistvalError
from distval.statistics.anytime import (
    DifferenceCS,
    _rho,
    confidence_sequence,
    decide,
    gamma_exponential_bound,
    log_gamma_exponential_mixture,
)


@pytest.mark.parametrize(("s", "v", "rho", "c"), [(3.0, 10.0, 4.0, 2.0), (40.0, 900.0, 120.0,
                                                  2.0), (0.5, 2.0, 1.0, 1.0)])
def test_mixture_closed_form_equals_its_integral(s, v, rho, c):
    # Howard et al. (2021): M(s, v) = E_F[exp(lambda s - psi_E(lambda) v)] with
    # psi_E(l) = (-log(1 - c l) - c l) / c^2 and F the conjugate (gamma) mixing density
    # proportional to (1 - c l)^(rho/c^2 - 1) exp(l rho / c) on [0, 1/c).
    def psi(lam):
        return (-math.log1p(-c * lam) - c * lam) / c**2

    def mixing(lam):
        return (1 - c * lam) ** (rho / c**2 - 1) * math.exp(lam * rho / c)

    norm = integrate.quad(mixing, 0, 1 / c, limit=200)[0]
    value = integrate.quad(
        lambda lam: math.exp(lam * s - psi(lam) * v) * mixing(lam), 0, 1 / c, limit=200
    )[0]
    got = float(log_gamma_exponential_mixture(s, v, rho, c))
    assert got == pytest.approx(math.log(value / norm), rel=1e-7)


def test_boundary_is_where_the_mixture_reaches_one_over_alpha():
    v = np.array([1.0, 30.0, 1000.0, 5e4])
    u = gamma_exponential_bound(v, 0.025, v_opt=1000.0, c=2.0)
    rho = _rho(1000.0, 0.025)
    assert np.allclose(log_gamma_exponential_mixture(u, v, rho, 2.0), math.log(40), atol=1e-7)
    assert (log_gamma_exponential_mixture(0.999 * u, v, rho, 2.0) < math.log(40)).all()
    # far beyond v_opt the boundary grows like sqrt(v log v), no faster than 4 sqrt(v log v)
    assert u[-1] < 4 * math.sqrt(v[-1] * math.log(v[-1]))


def test_running_sums_equal_a_plain_loop_and_batches_do_not_matter():
    rng = np.random.default_rng(0)
    x = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], 5000, p=[0.1, 0.1, 0.5, 0.2, 0.1])
    total, v = 0.0, 0.0
    for i, xi in enumerate(x.tolist()):
        gamma = total / i if i else 0.0
        v += (xi - gamma) ** 2
        total += xi
    cs = DifferenceCS(alpha=0.1)
    for part in np.array_split(x, [1, 7, 900, 901, 3000]):
        cs.update(part)
    assert cs.t == 5000 and cs.mean == pytest.approx(total / 5000)
    assert cs.v == pytest.approx(v)
    u = gamma_exponential_bound(v, 0.05, v_opt=1000.0, c=2.0)[0]
    mean = total / 5000
    # the running sequence reads its boundary from a table rounded up: never narrower than
    # the exact one, at most 0.5 % wider
    assert mean - 1.005 * u / 5000 <= cs.lower <= mean - u / 5000
    assert mean + u / 5000 <= cs.upper <= mean + 1.005 * u / 5000
    _, lower, upper = confidence_sequence(x, alpha=0.1, at=[5000])  # exact
    assert (lower[0], upper[0]) == pytest.approx((mean - u / 5000, mean + u / 5000))


def test_nan_rows_are_skipped_and_out_of_range_values_refused():
    cs = DifferenceCS()
    cs.update([0.5, np.nan, -0.5])
    assert cs.t == 2 and cs.mean == 0.0
    with pytest.raises(DistvalError, match=r"values must lie in \[-1.0, 1.0\]"):
        cs.update([1.5])


def test_coverage_at_every_look_with_a_drifting_dependent_mean():
    # Rows are not i.i.d.: the conditional mean of x_t is a drifting curve plus a term that
    # depends on the previous row (runs), and is known exactly, so Delta_t is known. The
    # sequence must contain Delta_t at every one of 200 looks (every 20 rows) in at least
    # 1 - alpha of the runs; the runs that miss anywhere are checked against a binomial bound.
    rng = np.random.default_rng(12)
    runs, n, alpha = 400, 4000, 0.1
    x, mu = drifting_rows(rng, runs, n)
    t = np.arange(n)
    looks = np.arange(20, n + 1, 20)
    delta = (np.cumsum(mu, axis=1) / (t + 1))[:, looks - 1]
    _, lower, upper = confidence_sequence(x, alpha=alpha, at=looks)
    missed = ((delta < lower) | (delta > upper)).any(axis=1).sum()
    assert missed <= stats.binom.ppf(0.999, runs, alpha)


def test_decisions_against_a_margin():
    assert decide(0.021, 0.05, margin=0.02) == "A"
    assert decide(0.01, 0.05, margin=0.02) == "undecided"  # better, but maybe not by 2 points
    assert decide(-0.05, -0.03, margin=0.02) == "B"
    assert decide(-0.02, 0.02, margin=0.02) == "equivalent"
    assert decide(-0.001, 0.001) == "undecided"  # no margin: never "equivalent"
    with pytest.raises(DistvalError, match="margin"):
        decide(0.0, 0.1, margin=-0.1)
