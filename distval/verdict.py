"""One verdict line per learner pair: who is better, by how much, how sure, and why.

The verdict rests on the pair's confidence sequence for the running mean of the per-row
difference in 0/1 loss (:mod:`distval.anytime`): it is the one statement valid at every look,
so it names the winner (or "equivalent within the margin", or no verdict yet). The line
then cites the across-fold evidence on the *paired* windows (:mod:`distval.paired`): how
many folds favour the winner over the rows each fold tested with both learners, and the
Wilcoxon test on those paired differences with the rows it covered. When the recent paired
windows point the other way with a significant test, the line says so and where the learning
curves crossed, rather than leaving two contradictory numbers side by side.

>>> ev = Evidence("ht", "nb", rows=45312, mean=0.042, lower=0.031, upper=0.053, level=0.95,
...               decision="A", fold_diffs=np.full(10, 0.05), window_rows=1250.0,
...               wilcoxon=(0.002, "ht", True))
>>> for part in verdict_line(ev).split("; "): print(part)
ht better than nb: error 4.2 points lower (95% CS 3.1 to 5.3)
10/10 folds
Wilcoxon p 0.002 on the last 1,250 paired rows
valid under peeking
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Evidence", "crossing_row", "twin_line", "verdict_line"]


@dataclass(frozen=True)
class Evidence:
    """What the verdict line of pair (``a``, ``b``) is made of, at one look.

    ``mean``/``lower``/``upper``: the running mean of ``loss_b - loss_a`` (A's accuracy
    advantage) and its confidence sequence at ``level`` (``1 - alpha``, after any correction
    across pairs); ``decision`` one of :data:`distval.anytime.DECISIONS` against ``margin``.
    ``fold_diffs``: each fold's accuracy difference A - B over its paired window
    (``window_rows`` its median width, ``forgetting`` the mechanism). ``wilcoxon`` / ``sign``:
    (p-value, favoured learner or None, reject) of the paired fold tests, ``adjusted`` the
    correction their p-values carry ("Holm" with three learners or more). ``crossing``: the
    row near which the paired windows last changed sides, if they did.
    """

    a: str
    b: str
    rows: int
    mean: float
    lower: float
    upper: float
    level: float
    decision: str
    margin: float = 0.0
    fold_diffs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    window_rows: float = float("nan")
    forgetting: str = "adwin"
    wilcoxon: tuple[float, str | None, bool] | None = None
    sign: tuple[float, str | None, bool] | None = None
    adjusted: str | None = None
    crossing: int | None = None

    @property
    def winner(self) -> str | None:
        return {"A": self.a, "B": self.b}.get(self.decision)


def _points(x: float) -> str:
    return f"{100 * x:.1f}"


def _p(p: float) -> str:
    return f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"


def _rows(n: float) -> str:
    return f"{round(n):,}"


def _window_words(ev: Evidence) -> str:
    if ev.forgetting == "cumulative":
        return "over all paired rows"
    if not np.isfinite(ev.window_rows):
        return "on the paired rows"
    return f"on the last {_rows(ev.window_rows)} paired rows"


def _test_words(ev: Evidence, name: str, test: tuple[float, str | None, bool]) -> str:
    p, fav, _ = test
    adj = f" ({ev.adjusted})" if ev.adjusted else ""
    return f"{name} p {_p(p)}{adj} {_window_words(ev)}" + (
        f" (favours {fav})" if fav and fav != ev.winner and ev.winner else ""
    )


def verdict_line(ev: Evidence) -> str:
    """The verdict of one pair as one line (see the module docstring for an example).

    >>> ev = Evidence("ht", "nb", rows=9000, mean=0.004, lower=-0.006, upper=0.014,
    ...               level=0.95, decision="undecided", fold_diffs=np.r_[np.full(6, 0.01),
    ...               np.full(4, -0.01)], window_rows=800.0, wilcoxon=(0.4, "ht", False))
    >>> for part in verdict_line(ev).split("; "): print(part)
    ht vs nb: no verdict yet: error 0.4 points lower for ht so far (95% CS -0.6 to 1.4, includes 0)
    6/10 folds favour ht
    Wilcoxon p 0.4 on the last 800 paired rows
    """
    level = f"{100 * ev.level:.4g}% CS"
    folds = ev.fold_diffs[np.isfinite(ev.fold_diffs)]
    parts: list[str] = []
    if ev.decision in ("A", "B"):
        sign = 1.0 if ev.decision == "A" else -1.0
        win, lose = (ev.a, ev.b) if ev.decision == "A" else (ev.b, ev.a)
        lo, hi = sorted((sign * ev.lower, sign * ev.upper))
        margin = f" by more than {_points(ev.margin)}" if ev.margin > 0 else ""
        parts.append(
            f"{win} better than {lose}{margin}: error {_points(sign * ev.mean)} points lower "
            f"({level} {_points(lo)} to {_points(hi)})"
        )
        if len(folds):
            parts.append(f"{int((sign * folds > 0).sum())}/{len(folds)} folds")
    elif ev.decision == "equivalent":
        parts.append(
            f"{ev.a} and {ev.b} equivalent within {_points(ev.margin)} points: error "
            f"difference {_points(abs(ev.mean))} ({level} {_points(ev.lower)} to "
            f"{_points(ev.upper)} for {ev.a})"
        )
    else:
        lead = ev.a if ev.mean >= 0 else ev.b
        words = "includes 0" if ev.lower <= 0 <= ev.upper else f"within {_points(ev.margin)}"
        if ev.margin > 0:
            words = f"not beyond {_points(ev.margin)} and not within it"
        parts.append(
            f"{ev.a} vs {ev.b}: no verdict yet: error {_points(abs(ev.mean))} points lower for "
            f"{lead} so far ({level} {_points(ev.lower)} to {_points(ev.upper)}, {words})"
        )
        if len(folds):
            sign = 1.0 if lead == ev.a else -1.0
            parts.append(f"{int((sign * folds > 0).sum())}/{len(folds)} folds favour {lead}")
    test = ev.wilcoxon or ev.sign
    name = "Wilcoxon" if ev.wilcoxon else "sign test"
    if test is not None:
        p, fav, reject = test
        if reject and fav and ev.winner and fav != ev.winner:
            where = f"near row {_rows(ev.crossing)}" if ev.crossing else "recently"
            parts.append(
                f"but the recent paired windows favour {fav} ({name} p {_p(p)} "
                f"{_window_words(ev)}): the learning curves crossed {where}; the verdict "
                "is about all rows so far"
            )
        elif reject and fav and not ev.winner:
            parts.append(
                f"{name} p {_p(p)} favours {fav} {_window_words(ev)} (a fixed-sample test: "
                "not yet confirmed by the sequence)"
            )
        else:
            parts.append(_test_words(ev, name, test))
    if ev.decision != "undecided":
        parts.append("valid under peeking")
    return "; ".join(parts)


def crossing_row(history: Sequence[tuple[int, float]]) -> int | None:
    """The position of the last look at which a series of (position, paired-window mean
    difference) changed sign, or None if it never did.

    >>> crossing_row([(1000, -0.02), (2000, -0.01), (3000, 0.01), (4000, 0.02)])
    3000
    """
    last = None
    prev = 0.0
    for pos, value in history:
        if not np.isfinite(value) or value == 0:
            continue
        if prev and np.sign(value) != np.sign(prev):
            last = pos
        prev = value
    return last


def twin_line(a: str, b: str, decisions: Sequence[tuple[str, bool]], alpha: float = 0.05,
              identical: bool = False) -> str:
    """The null twin's summary: what every rule decided for two seeds of one learner.

    Under the null every valid rule names a winner in at most ``alpha`` of such runs, so one
    rejection is a warning, not proof; several rules rejecting at once, or one rejecting on
    repeated runs, says those rules are not calibrated on this stream and schedule.

    >>> line = twin_line("ht", "ht~twin", [("CS", False), ("wilcoxon", False), ("mcnemar", True)])
    >>> for part in line.split("; "): print(part)
    null twin ht vs ht~twin: 1 of 3 rules named a winner (mcnemar)
    each valid rule does so in at most 5% of such runs
    """
    if identical:
        return (
            f"null twin {a} vs {b}: the learner takes no seed, so the twin is identical "
            "(every difference is 0): the twin checks nothing; use a randomised learner"
        )
    hits = [name for name, decided in decisions if decided]
    if not hits:
        return (
            f"null twin {a} vs {b}: no rule named a winner ({len(decisions)} rules), "
            "as it should be"
        )
    return (
        f"null twin {a} vs {b}: {len(hits)} of {len(decisions)} rules named a winner "
        f"({', '.join(hits)}); each valid rule does so in at most {100 * alpha:g}% of such runs"
    )
