"""Peak memory of a run against its length: does a run's RSS stay bounded on a long stream?

Each (learners, backend, rows) case runs ``distval run --output DIR`` on SEA (noise 0.1,
tests every 1,000 rows, 10 folds) in a fresh process. Two peaks are read:

* ``driver MB``: the ``distval run`` process alone (``ru_maxrss`` from ``os.wait4``);
* ``tree MB``: the largest sum, over samples every 0.5 s, of the resident memory of that
  process and all its descendants (``common.tree_rss``): with ``--backend ray`` the local
  Ray it starts (GCS, raylet, the actors' worker processes) is counted too.

The table gives both peaks at the small and the large size and their ratio (goal: at most
1.1). A last table puts distval beside MOA's own CLI (``EvaluatePrequentialCV``, 10-fold
bootstrap, one process per learner as a MOA user runs it; ``bench_cpu.moa_cli``) for
HT + NB on the same rows, SEA written by MOA to an ARFF file (goal: within 300 MB).

    python benchmarks/bench_memory.py                 # 200k and 2M rows (minutes per case)
    python benchmarks/bench_memory.py --small 20000 --large 200000 --cases river

Writes benchmarks/results/memory.md and .json (``--name``). Peak RSS does not depend on
the machine's load; the run times here do.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench_cpu import moa_cli, python_env
from bench_moa import write_sea

from common import machine, save, table, tree_rss

CASES = {
    "river": ["--learners", "nb", "majority"],
    "moa": ["--learners", "moa:bayes.NaiveBayes", "moa:trees.HoeffdingTree"],
}
MB = 2**20


def peak_rss(args: list[str]) -> dict[str, float]:
    """Run ``distval run ARGS --output DIR``: its peak RSS (MB) alone and with its
    descendants, and its wall seconds."""
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, "-m", "distval.cli", "run", *args, "--no-progress",
               "--output", os.path.join(out, "r")]
        env = python_env({"RAY_TMPDIR": os.environ.get("RAY_TMPDIR", "/tmp/ray")})
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        tree = [0]
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                tree[0] = max(tree[0], tree_rss(proc.pid))
                done.wait(0.5)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        done.set()
        sampler.join()
        wall = time.perf_counter() - t0
        err = proc.stderr.read().decode() if proc.stderr else ""
        if status != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {err[-2000:]}")
    driver = usage.ru_maxrss * 1024 / MB  # kB on Linux
    return {"driver": driver, "tree": max(tree[0] / MB, driver), "wall": wall}


def sea_args(case: str, backend: str, rows: int) -> list[str]:
    return ["--stream", "sea(noise=0.1)", "--n-rows", str(rows), *CASES[case],
            "--backend", backend]


def beside_moa(rows: int) -> list[dict[str, Any]]:
    """Peak RSS of MOA's CLI (HT, then NB: the larger of the two processes) and of distval
    in-process (HT + NB in one run) on the same SEA rows written by MOA."""
    with tempfile.TemporaryDirectory() as d:
        arff = Path(d) / "sea.arff"
        write_sea(arff, rows)
        moa = {name: moa_cli(f"{name}", arff, rows)["rss"] / MB
               for name in ("trees.HoeffdingTree", "bayes.NaiveBayes")}
        ours = peak_rss(["--stream", str(arff), *CASES["moa"], "--backend", "inprocess"])
    return [
        {"job": f"HT + NB, {rows} rows", "MOA CLI MB (larger process)": max(moa.values()),
         "MOA HT MB": moa["trees.HoeffdingTree"], "MOA NB MB": moa["bayes.NaiveBayes"],
         "distval in-process MB": ours["driver"],
         "distval - MOA MB": ours["driver"] - max(moa.values())},
    ]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=200_000)
    ap.add_argument("--large", type=int, default=2_000_000)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--backends", nargs="+", default=["inprocess", "ray"])
    ap.add_argument("--moa-rows", type=int, default=None,
                    help="rows of the comparison with MOA's CLI (default --large; 0: none)")
    ap.add_argument("--name", default="memory", help="results/NAME.md and .json")
    a = ap.parse_args()
    load = os.getloadavg()
    rows = []
    for case in a.cases:
        for backend in a.backends:
            small = peak_rss(sea_args(case, backend, a.small))
            large = peak_rss(sea_args(case, backend, a.large))
            rows.append({
                "learners": case, "backend": backend,
                "driver MB small": small["driver"], "driver MB large": large["driver"],
                "driver ratio": large["driver"] / small["driver"],
                "tree MB small": small["tree"], "tree MB large": large["tree"],
                "tree ratio": large["tree"] / small["tree"],
                "bytes/row (tree)": (large["tree"] - small["tree"]) * MB / (a.large - a.small),
                "wall s large": large["wall"],
            })
            print(table(rows[-1:]), flush=True)
    moa_rows = a.large if a.moa_rows is None else a.moa_rows
    moa = beside_moa(moa_rows) if moa_rows else []
    end = os.getloadavg()
    text = (
        f"# Peak RSS against stream length: {a.small} and {a.large} rows\n\n"
        "SEA (noise 0.1), 10-fold bootstrap prequential, tests every 1,000 rows, `--output`. "
        "`driver`: the `distval run` process; `tree`: it and its descendants (with Ray: the "
        "local Ray's GCS, raylet and actor workers), largest sum over samples every 0.5 s.\n\n"
        + table(rows)
        + "\n\nGoal: ratio <= 1.1.\n"
        + ("\n## Beside MOA's CLI\n\n" + table(moa) + "\n\nGoal: within 300 MB.\n" if moa else "")
        + f"\nLoad average (1, 5, 15 min): {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the "
        f"start, {end[0]:.2f} {end[1]:.2f} {end[2]:.2f} at the end (a shared 2-core machine; "
        "peak RSS does not depend on the load, the wall times do).\n"
    )
    save(a.name, text, {"rows": rows, "moa": moa, "machine": machine(), "args": vars(a),
                          "load": [load, end]})


if __name__ == "__main__":
    main()
