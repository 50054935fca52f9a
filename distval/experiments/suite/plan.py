"""The projected cost of a suite: core-hours and wall time per number of cores, from measured
CPU-seconds per row of each stream (``distval suite --plan``).

Per-row costs come from the streams this suite's output already holds, from another
suite's output (``cost_from``), or else from a short probe run of each stream in this
process (``probe_rows`` rows). A stream is one task on one core, so the wall time on ``c``
cores is the longest-processing-time-first schedule of the streams' costs: linear in ``1/c``
until the longest stream dominates, flat once there are as many cores as streams.

>>> p = SuitePlan([{"name": "a", "rows": 1000, "cpu_per_krow": 2.0, "done": False,
...                 "source": "test"}, {"name": "b", "rows": 1000, "cpu_per_krow": 1.0,
...                 "done": False, "source": "test"}])
>>> p.cpu_seconds, p.wall_seconds(1), p.wall_seconds(2), p.wall_seconds(8)
(3.0, 3.0, 2.0, 2.0)
"""

from __future__ import annotations

import heapq
import json
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from distval.engine.loop import open_config_stream
from distval.errors import DistvalError
from distval.evaluation import evaluate
from distval.experiments.study import duration
from distval.experiments.suite.run import SuiteConfig
from distval.experiments.type_errors.projection import measured_costs

__all__ = ["CORES", "SuitePlan", "plan_suite", "schedule"]

#: Numbers of cores the plan projects.
CORES = (1, 2, 8, 32, 128)


def schedule(costs: list[float], cores: int) -> float:
    """Makespan of independent tasks on ``cores`` identical cores, longest first, each task
    on the core that frees up first (Graham's LPT rule).

    >>> schedule([4, 3, 3, 2], 2)
    6.0
    """
    if not costs:
        return 0.0
    free = [0.0] * max(1, min(cores, len(costs)))
    for c in sorted(costs, reverse=True):
        heapq.heappush(free, heapq.heappop(free) + float(c))
    return max(free)


@dataclass
class SuitePlan:
    """Per stream: ``name``, ``rows``, ``cpu_per_krow``, ``done``, ``source``."""

    streams: list[dict[str, Any]]

    def _left(self) -> list[float]:
        return [s["rows"] * s["cpu_per_krow"] / 1000.0 for s in self.streams if not s["done"]]

    @property
    def cpu_seconds(self) -> float:
        """CPU-seconds of the streams not done yet."""
        return float(sum(self._left()))

    def wall_seconds(self, cores: int) -> float:
        return schedule(self._left(), cores)

    def linear_until(self) -> int:
        """Cores up to which the wall time still falls as 1/cores (within 10%)."""
        left = self._left()
        if not left:
            return 1
        best = 1
        for c in range(1, len(left) + 1):
            if schedule(left, c) <= 1.1 * sum(left) / c:
                best = c
        return best

    def to_text(self, cores: tuple[int, ...] = CORES) -> str:
        lines = [
            f"{'stream':24s} {'rows':>9s} {'CPU-s/1k rows':>13s} {'CPU-s':>9s}  cost from",
        ]
        for s in self.streams:
            cpu = s["rows"] * s["cpu_per_krow"] / 1000.0
            state = " (done)" if s["done"] else ""
            lines.append(
                f"{s['name'][:24]:24s} {s['rows']:>9,d} {s['cpu_per_krow']:>13.3f} "
                f"{cpu:>9.1f}  {s['source']}{state}"
            )
        total = self.cpu_seconds
        lines += [
            "",
            f"left: {total / 3600:.3f} core-hours",
            "",
            f"{'cores':>6s} {'wall time':>12s} {'speed-up':>9s} {'efficiency':>10s}",
        ]
        one = self.wall_seconds(1)
        for c in cores:
            wall = self.wall_seconds(c)
            speed = one / wall if wall > 0 else 1.0
            lines.append(f"{c:>6d} {duration(wall):>12s} {speed:>9.2f} {speed / c:>10.2f}")
        longest = max(self._left(), default=0.0)
        lines += [
            "",
            f"Linear up to about {self.linear_until()} cores: one stream is one task, so the "
            f"wall time never falls below the longest stream ({duration(longest)}), and "
            "the driver writes each stream's results as it arrives.",
        ]
        return "\n".join(lines)


def _rows(cfg: SuiteConfig, i: int) -> int:
    stream = open_config_stream(cfg.stream_config(i))
    n = stream.n_rows if stream.n_rows is not None else stream.limit
    if n is None:
        raise DistvalError(f"the length of {cfg.streams[i]} is unknown; give --n-rows")
    return int(n) if cfg.run.n_rows is None else min(int(n), cfg.run.n_rows)


def _suite_costs(directory: Path) -> dict[str, float]:
    """CPU-seconds per 1,000 rows of each finished stream recorded in a suite's
    ``suite.json`` (streams named by their spec)."""
    try:
        data = json.loads((directory / "suite.json").read_text())
    except (OSError, ValueError):
        return {}
    cells = [
        {"stream": s["stream"], "cpu_seconds": s.get("cpu_seconds"), "n_rows": s.get("rows")}
        for s in data.get("streams", [])
        if s.get("done")
    ]
    return measured_costs(cells)


def plan_suite(
    cfg: SuiteConfig,
    output_dir: str | Path | None = None,
    *,
    cost_from: str | Path | None = None,
    probe_rows: int = 1000,
) -> SuitePlan:
    """Project a suite's cost; streams without a measured cost are probed on ``probe_rows``
    rows in this process (CPU time of the whole run: learners, folds and tests)."""
    here = _suite_costs(Path(output_dir)) if output_dir is not None else {}
    done: set[str] = set()
    if output_dir is not None:
        try:
            stored = json.loads((Path(output_dir) / "suite.json").read_text())
            done = {s["name"] for s in stored.get("streams", []) if s.get("done")}
        except (OSError, ValueError):
            pass
    other = _suite_costs(Path(cost_from)) if cost_from is not None else {}
    if cost_from is not None and not other:
        raise DistvalError(f"--cost-from {cost_from}: no finished stream with a measured cost")
    rows = []
    for i, (name, spec) in enumerate(zip(cfg.names, cfg.streams, strict=True)):
        n = _rows(cfg, i)
        if spec in here:
            cost, source = here[spec], "measured in this suite"
        elif spec in other:
            cost, source = other[spec], f"measured in {cost_from}"
        else:
            probe = replace(cfg.stream_config(i), n_rows=min(n, probe_rows))
            cpu = time.process_time()
            res = evaluate(probe, backend="inprocess")
            cost = 1000.0 * (time.process_time() - cpu) / max(1, res.n_rows)
            source = f"probe of {res.n_rows:,d} rows"
        rows.append(
            {"name": name, "rows": n, "cpu_per_krow": cost, "done": name in done, "source": source}
        )
    return SuitePlan(rows)
