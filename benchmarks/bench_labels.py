"""What delayed labels and probabilistic measures cost: HT + NB (MOA) in-process, with and
without ``--delay 1000`` and ``--measure auc``, measured in the same run.

The job is ``bench_moa.py``'s HT + NB comparison: 10-fold prequential bootstrap of
``moa:trees.HoeffdingTree`` and ``moa:bayes.NaiveBayes`` on SEA rows written once by MOA
(``SEAGenerator -p 0``) to an ARFF file. Each variant runs ``distval.evaluate`` in a fresh
Python process, timed from before distval is imported (imports and JVM start included, as in
``bench_moa.py``). The variants alternate round by round (this machine's speed drifts within
minutes); the table gives each round's seconds and the median ratio to the plain run. Goals
(issue 28): ``--delay 1000`` at most 1.10, ``--measure auc`` at most 1.30.

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
}

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


def seconds(arff: Path, extra: dict) -> list[float]:
    """[seconds, HT's mean cumulative accuracy] of one run in a fresh process."""
    code = TIMING.format(arff=str(arff), specs=SPECS, extra=extra)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    known = MEASURES + PROBA_MEASURES
    variants = {k: v for k, v in VARIANTS.items() if v.get("measure", "accuracy") in known}
    times: dict[str, list[float]] = {k: [] for k in variants}
    accuracy: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-labels-") as tmp:
        arff = Path(tmp) / "sea.arff"
        write_sea(arff, args.rows)
        for _ in range(args.rounds):
            for name, extra in variants.items():
                s, acc = seconds(arff, extra)
                times[name].append(s)
                accuracy[name] = acc
    plain = np.array(times["plain"])
    rows = []
    for name in variants:
        t = np.array(times[name])
        rows.append({
            "variant": name,
            "seconds (each round)": ", ".join(f"{x:.1f}" for x in t),
            "median ratio to plain": float(np.median(t / plain)),
            "goal": {"plain": "", "--delay 1000": "<= 1.10", "--measure auc": "<= 1.30"}[name],
            "HT accuracy (cumulative)": accuracy[name],
        })
    text = "\n".join([
        f"# Delayed labels and AUC: cost on HT + NB (MOA), {args.rows:,} SEA rows, "
        f"10-fold bootstrap, in-process, {args.rounds} round(s)",
        "",
        table(rows),
        "",
        "Each round runs every variant once, alternated; ratios are per round, then the median.",
    ])
    save("labels", text, {"rows": args.rows, "rounds": args.rounds, "seconds": times,
                          "accuracy": accuracy})


if __name__ == "__main__":
    main()
