"""One verdict line per learner pair: who is better, by how much, how sure, and why.

The verdict rests on the pair's confidence sequence for the running mean of the per-row
difference in 0/1 loss (:mod:`distval.statistics.anytime`): it is the one statement valid at every
look, so it names the winner (or "equivalent within the margin", or no verdict yet). The line then
cites the across-fold evidence on the *paired* windows (:mod:`distval.metrics.paired`): how many
folds favour the winner over the rows each fold tested with both learners, and the Wilcoxon test on
those paired differences with the rows it covered. When the recent paired windows point the other
way with a significant test, the line says so and where the learning curves crossed, rather than
leaving two contradictory numbers side by side.

>>> ev = Evidence("ht", "nb", rows=45312, mean=0.042, lower=0.031, upper=0.053, level=0.95,
...               decision="A", fold_diffs=np.full(10, 0.05), window_rows=1250.0,
...               wilcoxon=(0.002, "ht", True))
>>> for part in verdict_line(ev).split("; "): print(part)
ht better than nb: error 4.2 points lower over 45,312 rows (95% CS 3.1 to 5.3)
10/10 folds favour ht
Wilcoxon p 0.002 on the last 1,250 paired rows
valid under peeking
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "Crossing",
    "Evidence",
    "clearest_verdict",
    "crossing_row",
    "fold_verdict_line",
    "p_text",
    "short_names",
    "status_verdict",
    "twin_line",
    "verdict_line",
    "verdict_winner",
]


@dataclass(frozen=True)
class Evidence:
    """What the verdict line of pair (``a``, ``b``) is made of, at one look.

    ``mean``/``lower``/``upper``: the running mean of ``loss_b - loss_a`` (A's accuracy
    advantage) and its confidence sequence at ``level`` (``1 - alpha``, after any correction
    across pairs); ``decision`` one of :data:`distval.statistics.anytime.DECISIONS` against
    ``margin``. ``fold_diffs``: each fold's accuracy difference A - B over its paired window
    (``window_rows`` its median width, ``forgetting`` the mechanism). ``wilcoxon`` / ``sign``:
    (p-value, favoured learner or None, reject) of the paired fold tests, ``adjusted`` the
    correction their p-values carry ("Holm" with three learners or more). ``crossing``: the row near
    which the paired windows last changed sides, if they did. ``evalues``: the e-processes of
    ``--sequential evalue`` as (test, e-value, favoured learner, reject).
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
    evalues: tuple[tuple[str, float, str | None, bool], ...] = ()
    #: ``accuracy`` (the difference in 0/1 loss, in points), ``brier`` or ``log_loss``
    #: (the difference in the per-row loss, in its units); ``auc``: :func:`fold_verdict_line`.
    measure: str = "accuracy"

    @property
    def winner(self) -> str | None:
        return {"A": self.a, "B": self.b}.get(self.decision)


def _points(x: float) -> str:
    return f"{100 * x:.1f}"


def p_text(p: float) -> str:
    """A p-value for a line: 2 significant digits, never ``0`` (below double precision's
    resolution near 0 it is ``< 1e-16``).

    >>> p_text(0.0123), p_text(2.5e-7), p_text(0.0)
    ('0.012', '2.5e-07', '< 1e-16')
    """
    if p < 1e-16:
        return "< 1e-16"
    return f"{p:.2g}" if p >= 0.001 else f"{p:.1e}"


#: What the verdict line calls each measure's per-row loss.
_LOSS_NAMES = {"accuracy": "error", "brier": "Brier score", "log_loss": "log-loss"}


def _amount(ev: Evidence, x: float) -> str:
    """A difference in the measure's units: points of error, or the loss to 4 decimals."""
    return _points(x) if ev.measure == "accuracy" else f"{x:.4f}"


def _unit(ev: Evidence) -> str:
    return " points" if ev.measure == "accuracy" else ""


def _rows(n: float) -> str:
    return f"{round(n):,}"


def _over(ev: Evidence) -> str:
    """``over N rows `` (the rows of the running mean), or nothing before the first."""
    return f"over {_rows(ev.rows)} rows " if ev.rows else ""


