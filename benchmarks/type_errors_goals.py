"""The goals of the type I / II reproduction, measured on a type-errors grid's directory.

Reads ``grid.json`` and ``cells.jsonl`` of a grid (default: the committed shape profile),
rebuilds its tables and prints, for each goal, the measured number and whether it is met:

1. Table 2 power (the paper's six rows: McNemar pooled over all pairs, the grid's sign
   rule, Wilcoxon; both variants): at most a third of the 36 power entries >= 0.99.
2. Power at pnoise 0.10 >= power at 0.05 for every row in every scheme.
3. Split the least powerful scheme in most (row, pnoise) groups.
4. Sign type I with the paper's rule (w_alpha = 8 of 10) within 0.05 of the paper's entry
   in every scheme and variant.
5. McNemar: the type I error of each pooling.
6. Median |paper - distval| over Table 2's 54 entries, with a 95 % interval from the runs.

Usage: python benchmarks/type_errors_goals.py [GRID_DIR]
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors import GridConfig, read_cells
from distval.experiments.type_errors.tables import collect, median_gap


def main(grid_dir: Path) -> str:
    config = GridConfig.from_dict(json.loads((grid_dir / "grid.json").read_text()))
    result = collect(config, read_cells(grid_dir), None)
    t2 = result.tables["table2"]
    t2 = t2[~t2.row.str.startswith("avg time")].set_index(["row", "pnoise", "scheme"])["ours"]
    sign = "sign_critical" if config.sign_method == "critical" else "sign_exact"
    rows = [f"{t} {v}" for t in ("mcnemar", sign, "wilcoxon")
            for v in ("non-prequential", "prequential")]
    lines = [
        f"grid: {grid_dir} ({len(result.cells)} cells, "
        f"{result.decisions.groupby('stream')['run'].nunique().min()} runs per stream at least, "
        f"streams {', '.join(sorted(result.cells['stream'].unique()))})",
        f"machine: 2-core VM, shared; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
        f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}",
        "",
    ]
    power = [t2[(r, p, s)] for r in rows for p in config.pnoise for s in config.schemes]
    high = sum(v >= 0.99 for v in power)
    lines.append(f"1. Table 2 power entries >= 0.99: {high} of {len(power)} "
                 f"({'met' if high <= len(power) / 3 else 'missed'}: goal <= a third)")
    p05, p10 = config.pnoise[0], config.pnoise[-1]
    bad = [(r, s, round(float(t2[(r, p05, s)]), 2), round(float(t2[(r, p10, s)]), 2))
           for r in rows for s in config.schemes if t2[(r, p10, s)] < t2[(r, p05, s)]]
    lines.append(f"2. power at {p10} below power at {p05}: {len(bad)} of "
                 f"{len(rows) * len(config.schemes)} (row, scheme) pairs "
                 f"({'met' if not bad else 'missed'}){': ' + str(bad) if bad else ''}")
    lowest = 0
    for r in rows:
        for p in config.pnoise:
            values = {s: t2[(r, p, s)] for s in config.schemes}
            lowest += values["split"] <= min(values.values())
    groups = len(rows) * len(config.pnoise)
    lines.append(f"3. split the least powerful (ties count): {lowest} of {groups} (row, pnoise) "
                 f"groups ({'met' if lowest > groups / 2 else 'missed'}: goal most)")
    diffs = []
    for v, prequential in (("non-prequential", False), ("prequential", True)):
        for s in config.schemes:
            ours = t2[(f"sign_critical {v}", 0.0, s)]
            ref = paper.TABLE2[("sign", prequential)][(0.0, s)]
            diffs.append((v, s, round(float(ours), 3), ref, round(float(abs(ours - ref)), 3)))
    worst = max(d[-1] for d in diffs)
    lines.append(f"4. sign (w_alpha) type I vs the paper: largest |difference| {worst:.3f} "
                 f"({'met' if worst <= 0.05 else 'missed'}: goal <= 0.05 everywhere): {diffs}")
    for test in ("mcnemar", "mcnemar_row", "mcnemar_fold"):
        cells = [(v, s, round(float(t2[(f"{test} {v}", 0.0, s)]), 2))
                 for v in ("non-prequential", "prequential") for s in config.schemes
                 if (f"{test} {v}", 0.0, s) in t2.index]
        mean = np.mean([c[-1] for c in cells]) if cells else float("nan")
        lines.append(f"5. {test} type I: mean {mean:.2f} over {len(cells)} entries {cells}")
    med, low, high_ = median_gap(result, n_boot=2000)
    lines.append(f"6. median |paper - distval| over Table 2: {med:.3f} (95 % interval "
                 f"{low:.3f}-{high_:.3f}; {'met' if med <= 0.15 else 'missed'}: goal <= 0.15)")
    return "\n".join(lines)


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else here / "results" / "type-errors-shape"
    print(main(target))
