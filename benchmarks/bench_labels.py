"""What delayed labels and probabilistic measures cost: HT + NB (MOA) in-process, with and
without ``--delay 1000``, ``--measure auc`` and ``--measure log_loss``, measured in the same
run.

The job is ``bench_moa.py``'s HT + NB comparison: 10-fold prequential bootstrap of
``moa:trees.HoeffdingTree`` and ``moa:bayes.NaiveBayes`` on SEA rows written once by MOA
(``SEAGenerator -p 0``) to an ARFF file. Each variant runs ``distval.evaluate`` in a fresh
Python process, timed from before distval is imported (imports and JVM start included, as in
``bench_moa.py``). The variants alternate round by round (this machine's speed drifts within
minutes); the table gives each round's wall seconds, the median ratio to the plain run of
wall seconds and of CPU seconds (``os.wait4``: user + system of the whole process, all its
threads; less sensitive to other load on the machine than wall time) and the peak resident
memory. Goals: ``--delay 1000`` at most 1.10, ``--measure auc`` at most 1.30.

Run: ``python benchmarks/bench_labels.py [--rows N] [--rounds R]`` from the repository root
(default 1,000,000 rows, 3 rounds); writes ``results/labels.md`` and ``.json``.
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

import numpy as np
from bench_moa import write_sea

from distval.metrics import MEASURES, PROBA_MEASURES

from common import save, table

SPECS = ("moa:trees.HoeffdingTree", "moa:bayes.NaiveBayes")

#: variant name -> extra distval.evaluate options
VARIANTS = {
    "plain": {},
    "--delay 1000": {"delay": 1000},
    "--measure auc": {"measure": "auc"},
    "--measure log_loss": {"measure": "log_loss"},
}
GOALS = {"--delay 1000": "<= 1.10", "--measure auc": "<= 1.30"}

TIMING = """
import time
t0 = time.perf_counter()
import json
import distval
res = distval.evaluate(stream={arff!r}, learners={specs!r}, n_folds=10, backend="inprocess",
                       **{extra!r})
seconds = time.perf_counter() - t0
acc = res.summary()["learners"][{specs!r}[0]]["cumulative"]["accuracy"]["mean"]
print(json.dumps([seconds, acc]))
"""


def seconds(arff: Path, extra: dict) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, HT's mean cumulative accuracy, peak RSS bytes) of one run
    in a fresh process."""
    code = TIMING.format(arff=str(arff), specs=SPECS, extra=extra)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=out, stderr=err, env=env,
                                text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        err.seek(0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(err.read()[-2000:])
        wall, acc = json.loads(out.read().strip().splitlines()[-1])
    return wall, usage.ru_utime + usage.ru_stime, acc, usage.ru_maxrss * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    known = MEASURES + PROBA_MEASURES
    variants = {k: v for k, v in VARIANTS.items() if v.get("measure", "accuracy") in known}
    times: dict[str, list[float]] = {k: [] for k in variants}
    cpu: dict[str, list[float]] = {k: [] for k in variants}
    rss: dict[str, list[int]] = {k: [] for k in variants}
    accuracy: dict[str, float] = {}
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-labels-") as tmp:
        arff = Path(tmp) / "sea.arff"
        write_sea(arff, args.rows)
        for _ in range(args.rounds):
            for name, extra in variants.items():
                wall, c, acc, peak = seconds(arff, extra)
                times[name].append(wall)
                cpu[name].append(c)
                rss[name].append(peak)
                accuracy[name] = acc
    load_end = os.getloadavg()
    plain, plain_cpu = np.array(times["plain"]), np.array(cpu["plain"])
    rows = []
    for name in variants:
        t, c = np.array(times[name]), np.array(cpu[name])
        rows.append({
            "variant": name,
            "wall s (each round)": ", ".join(f"{x:.1f}" for x in t),
            "CPU s (each round)": ", ".join(f"{x:.1f}" for x in c),
            "wall ratio (median)": float(np.median(t / plain)),
            "CPU ratio (median)": float(np.median(c / plain_cpu)),
            "goal": GOALS.get(name, ""),
            "peak RSS MB (max)": max(rss[name]) / 2**20,
            "HT accuracy (cumulative)": accuracy[name],
        })
    text = "\n".join([
        f"# Delayed labels and probabilistic measures: cost on HT + NB (MOA), {args.rows:,} SEA "
        f"rows, 10-fold bootstrap, in-process, {args.rounds} round(s)",
        "",
        table(rows),
        "",
        f"- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()}-core VM "
        "shared with other developers' jobs: load average (1, 5, 15 min) "
        f"{'/'.join(f'{x:.2f}' for x in load_start)} at the start, "
        f"{'/'.join(f'{x:.2f}' for x in load_end)} at the end.",
        "- each round runs every variant once, alternated, each in a fresh process (imports "
        "and JVM start included); ratios are per round, then the median. CPU s: the whole "
        "process's user + system seconds (os.wait4), all threads.",
    ])
    save("labels", text, {"rows": args.rows, "rounds": args.rounds, "seconds": times,
                          "cpu_seconds": cpu, "peak_rss_bytes": rss, "accuracy": accuracy,
                          "load_start": list(load_start), "load_end": list(load_end)})


if __name__ == "__main__":
    main()