def _window_words(ev: Evidence) -> str:
    """The rows of the fold tests: each fold's paired window (the same rows for A and B).
    Under fading forgetting every paired row counts with a weight, so the window's width is
    the sum of those weights, not a number of rows.

    >>> ev = Evidence("a", "b", 0, 0.0, 0.0, 0.0, 0.95, "undecided", window_rows=200.0)
    >>> _window_words(ev)
    'on the last 200 paired rows'
    >>> _window_words(Evidence("a", "b", 0, 0.0, 0.0, 0.0, 0.95, "undecided",
    ...                        window_rows=200.0, forgetting="fading"))
    'on the paired rows under fading weights (weights summing to 200)'
    """
    rows = "paired rows"
    if ev.forgetting == "cumulative":
        return f"over all {rows}"
    if not np.isfinite(ev.window_rows):
        return f"on the {rows}"
    if ev.forgetting == "fading":
        return f"on the {rows} under fading weights (weights summing to {_rows(ev.window_rows)})"
    return f"on the last {_rows(ev.window_rows)} {rows}"


def _fold_count(folds: np.ndarray, side: str, other: str, test_side: str | None) -> str:
    """How many folds favour ``side`` on their paired windows (``folds``: each fold's
    difference, positive for ``side``); both sides when ``side`` does not have them all
    and either the fold test favours ``other`` or most folds do, so that a count never
    contradicts the test beside it without a word.

    >>> _fold_count(np.full(10, 0.1), "ht", "nb", "ht")
    '10/10 folds favour ht'
    >>> _fold_count(np.r_[np.full(3, 0.1), np.full(7, -0.1)], "ht", "nb", "nb")
    '3/10 folds favour ht, 7/10 favour nb (on their paired windows)'
    """
    n = len(folds)
    won, lost = int((folds > 0).sum()), int((folds < 0).sum())
    if won == n or (2 * won > n and test_side in (None, side)):
        return f"{won}/{n} folds favour {side}"
    return f"{won}/{n} folds favour {side}, {lost}/{n} favour {other} (on their paired windows)"


def _bounds(ev: Evidence, lo: float, hi: float) -> tuple[str, str]:
    """A confidence sequence's bounds, rounded alike, with as many decimals as it takes
    for a bound that is not zero not to print as 0 (a CS "0.0 to 0.6" under "better"
    would read as touching zero).

    >>> ev = Evidence("a", "b", 0, 0.003, 0.0004, 0.006, 0.95, "A")
    >>> _bounds(ev, 0.0004, 0.006), _bounds(ev, 0.011, 0.02)
    (('0.04', '0.60'), ('1.1', '2.0'))
    """
    scale, digits = (100.0, 1) if ev.measure == "accuracy" else (1.0, 4)
    for _ in range(3):
        if all(x == 0 or round(scale * x, digits) != 0 for x in (lo, hi)):
            break
        digits += 1
    return f"{scale * lo:.{digits}f}", f"{scale * hi:.{digits}f}"


def _test_words(ev: Evidence, name: str, test: tuple[float, str | None, bool]) -> str:
    p, fav, _ = test
    adj = f" ({ev.adjusted})" if ev.adjusted else ""
    return f"{name} p {p_text(p)}{adj} {_window_words(ev)}" + (
        f" (favours {fav})" if fav and fav != ev.winner and ev.winner else ""
    )


def _test_side(ev: Evidence) -> str | None:
    """The learner the cited fold test (Wilcoxon, else sign) favours, if any."""
    test = ev.wilcoxon or ev.sign
    return test[1] if test is not None else None


