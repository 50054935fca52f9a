"""Scaling of ``distval suite``: the same suite on 1 and 2 cores, and projected beyond.

The suite runs three times in this process: in-process (no Ray), as Ray tasks one at a
time (1 core) and two at a time (2 cores); efficiency = speed-up / cores, both measured in
the same run. The per-stream CPU costs the 1-core run records (``suite.json``) then project
the wall time on 8, 32 and 128 cores (:mod:`distval.experiments.suite.plan`: each stream is
one task, scheduled longest first), and the script says from how many cores the projection
stops being linear (the longest stream bounds it; the driver only writes results).

    python benchmarks/bench_suite.py                                   # the full run
    python benchmarks/bench_suite.py --n-rows 2000 --learners ht nb    # quick check
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import ray

from distval.experiments.suite import make_suite, suite
from distval.experiments.suite.plan import SuitePlan

from common import save, table

STREAMS = [
    "elec2", "SEA(50)", "HYP(10,0.001)", "RBF(10,0.001)",
    "sea", "agrawal", "HYP(10,0.0001)", "RBF(50,0.001)",
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", nargs="+", default=STREAMS)
    ap.add_argument("--learners", nargs="+", default=["ht", "nb", "arf"])
    ap.add_argument("--n-rows", type=int, default=20_000)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--output", default="/tmp/distval-bench-suite")
    ap.add_argument("--name", default="suite", help="results file name")
    args = ap.parse_args(argv)
    cfg = make_suite(
        args.streams, learners=tuple(args.learners), n_rows=args.n_rows, n_folds=args.folds
    )
    root = Path(args.output)
    shutil.rmtree(root, ignore_errors=True)
    # Ray once for both Ray runs (its start-up is not the suite's cost), with two workers
    # already warm (imports, JIT) from a tiny suite
    t0 = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    warm = make_suite(cfg.streams[:2], learners=cfg.run.labels, n_rows=200, n_folds=2)
    suite(warm, output_dir=root / "warm-up", backend="ray", figures=False)
    startup = time.perf_counter() - t0
    runs = []
    tables = {}
    for label, backend, tasks in (("in-process", "inprocess", None), ("ray", "ray", 1),
                                  ("ray", "ray", 2)):
        out = root / f"{backend}-{tasks or 1}"
        t0 = time.perf_counter()
        suite(cfg, output_dir=out, backend=backend, n_tasks=tasks, figures=False)
        wall = time.perf_counter() - t0
        runs.append({"run": label, "cores": tasks or 1, "wall_s": wall})
        tables[out.name] = (out / "suite.md").read_text()
        print(f"{label} on {tasks or 1} core(s): {wall:.1f} s", flush=True)
    ray.shutdown()
    same = len(set(tables.values())) == 1
    one = next(r["wall_s"] for r in runs if r["run"] == "ray" and r["cores"] == 1)
    for r in runs:
        r["speed_up_vs_ray_1"] = one / r["wall_s"]
        r["efficiency"] = r["speed_up_vs_ray_1"] / r["cores"]

    stored = json.loads((root / "ray-1" / "suite.json").read_text())
    plan = SuitePlan(
        [
            {
                "name": s["name"],
                "rows": int(s["rows"]),
                "cpu_per_krow": 1000.0 * float(s["cpu_seconds"]) / max(1, int(s["rows"])),
                "done": False,
                "source": "ray-1 run",
            }
            for s in stored["streams"]
        ]
    )
    projected = []
    serial = plan.wall_seconds(1)
    for cores in (1, 2, 8, 32, 128):
        wall = plan.wall_seconds(cores)
        projected.append(
            {"cores": cores, "wall_s": wall, "speed_up": serial / wall,
             "efficiency": serial / wall / cores}
        )
    longest = max(s["rows"] * s["cpu_per_krow"] / 1000.0 for s in plan.streams)
    text = "\n".join(
        [
            f"# distval suite: {len(cfg.streams)} streams x {len(cfg.run.labels)} learners "
            f"({', '.join(cfg.run.labels)}), {args.n_rows:,d} rows, {args.folds} folds",
            "",
            "## Measured (same run)",
            "",
            table(runs, ["run", "cores", "wall_s", "speed_up_vs_ray_1", "efficiency"]),
            "",
            f"Tables of the three runs identical: {same}. Ray's start-up and warm-up "
            f"(not in the times above): {startup:.1f} s.",
            "",
            "## Projected from the 1-core run's per-stream CPU costs",
            "",
            table(projected, ["cores", "wall_s", "speed_up", "efficiency"]),
            "",
            f"Linear (within 10%) up to about {plan.linear_until()} cores; beyond, the longest "
            f"stream ({longest:.1f} CPU-s) bounds the wall time: one stream is one task. More "
            "streams, or streams split by rows, keep more cores busy; the driver only writes "
            "each finished stream.",
        ]
    )
    save(args.name, text, {"ray_startup_s": startup, "measured": runs, "projected": projected,
                           "linear_until": plan.linear_until(), "same_tables": same,
                           "streams": plan.streams, "args": vars(args)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
