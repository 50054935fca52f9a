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

__all__ = ["CORES", "FINISH_SECONDS", "RAY_START_SECONDS", "START_SECONDS", "SuitePlan",
           "plan_suite", "schedule"]

#: A probe's share of its stream's rows below which the plan warns that growth may be missed.
SHORT_PROBE = 1 / 6
#: Seconds a local Ray takes to start and to stop for a suite on an idle 2-core machine:
#: ``ray.init`` 2.2 s (docs/performance.md, start-up) and ``ray.shutdown`` 1.4 s (1.35-1.37 s
#: in three runs, 2026-11-29, 2-core VM, shared, load 2.9); its workers' start is
#: :data:`START_SECONDS`.
RAY_START_SECONDS = 3.6
#: CPU-seconds a fresh process spends before it evaluates anything: Python's start and the
#: imports of distval's suite runner (numpy, pandas, pyarrow, scipy, river's first learners
#: aside: the probes' warm-up measures those); paid by the suite's own process and by each Ray
#: worker before its first stream (1.1-1.2 s, 2026-11-29, 2-core VM, shared, load 3).
START_SECONDS = 1.2
#: CPU-seconds of the suite's own process after the last stream: the cross-stream statistics,
#: tables, figures and page (0.95 s for 4 streams x 2 learners, 2026-11-29, 2-core VM, load 1).
FINISH_SECONDS = 1.0
#: A share of a core from which the probes count as having had a whole one (the cores then
#: had room beside them, and their share says nothing of how much).
WHOLE_CORE = 0.95
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

    On this machine now (:meth:`wall_now`): a probe that got half a core of 2 says three
    other processes' worth of work ran beside it; the suite's 2 workers then get 2/5 of a
    core each, for their start-up (1.2 CPU-s) and their 4 CPU-s of a stream, and its own
    process 2/4, for its start-up and its end (1.2 + 1.0 CPU-s): 13 s + 4.4 s.

    >>> two = [{"name": n, "rows": 1000, "cpu_per_krow": 4.0, "done": False,
    ...         "source": "probe"} for n in "ab"]
    >>> p = SuitePlan(two, probe_seconds=2.0, probe_wall=4.0, finish_seconds=1.0)
    >>> p.others(2), p.share(2, 2), round(p.wall_now(2), 6)
    (3.0, 0.4, 17.4)
    """

    streams: list[dict[str, Any]]
    probe_seconds: float = field(default=0.0)
    #: The probes' wall seconds (0 without probes): with their CPU, the share of a core
    #: this process got while they ran, the machine's load included.
    probe_wall: float = field(default=0.0)
    #: Wall seconds of a local Ray's start and stop on an idle machine (0: no local Ray).
    startup_seconds: float = field(default=0.0)
    #: Threads running besides the probes, on average (None: not known).
    elsewhere: float | None = field(default=None)
    #: Streams run at once: None, one per core on Ray; 1, one after another in-process.
    workers: int | None = field(default=None)
    #: CPU-seconds a fresh process pays before its work (:data:`START_SECONDS`).
    start_seconds: float = field(default=START_SECONDS)
    #: CPU-seconds of the suite's process after the last stream (:data:`FINISH_SECONDS`).
    finish_seconds: float = field(default=FINISH_SECONDS)

    @property
    def core_share(self) -> float:
        """The share of a core the probes got (CPU-s over wall-s, at most 1; 1 without
        probes)."""
        if self.probe_seconds <= 0 or self.probe_wall <= 0:
            return 1.0
        return min(1.0, self.probe_seconds / self.probe_wall)

    def others(self, cores: int) -> float:
        """The machine's other work while the probes ran, in processes like the probes' on
        ``cores`` cores. The kernel shares busy cores out fairly: a probe that got a share
        ``s`` under a whole core ran beside ``cores / s - 1`` such processes (their
        niceness included); one that got a whole core says only that the others left it
        room, and the threads running besides it are counted instead (at most
        ``cores - 1``: more would have taken part of its core)."""
        share = self.core_share
        if share < WHOLE_CORE:
            return cores / share - 1.0
        return min(float(cores - 1), self.elsewhere or 0.0)

    def share(self, processes: int, cores: int) -> float:
        """The share of a core each of ``processes`` processes like the probes' gets on
        ``cores`` cores beside the work measured now (:meth:`others`)."""
        return min(1.0, cores / (self.others(cores) + processes))

    def wall_now(self, cores: int) -> float:
        """Wall seconds on ``cores`` cores at the speed measured now, the load included.

        The suite's own process pays its start-up, a local Ray's start and stop, and the
        statistics and figures after the last stream at the share of a core one process
        gets; the streams run ``min(cores, streams)`` at once on Ray (each worker's start-up
        first, then the idle-core schedule) at the share each of that many processes gets
        beside the same load, or one after another in the suite's process."""
        left = self._left()
        alone = self.share(1, cores)
        own = (self.start_seconds + self.startup_seconds + self.finish_seconds) / alone
        if self.workers == 1:
            return own + sum(left) / alone
        k = min(cores, max(1, len(left)))
        return own + (self.start_seconds + schedule(left, k)) / self.share(k, cores)

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
            k = 1 if self.workers == 1 else min(here, max(1, len(self._left())))
            lines += [
                "",
                f"On this machine now: about {duration(self.wall_now(here))} on its {here} "
                f"cores (the table above assumes idle cores; the probes got "
                f"{100 * self.core_share:.0f} % of a core beside about "
                f"{self.others(here):.1f} other processes' work, so each of the suite's "
                f"{k} at once gets {100 * self.share(k, here):.0f} %; charged too: each "
                f"process's start, {self.start_seconds:.1f} CPU-s"
                + (f", Ray's start and stop, {self.startup_seconds:.1f} s when idle"
                   if self.startup_seconds else "")
                + f", the statistics and figures at the end, {self.finish_seconds:.1f} CPU-s).",
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
    workers: int | None = None,
) -> SuitePlan:
    """Project a suite's cost; streams without a measured cost are probed in this process
    (:func:`~distval.experiments.suite.probe.probe_streams`), the probes taking at most
    about ``budget`` of the smallest stream's projected CPU; ``startup``: a local Ray's
    start and stop (:data:`RAY_START_SECONDS` for a suite on a local Ray); ``workers``:
    the streams run at once (None: one per core, on Ray; 1: in-process)."""
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
    elsewhere = None
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
        spent, wall, elsewhere = probes.spent, probes.wall, probes.elsewhere
    return SuitePlan(rows, probe_seconds=spent, probe_wall=wall if todo else 0.0,
                     startup_seconds=startup, elsewhere=elsewhere, workers=workers)
