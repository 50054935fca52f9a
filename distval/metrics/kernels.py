"""The compiled (numba) loops of the trackers: one call per batch for all slots.

Windows keep every slot's tested rows as packed codes (:func:`~distval.metrics.confusion.pack`)
in a ring buffer, one row of ``ring`` per slot, the oldest at ``head[s]``, ``size[s]`` of
them. A batch is pushed row by row into the ring and into the slot's confusion counts, then
the oldest codes beyond the window's length leave both.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from distval.metrics.confusion import CLASS_MASK, PRED_SHIFT, Y_SHIFT
from distval.metrics.jit import njit

__all__ = [
    "LEVELS",
    "RING",
    "ADWINState",
    "adwin_batch",
    "adwin_settings",
    "adwin_sums_batch",
    "adwin_values_batch",
    "bucket_counts",
    "count_batch",
    "paired_adwin_batch",
    "sliding_batch",
]


@njit(nogil=True)
def count_batch(
    y: np.ndarray, pred: np.ndarray, per_ok: np.ndarray, C: np.ndarray, P: np.ndarray
) -> None:  # pragma: no cover
    """Add every tested (slot, row) to its confusion cell and persistent-correct count."""
    n_slots, n = pred.shape
    for s in range(n_slots):
        for i in range(n):
            p = pred[s, i]
            if p >= 0:
                C[s, y[i], p] += 1.0
                P[s] += per_ok[i]


# -- windows -----------------------------------------------------------------------------

LEVELS = 64  # ADWIN bucket levels: level i holds buckets of 2**i rows


@njit(nogil=True)
def _push(
    s: int,
    code: int,
    ring: np.ndarray,
    head: np.ndarray,
    size: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
) -> None:
    at = head[s] + size[s]  # head < cap and size < cap (the ring has room): one wrap at most
    if at >= ring.shape[1]:
        at -= ring.shape[1]
    ring[s, at] = code
    size[s] += 1
    C[s, (code >> Y_SHIFT) & CLASS_MASK, (code >> PRED_SHIFT) & CLASS_MASK] += 1.0
    P[s] += code & 1


@njit(nogil=True)
def _trim(
    s: int,
    keep: int,
    ring: np.ndarray,
    head: np.ndarray,
    size: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
) -> None:
    cap = ring.shape[1]
    while size[s] > keep:
        code = ring[s, head[s]]
        C[s, (code >> Y_SHIFT) & CLASS_MASK, (code >> PRED_SHIFT) & CLASS_MASK] -= 1.0
        P[s] -= code & 1
        head[s] += 1
        if head[s] == cap:
            head[s] = 0
        size[s] -= 1


@njit(nogil=True)
def sliding_batch(  # pragma: no cover - numba
    y: np.ndarray,
    pred: np.ndarray,
    per_ok: np.ndarray,
    keep: int,
    ring: np.ndarray,
    head: np.ndarray,
    size: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
) -> None:
    n_slots, n = pred.shape
    for s in range(n_slots):
        for i in range(n):
            p = pred[s, i]
            if p >= 0:
                code = (np.int64(y[i]) << Y_SHIFT) | (np.int64(p) << PRED_SHIFT) | per_ok[i]
                _push(s, code, ring, head, size, C, P)
        _trim(s, keep, ring, head, size, C, P)


# ADWIN (Bifet & Gavalda 2007) with the arithmetic of river's compiled ``AdaptiveWindowing``,
# operation for operation, so the windows are river's exactly (tests/metrics/test_trackers.py checks
# width and detection row by row). A slot's buckets are kept per level in a ring of RING
# places: merging the two oldest or dropping the oldest moves the level's start, not its
# buckets.

MAX_BUCKETS = 5  # river's buckets per level before two merge
RING = 8  # places per level: MAX_BUCKETS + 1 (the one that triggers the merge), rounded up
# to a power of two so that a place wraps around the ring by a mask


class ADWINState(NamedTuple):
    """The ADWIN windows of ``n`` slots, as arrays the kernels update in place.

    ``stat[s]`` = (total, variance, width); ``ticks[s]`` = (rows seen, detections);
    ``levels[s]`` bucket levels in use; at level i (buckets of 2**i rows) ``cnt[s, i]``
    buckets, the oldest at place ``first[s, i]`` of ``bt[s, i]`` / ``bv[s, i]`` (their totals
    and variances), the next ones after it around the ring.

    >>> ADWINState.empty(3).bt.shape
    (3, 64, 8)
    """

    stat: np.ndarray
    ticks: np.ndarray
    levels: np.ndarray
    cnt: np.ndarray
    first: np.ndarray
    bt: np.ndarray
    bv: np.ndarray

    @classmethod
    def empty(cls, n_slots: int) -> ADWINState:
        """``n_slots`` empty windows."""
        return cls(
            np.zeros((n_slots, 3)),
            np.zeros((n_slots, 2), dtype=np.int64),
            np.ones(n_slots, dtype=np.int64),
            np.zeros((n_slots, LEVELS), dtype=np.int64),
            np.zeros((n_slots, LEVELS), dtype=np.int64),
            np.zeros((n_slots, LEVELS, RING)),
            np.zeros((n_slots, LEVELS, RING)),
        )

    def widths(self) -> np.ndarray:
        """Each slot's window width (rows), a copy."""
        out: np.ndarray = self.stat[:, 2].copy()
        return out

    def detections(self) -> np.ndarray:
        """The changes each slot's ADWIN has detected, a copy."""
        out: np.ndarray = self.ticks[:, 1].copy()
        return out


