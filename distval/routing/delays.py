"""Delayed and partially revealed labels: when each row's label reaches the replicas.

In a live stream the label of a row often arrives after the row, or never. distval follows
river's ``iter_progressive_val_score(delay=...)`` (and CapyMOA's
``prequential_ssl_evaluation``): every row is predicted when it arrives, by every fold replica
that tests it; its label becomes known at a later row, and only from then on do the replicas
train on it and the measures score the prediction made on arrival.

**When a label is due.** Row ``t``'s label is known *before* row ``u`` is predicted (the same
as *after* row ``u - 1`` was), where ``u`` is:

- ``delay=N`` rows: ``u = t + N``; ``N = 1`` (and 0) is ordinary test-then-train;
- ``delay=callable``: ``u = t + delay(x, y)`` with ``x`` the row's features (a dict, nominal
  values as their codes) and ``y`` its class; river's callable delay, in rows;
- ``delay_column=COL, delay=D``: the first row after ``t`` whose time has reached
  ``time[t] + D``, the time of a row being the largest value of ``COL`` so far (time never runs
  backwards). ``D`` is in the column's units, or a duration (``"30min"``, ``"2h"``, ``"1d"``,
  ``"45s"``) counted in seconds (a column of Unix times). A row whose time is behind the
  clock (an out-of-order row) is due when the clock reaches its own time plus ``D``: at the
  next row already if it is behind by ``D`` or more; so on a decreasing column every row
  but the first is known at the next row once the times have fallen ``D`` below the
  first, and the first row never is.

Labels known before the same row are used in the order of their due time, then of their row.
**End of the stream:** the rows still waiting are scored with the predictions made when
they arrived and are never trained on (MOA's ``EvaluatePrequentialDelayedCV``, whose
evaluators score on arrival and whose training queues are left unfinished).

**Partial labels.** With ``label_probability=p`` each row's label is revealed to the
replicas with probability ``p`` (one seeded draw per row, in stream order); an unrevealed row
is still predicted, never trained on, and never shown to a replica that reads the label
sequence. **The measures count every row** (CapyMOA's ``prequential_ssl_evaluation`` scores
every instance against its true label too): the revealed share decides what the learners
learn from, not what they are judged on, so both learners of a pair are scored on the same
rows.

:class:`LabelSchedule` computes, batch by batch and with numpy, which waiting rows become
known after which row of the batch (:class:`Release`); it holds only the rows in flight.

>>> spec = delay_spec(3)
>>> sched = LabelSchedule(spec, ["a"], n_folds=1)
>>> X, y = np.zeros((4, 1)), np.array([0, 1, 0, 1])
>>> w, t = np.ones((4, 1), np.int32), np.ones((4, 1), bool)
>>> r = sched.release(0, X, y, w, t, next_row=X[0])
>>> r.rows.tolist(), r.after.tolist()   # row 0 known before row 3 (after arrival 2 of 0..3)
([0, 1], [3, 4])
>>> r = sched.release(4, X, y, w, t, next_row=None)  # the last batch: the rest is scored
>>> r.rows.tolist(), r.after.tolist(), r.known.tolist()
([2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 4, 4], [True, True, True, False, False, False])
"""

from __future__ import annotations

import datetime as dt
import math
import numbers
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import numpy as np

from distval.errors import DistvalError

__all__ = ["Delay", "LabelSchedule", "LastKnown", "Release", "check_time_column", "delay_spec",
           "parse_duration", "untrained"]

_UNITS = {
    "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0,
    "min": 60.0, "m": 60.0, "minute": 60.0, "minutes": 60.0,
    "h": 3600.0, "hour": 3600.0, "hours": 3600.0,
    "d": 86400.0, "day": 86400.0, "days": 86400.0,
    "w": 604800.0, "week": 604800.0, "weeks": 604800.0,
}


def parse_duration(text: str) -> float | None:
    """A duration such as ``"30min"``, ``"2h"``, ``"1.5d"`` in seconds; None if ``text`` is
    not one.

    >>> parse_duration("30min"), parse_duration("2 h"), parse_duration("12")
    (1800.0, 7200.0, None)
    """
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([a-zA-Z]+)\s*", text)
    if not m or m.group(2).lower() not in _UNITS:
        return None
    return float(m.group(1)) * _UNITS[m.group(2).lower()]