def verdict_line(ev: Evidence) -> str:
    """The verdict of one pair as one line (see the module docstring for an example).

    >>> ev = Evidence("ht", "nb", rows=9000, mean=0.004, lower=-0.006, upper=0.014,
    ...               level=0.95, decision="undecided", fold_diffs=np.r_[np.full(6, 0.01),
    ...               np.full(4, -0.01)], window_rows=800.0, wilcoxon=(0.4, "ht", False))
    >>> for part in verdict_line(ev).split("; "): print(part)
    ht vs nb: no verdict yet: error 0.4 points lower for ht over 9,000 rows (95% CS -0.6 to 1.4, ...
    6/10 folds favour ht
    Wilcoxon p 0.4 on the last 800 paired rows
    """
    level = f"{100 * ev.level:.4g}% CS"
    folds = ev.fold_diffs[np.isfinite(ev.fold_diffs)]
    loss, unit = _LOSS_NAMES[ev.measure], _unit(ev)

    def amount(x: float) -> str:
        return _amount(ev, x)

    parts: list[str] = []
    if ev.decision in ("A", "B"):
        sign = 1.0 if ev.decision == "A" else -1.0
        win, lose = (ev.a, ev.b) if ev.decision == "A" else (ev.b, ev.a)
        lo, hi = sorted((sign * ev.lower, sign * ev.upper))
        margin = f" by more than {amount(ev.margin)}" if ev.margin > 0 else ""
        low, high = _bounds(ev, lo, hi)
        parts.append(
            f"{win} better than {lose}{margin}: {loss} {amount(sign * ev.mean)}{unit} lower "
            f"{_over(ev)}({level} {low} to {high})"
        )
        if len(folds):
            parts.append(_fold_count(sign * folds, win, lose, _test_side(ev)))
    elif ev.decision == "equivalent":
        parts.append(
            f"{ev.a} and {ev.b} equivalent within {amount(ev.margin)}{unit}: {loss} "
            f"difference {amount(abs(ev.mean))} {_over(ev)}({level} {amount(ev.lower)} to "
            f"{amount(ev.upper)} for {ev.a})"
        )
    else:
        lead = ev.a if ev.mean >= 0 else ev.b
        words = "includes 0" if ev.lower <= 0 <= ev.upper else f"within {amount(ev.margin)}"
        if ev.margin > 0:
            words = f"not beyond {amount(ev.margin)} and not within it"
        diff = f"{loss} {amount(abs(ev.mean))}{unit} lower for {lead}"
        if float(amount(abs(ev.mean))) == 0:
            diff = f"the same {loss} to {'0.1' if ev.measure == 'accuracy' else '0.0001'}{unit}"
        parts.append(
            f"{ev.a} vs {ev.b}: no verdict yet: {diff} {_over(ev)}({level} {amount(ev.lower)} "
            f"to {amount(ev.upper)}, {words})"
        )
        if len(folds):
            sign = 1.0 if lead == ev.a else -1.0
            other = ev.b if lead == ev.a else ev.a
            parts.append(_fold_count(sign * folds, lead, other, _test_side(ev)))
    test = ev.wilcoxon or ev.sign
    name = "Wilcoxon" if ev.wilcoxon else "sign test"
    if test is not None:
        p, fav, reject = test
        if reject and fav and ev.winner and fav != ev.winner:
            where = f"near row {_rows(ev.crossing)}" if ev.crossing else "recently"
            parts.append(
                f"but the recent paired windows favour {fav} ({name} p {p_text(p)} "
                f"{_window_words(ev)}): the learning curves crossed {where}; the verdict "
                "is about all rows so far"
            )
        elif reject and fav and not ev.winner:
            parts.append(
                f"{name} p {p_text(p)} favours {fav} {_window_words(ev)} (a fixed-sample test: "
                "not yet confirmed by the sequence)"
            )
        else:
            parts.append(_test_words(ev, name, test))
    recent = test[1] if test is not None else None
    for name, value, fav, reject in ev.evalues:
        if not (reject and fav) or fav == ev.winner:
            continue
        against = f"against the verdict's {ev.winner}" if ev.winner else "with no verdict yet"
        why = ""
        if ev.winner or (recent and recent != fav):
            why = (
                ": it keeps each fold's sign from the look where the fold first settled, so "
                "it speaks for the rows before then"
            )
        parts.append(
            f"{name.replace('_', ' ')} reached 1/alpha for {fav} (e-value {value:.3g}, "
            f"{against}){why}"
        )
    if ev.decision != "undecided":
        parts.append("valid under peeking")
    return "; ".join(parts)


