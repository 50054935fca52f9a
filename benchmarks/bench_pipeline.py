"""Where a run's time goes, stage by stage (issue 14): the README's kind of job.

2 learners x 10 folds, prequential bootstrap, ADWIN windows with every measure, Sign /
Wilcoxon / McNemar / Q every 1,000 rows, output written to disk; SEA rows written once by
MOA to an ARFF file. Learner sets: trivial river learners (``majority`` + ``persistent``:
what the evaluator itself costs) and ``moa:`` HT + NB. The in-process loop is the one of
:func:`distval.engine.loop.iter_inprocess`, with a clock around each stage:

* ``read``: the stream reader (parse, encode classes) up to a chunk of rows;
* ``route``: cutting chunks at test points and drawing the fold weights;
* ``hosts``: the learner host (river replicas, or the MOA replicas in the JVM);
* ``aggregator``: per-fold trackers (ADWIN, cumulative) and McNemar/Q counts;
* ``tests``: snapshots (measures, Sign, Wilcoxon, McNemar, Q) every 1,000 rows;
* ``writing``: the result in memory and its files (``Run.feed``).

Then the same job through :func:`distval.evaluate` with ``backend="inprocess"``, ``"ray"``
and ``"auto"`` (wall time, Ray start included), each in a fresh process.

    python benchmarks/bench_pipeline.py [--rows 1000000] [--sets trivial,moa]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_moa import write_sea

import distval
from distval import RunConfig
from distval.engine.loop import LocalEvaluation, Step, open_config_stream
from distval.engine.run import Run
from distval.routing.validation import FoldAssigner

from common import in_fresh_process, save, table

SETS = {
    "trivial": ("majority", "persistent"),
    "moa": ("moa:trees.HoeffdingTree", "moa:bayes.NaiveBayes"),
}
STAGES = ("read", "route", "hosts", "aggregator", "tests", "writing")


def staged(config: RunConfig, out: Path) -> dict:
    """The in-process engine's loop with a clock around every stage."""
    clock = dict.fromkeys(STAGES, 0.0)
    t_start = time.perf_counter()
    stream = open_config_stream(config)
    local = LocalEvaluation(config, stream)
    agg = local.aggregator
    take_snapshot = agg.snapshot

    def timed_snapshot():
        t = time.perf_counter()
        snap = take_snapshot()
        clock["tests"] += time.perf_counter() - t
        return snap

    agg.snapshot = timed_snapshot  # type: ignore[method-assign]
    run = Run(config, stream, output_dir=out, overwrite=True)
    assigner = FoldAssigner(config.validation, seed=config.seed)
    every = config.test_every
    chunks = stream.chunks(config.batch_size)
    setup = time.perf_counter() - t_start
    while True:
        t0 = time.perf_counter()
        chunk = next(chunks, None)
        t1 = time.perf_counter()
        clock["read"] += t1 - t0
        if chunk is None:
            break
        n, first = len(chunk.y), chunk.start
        cuts = np.arange((first // every + 1) * every, first + n, every) - first
        for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, n]):
            t0 = time.perf_counter()
            a = assigner.assign(int(hi - lo))
            from distval.learners.batch import Batch

            batch = Batch(
                first + int(lo),
                chunk.X[lo:hi],
                chunk.y[lo:hi],
                a.weights,
                a.tested(config.prequential),
            )
            t1 = time.perf_counter()
            preds = local.host.process(batch)
            t2 = time.perf_counter()
            before = clock["tests"]
            snap = agg.update(batch.start, batch.y, [(local._ids, preds)])
            t3 = time.perf_counter()
            run.feed(Step(len(batch), snap))
            t4 = time.perf_counter()
            clock["route"] += t1 - t0
            clock["hosts"] += t2 - t1
            clock["aggregator"] += (t3 - t2) - (clock["tests"] - before)
            clock["writing"] += t4 - t3
    t0 = time.perf_counter()
    run.feed(Step(0, agg.finish()))
    run.close()
    clock["writing"] += time.perf_counter() - t0
    total = time.perf_counter() - t_start
    return {"setup": setup, **clock, "total": total, "rows": stream.n_rows}


def evaluate_seconds(learners: tuple[str, ...], arff: str, backend: str) -> dict:
    with tempfile.TemporaryDirectory() as out:
        t0 = time.perf_counter()
        res = distval.evaluate(
            stream=arff,
            learners=learners,
            n_folds=10,
            backend=backend,
            output_dir=out,
            overwrite=True,
        )
        seconds = time.perf_counter() - t0
    return {"seconds": seconds, "evaluated_by": dict(res.evaluated_by)}


def fresh(*args: str) -> dict:
    return in_fresh_process(__file__, *args)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--sets", default="trivial,moa")
    ap.add_argument("--backends", default="inprocess,ray,auto")
    ap.add_argument("--name", default="pipeline", help="results file name")
    ap.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        kind, set_name, arff, backend = a.one
        learners = SETS[set_name]
        if kind == "staged":
            cfg = RunConfig(stream=arff, learners=learners, n_folds=10)
            with tempfile.TemporaryDirectory() as out:
                print(json.dumps(staged(cfg, Path(out))))
        else:
            print(json.dumps(evaluate_seconds(learners, arff, backend)))
        return
    rows, walls = [], []
    with tempfile.TemporaryDirectory(prefix="bench-pipeline-") as tmp:
        arff = Path(tmp) / f"sea{a.rows}.arff"
        write_sea(arff, a.rows)
        for set_name in a.sets.split(","):
            s = fresh("staged", set_name, str(arff), "-")
            row = {"learners": " + ".join(SETS[set_name]), "rows": f"{s['rows']:,}"}
            busy = sum(s[k] for k in STAGES)
            for k in STAGES:
                row[f"{k} s"] = s[k]
                row[f"{k} %"] = 100 * s[k] / busy
            row["setup s"], row["total s"] = s["setup"], s["total"]
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
            wall = {"learners": row["learners"]}
            for backend in a.backends.split(","):
                r = fresh("evaluate", set_name, str(arff), backend)
                wall[f"{backend} s"] = r["seconds"]
                wall[f"{backend} evaluated_by"] = json.dumps(r["evaluated_by"])
            if "ray s" in wall and "inprocess s" in wall:
                wall["ray / inprocess"] = wall["ray s"] / wall["inprocess s"]
            if "auto s" in wall and "ray s" in wall:
                wall["auto / best"] = wall["auto s"] / min(wall["ray s"], wall["inprocess s"])
            walls.append(wall)
            print(wall, file=sys.stderr, flush=True)
    cols = ["learners", "rows", *[f"{k} {u}" for k in STAGES for u in ("s", "%")], "total s"]
    text = "\n".join(
        [
            f"### Pipeline stages: SEA (MOA's rows, ARFF), {a.rows:,} rows, 2 learners x 10 folds,"
            " prequential bootstrap, ADWIN, tests every 1,000 rows, output written; "
            f"{os.cpu_count()} cores",
            "",
            table(rows, cols),
            "",
            "Shares (%) are of the staged time (read + route + hosts + aggregator + tests +"
            " writing); `total s` also holds start-up (JVM, reader).",
            "",
            "### The same jobs through `distval.evaluate` (wall time, fresh process each)",
            "",
            table(walls),
        ]
    )
    save(a.name, text, {"stages": rows, "backends": walls, "args": vars(a)})


if __name__ == "__main__":
    main()
