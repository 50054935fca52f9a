"""The paper profile's cell cost, measured: one pass of the paper profile's learner
(MOA LeveragingBag, ten Hoeffding trees) with its four learners (A, A', A' on labels noised
at pnoise 0.05 and 0.10), 10-fold cv, on the first ROWS rows of a stream, the process's CPU
seconds recorded every BLOCK rows (so the growth of the per-row cost with the rows shows).

Each stream's line is appended to OUT (JSON lines) as soon as it is measured, and streams
already in OUT are skipped, so the script resumes. The cost is the cell's learners (the
tests, a few milliseconds per look, are left out).

    PYTHONPATH=. python benchmarks/bench_paper_cost.py OUT ROWS BLOCK STREAM [STREAM ...]
    PYTHONPATH=. python benchmarks/bench_paper_cost.py OUT summary

The summary (``summary.md`` beside OUT) gives per stream the CPU-seconds per 1,000 rows
after the first block (which holds the JVM's start and warm-up), and, for each cell longer
than 10,000 rows, a power law of the per-row cost in the rows (fitted on its blocks after
the first) carried to 1,000,000 rows, against what the cell's own rate and the 10,000-row
cell's rate say (the first is ``REFERENCE_GROWTH``'s factor).
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


def steady_rate(cell: dict) -> float:
    """CPU-s per 1,000 rows after the first block."""
    (r0, c0), (r1, c1) = cell["cpu_at"][0], cell["cpu_at"][-1]
    return 1000.0 * (c1 - c0) / (r1 - r0)


def growth(cell: dict, rows: int = 1_000_000) -> tuple[float, float]:
    """(b, CPU-s): the per-row cost of the blocks after the first grows as rows^b (a
    least-squares line in log-log); the CPU-seconds of a ``rows``-row cell if it keeps
    growing so."""
    import numpy as np

    at = np.array(cell["cpu_at"], dtype=float)
    mid = (at[1:, 0] + at[:-1, 0]) / 2
    per_row = np.diff(at[:, 1]) / np.diff(at[:, 0])
    b, log_a = np.polyfit(np.log(mid), np.log(per_row), 1)
    n = np.arange(500, rows, 1000, dtype=float)  # 1,000-row steps
    return float(b), float(np.exp(log_a) * (n ** b).sum() * 1000)


def summary(out: Path) -> str:
    cells = [json.loads(line) for line in out.read_text().splitlines() if line.strip()]
    lines = ["| stream | rows | CPU-s | CPU-s per 1,000 rows after the first block | load |",
             "|---|---|---|---|---|"]
    for c in cells:
        lines.append(f"| {c['stream']} | {c['rows']:,} | {c['cpu_seconds']:.1f} | "
                     f"{steady_rate(c):.2f} | {c['load_before']:.0f}-{c['load_after']:.0f} |")
    short = {c["stream"]: steady_rate(c) for c in cells if c["rows"] == 10_000}
    lines += ["", "| stream | rows | per-row cost grows as rows^b | 1,000,000-row cell, CPU-s | "
              "against this cell's rate x 1,000,000 rows | against the 10,000-row cell's |",
              "|---|---|---|---|---|---|"]
    for c in cells:
        if c["rows"] <= 10_000:
            continue
        b, total = growth(c)
        own = steady_rate(c) * 1000
        first = f"{total / (short[c['stream']] * 1000):.2f} x" if c["stream"] in short else "-"
        lines.append(f"| {c['stream']} | {c['rows']:,} | {b:.2f} | {total:,.0f} | "
                     f"{total / own:.2f} x | {first} |")
    text = "\n".join(lines) + "\n"
    (out.parent / "summary.md").write_text(text)
    return text


def main() -> None:
    if sys.argv[2:] == ["summary"]:
        print(summary(Path(sys.argv[1])))
        return
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