def fold_verdict_line(ev: Evidence) -> str:
    """The verdict of one pair on a measure with no per-row loss (AUC): the across-fold test
    decides, on each fold's AUC of A and of B over the same rows (the fold's paired window);
    ``fold_diffs`` are A's AUC minus B's per fold. When the test does not reject, the line
    says that it cannot decide.

    >>> ev = Evidence("ht", "nb", rows=0, mean=0.03, lower=float("nan"), upper=float("nan"),
    ...               level=0.95, decision="A", fold_diffs=np.full(10, 0.03),
    ...               window_rows=900.0, wilcoxon=(0.002, "ht", True), measure="auc")
    >>> for part in fold_verdict_line(ev).split("; "): print(part)
    ht better than nb: AUC 0.0300 higher on the same rows (mean over folds)
    10/10 folds favour ht
    Wilcoxon p 0.002 on the last 900 paired rows
    fold-level only: AUC has no per-row loss, so no confidence sequence (not valid under peeking)
    """
    folds = ev.fold_diffs[np.isfinite(ev.fold_diffs)]
    mean = ev.mean  # the mean over folds of fold_diffs
    if ev.decision in ("A", "B"):
        win, lose = (ev.a, ev.b) if ev.decision == "A" else (ev.b, ev.a)
        sign = 1.0 if ev.decision == "A" else -1.0
        parts = [f"{win} better than {lose}: AUC {sign * mean:.4f} higher on the same rows "
                 "(mean over folds)"]
    else:
        lead = ev.a if not mean < 0 else ev.b
        sign = 1.0 if lead == ev.a else -1.0
        parts = [f"{ev.a} vs {ev.b}: cannot decide: AUC {abs(mean):.4f} higher for {lead} on "
                 "the same rows (mean over folds), and the fold test does not reject"]
        win = lead
    if len(folds):
        other = ev.b if win == ev.a else ev.a
        parts.append(_fold_count(sign * folds, win, other, _test_side(ev)))
    test = ev.wilcoxon or ev.sign
    if test is not None:
        name = "Wilcoxon" if ev.wilcoxon else "sign test"
        adj = f" ({ev.adjusted})" if ev.adjusted else ""
        parts.append(f"{name} p {p_text(test[0])}{adj} {_window_words(ev)}")
    parts.append("fold-level only: AUC has no per-row loss, so no confidence sequence "
                 "(not valid under peeking)")
    return "; ".join(parts)


def short_names(labels: Sequence[str], width: int = 24) -> dict[str, str]:
    """Display names of at most ``width`` characters: a MOA spec loses ``moa:`` and its
    package path, anything longer is cut with an ellipsis; names stay distinct.

    >>> short_names(["ht", "moa:trees.HoeffdingAdaptiveTree -g 50", "moa:bayes.NaiveBayes"])
    {'ht': 'ht', 'moa:trees.HoeffdingAdaptiveTree -g 50': 'HoeffdingAdaptiveTree -…', \
'moa:bayes.NaiveBayes': 'NaiveBayes'}
    """
    out: dict[str, str] = {}
    for label in labels:
        name = label
        if name.startswith("moa:"):
            head, _, rest = name[4:].partition(" ")
            name = head.rsplit(".", 1)[-1] + (f" {rest}" if rest else "")
        if len(name) > width:
            name = name[: width - 1].rstrip() + "…"
        base, i = name, 2
        while name in out.values():
            name = f"{base[: width - 3]}#{i}"
            i += 1
        out[label] = name
    return out


def status_verdict(
    rows: Sequence[dict[str, Any]], names: dict[str, str] | None = None,
    measure: str = "accuracy", closer: bool = False,
) -> str:
    """The verdict part of the live status line: the pair with the clearest verdict (else
    the largest difference), in a few words; points of accuracy, or the loss difference of
    ``brier``/``log_loss``; ``auc`` (no sequence) names the fold test's winner only.

    >>> rows = [{"learner_a": "ht", "learner_b": "nb", "decision": "A", "mean": 0.067,
    ...          "lower": 0.059, "upper": 0.075}]
    >>> status_verdict(rows)
    'ht>nb +6.7 pts over all rows (CS 5.9..7.5)'
    >>> status_verdict([dict(rows[0], decision="undecided", lower=-0.01)])
    'ht vs nb +6.7 pts over all rows (CS -1.0..7.5) no verdict yet'
    >>> status_verdict(rows, measure="brier")
    'ht>nb Brier -0.0670 over all rows (CS -0.0750..-0.0590)'
    >>> status_verdict(rows, measure="rmse", closer=True)  # regression's share of rows
    'ht>nb closer on +6.7 % of rows (CS 5.9..7.5)'
    """
    names = names or {}
    r = clearest_verdict(rows)
    if r is None:
        return ""
    a, b = names.get(r["learner_a"], r["learner_a"]), names.get(r["learner_b"], r["learner_b"])
    sign = -1.0 if r["decision"] == "B" or (r["decision"] != "A" and r["mean"] < 0) else 1.0
    win, lose = (b, a) if sign < 0 else (a, b)
    if measure == "auc":
        if r["decision"] in ("A", "B"):
            return f"{win}>{lose} AUC (fold test)"
        return f"{a} vs {b} AUC: no verdict (fold test)"
    if measure in ("brier", "log_loss"):  # the winner's loss is lower: a negative difference
        name = {"brier": "Brier", "log_loss": "log-loss"}[measure]
        lo, hi = sorted((-sign * r["lower"], -sign * r["upper"]))
        cs = f"(CS {lo:.4f}..{hi:.4f})"
        x = f"{name} {-sign * r['mean']:.4f} over all rows"
    else:
        lo, hi = sorted((sign * 100 * r["lower"], sign * 100 * r["upper"]))
        cs = f"(CS {lo:.1f}..{hi:.1f})"
        x = (f"closer on +{sign * 100 * r['mean']:.1f} % of rows" if closer
             else f"+{sign * 100 * r['mean']:.1f} pts over all rows")
    if r["decision"] in ("A", "B"):
        return f"{win}>{lose} {x} {cs}"
    if r["decision"] == "equivalent":
        return f"{a}={b} within margin {cs}"
    return f"{win} vs {lose} {x} {cs} no verdict yet"