def adwin_settings(delta: float) -> np.ndarray:
    """An ADWIN kernel's settings with river's defaults: delta, clock 32, 5 buckets per
    level, minimum sub-window length 5, grace period 10 rows (:func:`adwin_params`)."""
    return np.array([delta, 32, MAX_BUCKETS, 5, 10], dtype=np.float64)


# The kernels below take :class:`ADWINState`'s arrays one by one, and each batch kernel
# writes out its row's step (insert, tick, scan on the clock) in its own loop: a compiled
# function called on every row with these arrays, inlined or not, was several times slower
# than the same step written in the loop in a trial (docs/performance-cpu.md). Every
# kernel that inlines ``_adwin_insert`` lives in this file: numba's on-disk cache of a
# kernel is refreshed when its own file changes, not when a function it inlined from
# another file does.


@njit(nogil=True, error_model="numpy", inline="always")
def _adwin_insert(
    s: int,
    value: float,
    stat: np.ndarray,
    levels: np.ndarray,
    cnt: np.ndarray,
    first: np.ndarray,
    bt: np.ndarray,
    bv: np.ndarray,
    max_buckets: int,
    bc: np.ndarray,
    row: np.ndarray,
) -> None:
    """Add one row to slot s's window: a bucket at level 0, merging the two oldest buckets
    of each full level into one of the next; ``row`` holds its counts (``bc``'s cells)."""
    mask = RING - 1
    top = (first[s, 0] + cnt[s, 0]) & mask
    bt[s, 0, top] = value
    bv[s, 0, top] = 0.0
    for c in range(row.shape[0]):  # element loops: no temporary arrays on the hot path
        bc[s, 0, top, c] = row[c]
    cnt[s, 0] += 1
    width = stat[s, 2] + 1.0
    inc = 0.0
    if width > 1.0:
        dv = value - stat[s, 0] / (width - 1.0)
        inc = (width - 1.0) * dv * dv / width
    stat[s, 1] += inc
    stat[s, 0] += value
    stat[s, 2] = width
    i = 0
    while cnt[s, i] == max_buckets + 1:
        n1 = float(np.int64(1) << i)
        p0 = first[s, i]
        p1 = (p0 + 1) & mask
        t0, t1 = bt[s, i, p0], bt[s, i, p1]
        mu1, mu2 = t0 / n1, t1 / n1
        v12 = bv[s, i, p0] + bv[s, i, p1] + n1 * 0.5 * (mu1 - mu2) * (mu1 - mu2)
        if i + 1 >= levels[s]:
            levels[s] += 1
            cnt[s, i + 1] = 0
            first[s, i + 1] = 0
        up = (first[s, i + 1] + cnt[s, i + 1]) & mask
        bt[s, i + 1, up] = t0 + t1
        bv[s, i + 1, up] = v12
        for c in range(bc.shape[3]):
            bc[s, i + 1, up, c] = bc[s, i, p0, c] + bc[s, i, p1, c]
        cnt[s, i + 1] += 1
        first[s, i] = (p0 + 2) & mask
        cnt[s, i] -= 2
        if cnt[s, i + 1] <= max_buckets:
            break
        i += 1


