"""The in-process MOA defaults against their alternatives: collector and Java threads.

distval starts the JVM with the throughput collector (``-XX:+UseParallelGC``, unless
``$DISTVAL_JVM_ARGS`` chooses one) and runs a host's MOA replicas on every core
(``$DISTVAL_MOA_THREADS``, default all). This script runs the goal's two jobs of
``bench_moa.py`` (10-fold prequential bootstrap on MOA's SEA rows: HT + NB on 1M rows, ARF(10)
on 100k) through ``distval.evaluate`` in-process, each variant in a fresh process, the variants
alternated ``--rounds`` times, and reports each variant's median time over the defaults'.

Run: ``python benchmarks/bench_jvm.py [--rounds 3]`` from the repository root.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
from bench_moa import fresh, write_sea

from common import save, table

#: Variants: name, $DISTVAL_JVM_ARGS (None: distval's default), $DISTVAL_MOA_THREADS.
VARIANTS = [
    ("defaults (ParallelGC, every core)", None, None),
    ("G1 collector", "-Xmx4g -XX:+UseG1GC", None),
    ("512 MB young generation (before issue 31)", "-Xmx4g -Xmn512m", None),
    ("one Java thread", None, "1"),
]
JOBS = [("HT + NB", 1_000_000), ("ARF(10)", 100_000)]


def seconds(job: str, arff: Path, jvm: str | None, threads: str | None) -> float:
    saved = {k: os.environ.get(k) for k in ("DISTVAL_JVM_ARGS", "DISTVAL_MOA_THREADS")}
    for key, value in (("DISTVAL_JVM_ARGS", jvm), ("DISTVAL_MOA_THREADS", threads)):
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    try:
        return float(fresh("inprocess", job, arff)[0])
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-jvm-") as tmp:
        for job, n in JOBS:
            arff = Path(tmp) / f"sea{n}.arff"
            write_sea(arff, n)
            times: dict[str, list[float]] = {name: [] for name, _, _ in VARIANTS}
            for _ in range(args.rounds):
                for name, jvm, threads in VARIANTS:
                    times[name].append(seconds(job, arff, jvm, threads))
                    print(job, name, times[name][-1], file=sys.stderr, flush=True)
            base = float(np.median(times[VARIANTS[0][0]]))
            for name, _, _ in VARIANTS:
                rows.append(
                    {
                        "job": job,
                        "rows": f"{n:,}",
                        "variant": name,
                        "seconds (each round)": " / ".join(f"{t:.1f}" for t in times[name]),
                        "median s": float(np.median(times[name])),
                        "median / defaults": float(np.median(times[name])) / base,
                    }
                )
    text = "\n".join(
        [
            "### distval in-process with MOA learners: the JVM defaults against their "
            f"alternatives, {args.rounds} alternated rounds, {os.cpu_count()} cores",
            "",
            table(rows),
            "",
            "- each variant in a fresh process (`distval.evaluate`, imports and JVM start"
            " included); within a round the variants run back to back in the order listed.",
            "- G1 collector: `DISTVAL_JVM_ARGS=\"-Xmx4g -XX:+UseG1GC\"` (distval still adds"
            " -Xmn128m and -XX:+DisableExplicitGC); 512 MB young generation: the defaults"
            " before issue 31; one Java thread:"
            " `DISTVAL_MOA_THREADS=1`.",
        ]
    )
    save("jvm", text, {"rows": rows, "rounds": args.rounds})


if __name__ == "__main__":
    main()
