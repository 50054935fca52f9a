"""The learners' numbers in the live status line (:func:`distval.engine.run.live_status`): on
the same rows as the verdict beside them, wherever the paired windows have values.

Each learner's own window (:class:`~distval.metrics.ADWINWindow`) may cover other rows than
another learner's, so two own-window means can put the learners in the other order than a
verdict that compares them on the same rows. The line therefore shows the *paired* values
(:data:`~distval.columns.PAIRED_SCHEMA`: per fold, both learners' measure over the rows that
fold tested with both, under the run's forgetting), as the mean over the folds where both have
a value: the ``value_a`` / ``value_b`` of the pair's sign and Wilcoxon rows.

>>> import numpy as np
>>> paired = {"learner_a": np.array(["ht", "ht"], dtype=object),
...           "learner_b": np.array(["nb", "nb"], dtype=object),
...           "value_a": np.array([0.80, 0.84]), "value_b": np.array([0.90, np.nan])}
>>> pair_means(paired)
{('ht', 'nb'): (0.8, 0.9)}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from distval.columns import Columns
from distval.statistics.verdict import clearest_verdict, verdict_winner
from distval.tasks import task_named

__all__ = ["Standing", "higher_is_better", "pair_means", "standing", "value_text"]


def higher_is_better(measure: str, task: str = "classification") -> bool:
    """Whether a larger ``measure`` is better (not for Brier, log-loss and the errors of a
    regression run): the run's task says (:mod:`distval.tasks`).

    >>> higher_is_better("auc"), higher_is_better("brier"), higher_is_better("rmse", "regression")
    (True, False, False)
    """
    return task_named(task).higher_is_better(measure)


def value_text(value: float, measure: str, task: str = "classification", *,
               difference: bool = False, short: bool = False) -> str:
    """A number of the live line with its unit, as the end-of-run tables print it: a share
    or a κ in percent (``78.5 %``; a ``difference`` between two learners in points,
    ``-3.1 pts``), any other measure as a plain number (``0.912``, ``-0.031``); ``short``
    for a narrow terminal (whole percent, two decimals).

    >>> value_text(0.785, "accuracy"), value_text(-0.031, "accuracy", difference=True)
    ('78.5 %', '-3.1 pts')
    >>> value_text(0.781, "accuracy", short=True), value_text(-0.031, "kappa", difference=True,
    ...                                                      short=True)
    ('78%', '-3pt')
    >>> value_text(0.9123, "auc"), value_text(-0.031, "auc", difference=True, short=True)
    ('0.912', '-.03')
    >>> value_text(2.4512, "rmse", "regression"), value_text(10.52, "mae", "regression", short=True)
    ('RMSE 2.451', '10.52')
    """
    t = task_named(task)
    text = t.show(measure, value, difference=difference, short=short)
    if t.numeric_target and not short:  # a regression measure names itself: RMSE 2.451
        return f"{t.word(measure)} {text}"
    return text


def pair_means(paired: Columns) -> dict[tuple[str, str], tuple[float, float]]:
    """Per (learner A, learner B) of the paired table: A's and B's mean over the folds where
    both have a value (the pairs without one are left out)."""
    if not len(paired.get("learner_a", ())):
        return {}
    a = np.asarray(paired["learner_a"], dtype=object)
    b = np.asarray(paired["learner_b"], dtype=object)
    va = np.asarray(paired["value_a"], dtype=np.float64)
    vb = np.asarray(paired["value_b"], dtype=np.float64)
    ok = np.isfinite(va) & np.isfinite(vb)
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for key in dict.fromkeys(zip(a.tolist(), b.tolist())):
        rows = ok & (a == key[0]) & (b == key[1])
        if rows.any():
            out[(str(key[0]), str(key[1]))] = (float(va[rows].mean()), float(vb[rows].mean()))
    return out


@dataclass(frozen=True)
class Standing:
    """The learners as the live line shows them.

    ``values``: learner -> number, in the order shown, the leader first. ``kind``:

    - ``"paired"``: two learners, each the mean over folds of its value over the rows the
      fold tested with both (the pair's same-row values);
    - ``"relative"``: more learners; the leader's value over the rows it shares with the
      learner the verdict compares it with (else the closest one), every other learner's
      *difference* to the leader over the rows those two share (negative: behind);
    - ``"own"``: no paired values yet: each learner's mean over folds of its own windows;
    - ``"disputed"``: the verdict shown puts one learner ahead and the numbers of its pair put
      the other (accuracy: the sequence runs over every row, the paired windows over the recent
      ones; AUC: Wilcoxon's ranks and the mean can differ): only that pair's two numbers, the
      better first, without a leader.

    ``same_rows``: the numbers are same-row values (all kinds but ``"own"``, and a
    ``"disputed"`` pair of paired values).
    """

    values: dict[str, float]
    kind: str
    same_rows: bool


def standing(
    folds: Columns, paired: Columns, verdicts: Sequence[dict[str, Any]], *, measure: str,
    forgetting: str, task: str = "classification",
) -> Standing | None:
    """The learners' numbers beside the verdict of ``verdicts`` the line shows
    (:func:`~distval.statistics.verdict.clearest_verdict`); None without a finite number.

    The leader is the learner that verdict puts ahead; without one (no verdict, an undecided
    AUC, "equivalent") the learner ahead in most pairs (same-row values), else the one with
    the best own-window mean. Own-window means (of ``forgetting``, the run's own windows) are
    shown only while no pair has a same-row value for both learners.

    >>> import numpy as np
    >>> paired = {"learner_a": np.array(["ht", "ht", "ht", "ht", "nb", "nb"], dtype=object),
    ...           "learner_b": np.array(["nb", "nb", "lb", "lb", "lb", "lb"], dtype=object),
    ...           "value_a": np.array([.8, .8, .7, .7, .9, .9]),
    ...           "value_b": np.array([.9, .9, .8, .8, .7, .7])}
    >>> s = standing({}, paired, [], measure="auc", forgetting="adwin")
    >>> s.kind, {k: round(v, 3) for k, v in s.values.items()}
    ('relative', {'nb': 0.9, 'ht': -0.1, 'lb': -0.2})
    """
    up = higher_is_better(measure, task)
    row = clearest_verdict(verdicts)
    winner = verdict_winner(row, measure) if row is not None else None
    means = pair_means(paired)
    learners = list(dict.fromkeys(k for key in means for k in key))
    pairs = [(x, y) for i, x in enumerate(learners) for y in learners[i + 1:]]
    if len(learners) >= 2 and all(p in means or p[::-1] in means for p in pairs):
        return _same_rows(means, learners, row, winner, up)
    own = _own_means(folds, measure, forgetting)
    if not own:
        return None
    if winner is not None and row is not None and winner in own:
        other = row["learner_b"] if winner == row["learner_a"] else row["learner_a"]
        if other in own and _better(own[other], own[winner], up):
            pair = {k: own[k] for k in (other, winner)}
            return Standing(pair, "disputed", same_rows=False)
    wins = {k: sum(v.get("favours") == k for v in verdicts) for k in own}
    lead = winner if winner in own else max(
        own, key=lambda k: (wins[k], own[k] if up else -own[k]))
    return Standing({lead: own[lead]} | own, "own", same_rows=False)


def _own_means(folds: Columns, measure: str, forgetting: str) -> dict[str, float]:
    """Each learner's mean over folds of ``measure`` over its own windows."""
    if not len(folds.get("learner", ())) or measure not in folds:
        return {}
    learner = np.asarray(folds["learner"], dtype=object)
    primary = np.asarray(folds["forgetting"], dtype=object) == forgetting
    values = np.asarray(folds[measure], dtype=np.float64)
    out: dict[str, float] = {}
    for k in dict.fromkeys(learner[primary].tolist()):
        v = values[primary & (learner == k)]
        if np.isfinite(v).any():
            out[str(k)] = float(np.nanmean(v))
    return out


def _better(x: float, y: float, up: bool) -> bool:
    return x > y if up else x < y


def _value(means: dict[tuple[str, str], tuple[float, float]], x: str, y: str) -> float:
    """``x``'s value over the rows it shares with ``y``."""
    if (x, y) in means:
        return means[(x, y)][0]
    return means[(y, x)][1]


def _same_rows(
    means: dict[tuple[str, str], tuple[float, float]], learners: list[str],
    row: dict[str, Any] | None, winner: str | None, up: bool,
) -> Standing:
    sign = 1.0 if up else -1.0
    partner = None
    if winner is not None and row is not None:  # the verdict's pair
        partner = str(row["learner_b"] if winner == row["learner_a"] else row["learner_a"])
        if _better(_value(means, partner, winner), _value(means, winner, partner), up):
            pair = {partner: _value(means, partner, winner), winner: _value(means, winner, partner)}
            return Standing(pair, "disputed", same_rows=True)
    if winner is None:  # ahead in most pairs, then by the summed margins
        def score(k: str) -> tuple[int, float]:
            gaps = [sign * (_value(means, k, o) - _value(means, o, k)) for o in learners if o != k]
            return sum(g > 0 for g in gaps), sum(gaps)

        winner = max(learners, key=score)
    others = sorted((k for k in learners if k != winner),  # the closest first
                    key=lambda k: -sign * (_value(means, k, winner) - _value(means, winner, k)))
    if len(learners) == 2:
        (other,) = others
        return Standing({winner: _value(means, winner, other), other: _value(means, other, winner)},
                        "paired", same_rows=True)
    diffs = {k: _value(means, k, winner) - _value(means, winner, k) for k in others}
    if partner is None:  # the closest learner
        partner = others[0]
    return Standing({winner: _value(means, winner, partner)} | diffs, "relative", same_rows=True)
