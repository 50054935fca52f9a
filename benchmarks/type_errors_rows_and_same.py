"""Two small readings of the shape grid, measured on a few cells (cv only):

- *more rows*: the same cells at 50,000 rows, decided at 10,000 and 50,000 rows in one
  pass (checkpoints): the mean accuracy gap A - B of the noisy learner at each;
- *filter A itself* (``noise_learner="same"``): A against A trained on noisy labels, beside
  the shape grid's own cells of the same runs (A against A' on noisy labels).

Each cell is appended to OUT/cells.jsonl as it finishes (the script resumes); OUT/summary.md
gets the gaps and rejection rates with the date, the machine and its load.

    PYTHONPATH=. python benchmarks/type_errors_rows_and_same.py OUT ROWS_RUNS SAME_RUNS
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from distval.experiments.type_errors import make_grid, read_cells, run_cell

SHAPE = Path(__file__).resolve().parent / "results" / "type-errors-shape"
ROWS_STREAMS = ("SEA(50)", "HYP(10,0.001)")
SAME_STREAMS = ("SEA(50)", "RBF(0,0)")


def _gap(rows: list[dict], pnoise: float, prequential: bool = True) -> float:
    r = next(r for r in rows if r["test"] == "wilcoxon" and r["pnoise"] == pnoise
             and r["prequential"] == prequential)
    return float(r["mean_a"] - r["mean_b"])


def _rejects(rows: list[dict], test: str, pnoise: float) -> float:
    return float(np.mean([r["reject"] for r in rows if r["test"] == test
                          and r["pnoise"] == pnoise]))


def main(out: Path, rows_runs: int, same_runs: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    store = out / "cells.jsonl"
    done = {(c["reading"], c["key"]) for c in read_cells(out)} if store.exists() else set()
    jobs = [("same", s, r) for r in range(same_runs) for s in SAME_STREAMS]
    jobs += [("rows", s, r) for r in range(rows_runs) for s in ROWS_STREAMS]
    for reading, stream, run in jobs:
        if (reading, f"{stream}|{run}|cv") in done:
            continue
        if reading == "rows":
            cfg = make_grid("shape", streams=[stream], n_rows=50_000, schemes=("cv",))
            cell = run_cell(cfg, stream, stream, run, "cv", checkpoints=(10_000, 50_000))
        else:
            cfg = make_grid("shape", streams=[stream], schemes=("cv",), noise_learner="same")
            cell = run_cell(cfg, stream, stream, run, "cv")
        cell["reading"] = reading
        cell["load"] = os.getloadavg()[0]
        with store.open("a") as fh:
            fh.write(json.dumps(cell) + "\n")
    write_summary(out)


def write_summary(out: Path) -> None:
    cells = read_cells(out)
    shape = {c["key"]: c for c in read_cells(SHAPE)}
    lines = [f"# More rows, and filtering A itself ({time.strftime('%Y-%m-%d')})", "",
             f"{os.cpu_count()}-core VM shared with other sessions, load average "
             f"{min(c['load'] for c in cells):.1f}-{max(c['load'] for c in cells):.1f} while "
             f"the {len(cells)} cells ran; {sum(c['cpu_seconds'] for c in cells) / 60:.1f} "
             "CPU-minutes. cv, OzaBag, training-label noise (the shape profile's settings).", "",
             "## More rows: mean gap A - B (prequential), decided at 10,000 and 50,000 rows", "",
             "| stream | runs | pnoise | gap at 10,000 | gap at 50,000 |", "|---|---|---|---|---|"]
    for stream in ROWS_STREAMS:
        part = [c for c in cells if c["reading"] == "rows" and c["stream"] == stream]
        if not part:
            continue
        for p in (0.05, 0.10):
            g10 = np.mean([_gap(c["at"]["10000"], p) for c in part])
            g50 = np.mean([_gap(c["at"]["50000"], p) for c in part if "50000" in c["at"]])
            lines.append(f"| {stream} | {len(part)} | {p} | {g10:.4f} | {g50:.4f} |")
    lines += ["", "## Filtering A itself: against the shape grid's cells of the same runs", "",
              "| stream | runs | pnoise | gap, A vs A' noisy | gap, A vs A noisy | "
              "Wilcoxon preq. rejects, A' | A |", "|---|---|---|---|---|---|---|"]
    for stream in SAME_STREAMS:
        part = [c for c in cells if c["reading"] == "same" and c["stream"] == stream]
        base = [shape[c["key"]] for c in part if c["key"] in shape]
        if not part or len(base) != len(part):
            continue
        for p in (0.05, 0.10):
            pre = [[r for r in c["results"] if r["prequential"]] for c in base]
            new = [[r for r in c["results"] if r["prequential"]] for c in part]
            lines.append(
                f"| {stream} | {len(part)} | {p} | {np.mean([_gap(c, p) for c in pre]):.4f} | "
                f"{np.mean([_gap(c, p) for c in new]):.4f} | "
                f"{np.mean([_rejects(c, 'wilcoxon', p) for c in pre]):.2f} | "
                f"{np.mean([_rejects(c, 'wilcoxon', p) for c in new]):.2f} |")
    (out / "summary.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
