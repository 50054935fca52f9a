"""The shape grid under every reading measured: cumulative and windowed accuracy, label
noise alone and with attribute noise (MOA ``AddNoiseFilter -a``).

Reads two grid directories run with ``--window 1000`` (label noise only, and with
``--att-noise P``), restricts both to the runs they have in common (so every reading is
measured on the same runs), and writes into OUT:

- ``paper_vs_distval.csv``: the rows of the grids' ``paper_vs_distval.csv`` with one column
  group per reading (``cumulative_*``, ``windowed_*``, ``att_noise_*``,
  ``att_noise_windowed_*``);
- ``readings.md``: per reading Table 2's median gap (runs and streams resampled), its
  type I and power means against the paper's, the per-stream pattern and the closest
  reading per stream and overall, with the date, the machine and its load.

Usage: python benchmarks/type_errors_readings.py LABEL_DIR ATT_DIR OUT
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

from distval.experiments.type_errors import GridConfig, read_cells
from distval.experiments.type_errors.readings import read_as, readings_markdown, readings_table
from distval.experiments.type_errors.tables import GridResult
from distval.files import write_file


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _grid(path: Path) -> tuple[GridConfig, list[dict[str, Any]]]:
    return GridConfig.from_dict(json.loads((path / "grid.json").read_text())), read_cells(path)


def _complete_runs(cells: list[dict[str, Any]], config: GridConfig) -> set[int]:
    """Runs with every (stream, scheme) cell done."""
    need = len(config.streams) * len(config.schemes)
    count: dict[int, int] = {}
    for c in cells:
        count[c["run"]] = count.get(c["run"], 0) + 1
    return {r for r, n in count.items() if n == need}


def main(label_dir: Path, att_dir: Path, out: Path) -> str:
    label_cfg, label_cells = _grid(label_dir)
    att_cfg, att_cells = _grid(att_dir)
    runs = _complete_runs(label_cells, label_cfg) & _complete_runs(att_cells, att_cfg)
    label_cells = [c for c in label_cells if c["run"] in runs]
    att_cells = [c for c in att_cells if c["run"] in runs]
    named: dict[str, GridResult] = {
        "cumulative": read_as(label_cfg, label_cells, "cumulative"),
        "windowed": read_as(label_cfg, label_cells, "windowed"),
        "att_noise": read_as(att_cfg, att_cells, "cumulative"),
        "att_noise_windowed": read_as(att_cfg, att_cells, "windowed"),
    }
    cpu = sum(float(c.get("cpu_seconds") or 0) for c in label_cells + att_cells)
    head = (f"{time.strftime('%Y-%m-%d')}, {_cpu()}, {os.cpu_count()} cores shared with other "
            f"sessions (load average at the end {os.getloadavg()[0]:.1f}); runs 0-"
            f"{max(runs) if runs else -1} ({len(runs)} runs) of each grid, "
            f"{len(label_cells) + len(att_cells)} cells, {cpu / 60:.0f} CPU-minutes; window "
            f"{label_cfg.window} rows, attribute noise -a {att_cfg.att_noise}.")
    out.mkdir(parents=True, exist_ok=True)
    write_file(out / "paper_vs_distval.csv", readings_table(named).to_csv(index=False))
    text = readings_markdown(named).replace("\n", f"\n\n{head}\n", 1)
    write_file(out / "readings.md", text)
    return text


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    print(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])))