@njit(nogil=True, error_model="numpy")
def _adwin_drop_oldest(
    s: int,
    stat: np.ndarray,
    levels: np.ndarray,
    cnt: np.ndarray,
    first: np.ndarray,
    bt: np.ndarray,
    bv: np.ndarray,
) -> None:
    last = levels[s] - 1
    n = float(np.int64(1) << last)
    p = first[s, last]
    u, v = bt[s, last, p], bv[s, last, p]
    mu = u / n
    stat[s, 2] -= n
    stat[s, 0] -= u
    width = stat[s, 2]
    mu_window = stat[s, 0] / width
    stat[s, 1] -= v + n * width * (mu - mu_window) * (mu - mu_window) / (n + width)
    first[s, last] = (p + 1) & (bt.shape[2] - 1)
    cnt[s, last] -= 1
    if cnt[s, last] == 0:
        levels[s] -= 1


@njit(nogil=True, error_model="numpy")
def _adwin_scan(
    s: int,
    stat: np.ndarray,
    levels: np.ndarray,
    cnt: np.ndarray,
    first: np.ndarray,
    bt: np.ndarray,
    bv: np.ndarray,
    delta: float,
    min_len: float,
    work: np.ndarray,
) -> bool:
    """ADWIN's check of every cut of slot s's window, dropping the oldest bucket while one
    cut's means differ; whether any did (river's ``detect_change`` on a clock tick).

    The cuts are checked oldest first; the first that holds drops a bucket and the scan starts
    again. The running sums are taken in river's order, then every cut's test is computed in a
    separate (vectorisable) loop: the same operations on the same values, so the same answers.
    """
    mask = RING - 1
    n0s, n1s, u0s, u1s = work[0], work[1], work[2], work[3]
    detected = False
    while True:
        n0, n1 = 0.0, stat[s, 2]
        u0, u1 = 0.0, stat[s, 0]
        m = 0
        for i in range(levels[s] - 1, -1, -1):
            size = float(np.int64(1) << i)
            for k in range(cnt[s, i]):
                t = bt[s, i, (first[s, i] + k) & mask]
                n0 += size
                n1 -= size
                u0 += t
                u1 -= t
                n0s[m], n1s[m], u0s[m], u1s[m] = n0, n1, u0, u1
                m += 1
        m -= 1  # the newest bucket is never a cut point
        width = stat[s, 2]
        delta_prime = np.log(2.0 * np.log(width) / delta)
        variance_share = stat[s, 1] / width
        hits = work[4]
        for j in range(m):  # no early exit: a loop the compiler vectorises
            a0, a1 = n0s[j], n1s[j]
            delta_mean = (u0s[j] / a0) - (u1s[j] / a1)
            m_recip = 1.0 / (a0 - min_len + 1.0) + 1.0 / (a1 - min_len + 1.0)
            epsilon = (
                np.sqrt(2.0 * m_recip * variance_share * delta_prime)
                + 2.0 / 3.0 * delta_prime * m_recip
            )
            hits[j] = (a1 >= min_len) & (a0 >= min_len) & (abs(delta_mean) > epsilon)
        cut = -1
        for j in range(m):
            if hits[j] != 0.0:
                cut = j
                break
        if cut < 0:
            return detected
        detected = True
        if width > 0.0:
            _adwin_drop_oldest(s, stat, levels, cnt, first, bt, bv)
        else:  # pragma: no cover - river scans on without dropping; the window is empty
            return detected


@njit(nogil=True, inline="always")
def on_clock(tick: int, clock: int) -> bool:
    """``tick % clock == 0`` for ``tick >= 0``, by a mask when ``clock`` is a power of two
    (river's 32): the same answer without an integer division on every row."""
    if clock & (clock - 1) == 0:
        return tick & (clock - 1) == 0
    return tick % clock == 0


