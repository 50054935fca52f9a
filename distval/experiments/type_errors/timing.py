"""Table 2's time rows in their own form: distval's CPU seconds (and wall seconds) per cell
of each scheme beside the paper's seconds per experiment, with the machine that spent them.

>>> import pandas as pd
>>> cells = pd.DataFrame({"scheme": ["cv", "cv"], "cpu_seconds": [2.0, 4.0],
...     "seconds": [3.0, 5.0], "n_rows": [10000, 10000], "machine": ["Xeon, 2 cores, Linux"] * 2})
>>> lines = time_markdown(("cv",), cells)
>>> lines[2].splitlines()[-1].split(" | ")[1:3], "Xeon, 2 cores, Linux (2 cells)" in lines[0]
(['3.0', '4.0'], True)
"""

from __future__ import annotations

import pandas as pd

from distval.experiments import bifet2015 as paper
from distval.results import markdown_table

__all__ = ["time_markdown"]


def time_markdown(schemes: tuple[str, ...], cells: pd.DataFrame) -> list[str]:
    """Markdown lines: per scheme, distval's mean CPU-seconds and wall seconds per cell (one
    pass serves both variants and all changes) beside the paper's seconds per experiment
    (no change / 0.05 / 0.10, non-prequential and prequential), which are of other rows,
    another machine and another learner; the caption names the machine(s) of the cells."""
    rows_per_cell = cells["n_rows"].dropna()
    n_rows = f"{int(rows_per_cell.median()):,}" if len(rows_per_cell) else "?"
    header = ["scheme", "distval CPU-s per cell", "distval wall s per cell",
              "paper s, non-preq. (no change / 0.05 / 0.10)", "paper s, preq."]
    body = []
    for scheme in schemes:
        part = cells[cells["scheme"] == scheme]
        cpu = part["cpu_seconds"].astype(float).mean() if len(part) else float("nan")
        wall = part["seconds"].astype(float).mean() if len(part) else float("nan")
        ref = [" / ".join(f"{paper.TABLE2_SECONDS[v][(c, scheme)]:.0f}" for c in paper.CHANGES)
               for v in (False, True)]
        body.append([scheme, f"{cpu:.1f}", f"{wall:.1f}", *ref])
    return [
        f"Time per cell, on {paper.machines(cells)}: distval's cells read {n_rows} rows "
        "and one pass serves both variants and every change (CPU time of the process "
        "running the cell, JVM threads included); the paper's seconds are per experiment on "
        "its own cluster and stream length, so the two are not comparable as rates:",
        "",
        markdown_table(header, body),
        "",
    ]
