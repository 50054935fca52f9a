"""What each learner cost, from a run's saved cost table (``cost.parquet``), and the one
line that states the price after a verdict. Pure functions of the table: no run needed.

The table holds, per test position, learner and fold, the cumulative thread CPU seconds
of that replica's own learn and predict calls, its rows, its model bytes at that position
and its RAM-hours (:data:`~distval.columns.COST_SCHEMA`, :mod:`distval.learners.cost`).
A learner's RAM-hours here are MOA's ``EvaluatePrequentialCV`` figure: at every test
position the bytes of all its fold replicas (GB) times the CPU-hours all of them spent
since the previous position, summed over positions.

>>> import pandas as pd
>>> rows = pd.DataFrame({"position": [100, 100, 100, 100], "learner": ["a", "a", "b", "b"],
...     "fold": [0, 1, 0, 1], "rows": [100] * 4, "cpu_learn": [0.3, 0.3, 0.03, 0.03],
...     "cpu_predict": [0.1, 0.1, 0.01, 0.01], "cpu": [0.4, 0.4, 0.04, 0.04],
...     "bytes": [3e6, 3e6, 1e5, 1e5], "measure": ["pickled size"] * 4, "reason": [""] * 4,
...     "ram_hours": [0.0] * 4})
>>> costs = learner_costs(rows)
>>> costs["a"]["cpu_s"], costs["a"]["cpu_per_row_s"], costs["b"]["bytes_final"]
(0.8, 0.008, 200000.0)
>>> price_line("a", "b", costs)
"a costs 10× b's CPU per row and 30× its memory (1.2e-06 vs 4.1e-09 RAM-hours)"
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = ["GB", "cost_summary", "learner_costs", "price_line"]

#: Bytes in one GB as MOA counts them.
GB = 1024.0**3


def _num(v: float) -> float | None:
    return float(v) if v is not None and math.isfinite(float(v)) else None


def _frame(cost: pa.Table | pd.DataFrame) -> pd.DataFrame:
    return cost.to_pandas() if isinstance(cost, pa.Table) else cost


def learner_costs(cost: pa.Table | pd.DataFrame) -> dict[str, dict[str, Any]]:
    """Each learner's cost at the table's last position: a dict of

    - ``folds``, ``rows`` (the stream rows its replicas went through: the most of a fold);
    - ``cpu_s``, ``cpu_learn_s``, ``cpu_predict_s``: thread CPU seconds over its folds
      (learn and predict None where they are not told apart: MOA replicas);
    - ``cpu_per_row_s`` (``cpu_s`` over ``rows``) and ``rows_per_second`` (its inverse);
    - ``bytes_final`` (its folds' bytes summed, at the last position), ``bytes_mean`` (the
      mean over positions of that sum); None when a fold's size was not measured;
    - ``ram_hours`` (MOA's definition, above) and ``ram_hours_folds`` (each fold as its own
      task: its bytes times its own CPU increments, summed over folds);
    - ``measure`` (how bytes were measured) and ``reason`` (why they are empty, else "");
    - ``per_fold``: each fold's ``fold``, ``rows``, ``cpu_s``, ``cpu_learn_s``,
      ``cpu_predict_s``, ``bytes_final``, ``ram_hours``.
    """
    df = _frame(cost)
    out: dict[str, dict[str, Any]] = {}
    for label, g in df.groupby("learner", sort=False):
        g = g.sort_values(["position", "fold"])
        last = g[g["position"] == g["position"].max()]
        by_pos = g.groupby("position", sort=True)
        total_bytes = by_pos["bytes"].sum(min_count=len(last))
        cpu_at = by_pos["cpu"].sum()
        spent = np.diff(np.r_[0.0, cpu_at.to_numpy()])
        ram = float(np.sum(np.nan_to_num(total_bytes.to_numpy()) / GB * spent / 3600.0))
        rows = int(last["rows"].max())
        cpu = float(last["cpu"].sum())
        learn = last["cpu_learn"].astype(float)
        predict = last["cpu_predict"].astype(float)
        empty = last[last["bytes"].isna()]
        out[str(label)] = {
            "folds": len(last),
            "rows": rows,
            "cpu_s": _num(cpu),
            "cpu_learn_s": _num(learn.sum()) if learn.notna().all() else None,
            "cpu_predict_s": _num(predict.sum()) if predict.notna().all() else None,
            "cpu_per_row_s": _num(cpu / rows) if rows else None,
            "rows_per_second": _num(rows / cpu) if cpu > 0 else None,
            "bytes_final": _num(total_bytes.iloc[-1]),
            "bytes_mean": _num(total_bytes.mean()) if total_bytes.notna().all() else None,
            "ram_hours": ram if empty.empty else None,
            "ram_hours_folds": _num(last["ram_hours"].sum()) if empty.empty else None,
            "measure": str(last["measure"].iloc[0]),
            "reason": str(empty["reason"].iloc[0]) if not empty.empty else "",
            "per_fold": [
                {"fold": int(r.fold), "rows": int(r.rows), "cpu_s": _num(r.cpu),
                 "cpu_learn_s": _num(r.cpu_learn), "cpu_predict_s": _num(r.cpu_predict),
                 "bytes_final": _num(r.bytes), "ram_hours": _num(r.ram_hours)}
                for r in last.itertuples()
            ],
        }
    return out


def cost_summary(cost: pa.Table | pd.DataFrame | None) -> dict[str, dict[str, Any]] | None:
    """The ``cost`` entry of ``summary.json``: :func:`learner_costs` by learner, or None for
    a run that measured nothing (its ``cost`` switch off)."""
    if cost is None or len(cost) == 0:
        return None
    return learner_costs(cost)


def _times(x: float) -> str:
    return f"{x:.2g}×" if x < 10 else f"{x:.0f}×"


def price_line(a: str, b: str, costs: Mapping[str, Mapping[str, Any]]) -> str:
    """The sentence after a verdict on ``a`` against ``b``: how many times ``b``'s CPU per
    row and memory ``a`` costs, with both RAM-hours; what could not be measured is said.

    >>> c = {"x": {"cpu_per_row_s": 2e-5, "bytes_final": None, "ram_hours": None,
    ...            "reason": "cannot pickle it"},
    ...      "y": {"cpu_per_row_s": 1e-5, "bytes_final": 10.0, "ram_hours": 1e-9}}
    >>> price_line("x", "y", c)
    "x costs 2× y's CPU per row; its memory is not measured (cannot pickle it)"
    """
    ca, cb = costs[a], costs[b]
    pa_, pb = ca.get("cpu_per_row_s"), cb.get("cpu_per_row_s")
    cpu = f"{_times(pa_ / pb)} {b}'s CPU per row" if pa_ and pb else "an unknown CPU per row"
    ba, bb = ca.get("bytes_final"), cb.get("bytes_final")
    if not ba or not bb:
        who = a if not ba else b
        why = (ca if not ba else cb).get("reason") or "no size"
        return f"{a} costs {cpu}; {'its' if who == a else who + chr(39) + 's'} memory is " \
               f"not measured ({why})"
    ra, rb = ca.get("ram_hours"), cb.get("ram_hours")
    hours = f" ({ra:.2g} vs {rb:.2g} RAM-hours)" if ra is not None and rb is not None else ""
    return f"{a} costs {cpu} and {_times(ba / bb)} its memory{hours}"