@njit(nogil=True, inline="always")
def adwin_params(params: np.ndarray) -> tuple[Any, ...]:
    """An ADWIN kernel's settings from its float array: delta, clock, max buckets, minimum
    sub-window length, grace rows."""
    return params[0], np.int64(params[1]), np.int64(params[2]), params[3], params[4]


@njit(nogil=True)
def bucket_counts(
    s: int, levels: np.ndarray, cnt: np.ndarray, first: np.ndarray, bc: np.ndarray
) -> np.ndarray:
    """The counts of every row in slot s's ADWIN window: the sum of its buckets' counts."""
    out = np.zeros(bc.shape[3])
    mask = RING - 1
    for i in range(levels[s]):
        for k in range(cnt[s, i]):
            place = (first[s, i] + k) & mask
            for c in range(bc.shape[3]):
                out[c] += bc[s, i, place, c]
    return out


@njit(nogil=True, inline="always")
def _put_counts(C: np.ndarray, s: int, counts: np.ndarray, start: int, k: int) -> None:
    """``C[s] = counts[start : start + k * k].reshape(k, k)`` by element loops: numba's
    ``reshape`` formats its error message (shape tuples as text), and compiling that took
    most of a cold first batch (9 of 15 s for :func:`adwin_batch`)."""
    for a in range(k):
        for b in range(k):
            C[s, a, b] = counts[start + a * k + b]


@njit(nogil=True)
def adwin_batch(  # pragma: no cover - numba
    y: np.ndarray,
    pred: np.ndarray,
    per_ok: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
    st: ADWINState,
    bc: np.ndarray,
    params: np.ndarray,
    trace: np.ndarray,
) -> None:
    """ADWIN over each slot's 0/1 loss; each bucket also counts its rows' confusion cells
    (``y * classes + pred``) and persistent hits (last), so the window's confusion counts
    ``C`` and ``P`` are the sum of its buckets': memory O(log width), not O(width)."""
    stat, ticks, levels, cnt, first, bt, bv = st
    delta, clock, max_buckets, min_len, grace = adwin_params(params)
    tracing = trace.shape[1] > 0
    work = np.empty((5, bt.shape[1] * bt.shape[2]))
    n_slots, n = pred.shape
    k = C.shape[1]
    row = np.zeros(bc.shape[3])
    for s in range(n_slots):
        for i in range(n):
            p = pred[s, i]
            if p < 0:
                continue
            row[:] = 0.0
            row[y[i] * k + p] = 1.0
            row[-1] = per_ok[i]
            loss = 1.0 if y[i] != p else 0.0
            _adwin_insert(s, loss, stat, levels, cnt, first, bt, bv, max_buckets, bc, row)
            ticks[s, 0] += 1
            hit = False
            if on_clock(ticks[s, 0], clock) and stat[s, 2] > grace:
                hit = _adwin_scan(s, stat, levels, cnt, first, bt, bv, delta, min_len, work)
                if hit:
                    ticks[s, 1] += 1
            if tracing:
                trace[s, i] = -stat[s, 2] if hit else stat[s, 2]
        counts = bucket_counts(s, levels, cnt, first, bc)
        _put_counts(C, s, counts, 0, k)
        P[s] = counts[-1]


