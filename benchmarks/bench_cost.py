"""What measuring cost costs: the CPU-seconds of the default job and of a MOA job with the
cost columns on (the default) and off (``RunConfig(cost=False)``), as a ratio within one
run of this script. Runs alternate on and off, after a warm-up, in this process; the CPU
seconds are the process's (its threads and, for MOA, the JVM's).

    PYTHONPATH=. python benchmarks/bench_cost.py [--rows N] [--repeats R]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import distval

from common import load_span, save, table

JOBS = {
    # the README's default job (ht against Gaussian naive Bayes, 10 folds, Electricity)
    "default job": dict(learners=("ht", "nb")),
    "MOA job": dict(stream="sea", learners=("moa:trees.HoeffdingTree", "moa:bayes.NaiveBayes")),
}


def cpu_of(job: dict, rows: int, cost: bool) -> float:
    t = time.process_time()
    distval.evaluate(**job, n_rows=rows, cost=cost, backend="inprocess")
    return time.process_time() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    load0 = os.getloadavg()
    rows, data = [], {}
    for name, job in JOBS.items():
        cpu_of(job, 2000, True)  # warm-up: imports, numba kernels, the JVM
        on, off = [], []
        for _ in range(args.repeats):
            off.append(cpu_of(job, args.rows, False))
            on.append(cpu_of(job, args.rows, True))
        ratio = statistics.median(on) / statistics.median(off)
        data[name] = {"rows": args.rows, "cpu_on_s": on, "cpu_off_s": off, "ratio": ratio}
        rows.append({"job": name, "rows": args.rows, "CPU s, cost off (median)":
                     statistics.median(off), "CPU s, cost on (median)": statistics.median(on),
                     "on / off": ratio})
    text = "# Cost columns: CPU-seconds with cost on over off\n\n" + table(rows) + (
        f"\n\n{load_span(load0)}; {args.repeats} alternating runs of each, "
        "after a warm-up, in one process")
    save("cost", text, data)


if __name__ == "__main__":
    main()
