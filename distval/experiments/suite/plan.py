"""The projected cost of a suite: core-hours and wall time per number of cores, from measured
CPU-seconds per row of each stream (``distval suite --plan``).

Per-row costs come from the streams this suite's output already holds, from another
suite's output (``cost_from``), or else from a short probe of each stream in this process
(:mod:`distval.experiments.suite.probe`: one replica per learner, the cost's growth with
the rows fitted and extrapolated, at most 10 % of the smallest stream's projected CPU). A
stream is one task on one core, so the wall time on ``c``
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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from distval.engine.loop import open_config_stream
from distval.errors import DistvalError
from distval.experiments.study import duration
from distval.experiments.suite.probe import BUDGET, probe_streams
from distval.experiments.suite.run import SuiteConfig
from distval.experiments.type_errors.projection import measured_costs

__all__ = ["CORES", "SuitePlan", "plan_suite", "schedule"]

#: A probe's share of its stream's rows below which the plan warns that growth may be missed.
SHORT_PROBE = 1 / 6
#: Seconds a local Ray takes to start and put its workers to work on an idle 2-core machine
#: (docs/performance.md, start-up: ``ray.init`` 2.2 s, the actors at work at 6.9 s, median
#: run), charged to a suite on Ray at the share of a core measured now.
RAY_START_SECONDS = 7.0
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
    """Per stream: ``name``, ``rows``, ``cpu_per_krow``, ``done``, ``source`` (and
    ``probed``: the rows a probe ran); ``probe_seconds``: the CPU-seconds the probes
    took (0 without probes).

    >>> SuitePlan([{"name": "a", "rows": 1000, "cpu_per_krow": 8.0, "done": False,
    ...             "source": "probe"}], probe_seconds=2.0, probe_wall=4.0).wall_now(2)
    16.0
    """

    streams: list[dict[str, Any]]
    probe_seconds: float = field(default=0.0)
    #: The probes' wall seconds (0 without probes): with their CPU, the share of a core
    #: this process got while they ran, the machine's load included.
    probe_wall: float = field(default=0.0)
    #: Fixed seconds before the first stream runs (a local Ray's start), at full speed.
    startup_seconds: float = field(default=0.0)

    @property
    def core_share(self) -> float:
        """The share of a core the probes got (CPU-s over wall-s, at most 1; 1 without
        probes)."""
        if self.probe_seconds <= 0 or self.probe_wall <= 0:
            return 1.0
        return min(1.0, self.probe_seconds / self.probe_wall)

    def wall_now(self, cores: int) -> float:
        """Wall seconds on ``cores`` cores at the speed measured now: the start-up and the
        idle-core schedule over the share of a core the probes got (the load included)."""
        return (self.startup_seconds + self.wall_seconds(cores)) / self.core_share

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
        if self.probe_seconds > 0:
            smallest = min(self._left(), default=0.0)
            share = f", {100 * self.probe_seconds / smallest:.0f} % of the smallest stream" \
                if smallest > 0 else ""
            lines += [
                "",
                f"The probes took {self.probe_seconds:.1f} CPU-s in {self.probe_wall:.1f} s"
                f"{share}: one replica per "
                "learner, its CPU times the folds, the growth of the per-row cost with the "
                "rows fitted and extrapolated; one-off costs (imports, JIT, JVM) charged to "
                "each stream.",
            ]
            probed = [s["probed"] / s["rows"] for s in self.streams
                      if s.get("probed") and s["rows"] and not s["done"]]
            if probed and min(probed) < SHORT_PROBE:
                lines.append(
                    f"A probe covered only {100 * min(probed):.0f} % of its stream: a learner "
                    "whose per-row cost keeps growing with its model (a forest) may cost "
                    "about 2x the projection (docs/suites.md)."
                )
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
        if self.probe_wall > 0:
            import os

            here = os.cpu_count() or 1
            lines += [
                "",
                f"On this machine now: about {duration(self.wall_now(here))} on its {here} "
                f"cores (the table above assumes idle cores; the probes got "
                f"{100 * self.core_share:.0f} % of a core, the load included, and each "
                "stream's run is charged the same share"
                + (f"; Ray's start, {self.startup_seconds:.0f} s when idle, too)."
                   if self.startup_seconds else ")."),
            ]
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
    budget: float = BUDGET,
    startup: float = 0.0,
) -> SuitePlan:
    """Project a suite's cost; streams without a measured cost are probed in this process
    (:func:`~distval.experiments.suite.probe.probe_streams`), the probes taking at most
    about ``budget`` of the smallest stream's projected CPU; ``startup``: the seconds before
    the first stream runs (:data:`RAY_START_SECONDS` for a suite on a local Ray)."""
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
    rows: list[dict[str, Any]] = []
    todo: list[int] = []
    for i, (name, spec) in enumerate(zip(cfg.names, cfg.streams, strict=True)):
        n = _rows(cfg, i)
        row = {"name": name, "rows": n, "cpu_per_krow": 0.0, "done": name in done}
        if spec in here:
            row |= {"cpu_per_krow": here[spec], "source": "measured in this suite"}
        elif spec in other:
            row |= {"cpu_per_krow": other[spec], "source": f"measured in {cost_from}"}
        elif name not in done:
            todo.append(i)
        else:
            row["source"] = "done"
        rows.append(row)
    spent = wall = 0.0
    if todo:
        known = [r["rows"] * r["cpu_per_krow"] / 1000.0 for r in rows if "source" in r]
        probes = probe_streams(
            [replace(cfg.stream_config(i), n_rows=rows[i]["rows"]) for i in todo],
            budget=budget,
            others=[k for k in known if k > 0],
        )
        for i, curve in zip(todo, probes.curves, strict=True):
            n = rows[i]["rows"]
            rows[i] |= {
                "cpu_per_krow": 1000.0 * curve.cpu(n) / max(1, n),
                "source": f"probe of {curve.rows:,d} rows, 1 of {cfg.run.n_folds} folds",
                "probed": curve.rows,
            }
        spent, wall = probes.spent, probes.wall
    return SuitePlan(rows, probe_seconds=spent, probe_wall=wall if todo else 0.0,
                     startup_seconds=startup)
