"""Mini-batch learners against the same model per row, in one run: rows per second.

Two models, each as a mini-batch learner (blocks of ``--block`` rows) and per row:

* ``sklearn:SGDClassifier(loss='log_loss', mini_batch=B)`` against the same spec with
  ``mini_batch=1`` (``predict`` then ``partial_fit`` of each row: the per-row loop);
* ``river.linear_model:LogisticRegression(mini_batch=B)`` (``predict_many`` /
  ``learn_many``) against ``river.linear_model:LogisticRegression`` (river's per-row
  ``predict_one`` / ``learn_one``, distval's default).

10-fold prequential bootstrap (the defaults) on SEA rows (river's generator,
``sea(noise=0.1)``, seed 1), written once to a Parquet file before any clock starts: river's
generator makes one row at a time (about 11 s per million rows here), a cost of the stream,
not of the learners, which would cap every evaluation's rate. In this process. Two
measurements per variant:

* **learners**: the fold replicas alone, a :class:`~distval.learners.LearnerHost` through the
  run's routed batches (made before the clock starts), no aggregator: rows per second of
  wall time and of CPU time (this process);
* **evaluation**: ``distval.evaluate(..., backend="inprocess")``, everything included
  (stream, routing, aggregator, tests): rows per second of wall time.

river's model runs per row and in every block size (``--blocks``, default 64, 256, 1000) on
the same ``--rows`` rows (default 50,000), so its rates and accuracies compare like with
like. scikit-learn's SGD runs in blocks on those rows too; per row it is far slower and
reads a prefix (``--sgd-prefix``), its rate that of the prefix (a linear model's per-row
cost does not grow with the rows it has seen).

Run: ``python benchmarks/bench_minibatch.py`` from the repository root; writes
``results/minibatch.md`` and ``.json``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import distval
from distval import RunConfig
from distval.engine.loop import iter_batches, open_config_stream
from distval.learners import LearnerHost
from distval.learners.schema import Schema

from common import load_span, save, table

GENERATOR = "sea(noise=0.1)"
#: The Parquet file of the generator's rows (:func:`write_rows`).
STREAM = ""


#: Rows per engine batch and between test points, for every variant (a block never spans
#: two engine batches, so a replica predicts each block in one call).
BATCH = 10_000


def write_rows(rows: int, path: Path) -> None:
    """The generator's first ``rows`` rows (seed 1) as a Parquet file, target ``class``."""
    stream = open_config_stream(RunConfig(stream=GENERATOR, n_rows=rows, seed=1))
    chunks = list(stream.chunks(100_000))
    X = np.vstack([c.X for c in chunks])
    y = np.concatenate([c.y for c in chunks])
    columns = {f"x{j}": X[:, j] for j in range(X.shape[1])}
    labels = np.asarray([str(c) for c in stream.classes])[y]
    pq.write_table(pa.table({**columns, "class": labels}), path)


def config(spec: str, rows: int) -> RunConfig:
    return RunConfig(stream=STREAM, target="class", n_rows=rows, learners=[spec], seed=1,
                     batch_size=BATCH,
                     test_every=BATCH, forgetting="cumulative")


def learners_alone(spec: str, rows: int) -> tuple[float, float]:
    """(wall, CPU) seconds of the fold replicas alone through ``rows`` rows."""
    cfg = config(spec, rows)
    stream = open_config_stream(cfg)
    batches = list(iter_batches(stream, cfg))
    host = LearnerHost(cfg.specs, [(0, f) for f in range(cfg.n_folds)], stream.feature_names,
                       cfg.seed, Schema.of(stream))
    wall, cpu = time.perf_counter(), time.process_time()
    for b in batches:
        host.process(b)
    return time.perf_counter() - wall, time.process_time() - cpu


def evaluation(spec: str, rows: int) -> tuple[float, float]:
    """(wall seconds, mean cumulative accuracy of the folds) of a whole evaluation."""
    t0 = time.perf_counter()
    res = distval.evaluate(config(spec, rows), backend="inprocess")
    acc = res.final_folds()["accuracy"].mean()
    return time.perf_counter() - t0, float(acc)


