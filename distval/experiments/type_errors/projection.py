"""The projected CPU cost of a grid, from measured CPU-seconds per row of each stream.

``distval reproduce type-errors --plan`` prints it without running anything; a run prints
it before starting. Costs come from the grid's own finished cells, another grid's
(``--cost-from``), or :data:`~distval.experiments.type_errors.profiles.REFERENCE_COSTS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from distval.errors import DistvalError
from distval.experiments.type_errors.cell import cell_key
from distval.experiments.type_errors.profiles import (
    COST_SOURCE,
    REFERENCE_COSTS,
    REFERENCE_GROWTH,
    REFERENCE_LEARNERS,
    REFERENCE_ROWS,
    GridConfig,
    stream_rows,
)

__all__ = ["Projection", "measured_costs", "project"]



@dataclass
class Projection:
    """Projected CPU cost of a grid, from measured CPU-seconds per row of each stream.

    ``streams`` has one dict per stream: ``stream``, ``rows`` (per cell), ``cpu_per_krow``
    (CPU-s per 1,000 rows), ``cpu_per_cell``, ``cells``, ``cells_done``, ``core_hours``
    (of the cells not done yet) and ``source`` (where the cost comes from).
    """

    config: GridConfig
    streams: list[dict[str, Any]]

    @property
    def cells(self) -> int:
        return sum(int(s["cells"]) for s in self.streams)

    @property
    def cells_done(self) -> int:
        return sum(int(s["cells_done"]) for s in self.streams)

    @property
    def core_hours(self) -> float:
        """Core-hours of the cells not yet done (one cell = one core)."""
        return float(sum(s["core_hours"] for s in self.streams))

    def hours_on(self, cores: int) -> float:
        """Wall hours on ``cores`` cores if the cells kept every core busy."""
        return self.core_hours / cores

    def cores_for(self, hours: float) -> int:
        """Cores needed to finish within ``hours`` (at most one cell per core at a time)."""
        need = int(np.ceil(self.core_hours / hours)) if self.core_hours > 0 else 1
        return max(1, min(need, self.cells - self.cells_done))

    def to_text(self) -> str:
        cfg = self.config
        lines = [
            f"Projected cost: {len(cfg.streams)} streams x {cfg.runs} runs x "
            f"{len(cfg.schemes)} schemes = {self.cells} cells ({self.cells_done} done), "
            f"learner {cfg.learner}",
            "",
            f"{'stream':16s} {'rows/cell':>10s} {'CPU-s/1k rows':>13s} {'CPU-s/cell':>11s} "
            f"{'cells left':>10s} {'core-h':>8s}  cost from",
        ]
        for r in self.streams:
            lines.append(
                f"{r['stream']:16s} {r['rows']:>10,d} {r['cpu_per_krow']:>13.3f} "
                f"{r['cpu_per_cell']:>11.1f} {r['cells'] - r['cells_done']:>10d} "
                f"{r['core_hours']:>8.2f}  {r['source']}"
            )
        per_cell = self.core_hours * 3600 / max(1, self.cells - self.cells_done)
        overnight = self.cores_for(12.0)
        finish = (f"one core finishes it in {_hours(self.hours_on(1))}" if overnight == 1 else
                  f"{overnight} cores finish it in {self.hours_on(overnight):.1f} h (overnight)")
        lines += [
            "",
            f"mean CPU-s per cell left: {per_cell:.1f}; total: {self.core_hours:.1f} core-hours "
            f"({_hours(self.hours_on(2))} on 2 cores, {_hours(self.hours_on(32))} on 32 cores); "
            f"{finish}.",
            "The total charges every row its stream's measured per-row cost (flat in the "
            "rows); cells are one core each, so more cores than cells left do not help.",
            *self._growth_line(),
            f"On Ray (--address) each cell is a 1-CPU task, costliest first, so a cluster runs "
            f"one cell per core: 3 nodes x 16 cores = 48 cores finish in about "
            f"{_hours(self.hours_on(min(48, max(1, self.cells - self.cells_done))))} (its longest "
            f"cell takes {_hours(max((s['cpu_per_cell'] for s in self.streams), default=0) / 3600)}"
            ").",
        ]
        return "\n".join(lines)


    def growth_factor(self, label: str, rows: int) -> float:
        """How much more (or less) a cell of ``rows`` rows of stream ``label`` costs than its
        per-row cost x rows says, if the per-row cost keeps changing as measured for the
        learner (:data:`REFERENCE_GROWTH`; a stream not measured takes the steepest growth):
        1 for learners without a measured growth and for cells no longer than the measured
        ones (:data:`REFERENCE_ROWS`).

        >>> from distval.experiments.type_errors.profiles import make_grid
        >>> p = project(make_grid("paper"))
        >>> p.growth_factor("SEA(50)", 1_000_000), p.growth_factor("LED(50000)", 1_000_000)
        (1.86, 0.82)
        >>> p.growth_factor("CovType", 1_000_000), p.growth_factor("SEA(50)", 100_000)
        (2.1, 1.0)
        """
        measured = REFERENCE_GROWTH.get(self.config.learner, {})
        if not measured or rows <= REFERENCE_ROWS:
            return 1.0
        b, factor = measured.get(label, max(measured.values(), key=lambda g: g[1]))
        return float(factor * (rows / 1e6) ** b)

    def _growth_line(self) -> list[str]:
        measured = REFERENCE_GROWTH.get(self.config.learner, {})
        grown = sum(s["core_hours"] * self.growth_factor(s["stream"], int(s["rows"]))
                    for s in self.streams)
        if not measured or abs(grown - self.core_hours) <= self.core_hours * 0.01:
            return []
        bs = [b for b, _ in measured.values()]
        factors = [f for _, f in measured.values()]
        return [f"The per-row cost is not flat past the measured {REFERENCE_ROWS:,}-row cells "
                f"(trees grow, drifts reset them): a power law rows^b fitted on each, b from "
                f"{min(bs):g} to {max(bs):g}, carried to 1,000,000 rows gives "
                f"{min(factors):g}-{max(factors):g} x the flat cost of a cell; with the "
                "steepest on the streams not measured, the cells left cost about "
                f"{grown:.0f} core-hours ({grown / max(self.core_hours, 1e-9):.2f} x)."]


def _hours(hours: float) -> str:
    """A duration for the plan: minutes below an hour (a small grid is not "0.0 h").

    >>> _hours(0.004), _hours(0.5), _hours(3.25)
    ('0.2 min', '30 min', '3.2 h')
    """
    if hours < 1:
        minutes = hours * 60
        return f"{minutes:.1f} min" if minutes < 10 else f"{minutes:.0f} min"
    return f"{hours:.1f} h"


def measured_costs(cells: list[dict[str, Any]]) -> dict[str, float]:
    """CPU-seconds per 1,000 rows of each stream, averaged over finished cells."""
    per: dict[str, list[float]] = {}
    for c in cells:
        cpu, n = c.get("cpu_seconds"), c.get("n_rows")
        if cpu and n:
            per.setdefault(c["stream"], []).append(1000.0 * float(cpu) / float(n))
    return {k: float(np.mean(v)) for k, v in per.items()}


def project(
    config: GridConfig,
    cells: list[dict[str, Any]] | None = None,
    *,
    costs: dict[str, float] | None = None,
) -> Projection:
    """Project the CPU cost of a grid without running it.

    Per-row costs come, per stream, from ``cells`` (finished cells of this grid or of
    another grid with the same learner: CPU-seconds / rows), else ``costs``, else the
    learner's :data:`REFERENCE_COSTS` (the profiles' learners); a stream without a
    measurement borrows a sibling's (:data:`COST_SOURCE`). Cells are assumed to cost the
    same whatever the scheme.

    >>> from distval.experiments.type_errors.profiles import make_grid
    >>> p = project(make_grid("paper"))
    >>> p.cells, p.core_hours > 100, p.cores_for(12.0) > 2
    (1650, True, True)
    """
    done_keys = {c["key"] for c in cells or []}
    measured = measured_costs(cells or [])
    table: dict[str, tuple[float, str]] = {}
    reference = REFERENCE_COSTS.get(config.learner, {})
    scale = config.learners_per_cell / REFERENCE_LEARNERS.get(config.learner, 2)
    note = "reference table" if scale == 1 else f"reference table x {scale:g} (learners)"
    table |= {k: (v * scale, note) for k, v in reference.items()}
    table |= {k: (v, "measured elsewhere") for k, v in (costs or {}).items()}
    table |= {
        k: (v, f"{n} cells measured")
        for k, v in measured.items()
        for n in [sum(1 for c in cells or [] if c.get("stream") == k)]
    }
    rows = []
    for label, spec in config.streams:
        if label in table:
            cost, source = table[label]
        elif COST_SOURCE.get(label) in table:
            cost = table[COST_SOURCE[label]][0]
            source = f"as {COST_SOURCE[label]} ({table[COST_SOURCE[label]][1]})"
        else:
            raise DistvalError(
                f"no measured cost for {label} with learner {config.learner!r}: run a few "
                "cells first (--max-cells) and project from their output directory"
            )
        n = stream_rows(config, label, spec)
        keys = [cell_key(label, r, s) for r in range(config.runs) for s in config.schemes]
        n_done = sum(k in done_keys for k in keys)
        per_cell = cost * n / 1000.0
        rows.append(
            {
                "stream": label,
                "rows": n,
                "cpu_per_krow": cost,
                "cpu_per_cell": per_cell,
                "cells": len(keys),
                "cells_done": n_done,
                "core_hours": per_cell * (len(keys) - n_done) / 3600.0,
                "source": source,
            }
        )
    return Projection(config, rows)
