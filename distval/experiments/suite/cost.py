"""A suite's cost: a table per learner and stream (CPU, bytes, RAM-hours from each stream's
``summary.json`` cost entry, kept in ``suite.json``) and the measure against CPU per row,
with the Pareto front (no other learner both better and cheaper) per stream and over all
streams.

>>> data = {"comparison": {"learners": ["a", "b", "c"], "streams": ["s"],
...     "values": [[0.9, 0.8, 0.7]]},
...     "streams": [{"name": "s", "learner_costs": {
...         "a": {"cpu_per_row_s": 3e-4, "bytes_final": 9e5, "ram_hours": 1e-6},
...         "b": {"cpu_per_row_s": 1e-5, "bytes_final": 2e4, "ram_hours": 1e-9},
...         "c": {"cpu_per_row_s": 2e-5, "bytes_final": 3e4, "ram_hours": 2e-9}}}]}
>>> [(r["learner"], r["front"]) for r in cost_rows(data)]
[('a', True), ('b', True), ('c', False)]
>>> pareto_front([1.0, 2.0, 3.0], [0.5, 0.9, 0.8]).tolist()
[True, True, False]
"""

from __future__ import annotations

import base64
from html import escape
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["cost_rows", "cost_sections", "pareto_front", "plot_cost_front"]


def pareto_front(cost: Any, value: Any, higher: bool = True) -> np.ndarray:
    """Which points no other point beats on both: costs no more and scores at least as well,
    one of them strictly (``higher``: a larger value is better)."""
    c = np.asarray(cost, float)
    v = np.asarray(value, float) * (1 if higher else -1)
    out = np.ones(len(c), bool)
    for i in range(len(c)):
        beaten = (c <= c[i]) & (v >= v[i]) & ((c < c[i]) | (v > v[i]))
        out[i] = not beaten.any()
    return out


def _costs(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["name"]: s.get("learner_costs") or {} for s in data.get("streams", [])}


def cost_rows(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Per stream and learner: the final value, CPU per row, final bytes, RAM-hours and
    whether it is on that stream's Pareto front of value against CPU per row."""
    c = data["comparison"]
    higher = not c.get("lower_is_better")
    costs = _costs(data)
    rows: list[dict[str, Any]] = []
    for stream, values in zip(c["streams"], c["values"]):
        got = costs.get(stream, {})
        here = [
            {"stream": stream, "learner": lab, "value": v,
             "cpu_per_row_s": (got.get(lab) or {}).get("cpu_per_row_s"),
             "bytes_final": (got.get(lab) or {}).get("bytes_final"),
             "ram_hours": (got.get(lab) or {}).get("ram_hours")}
            for lab, v in zip(c["learners"], values)
        ]
        ok = [r for r in here if r["cpu_per_row_s"] is not None and r["value"] is not None]
        front: Any = pareto_front([r["cpu_per_row_s"] for r in ok], [r["value"] for r in ok],
                             higher) if ok else []
        for r, f in zip(ok, front):
            r["front"] = bool(f)
        for r in here:
            r.setdefault("front", False)
        rows += here
    return rows


def plot_cost_front(data: dict[str, Any]) -> Figure | None:
    """The measure against CPU per row (log scale), one panel per stream and one over all
    streams (mean value, mean CPU per row), the Pareto front drawn; None without costs."""
    from matplotlib.figure import Figure

    rows = [r for r in cost_rows(data) if r["cpu_per_row_s"]]
    if not rows:
        return None
    c = data["comparison"]
    higher = not c.get("lower_is_better")
    streams = list(dict.fromkeys(r["stream"] for r in rows))
    learners = list(dict.fromkeys(r["learner"] for r in rows))
    overall = []
    for lab in learners:
        mine = [r for r in rows if r["learner"] == lab]
        overall.append({"learner": lab, "value": float(np.mean([r["value"] for r in mine])),
                        "cpu_per_row_s": float(np.mean([r["cpu_per_row_s"] for r in mine]))})
    panels = [(s, [r for r in rows if r["stream"] == s]) for s in streams]
    panels.append(("all streams (means)", overall))
    fig = Figure(figsize=(3.2 * len(panels), 3.0))
    for k, (title, pts) in enumerate(panels):
        ax = fig.add_subplot(1, len(panels), k + 1)
        x = np.array([p["cpu_per_row_s"] for p in pts])
        y = np.array([p["value"] for p in pts])
        on = pareto_front(x, y, higher)
        ax.scatter(x, y, c=np.where(on, "C3", "C0"))
        order = np.argsort(x[on])
        ax.plot(x[on][order], y[on][order], "C3--", lw=1)
        for p in pts:
            ax.annotate(p["learner"], (p["cpu_per_row_s"], p["value"]), fontsize=7)
        ax.set_xscale("log")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("CPU seconds per row")
        if k == 0:
            ax.set_ylabel(str(data.get("measure", "value")))
    fig.tight_layout()
    return fig


def cost_sections(data: dict[str, Any], figures: bool = True) -> list[str]:
    """``suite.html``'s cost table and its accuracy-against-cost figure (none without
    costs)."""
    rows = cost_rows(data)
    if not any(r["cpu_per_row_s"] for r in rows):
        return []

    def g(v: Any) -> str:
        return "–" if v is None else f"{v:.3g}"

    body = "<table><tr>" + "".join(f"<th>{h}</th>" for h in (
        "stream", "learner", "value", "CPU s per row", "bytes (end)", "RAM-hours",
        "on the front")) + "</tr>" + "".join(
        f"<tr><td>{escape(r['stream'])}</td><td>{escape(r['learner'])}</td><td>{g(r['value'])}"
        f"</td><td>{g(r['cpu_per_row_s'])}</td><td>{g(r['bytes_final'])}</td>"
        f"<td>{g(r['ram_hours'])}</td><td>{'yes' if r['front'] else ''}</td></tr>"
        for r in rows) + "</table>"
    parts = ["<section><h2>Cost</h2><p>Thread CPU of the learners' own calls, model bytes and "
             "RAM-hours (MOA's definition), over all folds. On the front: no other learner is "
             f"both better and cheaper on that stream.</p>{body}</section>"]
    fig = plot_cost_front(data) if figures else None
    if fig is not None:
        from distval.report.figures import png_bytes

        uri = base64.b64encode(png_bytes(fig)).decode("ascii")
        parts.append("<section><h2>Value against cost</h2><figure><img alt=\"value against "
                     f"cost\" src=\"data:image/png;base64,{uri}\"></figure></section>")
    return parts
