"""A suite with fewer streams than cores: its replicas spread over Ray actors, against one
task of one core per stream (as before) and against in-process, in one script run.

On this 2-core machine the case is one stream (Electricity, HT + NB, 10-fold bootstrap):
with ``--backend ray`` the stream's run now gets both cores as two learner actors; "one
task" forces the earlier layout (every stream one task of one core, by sharing no core
out: :func:`distval.experiments.study.share_cores` replaced by ones). ``--rounds``
alternated rounds; each run's tables must equal the in-process ones.

    python benchmarks/bench_suite_spread.py                  # 20,000 rows, 3 rounds
    python benchmarks/bench_suite_spread.py --n-rows 45312 --rounds 2

Writes benchmarks/results/suite_spread.md and .json (``--name``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import distval.experiments.study as study
from distval.experiments.suite import suite

from common import save, table

STREAMS = ["elec2"]
OPTIONS: dict[str, Any] = {"learners": ("ht", "nb"), "n_folds": 10, "test_every": 1000}


def one(mode: str, rows: int, out: Path) -> tuple[float, dict[str, Any]]:
    """Seconds of one suite (Ray started inside when needed) and its comparison table."""
    shared = study.share_cores
    if mode == "one task":
        study.share_cores = lambda weights, replicas, cores: [1] * len(weights)  # type: ignore[assignment]
    try:
        t0 = time.perf_counter()
        if mode == "in-process":
            suite(STREAMS, output_dir=out, figures=False, n_rows=rows, **OPTIONS)
        else:  # a private local Ray, started and stopped by the suite
            suite(STREAMS, output_dir=out, backend="ray", figures=False, n_rows=rows, **OPTIONS)
        seconds = time.perf_counter() - t0
    finally:
        study.share_cores = shared
    summary = json.loads((out / STREAMS[0] / "summary.json").read_text())
    return seconds, {"learners": summary["learners"], "by": summary["evaluated_by"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-rows", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--name", default="suite_spread")
    args = ap.parse_args()
    modes = ["in-process", "one task", "spread"]
    times: dict[str, list[float]] = {m: [] for m in modes}
    rows_by: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as d:
        for r in range(args.rounds):
            order = modes if r % 2 == 0 else modes[::-1]
            want = None
            for m in order:
                seconds, got = one(m, args.n_rows, Path(d) / f"{m}-{r}")
                if want is None:
                    want = got["learners"]
                assert got["learners"] == want, f"{m} changed the numbers"
                times[m].append(seconds)
                rows_by[m] = got["by"]
                print(m, round(seconds, 1), got["by"], os.getloadavg(), flush=True)
    base = statistics.median(times["in-process"])
    rows = [
        {
            "suite": m,
            "seconds (each round)": " / ".join(f"{t:.1f}" for t in times[m]),
            "median s": round(statistics.median(times[m]), 1),
            "in-process / this": round(base / statistics.median(times[m]), 2),
            "rows by Ray's actors (last round)": rows_by[m].get("actors", 0),
        }
        for m in modes
    ]
    text = "\n".join([
        "# A suite with fewer streams than cores: one stream on 2 cores",
        "",
        f"Electricity, HT + NB, 10-fold bootstrap, {args.n_rows:,d} rows, tests every 1,000 "
        f"rows; {args.rounds} alternated rounds, Ray started and stopped in each Ray suite. "
        "`one task`: the stream as one Ray task of one core (the layout before); `spread`: "
        "its replicas over two learner actors. Every run gave the in-process numbers.",
        "",
        table(rows),
        "",
        f"Load average (1, 5, 15 min) at the end: {os.getloadavg()}.",
    ])
    save(args.name, text, {"rows": rows, "times": times, "args": vars(args)})


if __name__ == "__main__":
    main()
