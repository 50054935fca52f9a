"""The evaluator's own CPU-seconds at the goal's size, without learners: before and now.

What a ``distval run`` of HT + NB spends around its learners, alone: the aggregator (ADWIN
and cumulative trackers of 2 learners x 10 folds, the paired windows, McNemar counts, the
confidence sequence) fed predictions drawn here (numpy, a fixed seed; each learner right
93 % and 90 % of the time, a little less every other 100,000 rows so that ADWIN finds
changes), batches of 1,000 rows and the snapshot with every test at each 1,000 rows, as in
the in-process engine. Each process is fresh: imports, numba's cached kernels and, on the
first look, whatever the tests import (scipy) are counted, as in a run.

This checkout and another (``--before-tree``, e.g. a git worktree of an earlier commit) are
alternated ``--rounds`` times, each in its own process: CPU-seconds of the whole process
(``os.wait4``), of the batches (``time.process_time`` around ``Aggregator.update``, the
snapshots included) and of the snapshots alone (the first, which imports scipy.stats, and
the later ones apart); every snapshot's numbers are hashed, so the
two checkouts are shown to compute the same ones.

    python benchmarks/bench_looks.py --before-tree DIR [--rows 1000000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from bench_cpu import measured, python_env, revision

from common import load_span, save, table

HERE = Path(__file__).resolve()


def one(rows: int) -> dict[str, Any]:
    """The loop itself (in the measured process)."""
    from distval import RunConfig
    from distval.aggregator.core import Aggregator

    config = RunConfig(learners=("moa:trees.HoeffdingTree", "moa:bayes.NaiveBayes"), n_folds=10)
    agg = Aggregator.from_config(config, n_classes=2, planned_rows=rows)
    take = agg.snapshot
    clock = {"snapshots": 0.0, "first look": 0.0}

    def snapshot() -> Any:
        t = time.process_time()
        got = take()
        spent = time.process_time() - t
        clock["snapshots"] += spent
        clock["first look"] = clock["first look"] or spent
        return got

    agg.snapshot = snapshot  # type: ignore[method-assign]
    digest = hashlib.sha256()

    def fold_in(snap: Any) -> None:
        for part in (snap.folds, snap.tests, snap.q, snap.paired, snap.verdicts):
            for name in sorted(part):
                digest.update(name.encode())
                digest.update(repr(part[name].tolist()).encode())

    rng = np.random.default_rng(1)
    ids, batch, skill = np.arange(20), 1000, np.array([0.93, 0.90])
    loop = 0.0
    for start in range(0, rows, batch):
        y = (rng.random(batch) < 0.6).astype(np.int64)
        drift = 1.0 if (start // 100_000) % 2 == 0 else 0.97
        right = rng.random((20, batch)) < np.repeat(skill * drift, 10)[:, None]
        pred = np.where(right, y, 1 - y)
        t = time.process_time()
        snap = agg.update(start, y, [(ids, pred)])
        loop += time.process_time() - t
        if snap is not None:
            fold_in(snap)
    t = time.process_time()
    snap = agg.finish()
    loop += time.process_time() - t
    if snap is not None:
        fold_in(snap)
    return {"loop": loop, "snapshots": clock["snapshots"], "first look": clock["first look"],
            "later looks": clock["snapshots"] - clock["first look"],
            "digest": digest.hexdigest()[:16], "scipy.stats": "scipy.stats" in sys.modules}


def fresh(rows: int, tree: Path | None) -> dict[str, Any]:
    r = measured([sys.executable, str(HERE), "--one", str(rows)], python_env(tree=tree))
    return dict(json.loads(r["stdout"].strip().splitlines()[-1]), process=r["cpu"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before-tree", type=Path)
    ap.add_argument("--name", default="looks")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one)))
        return
    if a.before_tree is None:
        ap.error("--before-tree is required")
    start_load = os.getloadavg()
    trees = {f"before ({revision(a.before_tree)})": a.before_tree, "now": None}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for _ in range(a.rounds):
        for name, tree in trees.items():
            runs[name].append(fresh(a.rows, tree))
            print(name, runs[name][-1], file=sys.stderr, flush=True)
    keys = ("process", "loop", "snapshots", "first look", "later looks")
    med = {name: {k: float(np.median([r[k] for r in rs])) for k in keys}
           for name, rs in runs.items()}
    first = next(iter(trees))
    rows = [
        {
            "checkout": name,
            "rows": f"{a.rows:,}",
            **{f"{k} cpu s": med[name][k] for k in keys},
            "process / before": med[name]["process"] / med[first]["process"],
            "loop / before": med[name]["loop"] / med[first]["loop"],
            "later looks / before": med[name]["later looks"] / med[first]["later looks"],
            "process cpu s, each round": " / ".join(f"{r['process']:.2f}" for r in rs),
            "scipy.stats imported": rs[0]["scipy.stats"],
            "numbers' hash": rs[0]["digest"],
        }
        for name, rs in runs.items()
    ]
    text = "\n".join(
        [
            "### The evaluator alone (aggregator + tests every 1,000 rows, no learners), 2"
            f" learners x 10 folds, {a.rows:,} rows: {a.rounds} alternated rounds, medians;"
            f" {os.cpu_count()} cores, {load_span(start_load)}",
            "",
            table(rows),
            "",
            "- process: the whole fresh process (os.wait4, user + sys); loop: process_time"
            " around `Aggregator.update` (snapshots included); snapshots: the looks alone"
            " (measures, tests, verdicts), split into the first look (which imports"
            " scipy.stats) and the later ones. The hash is of every snapshot's tables: equal"
            " hashes, equal numbers.",
        ]
    )
    save(a.name, text, {"rows": rows, "runs": runs,
                        "args": {k: str(v) if isinstance(v, Path) else v
                                 for k, v in vars(a).items()}})


if __name__ == "__main__":
    main()
