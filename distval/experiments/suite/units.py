"""How a suite's numbers print, in one place: the run's task decides the unit of the ranked
measure (shares in percent, :meth:`~distval.tasks.base.Task.short_cell`), and the ROPE, a
difference of the measure, reads in points where the measure is a percentage.

>>> task, measure = unit({"measure": "accuracy", "config": {"run": {}}})
>>> task.short_cell(measure, {"mean": 0.8564, "std": 0.0135}), task.units_of(measure)
('85.6 ±1.4', 'in percent')
"""

from __future__ import annotations

from typing import Any

from distval.tasks import Task, task_of

__all__ = ["rope_words", "unit"]


def unit(data: dict[str, Any]) -> tuple[Task, str]:
    """The suite's task (from its runs' settings) and ranked measure: the task decides how
    the measure prints (:meth:`~distval.tasks.base.Task.short_cell`, percent for shares)."""
    task = task_of((data.get("config") or {}).get("run") or {})
    return task, str(data.get("measure") or task.default_measure)


def rope_words(data: dict[str, Any]) -> str:
    """The ROPE as a person reads it: in points where the measure prints in percent (a
    difference of two percentages), else in the measure's own numbers.

    >>> rope_words({"measure": "accuracy", "comparison": {"rope": 0.01}})
    '± 1 point'
    >>> rope_words({"measure": "auc", "comparison": {"rope": 0.02}})
    '± 0.02'
    """
    task, measure = unit(data)
    rope = float(data["comparison"].get("rope", 0.01))  # make_suite's default
    if task.percent(measure):
        points = round(100 * rope, 6)
        return f"± {points:g} point" + ("" if points == 1 else "s")
    return f"± {rope:g}"