@dataclass(frozen=True)
class Delay:
    """A validated label schedule: ``rows`` (a constant delay in rows), ``amount`` (a delay
    in ``column``'s units) or ``func`` (rows per row), and the revealed share ``probability``.
    """

    rows: int | None = None
    amount: float | None = None
    column: str | None = None
    func: Callable[[dict[str, Any], Any], Any] | None = None
    probability: float = 1.0

    @property
    def delayed(self) -> bool:
        """Whether labels arrive later than ordinary test-then-train."""
        return self.func is not None or self.amount is not None or (self.rows or 0) > 1


def delay_spec(
    delay: Any = None, column: str | None = None, probability: float | None = 1.0
) -> Delay | None:
    """The :class:`Delay` that ``delay``, ``delay_column`` and ``label_probability``
    describe (None: every label at once, the ordinary run); bad values raise
    :class:`DistvalError`.

    >>> delay_spec("1000"), delay_spec(None)
    (Delay(rows=1000, amount=None, column=None, func=None, probability=1.0), None)
    >>> delay_spec("30min", column="time").amount
    1800.0
    >>> delay_spec("30min")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: --delay '30min' is a time: give --delay-column, ...
    """
    p = 1.0 if probability is None else probability
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p <= 1.0:
        raise DistvalError(f"`label_probability` must be in [0, 1], got {probability!r}")
    p = float(p)
    if column is not None and (not isinstance(column, str) or not column):
        raise DistvalError(f"--delay-column must name a column, got {column!r}")
    if delay is None:
        if column is not None:
            raise DistvalError("--delay-column needs --delay, the time a label takes")
        return None if p == 1.0 else Delay(rows=1, probability=p)
    if callable(delay):
        if column is not None:
            raise DistvalError("a callable delay gives rows: it takes no --delay-column")
        return Delay(func=delay, probability=p)
    if isinstance(delay, dt.timedelta):
        if column is None:
            raise DistvalError("a timedelta delay needs --delay-column, the time column")
        return Delay(amount=delay.total_seconds(), column=column, probability=p)
    text = str(delay).strip()
    if column is None:
        if isinstance(delay, bool) or parse_duration(text) is not None:
            raise DistvalError(
                f"--delay {text!r} is a time: give --delay-column, the column holding each "
                "row's time"
            )
        try:
            rows = int(text)
        except ValueError:
            raise DistvalError(
                f"--delay takes a number of rows (or, with --delay-column, a time), got {text!r}"
            ) from None
        if rows < 0:
            raise DistvalError(f"--delay must be >= 0 rows, got {rows}")
        return Delay(rows=max(rows, 1), probability=p)
    seconds = parse_duration(text)
    if seconds is None:
        try:
            seconds = float(text)
        except ValueError:
            raise DistvalError(
                f"--delay {text!r}: give a number in --delay-column's units or a duration "
                "such as 30min, 2h, 1d"
            ) from None
    if not math.isfinite(seconds) or seconds < 0:
        raise DistvalError(f"--delay must be a finite time >= 0, got {text!r}")
    return Delay(amount=seconds, column=column, probability=p)


def check_time_column(delay: Delay | None, nominal: Collection[str]) -> None:
    """Refuse a ``--delay-column`` read as text: its category codes are no times. A time
    column holds numbers (in the units of ``--delay``; seconds for a duration) or, in a
    Parquet file, a timestamp type (read as Unix seconds).

    >>> check_time_column(delay_spec("10min", column="t"), nominal={"t"})
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: --delay-column 't' holds text, not numbers: ...
    """
    if delay is not None and delay.column is not None and delay.column in nominal:
        raise DistvalError(
            f"--delay-column {delay.column!r} holds text, not numbers: give a column of "
            "numbers (such as Unix seconds) or, in a Parquet file, a timestamp column"
        )


def untrained(delay: Delay | None, n_rows: int | None) -> str | None:
    """Why the learners would train on nothing (a warning), or None: no label is revealed
    (``label_probability=0``), or a delay of at least the stream's rows.

    >>> untrained(delay_spec(None, probability=0.0), 100)[:40]
    'label_probability is 0: no label reaches'
    >>> untrained(delay_spec("500"), 400)[:30], untrained(delay_spec("5"), 400)
    ('--delay 500 rows is as long as', None)
    """
    if delay is None:
        return None
    if delay.probability == 0.0:
        return ("label_probability is 0: no label reaches the learners, which train on "
                "nothing (every row is still scored)")
    if delay.rows is not None and n_rows is not None and delay.rows >= n_rows:
        return (f"--delay {delay.rows} rows is as long as the stream ({n_rows} rows) or "
                "longer: no label is known before the end and the learners train on nothing")
    return None


