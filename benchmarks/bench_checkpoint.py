"""What checkpoints (``distval run --checkpoint-seconds``, for ``--resume``) cost.

Each job runs in-process in a fresh process, in rounds of three runs: without checkpoints,
at the default period (:data:`distval.engine.loop.CHECKPOINT_SECONDS`) and at a short one (5 s;
1 s for the MOA job, which takes seconds). The process's CPU-seconds (user + system of every
thread, the JVM's included) and wall time are compared with the run without checkpoints;
the checkpoints are counted and timed (flush, pickling the learner host and the aggregator,
fsync, rename) and the results checked identical.

Jobs: the default job (``distval run`` defaults: the bundled Electricity data, 45,312 rows,
ht and nb, 10 folds) and MOA's Hoeffding tree and naive Bayes on 200,000 rows of SEA
(10 folds).

    python benchmarks/bench_checkpoint.py
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import in_fresh_process, save, table

JOBS = {
    "default (elec2, ht nb, 10 folds)": {},
    "MOA HT+NB 200k": {
        "stream": "sea(noise=0.1)",
        "n_rows": 200_000,
        "learners": ("moa:trees.HoeffdingTree", "moa:bayes.NaiveBayes"),
    },
}
#: Each job's periods: none, the default, a short one.
PERIODS = {
    "default (elec2, ht nb, 10 folds)": {"none": None, "default": "default", "short": 5.0},
    "MOA HT+NB 200k": {"none": None, "default": "default", "short": 1.0},
}


def one(job: str, period: str) -> dict:
    """One run in this process: CPU-seconds, wall, checkpoints (count, seconds, bytes)."""
    import pyarrow.parquet as pq

    import distval
    from distval.engine.loop import CHECKPOINT_SECONDS
    from distval.results.writer import CHECKPOINT, ResultWriter

    spent: list[float] = []
    size = [0]
    write = ResultWriter.checkpoint

    def timed_checkpoint(self: ResultWriter, state: object) -> None:
        t0 = time.perf_counter()
        write(self, state)
        spent.append(time.perf_counter() - t0)
        size[0] = (self.dir / CHECKPOINT).stat().st_size

    ResultWriter.checkpoint = timed_checkpoint  # type: ignore[method-assign]
    every = PERIODS[job][period]
    seconds = CHECKPOINT_SECONDS if every == "default" else every
    out = Path(tempfile.mkdtemp(prefix="bench-checkpoint-"))
    t0 = time.perf_counter()
    distval.evaluate(**JOBS[job], output_dir=out, overwrite=True, checkpoint_seconds=seconds)
    wall = time.perf_counter() - t0
    usage = resource.getrusage(resource.RUSAGE_SELF)
    folds = pq.read_table(out / "folds.parquet").to_pandas()
    return {
        "cpu": usage.ru_utime + usage.ru_stime,
        "wall": wall,
        "checkpoints": len(spent),
        "checkpoint_s": sum(spent),
        "checkpoint_mb": size[0] / 1e6,
        "final_accuracy": folds[folds["position"] == folds["position"].max()]["accuracy"]
        .round(12)
        .tolist(),
        "seconds_setting": seconds,
    }


#: Rounds: each runs every period of a job once, in turn (load changes between rounds).
ROUNDS = 2


def _ratios(values: list[float]) -> str:
    return " / ".join(f"{v:.3f}" for v in values)


def main() -> None:
    rows, raw = [], {}
    for job in JOBS:
        rounds = [
            {p: in_fresh_process(__file__, job, p) for p in PERIODS[job]} for _ in range(ROUNDS)
        ]
        raw[job] = rounds
        for period in PERIODS[job]:
            runs = [r[period] for r in rounds]
            bases = [r["none"] for r in rounds]
            n = sum(r["checkpoints"] for r in runs)
            rows.append({
                "job": job,
                "checkpoints every": "never" if runs[0]["seconds_setting"] is None
                else f"{runs[0]['seconds_setting']:g} s",
                "checkpoints (per round)": " / ".join(str(r["checkpoints"]) for r in runs),
                "MB each": max(r["checkpoint_mb"] for r in runs),
                "s each": sum(r["checkpoint_s"] for r in runs) / n if n else 0.0,
                "CPU s (per round)": " / ".join(f"{r['cpu']:.1f}" for r in runs),
                "CPU ratio (per round)": _ratios([r["cpu"] / b["cpu"]
                                                  for r, b in zip(runs, bases)]),
                "wall ratio (per round)": _ratios([r["wall"] / b["wall"]
                                                   for r, b in zip(runs, bases)]),
                "same results": all(r["final_accuracy"] == b["final_accuracy"]
                                    for r, b in zip(runs, bases)),
            })
    text = "\n\n".join([
        "# Checkpoints for --resume: their cost",
        table(rows),
        f"In-process runs, each in a fresh process, one after another, in {ROUNDS} rounds; "
        "ratios against the run without checkpoints of the same job and round. CPU s: user "
        "+ system seconds of the whole process (every thread, the JVM's too), the robust "
        "measure on a shared machine; "
        "wall time follows the machine's load. s each: the mean time of one checkpoint "
        "(flush, pickle, fsync, rename) in the driver. same results: the final fold "
        "accuracies equal those of the run without checkpoints.",
    ])
    save("checkpoint", text, {"rows": rows, "raw": raw})


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one(sys.argv[2], sys.argv[3])))
    else:
        main()