# Repeat kept: its arguments and prologue repeat adwin_batch's: numba compiles each kernel whole,
# and a shared helper would not fold the per-slot loops.
@njit(nogil=True)
def paired_adwin_batch(  # pragma: no cover - numba
    y: np.ndarray,
    pred: np.ndarray,
    per_ok: np.ndarray,
    C: np.ndarray,
    P: np.ndarray,
    st: ADWINState,
    bc: np.ndarray,
    params: np.ndarray,
) -> None:
    """Slots s (side A) and s + m (side B) of a (pair, fold): one ADWIN ``s`` over the rows
    both tested, on ``(loss_B - loss_A + 1) / 2``; its buckets count both sides' confusion
    cells (A's, then B's) and the persistent hits, whose sums are the two slots' counts."""
    stat, ticks, levels, cnt, first, bt, bv = st
    delta, clock, max_buckets, min_len, grace = adwin_params(params)
    work = np.empty((5, bt.shape[1] * bt.shape[2]))
    n_slots, n = pred.shape
    m = n_slots // 2
    k = C.shape[1]
    row = np.zeros(bc.shape[3])
    for s in range(m):
        for i in range(n):
            a = pred[s, i]
            b = pred[s + m, i]
            if a < 0 or b < 0:
                continue
            la = 1.0 if a != y[i] else 0.0
            lb = 1.0 if b != y[i] else 0.0
            row[:] = 0.0
            row[y[i] * k + a] = 1.0
            row[k * k + y[i] * k + b] = 1.0
            row[-1] = per_ok[i]
            diff = (lb - la + 1.0) * 0.5
            _adwin_insert(s, diff, stat, levels, cnt, first, bt, bv, max_buckets, bc, row)
            ticks[s, 0] += 1
            if (
                on_clock(ticks[s, 0], clock)
                and stat[s, 2] > grace
                and _adwin_scan(s, stat, levels, cnt, first, bt, bv, delta, min_len, work)
            ):
                ticks[s, 1] += 1
        counts = bucket_counts(s, levels, cnt, first, bc)
        _put_counts(C, s, counts, 0, k)
        _put_counts(C, s + m, counts, k * k, k)
        P[s] = counts[-1]
        P[s + m] = counts[-1]


@njit(nogil=True)
def adwin_values_batch(  # pragma: no cover - numba
    values: np.ndarray, st: ADWINState, params: np.ndarray
) -> None:
    """One ADWIN per slot over ``values`` (slots, rows) in [0, 1]; NaN: no value."""
    stat, ticks, levels, cnt, first, bt, bv = st
    delta, clock, max_buckets, min_len, grace = adwin_params(params)
    work = np.empty((5, bt.shape[1] * bt.shape[2]))
    bc = np.zeros((0, 0, 0, 0))  # no counts per bucket: only the values' ADWIN
    row = np.zeros(0)
    n_slots, n = values.shape
    for s in range(n_slots):
        for i in range(n):
            v = values[s, i]
            if v != v:  # NaN: no value
                continue
            _adwin_insert(s, v, stat, levels, cnt, first, bt, bv, max_buckets, bc, row)
            ticks[s, 0] += 1
            if (
                on_clock(ticks[s, 0], clock)
                and stat[s, 2] > grace
                and _adwin_scan(s, stat, levels, cnt, first, bt, bv, delta, min_len, work)
            ):
                ticks[s, 1] += 1


@njit(nogil=True)
def adwin_sums_batch(  # pragma: no cover - numba
    values: np.ndarray,
    cells: np.ndarray,
    st: ADWINState,
    bc: np.ndarray,
    params: np.ndarray,
    sums: np.ndarray,
) -> None:
    """One ADWIN per slot over ``values`` (slots, rows; NaN: no value), each bucket also
    summing its rows' ``cells`` (slots, rows, c): ``sums`` (slots, c) gets the sums of the
    rows inside every window (regression's error sums, :mod:`distval.metrics.sums`)."""
    stat, ticks, levels, cnt, first, bt, bv = st
    delta, clock, max_buckets, min_len, grace = adwin_params(params)
    work = np.empty((5, bt.shape[1] * bt.shape[2]))
    n_slots, n = values.shape
    row = np.zeros(bc.shape[3])
    for s in range(n_slots):
        for i in range(n):
            v = values[s, i]
            if v != v:  # NaN: the slot did not test the row
                continue
            for c in range(row.shape[0]):
                row[c] = cells[s, i, c]
            _adwin_insert(s, v, stat, levels, cnt, first, bt, bv, max_buckets, bc, row)
            ticks[s, 0] += 1
            if (
                on_clock(ticks[s, 0], clock)
                and stat[s, 2] > grace
                and _adwin_scan(s, stat, levels, cnt, first, bt, bv, delta, min_len, work)
            ):
                ticks[s, 1] += 1
        sums[s] = bucket_counts(s, levels, cnt, first, bc)