def measure(spec: str, rows: int) -> dict[str, float | int | str]:
    wall, cpu = learners_alone(spec, rows)
    e_wall, acc = evaluation(spec, rows)
    got = {"spec": spec, "rows": rows, "learners_wall_s": wall, "learners_cpu_s": cpu,
           "evaluation_wall_s": e_wall, "accuracy": acc}
    print(got, flush=True)
    return got


def rates(g: dict) -> dict[str, float]:
    return {
        "learners rows/s (wall)": g["rows"] / g["learners_wall_s"],
        "learners rows/s (CPU)": g["rows"] / g["learners_cpu_s"],
        "evaluation rows/s (wall)": g["rows"] / g["evaluation_wall_s"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=50_000,
                    help="rows of every river variant and of the SGD blocks")
    ap.add_argument("--blocks", default="64,256,1000", help="block sizes, comma-separated")
    ap.add_argument("--sgd-prefix", type=int, default=3_000)
    args = ap.parse_args()
    warnings.simplefilter("ignore", distval.errors.LowPowerWarning)
    blocks = [int(b) for b in args.blocks.split(",")]
    models = [
        ("river LogisticRegression", "river.linear_model:LogisticRegression(mini_batch={})",
         "river.linear_model:LogisticRegression", args.rows),
        ("SGDClassifier(log_loss)", "sklearn:SGDClassifier(loss='log_loss', mini_batch={})",
         "sklearn:SGDClassifier(loss='log_loss', mini_batch=1)", args.sgd_prefix),
    ]
    global STREAM
    folder = tempfile.TemporaryDirectory()
    STREAM = str(Path(folder.name) / "sea.parquet")
    write_rows(max(args.rows, args.sgd_prefix), Path(STREAM))
    start = os.getloadavg()
    for _, batched, per_row, _ in models:  # warm-up: imports, first calls
        learners_alone(batched.format(1000), 5000)
        learners_alone(per_row, 200)
    rows, data = [], []
    for name, batched, per_row, prefix in models:
        base = measure(per_row, prefix)
        rows.append({"model": name, "variant": "per row", "rows": f"{prefix:,}", **rates(base),
                     "accuracy (%)": f"{100 * float(base['accuracy']):.2f}", "vs per row": ""})
        entry = {"model": name, "per_row": base, "mini_batch": []}
        for b in blocks:
            got = measure(batched.format(b), args.rows)
            r, r0 = rates(got), rates(base)
            ratio = {k: r[k] / r0[k] for k in r}
            points = 100 * (float(got["accuracy"]) - float(base["accuracy"]))
            same_rows = prefix == args.rows  # else per row saw fewer rows: not comparable
            rows.append({"model": name, "variant": f"blocks of {b:,}", "rows": f"{args.rows:,}",
                         **{k: f"{v:,.0f} ({ratio[k]:.2f}x)" for k, v in r.items()},
                         "accuracy (%)": f"{100 * float(got['accuracy']):.2f}",
                         "vs per row": f"{points:+.2f} points" if same_rows else "other rows"})
            entry["mini_batch"].append({"block": b, **got, "ratios": ratio,
                                        "accuracy_points": points if same_rows else None})
        data.append(entry)
    text = "\n".join([
        f"# Mini-batch against per-row learners ({time.strftime('%Y-%m-%d')})",
        "",
        f"10-fold prequential bootstrap on `{GENERATOR}`'s rows (seed 1) read from a Parquet "
        "file written before the clocks start, in-process, engine batches and test "
        f"points every {BATCH:,} rows, cumulative forgetting. river's LogisticRegression per "
        f"row and in every block size on the same {args.rows:,} rows; SGD in blocks on those "
        f"rows, per row on the first {args.sgd_prefix:,} (its per-row loop runs at about 40 "
        "rows/s; a linear model's cost per row does not grow with the rows it has seen). "
        "Rates in rows per second (in brackets: the ratio to the same model per row, above 1 "
        "faster); accuracy: cumulative, mean of the folds, and its difference from per row. "
        f"{load_span(start)} (2-core VM, shared).",
        "",
        table(rows),
    ])
    save("minibatch", text, {"blocks": blocks, "stream": GENERATOR, "batch": BATCH,
                             "rows": args.rows, "results": data})


if __name__ == "__main__":
    main()
