"""ADWIN's own CPU-seconds, before and now: the learners' windows and the paired windows alone.

What the aggregator's ADWIN kernels cost per run of the goal's HT + NB job (issue 31), without
the rest of the evaluator: 2 learners x 10 folds of ADWIN windows over each slot's 0/1 loss
(``distval.metrics.ADWINWindow``) and the 10 paired windows of the pair
(``distval.metrics.paired.PairedTracker("adwin")``), fed predictions drawn here (numpy, a fixed
seed) in batches of 1,000 rows, on two streams:

* ``drifting``: each learner right 93 % and 90 % of the time, a little less every other
  100,000 rows, so that ADWIN finds changes and its windows stay short;
* ``stationary``: right 99 % and 98.5 % of the time throughout, so every window grows to the
  whole stream (as on the goal's SEA rows, which HT and NB learn almost perfectly).

This checkout and another (``--before-tree``) are alternated ``--rounds`` times, each run in
a fresh process whose CPU-seconds are counted around the batches only (``time.process_time``,
numba's cached kernels loaded first); each run's final widths, detections and confusion
counts are hashed, so the two checkouts are shown to compute the same windows.

    python benchmarks/bench_adwin.py --before-tree DIR [--rows 1000000] [--rounds 3]
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
STREAMS = ("drifting", "stationary")


def batches(stream: str, rows: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(y, predictions of 20 slots) per batch of 1,000 rows."""
    rng = np.random.default_rng(1)
    out = []
    for start in range(0, rows, 1000):
        y = (rng.random(1000) < 0.6).astype(np.int64)
        if stream == "drifting":
            skill = np.repeat([0.93, 0.90], 10) * (1.0 if (start // 100_000) % 2 == 0 else 0.97)
        else:
            skill = np.repeat([0.99, 0.985], 10)
        right = rng.random((20, 1000)) < skill[:, None]
        out.append((y, np.where(right, y, 1 - y)))
    return out


def feeder(kind: str) -> tuple[Any, Any]:
    """A fresh tracker of ``kind`` and the call that feeds it one batch."""
    from distval.metrics import ADWINWindow
    from distval.metrics.paired import PairedTracker

    ok = np.ones(1000, dtype=np.int64)
    if kind == "learners' windows":
        windows = ADWINWindow(n_slots=20)
        return windows, lambda y, pred: windows.update(y, pred, ok)
    paired = PairedTracker("adwin", n_pairs=1, n_folds=10)
    return paired.tracker, lambda y, pred: paired.update(y, pred[None, :10], pred[None, 10:], ok)


def one(stream: str, rows: int) -> dict[str, Any]:
    """The loop itself (in the measured process): CPU-seconds of each tracker's batches."""
    data = batches(stream, rows)
    digest = hashlib.sha256()
    got: dict[str, Any] = {}
    for kind in ("learners' windows", "paired windows"):
        _, warm = feeder(kind)
        warm(*data[0])  # numba's cached kernels loaded before the clock
        tracker, feed = feeder(kind)
        clock = time.process_time()
        for y, pred in data:
            feed(y, pred)
        got[kind] = time.process_time() - clock
        for part in (tracker.widths, tracker.n_detections, tracker.C, tracker.P):
            digest.update(repr(np.asarray(part).tolist()).encode())
    return got | {"digest": digest.hexdigest()[:16]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before-tree", type=Path)
    ap.add_argument("--name", default="adwin")
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one[0], int(a.one[1]))))
        return
    if a.before_tree is None:
        ap.error("--before-tree is required")
    start_load = os.getloadavg()
    trees = {f"before ({revision(a.before_tree)})": a.before_tree, "now": None}
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {
        (stream, name): [] for stream in STREAMS for name in trees
    }
    for _ in range(a.rounds):
        for stream in STREAMS:
            for name, tree in trees.items():
                cmd = [sys.executable, str(HERE), "--one", stream, str(a.rows)]
                r = measured(cmd, python_env(tree=tree))
                runs[stream, name].append(json.loads(r["stdout"].strip().splitlines()[-1]))
                print(stream, name, runs[stream, name][-1], file=sys.stderr, flush=True)
    parts = ("learners' windows", "paired windows")
    first = next(iter(trees))
    rows = []
    for (stream, name), rs in runs.items():
        med = {p: float(np.median([r[p] for r in rs])) for p in parts}
        base = {p: float(np.median([r[p] for r in runs[stream, first]])) for p in parts}
        rows.append(
            {
                "stream": stream,
                "checkout": name,
                **{f"{p} cpu s": med[p] for p in parts},
                **{f"{p} / before": med[p] / base[p] for p in parts},
                "each round (learners' / paired)": " ; ".join(
                    f"{r[parts[0]]:.2f} / {r[parts[1]]:.2f}" for r in rs
                ),
                "windows' hash": rs[0]["digest"],
            }
        )
    text = "\n".join(
        [
            f"### ADWIN alone: 20 learners' windows and 10 paired windows, {a.rows:,} rows in"
            f" batches of 1,000, {a.rounds} alternated rounds, medians; {os.cpu_count()} cores,"
            f" {load_span(start_load)}",
            "",
            table(rows),
            "",
            "- CPU-seconds of the batches alone (process_time), each run in a fresh process;"
            " the hash is of every window's final width, detections and confusion counts:"
            " equal hashes, the same windows.",
        ]
    )
    args = {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()}
    save(a.name, text, {"rows": rows, "runs": {f"{s} | {n}": r for (s, n), r in runs.items()},
                        "args": args})


if __name__ == "__main__":
    main()
