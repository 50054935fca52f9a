"""The paper profile's cell cost, measured: one pass of the paper profile's learner
(MOA LeveragingBag, ten Hoeffding trees) with its four learners (A, A', A' on labels noised
at pnoise 0.05 and 0.10), 10-fold cv, on the first ROWS rows of a stream, the process's CPU
seconds recorded every BLOCK rows (so the growth of the per-row cost with the rows shows).

Each stream's line is appended to OUT (JSON lines) as soon as it is measured, and streams
already in OUT are skipped, so the script resumes. The cost is the cell's learners (the
tests, a few milliseconds per look, are left out).

    PYTHONPATH=. python benchmarks/bench_paper_cost.py OUT ROWS BLOCK STREAM [STREAM ...]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from distval.experiments.type_errors import make_grid
from distval.experiments.type_errors.cell import _Pass


def measure(stream: str, rows: int, block: int) -> dict[str, object]:
    config = make_grid("paper", streams=[stream], n_rows=rows, schemes=("cv",),
                       batch_size=min(500, block))
    label, spec = config.streams[0]
    load0 = os.getloadavg()[0]
    t0, w0 = time.process_time(), time.perf_counter()
    cell = _Pass(config, label, spec, 0, "cv")
    marks, n = [], 0
    for ca, _, _, _ in cell.batches():
        n += ca.shape[1]
        if n % block == 0 or n == rows:
            marks.append([n, round(time.process_time() - t0, 3)])
    return {"stream": label, "rows": n, "learner": config.learner,
            "learners_per_cell": config.learners_per_cell, "cpu_at": marks,
            "cpu_seconds": marks[-1][1], "wall_seconds": round(time.perf_counter() - w0, 2),
            "load_before": load0, "load_after": os.getloadavg()[0],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


def main() -> None:
    out, rows, block = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    done = set()
    if out.exists():
        done = {(json.loads(line)["stream"], json.loads(line)["rows"])
                for line in out.read_text().splitlines() if line.strip()}
    for stream in sys.argv[4:]:
        if (stream, rows) in done:
            continue
        result = measure(stream, rows, block)
        with out.open("a") as fh:
            fh.write(json.dumps(result) + "\n")
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
