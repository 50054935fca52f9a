"""Check the paper's conclusions (bifet2015 §4.1, Table 2) on a finished or partial grid.

Reads ``table2.csv`` and ``cells.jsonl`` of a ``distval reproduce type-errors`` output
directory and prints, in Markdown, each conclusion with our numbers and the paper's:

1. McNemar's test over-rejects for two seeds of one algorithm (type I >= 0.40 on average;
   the paper's smallest entry is 0.42);
2. the Sign and Wilcoxon tests keep their type I error low (<= 0.15);
3. Wilcoxon is at least as powerful as Sign;
4. split validation has the least power;
5. bootstrap costs the least CPU per unit of power (CPU-s per cell / mean power).

The Sign test's rows are those of the grid's own sign rule (``sign_method`` in
``grid.json``: ``sign_exact`` or ``sign_critical``).

Usage: ``python benchmarks/type_errors_conclusions.py benchmarks/results/type-errors-quick``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from distval.experiments import bifet2015 as paper


def _entries(t2: pd.DataFrame, test: str, change: str) -> pd.DataFrame:
    part = t2[t2.row.str.startswith(test + " ")]
    return part[part.pnoise == 0] if change == "none" else part[part.pnoise > 0]


def conclusions(out: Path) -> str:
    t2 = pd.read_csv(out / "table2.csv")
    t2 = t2[~t2.row.str.startswith("avg time")]
    cells = [json.loads(x) for x in (out / "cells.jsonl").read_text().splitlines() if x.strip()]
    sign = "sign_" + json.loads((out / "grid.json").read_text()).get("sign_method", "exact")
    lines = ["| conclusion | ours | paper | holds |", "|---|---|---|---|"]

    def add(what: str, ours: str, ref: str, ok: bool) -> None:
        lines.append(f"| {what} | {ours} | {ref} | {'yes' if ok else 'no'} |")

    mc = _entries(t2, "mcnemar", "none")
    add(
        "McNemar type I >= 0.40 on average (6 entries)",
        f"mean {mc.ours.mean():.2f}, min {mc.ours.min():.2f}",
        f"mean {mc.paper.mean():.2f}, min {mc.paper.min():.2f}",
        bool(mc.ours.mean() >= 0.40),
    )
    fold = pd.concat([_entries(t2, sign, "none"), _entries(t2, "wilcoxon", "none")])
    add(
        "Sign/Wilcoxon type I <= 0.15 (12 entries)",
        f"max {fold.ours.max():.2f}, mean {fold.ours.mean():.2f}",
        f"max {fold.paper.max():.2f}, mean {fold.paper.mean():.2f}",
        bool(fold.ours.max() <= 0.15),
    )
    s, w = _entries(t2, sign, "change"), _entries(t2, "wilcoxon", "change")
    key = ["pnoise", "scheme"]
    s = s.assign(variant=s.row.str.split(" ").str[1]).sort_values(["variant", *key])
    w = w.assign(variant=w.row.str.split(" ").str[1]).sort_values(["variant", *key])
    ge = (w.ours.to_numpy() >= s.ours.to_numpy() - 1e-12).sum()
    ge_p = (w.paper.to_numpy() >= s.paper.to_numpy()).sum()
    add(
        "Wilcoxon power >= Sign power (12 entries)",
        f"{ge}/12; mean {w.ours.mean():.2f} vs {s.ours.mean():.2f}",
        f"{ge_p}/12; mean {w.paper.mean():.2f} vs {s.paper.mean():.2f}",
        bool(ge == 12),
    )
    power = t2[t2.pnoise > 0]

    def split_least(col: str) -> tuple[int, int, int]:
        weak = strict = rows = 0
        for _, g in power.groupby(["row", "pnoise"]):
            sp = float(g[g.scheme == "split"][col].iloc[0])
            others = g[g.scheme != "split"][col]
            rows += 1
            weak += int(sp <= others.min() + 1e-12)
            strict += int(sp < others.min() - 1e-12)
        return weak, strict, rows

    w_o, s_o, n_o = split_least("ours")
    w_p, s_p, n_p = split_least("paper")
    add(
        "split has the least power (test x variant x pnoise rows: strictly / with ties)",
        f"{s_o}/{n_o} strictly, {w_o}/{n_o} with ties",
        f"{s_p}/{n_p} strictly, {w_p}/{n_p} with ties",
        s_o == n_o,
    )
    cpu = pd.DataFrame(cells).groupby("scheme")["cpu_seconds"].mean()
    pw = power[power.row.str.startswith((sign + " ", "wilcoxon "))].groupby("scheme")
    ours_pw, paper_pw = pw.ours.mean(), pw.paper.mean()
    secs = {
        sc: np.mean([paper.TABLE2_SECONDS[p][(c, sc)] for p in (False, True) for c in (0.05, 0.1)])
        for sc in paper.SCHEMES
    }
    ours_cost = {sc: cpu[sc] / ours_pw[sc] for sc in cpu.index}
    paper_cost = {sc: secs[sc] / paper_pw[sc] for sc in paper.SCHEMES}
    cheapest = min(ours_cost, key=ours_cost.__getitem__)
    add(
        "bootstrap cheapest per unit of power (CPU-s per cell / mean Sign+Wilcoxon power)",
        ", ".join(f"{sc} {v:.1f}" for sc, v in ours_cost.items()) + f" -> {cheapest}",
        ", ".join(f"{sc} {v:.0f}" for sc, v in paper_cost.items())
        + f" -> {min(paper_cost, key=paper_cost.__getitem__)} (wall s)",
        cheapest == "bootstrap",
    )
    add(
        "bootstrap cheaper per unit of power than cv",
        f"{ours_cost['bootstrap']:.1f} vs {ours_cost['cv']:.1f}",
        f"{paper_cost['bootstrap']:.0f} vs {paper_cost['cv']:.0f}",
        bool(ours_cost["bootstrap"] < ours_cost["cv"]),
    )
    mean_cpu = ", ".join(f"{sc} {cpu[sc]:.1f}" for sc in cpu.index)
    return "\n".join(lines) + f"\n\nMean CPU-s per cell by scheme: {mean_cpu}.\n"


if __name__ == "__main__":
    print(conclusions(Path(sys.argv[1])))
