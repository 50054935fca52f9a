"""Learners after a pickle: the default job's replicas run slower once pickled (a checkpoint)
or unpickled (a hand-over to Ray actors, a resume), on the Python that runs this script.

CPython 3.11 and 3.12 keep a plain object's attributes inline (no ``__dict__``) until
something asks for its ``__dict__``; pickling asks (the default ``__reduce_ex__`` reads the
state), and unpickling fills ``__dict__``. From then on every attribute access goes through
the dictionary. This script measures, in one process and alternated, the default job's
learners (Electricity, Hoeffding tree and Gaussian naive Bayes, 10-fold bootstrap) on the
rows after the first batch:

- ``fresh``: the replicas as built;
- ``pickled once``: the same after one ``pickle.dumps`` of every replica (what a
  checkpoint does to the live replicas);
- ``unpickled copy``: running on ``pickle.loads(pickle.dumps(...))`` of them (what a Ray
  actor gets at the hand-over, and a resumed run);

and the same on a three-attribute object's method, for scale.

    python benchmarks/bench_pickled.py --rows 12000 --rounds 2
"""

from __future__ import annotations

import argparse
import json
import pickle
import sys
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

from common import machine, save, table  # noqa: E402


class Point:
    def __init__(self) -> None:
        self.a, self.b, self.c = 1, 2, 3

    def total(self) -> int:
        return self.a + self.b + self.c


def attribute_seconds(obj: Point) -> float:
    return min(timeit.repeat(obj.total, number=1_000_000, repeat=5))


def job_seconds(variant: str, rows: int) -> float:
    from distval import RunConfig
    from distval.engine.loop import open_config_stream, starting_point

    cfg = RunConfig(n_rows=rows)
    local, batches = starting_point(cfg, open_config_stream(cfg))
    local.step(next(batches))
    if variant == "pickled once":
        for model in local.host.models:
            pickle.dumps(model, protocol=4)
    elif variant == "unpickled copy":
        local.host.models = [pickle.loads(pickle.dumps(m, protocol=4))
                             for m in local.host.models]
    started = time.perf_counter()
    for batch in batches:
        local.step(batch)
    return time.perf_counter() - started


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=12000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--name", default="pickled")
    p.add_argument("--machine", default="2-core VM, idle apart from this script")
    args = p.parse_args()
    fresh, dumped, loaded = Point(), Point(), pickle.loads(pickle.dumps(Point()))
    pickle.dumps(dumped)
    micro = {"fresh": attribute_seconds(fresh), "pickled once": attribute_seconds(dumped),
             "unpickled copy": attribute_seconds(loaded)}
    variants = ["fresh", "pickled once", "unpickled copy"]
    seconds: dict[str, list[float]] = {v: [] for v in variants}
    for _ in range(args.rounds):
        for v in variants:
            seconds[v].append(job_seconds(v, args.rows))
            print(v, round(seconds[v][-1], 2), flush=True)
    rows = [{"variant": v,
             "default job, rows after the first batch (s)": " / ".join(
                 f"{s:.2f}" for s in seconds[v]),
             "ratio to fresh (mean)": round(sum(seconds[v]) / sum(seconds["fresh"]), 3),
             "1M attribute sums (s)": round(micro[v], 3),
             "ratio to fresh (attributes)": round(micro[v] / micro["fresh"], 2)}
            for v in variants]
    info = machine() | {"machine": args.machine, "rows": args.rows, "rounds": args.rounds}
    text = ("# Learners after a pickle\n\n"
            f"`python benchmarks/bench_pickled.py --rows {args.rows} --rounds {args.rounds}`"
            f"\n\n{json.dumps(info)}\n\n" + table(rows))
    save(args.name, text, {"run": info, "rows": rows})


if __name__ == "__main__":
    main()
