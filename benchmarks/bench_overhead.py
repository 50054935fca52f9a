"""Evaluator overhead: the in-process engine against a plain river loop over the same replicas.

Workload (issue "Core evaluator"): Hoeffding tree, river SEA, 50,000 rows, 10-fold
prequential bootstrap. The plain loop is what a river user would write: k clones, for each
row every replica predicts, a river ``Accuracy`` is updated and the replica learns with its
Poisson(1) weight; the data come straight from river's generator. distval does the same
work plus fold routing, ADWIN-windowed measures, cumulative measures and files on disk.
Ratio = distval throughput / plain loop throughput (goal >= 0.95).

    python benchmarks/bench_overhead.py [--rows 50000] [--folds 10] [--repeats 3]
"""

from __future__ import annotations

import argparse
import tempfile

import numpy as np
from river import metrics, tree
from river.datasets import synth

import distval

from common import save, table, timed


def plain_loop(n_rows: int, k: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    models = [tree.HoeffdingTreeClassifier() for _ in range(k)]
    accs = [metrics.Accuracy() for _ in range(k)]
    for x, y in synth.SEA(seed=seed).take(n_rows):
        w = rng.poisson(1.0, k)
        for m, acc, wi in zip(models, accs, w.tolist()):
            acc.update(y, m.predict_one(x))
            if wi:
                m.learn_one(x, y, w=wi)
    return float(np.mean([a.get() for a in accs]))


def with_distval(n_rows: int, k: int, seed: int) -> float:
    with tempfile.TemporaryDirectory() as out:
        res = distval.evaluate(
            stream="sea",
            n_rows=n_rows,
            learners=("ht",),
            n_folds=k,
            scheme="bootstrap",
            seed=seed,
            output_dir=f"{out}/r",
        )
    return res.summary()["learners"]["ht"]["cumulative"]["accuracy"]["mean"]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=50_000)
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    rows = []
    best = {}
    for name, fn in (("river loop", plain_loop), ("distval in-process", with_distval)):
        times = []
        for r in range(a.repeats):
            t, acc = timed(fn, a.rows, a.folds, r + 1)
            times.append(t)
        best[name] = min(times)
        rows.append(
            {
                "what": name,
                "best s": min(times),
                "median s": float(np.median(times)),
                "rows/s": a.rows / min(times),
                "accuracy": acc,
            }
        )
    ratio = best["river loop"] / best["distval in-process"]
    text = (
        f"### Evaluator overhead: HT, SEA {a.rows:,} rows, {a.folds}-fold prequential bootstrap"
        f"\n\n{table(rows)}\n\nthroughput ratio distval / river loop = **{ratio:.3f}** "
        f"(goal >= 0.95; best of {a.repeats})"
    )
    save("overhead", text, {"rows": rows, "ratio": ratio, "args": vars(a)})


if __name__ == "__main__":
    main()
