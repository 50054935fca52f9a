"""MOA learners on Ray against in-process, at growing stream lengths, in one script run.

Each case runs ``distval run --output DIR`` in a fresh process on SEA (noise 0.1, tests
every 1,000 rows, 10-fold bootstrap) with MOA's naive Bayes and Hoeffding tree, once with
``--backend inprocess`` and once with ``--backend ray`` (a local Ray, one actor per core);
the two backends of a size run back to back, in alternating order (the machine's speed
drifts), and the sizes go up. Per case: the wall time of the whole process (Python and Ray
start-up included), the run's own ``elapsed_seconds`` (from its summary), the rows the
driver and the actors evaluated, and the load average before it.

The ratio column is Ray's wall time over in-process's (goal: at most 1.3 on 2 cores).

    python benchmarks/bench_moa_ray.py                          # 200k, 500k, 1M rows
    python benchmarks/bench_moa_ray.py --rows 200000 2000000    # other sizes

Writes benchmarks/results/moa_ray.md and .json (``--name``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_cpu import python_env

from common import machine, save, table

LEARNERS = ["moa:bayes.NaiveBayes", "moa:trees.HoeffdingTree"]


def run(backend: str, rows: int) -> dict[str, Any]:
    """One ``distval run`` in a fresh process: its wall seconds and summary."""
    with tempfile.TemporaryDirectory() as out:
        directory = Path(out) / "r"
        cmd = [sys.executable, "-m", "distval.cli", "run", "--stream", "sea(noise=0.1)",
               "--n-rows", str(rows), "--learners", *LEARNERS, "--backend", backend,
               "--no-progress", "--output", str(directory)]
        env = python_env({"RAY_TMPDIR": os.environ.get("RAY_TMPDIR", "/tmp/ray")})
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr[-2000:]}")
        summary = json.loads((directory / "summary.json").read_text())
    return {"wall": wall, "elapsed": float(summary["elapsed_seconds"]),
            "by": summary["evaluated_by"], "load": load}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[200_000, 500_000, 1_000_000])
    parser.add_argument("--name", default="moa_ray")
    args = parser.parse_args()
    rows_out: list[dict[str, Any]] = []
    for i, rows in enumerate(args.rows):
        order = ("inprocess", "ray") if i % 2 == 0 else ("ray", "inprocess")
        got = {b: run(b, rows) for b in order}
        inproc, ray = got["inprocess"], got["ray"]
        rows_out.append({
            "rows": f"{rows:,d}",
            "in-process wall s": round(inproc["wall"], 1),
            "Ray wall s": round(ray["wall"], 1),
            "Ray / in-process (wall)": round(ray["wall"] / inproc["wall"], 2),
            "in-process run s": round(inproc["elapsed"], 1),
            "Ray run s": round(ray["elapsed"], 1),
            "Ray / in-process (run)": round(ray["elapsed"] / inproc["elapsed"], 2),
            "rows by Ray's actors": f"{ray['by'].get('actors', 0):,d}",
            "load before (in-process, Ray)": f"{inproc['load']:.1f}, {ray['load']:.1f}",
            "first": order[0],
        })
        print(rows_out[-1], flush=True)
    info = machine()
    text = "\n".join([
        "# MOA learners on Ray against in-process",
        "",
        f"SEA (noise 0.1), MOA naive Bayes + Hoeffding tree, 10-fold bootstrap prequential, "
        f"tests every 1,000 rows, `distval run --output`; {info['cpus']} cores, "
        f"{info['date']}. Wall: the whole process (imports, Ray's start and shutdown); "
        "run: the run's `elapsed_seconds`. The two backends of a size ran back to back "
        "(`first` ran first).",
        "",
        table(rows_out),
        "",
        "Goal: Ray within 1.3 x in-process on 2 cores.",
    ])
    save(args.name, text, {"rows": rows_out, "args": vars(args)})


if __name__ == "__main__":
    main()
