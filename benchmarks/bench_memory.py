"""Peak memory of a run against its length: does a run's RSS stay bounded on a long stream?

Each (learners, backend, rows) case runs ``distval run`` in a fresh process; its peak resident
set (the process's ``ru_maxrss`` from ``os.wait4``, the driver only: Ray's workers are other
processes) is read when it exits. The table gives the peak at the small and the large size
and their ratio (goal: at most 1.1; issue 27).

    python benchmarks/bench_memory.py                 # 200k and 2M rows (minutes per case)
    python benchmarks/bench_memory.py --small 20000 --large 200000 --cases river

Writes benchmarks/results/durable.md and .json. Timing on a shared machine is unreliable;
the peak RSS is not.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

from common import machine, save, table

CASES = {
    "river": ["--learners", "nb", "majority"],
    "moa": ["--learners", "moa:bayes.NaiveBayes", "moa:trees.HoeffdingTree"],
}


def peak_rss_mb(learners: list[str], backend: str, rows: int) -> float:
    """Peak RSS (MB) of one ``distval run`` process on SEA of ``rows`` rows."""
    with tempfile.TemporaryDirectory() as out:
        args = [sys.executable, "-m", "distval.cli", "run", "--stream", "sea(noise=0.1)",
                "--n-rows", str(rows), *learners, "--backend", backend, "--no-progress",
                "--output", os.path.join(out, "r")]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        if status != 0:
            raise SystemExit(f"{' '.join(args)} failed: {proc.stderr.read().decode()[-2000:]}")
        proc.stderr.close()
        return usage.ru_maxrss / 1024  # kB on Linux


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--small", type=int, default=200_000)
    ap.add_argument("--large", type=int, default=2_000_000)
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--backends", nargs="+", default=["inprocess", "ray"])
    a = ap.parse_args()
    rows = []
    for case in a.cases:
        for backend in a.backends:
            small = peak_rss_mb(CASES[case], backend, a.small)
            large = peak_rss_mb(CASES[case], backend, a.large)
            rows.append({"learners": case, "backend": backend, "small rows": a.small,
                         "small MB": small, "large rows": a.large, "large MB": large,
                         "ratio": large / small,
                         "bytes/row": (large - small) * 2**20 / (a.large - a.small)})
            print(table(rows[-1:]), flush=True)
    text = ("# Peak RSS of the driver against stream length\n\n" + table(rows)
            + "\n\nGoal: ratio <= 1.1 (issue 27).\n")
    print(text)
    save("durable", text, {"rows": rows, "machine": machine(), "args": vars(a)})


if __name__ == "__main__":
    main()