@dataclass(frozen=True, slots=True)
class Release:
    """The labels that become known during one batch of ``n`` arrivals, in the order used.

    Row ``rows[i]`` is known after the batch's arrival ``after[i] - 1`` was predicted
    (``1 <= after <= n``); ``X``, ``y``, ``weights`` and ``tested`` are its features, class
    and fold routing (drawn on arrival). ``known`` is False for a row whose label the
    replicas never get (unrevealed, or still waiting at the end of the stream): it is scored
    and not trained on (its ``weights`` are 0). ``waiting_from`` is the earliest row still
    waiting for its label after the batch (the batch's end if none): no later release scores
    a row before it.
    """

    after: np.ndarray
    rows: np.ndarray
    X: np.ndarray
    y: np.ndarray
    weights: np.ndarray
    tested: np.ndarray
    known: np.ndarray
    waiting_from: int = 0

    def __len__(self) -> int:
        return len(self.rows)


class LabelSchedule:
    """Rows in flight and their due rows; :meth:`release` takes one batch of arrivals.

    ``feature_names`` locate ``delay.column``; ``classes`` (a callable giving the stream's
    class names so far) is what a callable delay receives as ``y``. The reveal draws come
    from their own generator seeded by ``seed`` (so they never move the fold routing), drawn
    as CapyMOA's ``prequential_ssl_evaluation`` draws them (a Mersenne Twister with numpy's
    legacy seeding, one uniform per row, revealed below ``p``): the same seed reveals the
    same rows in both.
    """

    def __init__(
        self,
        delay: Delay,
        feature_names: list[str],
        n_folds: int,
        seed: int | None = None,
        classes: Callable[[], list[Any]] | None = None,
    ) -> None:
        self.delay = delay
        self.names = list(feature_names)
        self.column: int | None = None
        if delay.column is not None:
            if delay.column not in self.names:
                raise DistvalError(
                    f"--delay-column {delay.column!r} is not a feature column of the stream "
                    f"(its columns: {', '.join(self.names)})"
                )
            self.column = self.names.index(delay.column)
        self.classes = classes
        # CapyMOA's prequential_ssl_evaluation draws: Mersenne Twister, legacy seeding.
        self._rng = np.random.RandomState(seed)
        self._clock = -np.inf  # the largest time seen so far (time column)
        d, k = len(self.names), n_folds
        self._rows = np.empty(0, np.int64)
        self._due = np.empty(0, np.float64)  # row (row delays) or time when known
        self._X = np.empty((0, d))
        self._y = np.empty(0, np.int64)
        self._w = np.empty((0, k), np.int32)
        self._t = np.empty((0, k), bool)
        self._known = np.empty(0, bool)

    @property
    def in_flight(self) -> int:
        """Rows whose label has not been used yet."""
        return len(self._rows)

    def revealed(self, n: int) -> np.ndarray:
        """The next ``n`` rows' reveal draws (True: the label reaches the replicas)."""
        p = self.delay.probability
        if p >= 1.0:
            return np.ones(n, bool)
        return self._rng.random_sample(n) < p

    def _due_rows(self, start: int, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        n = len(y)
        rows = np.arange(start, start + n, dtype=np.int64)
        f = self.delay.func
        if f is None:
            return (rows + int(self.delay.rows or 1)).astype(np.float64)
        classes = self.classes() if self.classes is not None else []
        names = self.names
        out = np.empty(n, np.float64)
        for i, (x, c) in enumerate(zip(X.tolist(), y.tolist())):  # the user's function, per row
            value = f(dict(zip(names, x)), classes[c] if c < len(classes) else c)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < 0:
                raise DistvalError(
                    f"the delay function gave {value!r} for row {start + i}: it must give a "
                    "number of rows >= 0"
                )
            out[i] = start + i + int(float(value))  # 0: known before the next row, first
        return out

    def release(
        self,
        start: int,
        X: np.ndarray,
        y: np.ndarray,
        weights: np.ndarray,
        tested: np.ndarray,
        next_row: np.ndarray | None,
    ) -> Release:
        """Take the arrivals ``start .. start + n - 1`` and say which labels become known
        during them. ``next_row`` is the features of row ``start + n`` (its time decides the
        labels known before it), or None at the end of the stream: then every row still
        waiting is released unknown, to be scored."""
        n = len(y)
        known = self.revealed(n)
        if self.column is None:
            due = self._due_rows(start, X, y)
            self._append(start, due, X, y, weights, tested, known)
            u = np.maximum(self._due, self._rows + 1)  # known before row u
        else:
            times = X[:, self.column]
            if np.isnan(times).any():
                row = start + int(np.flatnonzero(np.isnan(times))[0])
                raise DistvalError(
                    f"--delay-column {self.delay.column!r} is missing at row {row}"
                )
            clock = np.maximum.accumulate(np.r_[self._clock, times])[1:]
            self._append(start, times + float(self.delay.amount or 0.0), X, y, weights, tested,
                         known)
            later = clock[1:]  # the clocks of rows start + 1 .. start + n - 1
            if next_row is not None:
                later = np.r_[later, max(clock[-1], float(next_row[self.column]))]
            u = start + 1 + np.searchsorted(later, self._due, side="left").astype(np.float64)
            u = np.maximum(u, self._rows + 1)
            u[u > start + len(later)] = np.inf
            self._clock = float(clock[-1])
        last = next_row is None
        go = u <= (start + n - 1 if last else start + n)
        pick = np.arange(len(u)) if last else np.flatnonzero(go)
        at = np.where(go, u, start + n)[pick]  # rows waiting at the end: after the last row
        order = pick[np.lexsort((self._rows[pick], self._due[pick], at))]
        known = self._known[order] & go[order]
        keep = np.ones(len(self._rows), bool)
        keep[pick] = False
        waiting = self._rows[keep]  # in arrival order
        rel = Release(
            after=(np.where(go, u, start + n)[order] - start).astype(np.int64),
            rows=self._rows[order],
            X=self._X[order],
            y=self._y[order],
            weights=np.where(known[:, None], self._w[order], 0).astype(np.int32),
            tested=self._t[order],
            known=known,
            waiting_from=int(waiting[0]) if len(waiting) else start + n,
        )
        self._keep(keep)
        return rel

    def _append(self, start: int, due: np.ndarray, X: np.ndarray, y: np.ndarray,
                w: np.ndarray, t: np.ndarray, known: np.ndarray) -> None:
        n = len(y)
        self._rows = np.r_[self._rows, np.arange(start, start + n, dtype=np.int64)]
        self._due = np.r_[self._due, due]
        self._X = np.concatenate([self._X, X])
        self._y = np.r_[self._y, y.astype(np.int64)]
        self._w = np.concatenate([self._w, w.astype(np.int32)])
        self._t = np.concatenate([self._t, t.astype(bool)])
        self._known = np.r_[self._known, known]

    def _keep(self, keep: np.ndarray) -> None:
        self._rows, self._due, self._X = self._rows[keep], self._due[keep], self._X[keep]
        self._y, self._w, self._t = self._y[keep], self._w[keep], self._t[keep]
        self._known = self._known[keep]



class LastKnown:
    """The no-change (Persistent) classifier under delayed labels: it predicts each row with
    the class of the label known last before the row arrived (class 0 while none is), the
    only no-change guess a learner could make when labels come late. Without a delay that is
    the previous row's label; MOA's evaluators use the previous row's label in every case
    (their κper compares with a guess no learner could make under a delay).

    >>> sched = LabelSchedule(delay_spec(3), ["x"], n_folds=1)
    >>> X, y, w = np.zeros((6, 1)), np.array([1, 0, 1, 1, 0, 0]), np.ones((6, 1), np.int32)
    >>> rel = sched.release(0, X, y, w, w.astype(bool), next_row=None)
    >>> LastKnown().guess(0, rel).tolist()  # row t gets row t - 3's label
    [0, 0, 0, 1, 0, 1]
    """

    def __init__(self) -> None:
        # The labels known so far, as far back as a row still to be scored needs: the row
        # before which each was known, and its class (known in that order).
        self._at = np.empty(0, np.int64)
        self._y = np.empty(0, np.int64)

    def guess(self, start: int, release: Release) -> np.ndarray:
        """The guess for each row ``release`` scores (``start``: the batch's first row)."""
        known = release.known
        self._at = np.r_[self._at, start + release.after[known]]
        self._y = np.r_[self._y, release.y[known].astype(np.int64)]
        last = np.searchsorted(self._at, release.rows, side="right") - 1
        y = np.concatenate([np.zeros(1, np.int64), self._y])  # class 0 while none is known
        out: np.ndarray = y[last + 1]
        # later releases score rows from waiting_from on: keep the last label they may need
        drop = int(np.searchsorted(self._at, release.waiting_from, side="right")) - 1
        if drop > 0:
            self._at, self._y = self._at[drop:], self._y[drop:]
        return out
