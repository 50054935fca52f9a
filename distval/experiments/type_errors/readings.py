"""Readings of the grid side by side: the same comparison with another tested measure
(accuracy over a window at the end) or another noise filter (attribute noise too).

A *reading* is a grid's cells read one way: ``cumulative`` (each fold's accuracy over all
the rows it tested, the cells' ``results``) or ``windowed`` (over its last
``GridConfig.window`` tested rows, the cells' ``window`` rows, from the same pass). A grid
run with ``att_noise`` gives both again under attribute noise. :func:`readings_table` sets
them side by side, one column group per reading, on the rows of ``paper_vs_distval.csv``;
:func:`readings_markdown` gives per reading Table 2's median gap, its mean against the
paper's and the per-stream pattern, and the closest reading per stream.

>>> reading_cells([{"results": [1], "window": [2]}], "windowed")
[{'results': [2], 'window': [2]}]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from distval.errors import DistvalError
from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors.profiles import GridConfig
from distval.experiments.type_errors.tables import GridResult, collect, median_gap

__all__ = ["KEYS", "READINGS", "read_as", "reading_cells", "readings_markdown",
           "readings_table"]

#: How a grid's cells may be read: the tested measure of each fold.
READINGS = ("cumulative", "windowed")
#: The columns that identify a row of ``paper_vs_distval.csv`` (and the paper's side).
KEYS = ["table", "stream", "scheme", "variant", "test", "distval_test", "pnoise", "paper",
        "paper_streams", "paper_same_streams", "odd"]
#: The columns of ours each reading brings (its column group, prefixed by its name).
GROUP = ["distval", "runs", "gap_a_minus_b", "fold_spread", "d"]


def reading_cells(cells: list[dict[str, Any]], reading: str) -> list[dict[str, Any]]:
    """The cells as ``reading`` reads them (cells without a window left out of ``windowed``)."""
    if reading not in READINGS:
        raise DistvalError(f"unknown reading {reading!r}; choose among {', '.join(READINGS)}")
    if reading == "cumulative":
        return cells
    return [c | {"results": c["window"]} for c in cells if "window" in c]


def read_as(config: GridConfig, cells: list[dict[str, Any]], reading: str) -> GridResult:
    """The tables of ``cells`` under ``reading`` (nothing written)."""
    return collect(config, reading_cells(cells, reading), None)


def readings_table(named: dict[str, GridResult]) -> pd.DataFrame:
    """``paper_vs_distval.csv``'s rows with one column group per reading: for each name,
    ``<name>_distval``, ``<name>_runs``, ``<name>_gap_a_minus_b``, ``<name>_fold_spread``
    and ``<name>_d``."""
    out: pd.DataFrame | None = None
    for name, result in named.items():
        pv = result.tables["paper_vs_distval"]
        part = pv[KEYS + GROUP].rename(columns={c: f"{name}_{c}" for c in GROUP})
        out = part if out is None else out.merge(part, on=KEYS, how="outer", sort=False)
    if out is None:
        raise DistvalError("no reading to compare")
    return out


def _table2_summary(name: str, result: GridResult) -> dict[str, Any]:
    pv = result.tables["paper_vs_distval"]
    t2 = pv[(pv["table"] == "table2") & pv["distval"].notna()]
    power = t2[t2["pnoise"] > 0]
    typ1 = t2[t2["pnoise"] == 0]
    same = t2[t2["paper_same_streams"].notna()]
    point, low, high = median_gap(result, n_boot=1000, streams=True)
    return {
        "reading": name,
        "runs": int(t2["runs"].min()) if len(t2) else 0,
        "median gap": round(point, 3),
        "95% (runs + streams)": f"{low:.3f}-{high:.3f}",
        "like for like": round(float(np.median(np.abs(same["paper_same_streams"]
                                                       - same["distval"]))), 3),
        "type I, ours": round(float(typ1["distval"].mean()), 3),
        "type I, paper (13)": round(float(typ1["paper"].mean()), 3),
        "power, ours": round(float(power["distval"].mean()), 3),
        "power, paper (13)": round(float(power["paper"].mean()), 3),
        "mean gap A - B at 0.05": round(float(power[power["pnoise"] == 0.05]
                                              ["gap_a_minus_b"].mean()), 4),
        "mean fold spread": round(float(t2["fold_spread"].mean()), 4),
    }


def _pattern(named: dict[str, GridResult]) -> pd.DataFrame:
    """Per stream and reading, Table 4 (Wilcoxon prequential) per scheme as
    'no change / 0.05 / 0.10', and the paper's."""
    rows = []
    for name, result in [("paper", None), *named.items()]:
        pv = next(iter(named.values())).tables["paper_vs_distval"] if result is None else \
            result.tables["paper_vs_distval"]
        t4 = pv[(pv["table"] == "table4") & (pv["stream"] != "Average")]
        column = "paper" if result is None else "distval"
        for stream, part in t4[t4["distval"].notna()].groupby("stream", sort=False):
            row: dict[str, Any] = {"stream": stream, "reading": name}
            for scheme in paper.SCHEMES:
                vals = part[part["scheme"] == scheme].sort_values("pnoise")[column]
                row[scheme] = " / ".join(f"{v:.2f}" for v in vals)
            rows.append(row)
    return pd.DataFrame(rows).sort_values(["stream"], kind="stable")


def closest(named: dict[str, GridResult]) -> pd.DataFrame:
    """Per stream (and over all), the median |paper - distval| of each reading over the
    stream's Table 3 and Table 4 cells (over all: Table 2's), and the reading closest."""
    rows = []
    frames = {n: r.tables["paper_vs_distval"] for n, r in named.items()}
    first = next(iter(frames.values()))
    streams = first[(first["table"] != "table2") & first["distval"].notna()
                    & (first["stream"] != "Average")]["stream"].unique()
    for stream in [*streams, "all (Table 2)"]:
        row: dict[str, Any] = {"stream": stream}
        for name, pv in frames.items():
            part = (pv[(pv["table"] == "table2")] if stream == "all (Table 2)"
                    else pv[(pv["table"] != "table2") & (pv["stream"] == stream)])
            part = part[part["distval"].notna()]
            row[name] = round(float(np.median(np.abs(part["paper"] - part["distval"]))), 3)
        row["closest"] = min(frames, key=lambda n: row[n])
        rows.append(row)
    return pd.DataFrame(rows)


def readings_markdown(named: dict[str, GridResult]) -> str:
    """Per reading, Table 2's summary; the per-stream pattern; the closest reading."""
    from distval.results import markdown_table

    def table(frame: pd.DataFrame) -> str:
        return markdown_table(list(frame.columns), frame.to_numpy().tolist())

    summary = pd.DataFrame([_table2_summary(n, r) for n, r in named.items()])
    return "\n".join([
        "# The grid under each reading", "",
        "## Table 2 per reading", "",
        "Median gap: median |paper - distval| over Table 2's 54 cells (interval: runs and streams "
        "resampled); like for like: over its 18 cells where the paper gives per-stream values, "
        "against the paper's mean over the same streams; means over Table 2's type I and "
        "power cells against the paper's 13-stream means.", "",
        table(summary), "",
        "## Per-stream pattern: Table 4 (Wilcoxon prequential), no change / 0.05 / 0.10", "",
        table(_pattern(named)), "",
        "## Closest reading", "",
        "Median |paper - distval| per stream over its Table 3 and 4 cells (all: Table 2's).", "",
        table(closest(named)), "",
    ])
