"""Prequential error estimators, the Q statistic and Page-Hinkley drift detection (gama2013).

Everything here works a batch at a time with numpy and returns the value after *every* row:

- :class:`PrequentialError`: the prequential estimate of a loss over the whole history, over a
  sliding window of ``w`` rows, or with a fading factor ``f`` (gama2013 §3, Algorithms 1–3,
  where it is called alpha: the fading average of eq. 1 is ``S_f(i) / N_f(i)`` with
  ``S_f(i) = x_i + f * S_f(i - 1)`` and ``N_f(i) = 1 + f * N_f(i - 1)``);
- :func:`q_statistic`: ``Q_i(A, B) = log(S_i^A / S_i^B)`` from accumulated losses (§4.1);
- :class:`PageHinkley`: the one-sided Page-Hinkley test for an increase in the mean
  (§5.1): ``m_T = sum_t (x_t - mean_t - delta)``, ``M_T = min_t m_t``, alarm when
  ``m_T - M_T > lambda``; the test restarts after an alarm. It gives the same alarms as
  river's ``drift.PageHinkley(mode="up", alpha=1, min_instances=1)`` (river's default is
  two-sided with a forgetting factor), but vectorised;
- :class:`DriftMonitor`: Page-Hinkley over several error estimates of each (learner, fold)
  and over the ratio of a short- to a long-term estimate (two fading factors, Algorithm 4,
  or two sliding windows, §5.3);
- the periodic holdout evaluation that the prequential curves are compared with (§3,
  Figs. 2–3) is :func:`distval.experiments.holdout.holdout_curve`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from distval.errors import DistvalError, check_positive_int

__all__ = [
    "DriftMonitor",
    "PageHinkley",
    "PrequentialError",
    "q_statistic",
    "squared_loss",
    "zero_one_loss",
]

KINDS = ("cumulative", "window", "fading")


def zero_one_loss(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """1.0 where the prediction is wrong, else 0.0."""
    wrong: npt.NDArray[np.bool_] = np.asarray(y) != np.asarray(pred)
    return wrong.astype(np.float64)


def squared_loss(y: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """(y - prediction)^2, e.g. for probabilities or regression."""
    d = np.asarray(y, dtype=np.float64) - np.asarray(pred, dtype=np.float64)
    return d * d


class PrequentialError:
    """Prequential estimate of a loss after each row: ``cumulative``, ``window`` or ``fading``.

    ``update(losses)`` returns the estimate after each of the new rows; ``total`` is the
    accumulated loss the estimate divides (the fading sum, the window sum, or the plain sum).

    >>> e = PrequentialError("window", window=3)
    >>> e.update(np.array([1.0, 0.0, 0.0, 0.0, 1.0])).tolist()
    [1.0, 0.5, 0.3333333333333333, 0.0, 0.3333333333333333]
    >>> f = PrequentialError("fading", fading=0.5)
    >>> f.update(np.array([1.0, 0.0])).tolist()  # (0 + 0.5 * 1) / (1 + 0.5 * 1)
    [1.0, 0.3333333333333333]
    """

    def __init__(self, kind: str = "fading", *, window: int = 1000, fading: float = 0.999):
        if kind not in KINDS:
            raise DistvalError(f"unknown estimator {kind!r}; choose one of {', '.join(KINDS)}")
        if kind == "window":
            check_positive_int(window, "window size")
        if kind == "fading" and not 0.0 < fading <= 1.0:
            raise DistvalError(f"the fading factor must be in (0, 1], got {fading}")
        self.kind, self.window, self.fading = kind, int(window), float(fading)
        self.total = 0.0  # accumulated (faded / windowed) loss
        self.weight = 0.0  # its divisor: rows, window fill or fading increment N_f
        self._recent = np.empty(0)

    def update(self, losses: np.ndarray) -> np.ndarray:
        x = np.asarray(losses, dtype=np.float64)
        m = len(x)
        if m == 0:
            return x
        if self.kind == "cumulative":
            totals = self.total + np.cumsum(x)
            weights = self.weight + np.arange(1, m + 1, dtype=np.float64)
        elif self.kind == "fading":
            a = [1.0, -self.fading]
            from scipy.signal import lfilter  # ~0.8 s of imports: only when used

            totals = lfilter([1.0], a, x, zi=[self.fading * self.total])[0]
            weights = lfilter([1.0], a, np.ones(m), zi=[self.fading * self.weight])[0]
        else:
            full = np.concatenate([self._recent, x])
            cs = np.concatenate([[0.0], np.cumsum(full)])
            end = len(self._recent) + 1 + np.arange(m)
            start = np.maximum(end - self.window, 0)
            totals = cs[end] - cs[start]
            weights = (end - start).astype(np.float64)
            self._recent = full[-self.window :]
        self.total, self.weight = float(totals[-1]), float(weights[-1])
        return totals / weights


def q_statistic(loss_a: float | np.ndarray, loss_b: float | np.ndarray) -> np.ndarray:
    """Q(A, B) = log(S_A / S_B) of accumulated losses (gama2013 §4.1); NaN if either is 0.

    Negative values favour A. Antisymmetric: ``q_statistic(a, b) == -q_statistic(b, a)``.

    >>> float(q_statistic(10.0, 20.0)), float(q_statistic(20.0, 10.0))
    (-0.6931471805599453, 0.6931471805599453)
    """
    a, b = np.asarray(loss_a, dtype=np.float64), np.asarray(loss_b, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((a > 0) & (b > 0), np.log(a / b), np.nan)


class PageHinkley:
    """One-sided Page-Hinkley test for an increase of the mean (gama2013 §5.1).

    ``update(x)`` returns the indices (into ``x``) where an alarm fires; after an alarm the
    test starts afresh with the next value. ``delta`` is the magnitude of change allowed,
    ``threshold`` is lambda; no alarm before ``min_instances`` values since the last restart.

    >>> ph = PageHinkley(delta=0.1, threshold=5)
    >>> x = np.r_[np.zeros(100), np.ones(100)]
    >>> ph.update(x).tolist()
    [105]
    """

    def __init__(self, delta: float = 0.1, threshold: float = 100.0, min_instances: int = 1):
        if threshold <= 0:
            raise DistvalError(f"Page-Hinkley's lambda must be positive, got {threshold}")
        if delta < 0:
            raise DistvalError(f"Page-Hinkley's delta must be >= 0, got {delta}")
        self.delta, self.threshold, self.min_instances = delta, threshold, max(1, min_instances)
        self._restart()

    def _restart(self) -> None:
        self.n, self.sum, self.m, self.m_min = 0, 0.0, 0.0, np.inf

    def update(self, x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64)
        alarms, lo = [], 0
        while lo < len(x):
            seg = x[lo:]
            count = self.n + np.arange(1, len(seg) + 1)
            mean = (self.sum + np.cumsum(seg)) / count
            m = self.m + np.cumsum(seg - mean - self.delta)
            m_min = np.minimum(np.minimum.accumulate(m), self.m_min)
            hit = np.flatnonzero((m - m_min > self.threshold) & (count >= self.min_instances))
            if not len(hit):
                self.n, self.sum = int(count[-1]), self.sum + float(seg.sum())
                self.m, self.m_min = float(m[-1]), float(m_min[-1])
                break
            alarms.append(lo + int(hit[0]))
            lo += int(hit[0]) + 1
            self._restart()
        return np.array(alarms, dtype=np.int64)


#: The detectors a :class:`DriftMonitor` runs on each (learner, fold): estimate(s) -> name.
DETECTORS = ("ph_cumulative", "ph_window", "ph_fading", "ph_ratio_window", "ph_ratio_fading")


@dataclass(frozen=True)
class DriftSettings:
    """Parameters of the drift detectors (gama2013 §5: delta 0.1, lambda 100, windows 1k/5k,
    fading factors 0.997 / 0.9994)."""

    delta: float = 0.1
    threshold: float = 100.0
    window: int = 1000
    fading: float = 0.997
    short_window: int = 1000
    long_window: int = 5000
    short_fading: float = 0.997
    long_fading: float = 0.9994

    def __post_init__(self) -> None:
        if not self.short_window < self.long_window:
            raise DistvalError("the short drift window must be shorter than the long one")
        if not self.short_fading < self.long_fading:
            raise DistvalError("the short-term fading factor must be below the long-term one")


class _Series:
    """One detector: its error estimate(s) and a Page-Hinkley test on them."""

    def __init__(self, name: str, s: DriftSettings) -> None:
        self.name = name
        ph = PageHinkley(s.delta, s.threshold)
        self.ph = ph
        if name == "ph_cumulative":
            self.est = [PrequentialError("cumulative")]
        elif name == "ph_window":
            self.est = [PrequentialError("window", window=s.window)]
        elif name == "ph_fading":
            self.est = [PrequentialError("fading", fading=s.fading)]
        elif name == "ph_ratio_window":
            self.est = [
                PrequentialError("window", window=s.short_window),
                PrequentialError("window", window=s.long_window),
            ]
        else:
            self.est = [
                PrequentialError("fading", fading=s.short_fading),
                PrequentialError("fading", fading=s.long_fading),
            ]

    def update(self, losses: np.ndarray) -> np.ndarray:
        values = [e.update(losses) for e in self.est]
        if len(values) == 2:  # R(i) = short-term / long-term estimate (Algorithm 4)
            short, long = values
            with np.errstate(divide="ignore", invalid="ignore"):
                values = [np.where(long > 0, short / long, 1.0)]
        return self.ph.update(values[0])


class DriftMonitor:
    """Page-Hinkley detectors on the error estimates of every slot, fed batch by batch.

    ``update(pred, y, start)`` takes (slots, rows) predictions (-1 = not tested) and returns
    events ``(row, slot, detector)``; each slot's detectors see that slot's tested rows.
    """

    def __init__(self, n_slots: int, settings: DriftSettings | None = None) -> None:
        self.settings = settings or DriftSettings()
        self.slots = [[_Series(d, self.settings) for d in DETECTORS] for _ in range(n_slots)]

    def update(self, pred: np.ndarray, y: np.ndarray, start: int) -> list[tuple[int, int, str]]:
        events = []
        for s, detectors in enumerate(self.slots):
            rows = np.flatnonzero(pred[s] >= 0)
            if not len(rows):
                continue
            losses = zero_one_loss(y[rows], pred[s][rows])
            for det in detectors:
                for i in det.update(losses):
                    events.append((start + int(rows[i]), s, det.name))
        return events