def clearest_verdict(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The verdict row :func:`status_verdict` shows: a decided one before an undecided one,
    then the largest difference; None without a row that has a mean.

    >>> rows = [{"learner_a": "ht", "learner_b": "nb", "decision": "undecided", "mean": 0.2},
    ...         {"learner_a": "ht", "learner_b": "lb", "decision": "B", "mean": -0.01}]
    >>> clearest_verdict(rows)["learner_b"]
    'lb'
    """
    usable = [r for r in rows if r.get("mean") == r.get("mean")]
    if not usable:
        return None
    return max(usable, key=lambda r: (r["decision"] != "undecided", abs(r["mean"])))


def verdict_winner(row: dict[str, Any], measure: str = "accuracy") -> str | None:
    """The learner a verdict row puts ahead as :func:`status_verdict` words it: the one it
    decides for, else (undecided) the one its running mean favours; None for "equivalent",
    a zero mean, and an undecided AUC row (the fold test names no one then).

    >>> row = {"learner_a": "ht", "learner_b": "nb", "decision": "undecided", "mean": -0.02}
    >>> verdict_winner(row), verdict_winner(row, "auc"), verdict_winner(row | {"decision": "A"})
    ('nb', None, 'ht')
    """
    decision, mean = row.get("decision"), row.get("mean")
    if decision in ("A", "B"):
        return str(row["learner_a"] if decision == "A" else row["learner_b"])
    if decision != "undecided" or measure == "auc" or not mean or mean != mean:
        return None
    return str(row["learner_a"] if mean > 0 else row["learner_b"])


class Crossing:
    """:func:`crossing_row` one look at a time: ``add`` takes a look's (position, mean
    paired-window difference, median window width) and returns the crossing so far, in
    constant time per look (the history itself is not kept).

    >>> c = Crossing()
    >>> [c.add(*h) for h in [(1000, 0.1, 50), (2000, -0.1, 50), (3000, 0.1, 450)]]
    [None, 2000, 2600]
    """

    __slots__ = ("prev", "row")

    def __init__(self) -> None:
        self.prev = 0.0
        self.row: int | None = None

    def add(self, position: int, value: float, width: float) -> int | None:
        if math.isfinite(value) and value != 0:
            if self.prev and (value > 0) != (self.prev > 0):
                w = width if math.isfinite(width) else 0.0
                self.row = max(0, round((position - w) / 100) * 100)
            self.prev = value
        return self.row


def crossing_row(history: Sequence[tuple[int, float, float]]) -> int | None:
    """Where the paired windows last changed sides: from (position, mean paired-window
    difference, median window width) at each look, the look at which the sign last flipped,
    less the window's width there (the window then covers the rows since the change), to
    the nearest 100 rows; None if the sign never flipped.

    >>> crossing_row([(1000, -0.02, 900), (2000, -0.01, 1500), (3000, 0.01, 740),
    ...               (4000, 0.02, 1700)])
    2300
    """
    crossing = Crossing()
    for position, value, width in history:
        crossing.add(position, float(value), float(width))
    return crossing.row


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
