"""Published numbers of bifet2015 §4.1 (Tables 2, 3 and 4), kept as data for comparison.

Bifet, Morales, Read, Holmes, Pfahringer (2015), "Efficient Online Evaluation of Big Data
Stream Classifiers", KDD. Every value is a fraction of 50 runs that reject the null
hypothesis at alpha = 0.05 with 10 folds; the column groups are *no change* (two seeds of
the same randomised learner: rejections are type I errors) and *change* with pnoise = 0.05
and 0.10 (a noise-filtered learner: non-rejections are type II errors).

Table 3 (McNemar, per stream) and Table 4 (Wilcoxon, per stream) do not name the
prequential variant; their *Average* rows equal the McNemar non-prequential row and the
Wilcoxon prequential row of Table 2 respectively, which is what :data:`TABLE3_VARIANT` and
:data:`TABLE4_VARIANT` record (the tests check those averages against Table 2).

>>> TABLE2[("wilcoxon", True)][(0.0, "cv")]
0.1
>>> TABLE3["SEA(50)"][(0.05, "bootstrap")]
0.69
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from distval.results import markdown_table as results_markdown_table

#: The tests of Tables 2-4.
TESTS = ("mcnemar", "sign", "wilcoxon")

__all__ = [
    "CHANGES",
    "PAPER_STREAMS",
    "SCHEMES",
    "TABLE2",
    "TABLE2_SECONDS",
    "TABLE3",
    "TABLE3_VARIANT",
    "TABLE4",
    "TABLE4_VARIANT",
    "TESTS",
    "TITLES",
    "markdown_table",
    "tables",
    "wide",
]

#: Column groups: pnoise of the second learner (0.0 = same algorithm, another seed).
CHANGES = (0.0, 0.05, 0.10)
#: Column order inside each group, as printed in the paper.
SCHEMES = ("bootstrap", "cv", "split")
#: Row order of Tables 3 and 4.
PAPER_STREAMS = (
    "CovType",
    "Electricity",
    "Poker",
    "LED(50000)",
    "SEA(50)",
    "SEA(50000)",
    "HYP(10,0.001)",
    "HYP(10,0.0001)",
    "RBF(0,0)",
    "RBF(50,0.001)",
    "RBF(10,0.001)",
    "RBF(50,0.0001)",
    "RBF(10,0.0001)",
)


def _cols(values: list[float]) -> dict[tuple[float, str], float]:
    """Nine values in the paper's column order -> {(pnoise, scheme): value}."""
    keys = [(c, s) for c in CHANGES for s in SCHEMES]
    return dict(zip(keys, values, strict=True))


#: bifet2015 Table 2: {(test, prequential): {(pnoise, scheme): fraction}}, aggregated over
#: all streams.
TABLE2 = {
    ("mcnemar", False): _cols([0.71, 0.52, 0.66, 0.86, 0.80, 0.73, 0.88, 0.84, 0.75]),
    ("mcnemar", True): _cols([0.77, 0.80, 0.42, 0.88, 0.94, 0.56, 0.90, 0.95, 0.58]),
    ("sign", False): _cols([0.11, 0.11, 0.10, 0.77, 0.82, 0.44, 0.82, 0.88, 0.50]),
    ("sign", True): _cols([0.12, 0.12, 0.09, 0.77, 0.83, 0.44, 0.82, 0.89, 0.50]),
    ("wilcoxon", False): _cols([0.11, 0.11, 0.14, 0.79, 0.84, 0.51, 0.83, 0.90, 0.55]),
    ("wilcoxon", True): _cols([0.11, 0.10, 0.19, 0.80, 0.84, 0.54, 0.83, 0.91, 0.59]),
}

#: bifet2015 Table 2, last two rows: average time of one experiment in seconds,
#: {prequential: {(pnoise, scheme): seconds}}.
TABLE2_SECONDS = {
    False: _cols([883, 1105, 415, 877, 1121, 422, 900, 1148, 421]),
    True: _cols([813, 1202, 109, 820, 1214, 111, 808, 1294, 112]),
}


def _per_stream(columns: list[list[float]]) -> dict[str, dict[tuple[float, str], float]]:
    """Nine columns of 13 per-stream values -> {stream: {(pnoise, scheme): value}}."""
    keys = [(c, s) for c in CHANGES for s in SCHEMES]
    return {
        stream: {key: col[i] for key, col in zip(keys, columns, strict=True)}
        for i, stream in enumerate(PAPER_STREAMS)
    }


#: bifet2015 Table 3: McNemar's test per stream, {stream: {(pnoise, scheme): fraction}}.
# Repeat kept: alike Table 4's literal in shape only: each holds the paper's own numbers.
TABLE3 = _per_stream(
    [
        [0.86, 0.45, 0.73, 0.92, 0.67, 0.68, 0.61, 0.61, 0.89, 0.26, 0.88, 0.76, 0.89],
        [0.64, 0.16, 0.45, 0.85, 0.35, 0.35, 0.32, 0.40, 0.80, 0.20, 0.74, 0.68, 0.80],
        [0.98, 0.79, 0.86, 0.96, 0.88, 0.89, 0.61, 0.83, 0.36, 0.36, 0.36, 0.37, 0.36],
        [0.97, 0.99, 0.82, 0.96, 0.69, 0.70, 1.00, 1.00, 0.98, 0.18, 0.97, 0.91, 0.96],
        [0.98, 0.92, 0.78, 0.92, 0.39, 0.41, 1.00, 1.00, 0.98, 0.43, 0.96, 0.76, 0.92],
        [0.98, 0.88, 0.98, 1.00, 0.89, 0.89, 1.00, 1.00, 0.39, 0.39, 0.39, 0.39, 0.37],
        [0.98, 1.00, 0.96, 0.99, 0.70, 0.71, 1.00, 1.00, 0.99, 0.20, 0.98, 0.91, 0.98],
        [0.99, 1.00, 0.99, 0.96, 0.43, 0.44, 1.00, 1.00, 0.99, 0.44, 0.98, 0.76, 0.94],
        [0.99, 0.94, 1.00, 1.00, 0.89, 0.89, 1.00, 1.00, 0.40, 0.39, 0.40, 0.41, 0.40],
    ]
)
#: The Table 2 row that Table 3 breaks down: (test, prequential).
TABLE3_VARIANT = ("mcnemar", False)

#: bifet2015 Table 4: Wilcoxon's signed-rank test per stream.
TABLE4 = _per_stream(
    [
        [0.12, 0.12, 0.08, 0.11, 0.11, 0.10, 0.09, 0.13, 0.11, 0.14, 0.12, 0.10, 0.10],
        [0.10, 0.13, 0.10, 0.09, 0.12, 0.09, 0.10, 0.09, 0.10, 0.10, 0.10, 0.11, 0.09],
        [0.10, 0.14, 0.10, 0.10, 0.14, 0.09, 0.13, 0.11, 0.32, 0.30, 0.32, 0.31, 0.31],
        [0.99, 1.00, 0.79, 0.82, 0.26, 0.21, 1.00, 1.00, 1.00, 0.32, 1.00, 1.00, 1.00],
        [1.00, 1.00, 1.00, 0.49, 0.27, 0.29, 1.00, 1.00, 1.00, 1.00, 1.00, 0.85, 1.00],
        [0.63, 0.72, 1.00, 1.00, 0.11, 0.11, 1.00, 1.00, 0.29, 0.33, 0.28, 0.31, 0.32],
        [1.00, 1.00, 1.00, 1.00, 0.36, 0.32, 1.00, 1.00, 1.00, 0.13, 1.00, 0.99, 1.00],
        [1.00, 1.00, 1.00, 0.99, 0.45, 0.49, 1.00, 1.00, 1.00, 1.00, 1.00, 0.86, 1.00],
        [0.97, 0.98, 1.00, 1.00, 0.12, 0.11, 1.00, 1.00, 0.33, 0.29, 0.28, 0.30, 0.29],
    ]
)
#: The Table 2 row that Table 4 breaks down: (test, prequential).
TABLE4_VARIANT = ("wilcoxon", True)


# -- our values beside the paper's ---------------------------------------------------------


def _label(change: float, scheme: str) -> str:
    return f"{'no change' if change == 0 else f'pnoise={change:.2f}'} {scheme}"


def tables(
    decisions: pd.DataFrame,
    cells: pd.DataFrame,
    *,
    pnoise: tuple[float, ...],
    schemes: tuple[str, ...],
    streams: list[str],
    tests: dict[str, str] | None = None,
) -> dict[str, pd.DataFrame]:
    """Tables 2, 3 and 4 as long frames: ours (fraction of runs rejecting) and the paper's.

    Table 2 averages the per-stream fractions over the streams (as the paper's Table 2
    equals the mean of Tables 3/4); its paper values are the paper's 13-stream averages.
    The Average rows of Tables 3 and 4 set beside ours the paper's mean over the same
    streams when only some of the 13 ran. Columns of every frame: ``row``, ``pnoise``,
    ``scheme``, ``ours``, ``paper`` and, for Table 2's rows, ``runs`` and ``streams`` (its
    time rows: CPU seconds per cell, and ``machine``, where they were spent).
    ``tests`` maps the ``test`` values of ``decisions`` to Table 2's rows, in order, each
    to the paper's test it stands beside (default: :data:`TESTS`, each beside itself), e.g.
    several ways of pooling McNemar's counts all beside the paper's McNemar.
    """
    tests = {t: t for t in TESTS} if tests is None else tests
    per_stream = (
        decisions.groupby(["test", "prequential", "pnoise", "scheme", "stream"])["reject"]
        .agg(["mean", "size"])
        .reset_index()
    )
    changes = (0.0, *pnoise)
    result = {
        "table2": pd.DataFrame(
            _table2_rejections(per_stream, changes, schemes, tests)
            + _table2_seconds(cells, changes, schemes)
        )
    }
    for name, ref_table, (test, prequential) in (
        ("table3", TABLE3, TABLE3_VARIANT),
        ("table4", TABLE4, TABLE4_VARIANT),
    ):
        sel = per_stream[(per_stream.test == test) & (per_stream.prequential == prequential)]
        present = [s for s in streams if s in set(sel.stream)]
        average = TABLE2[(test, prequential)]
        if present and set(present) != set(PAPER_STREAMS):
            # like with like: the paper's mean over the streams present, not over its 13
            average = {
                key: float(np.mean([ref_table[s][key] for s in present])) for key in average
            }
        result[name] = pd.DataFrame(
            _per_stream_rows(sel, ref_table, average, present, changes, schemes)
        )
    return result


def _variant(prequential: bool) -> str:
    return "prequential" if prequential else "non-prequential"


def _table2_rejections(
    per_stream: pd.DataFrame,
    changes: tuple[float, ...],
    schemes: tuple[str, ...],
    tests: dict[str, str],
) -> list[dict[str, Any]]:
    """Table 2's test rows: the fraction rejecting, averaged over the streams."""
    rows = []
    for test, paper_test in tests.items():
        for prequential in (False, True):
            for change in changes:
                for scheme in schemes:
                    sel = per_stream[
                        (per_stream.test == test)
                        & (per_stream.prequential == prequential)
                        & np.isclose(per_stream.pnoise, change)
                        & (per_stream.scheme == scheme)
                    ]
                    ref = TABLE2.get((paper_test, prequential), {}).get((change, scheme))
                    rows.append(
                        {
                            "row": f"{test} {_variant(prequential)}",
                            "pnoise": change,
                            "scheme": scheme,
                            "ours": float(sel["mean"].mean()) if len(sel) else float("nan"),
                            "paper": np.nan if ref is None else ref,
                            "runs": int(sel["size"].sum()),
                            "streams": len(sel),
                        }
                    )
    return rows


def _table2_seconds(
    cells: pd.DataFrame, changes: tuple[float, ...], schemes: tuple[str, ...]
) -> list[dict[str, Any]]:
    """Table 2's time rows: the mean CPU seconds per cell of each scheme (the CPU time of the
    process that ran the cell; cells without it: their wall seconds), beside the paper's
    seconds; ``machine`` names where they were spent."""
    cpu = cells["cpu_seconds"] if "cpu_seconds" in cells else cells["seconds"]
    seconds = cpu.fillna(cells["seconds"]).groupby(cells["scheme"]).mean()
    where = machines(cells)
    rows = []
    for prequential in (False, True):
        for change in changes:
            for scheme in schemes:
                ref = TABLE2_SECONDS[prequential].get((change, scheme))
                rows.append(
                    {
                        "row": f"avg time per cell (CPU-s), {_variant(prequential)}",
                        "pnoise": change,
                        "scheme": scheme,
                        "ours": float(seconds.get(scheme, np.nan)),
                        "paper": np.nan if ref is None else ref,
                        "runs": int((cells.scheme == scheme).sum()),
                        "streams": int(cells[cells.scheme == scheme].stream.nunique()),
                        "machine": where,
                    }
                )
    return rows


def machines(cells: pd.DataFrame) -> str:
    """The machines a grid's cells ran on, each with its number of cells ("not recorded"
    for cells written before they named it).

    >>> machines(pd.DataFrame({"machine": ["Xeon, 2 cores, Linux"] * 2 + [None]}))
    'Xeon, 2 cores, Linux (2 cells); not recorded (1 cell)'
    """
    named = cells["machine"] if "machine" in cells else pd.Series([None] * len(cells))
    counts = named.fillna("not recorded").value_counts(sort=False)
    return "; ".join(f"{m} ({n} cell{'s' if n != 1 else ''})" for m, n in counts.items())


def _per_stream_rows(
    sel: pd.DataFrame,
    ref_table: dict[str, dict[tuple[float, str], float]],
    average: dict[tuple[float, str], float],
    streams: list[str],
    changes: tuple[float, ...],
    schemes: tuple[str, ...],
) -> list[dict[str, Any]]:
    """Table 3 or 4: one test variant's fraction rejecting per stream, then their average."""
    rows = []
    for stream in [*streams, "Average"]:
        for change in changes:
            for scheme in schemes:
                part = sel[np.isclose(sel.pnoise, change) & (sel.scheme == scheme)]
                if stream == "Average":
                    ours = float(part["mean"].mean()) if len(part) else float("nan")
                    ref = average.get((change, scheme))
                else:
                    hit = part[part.stream == stream]["mean"]
                    ours = float(hit.iloc[0]) if len(hit) else float("nan")
                    ref = ref_table.get(stream, {}).get((change, scheme))
                rows.append(
                    {
                        "row": stream,
                        "pnoise": change,
                        "scheme": scheme,
                        "ours": ours,
                        "paper": np.nan if ref is None else ref,
                    }
                )
    return rows


def wide(frame: pd.DataFrame, digits: int = 2) -> pd.DataFrame:
    """Paper layout: one row per table row, one column per (pnoise, scheme), 'ours (paper)'."""

    def cell(r: Any) -> str:  # a row of frame.itertuples()
        ours = "–" if not np.isfinite(r.ours) else f"{r.ours:.{digits}f}"
        ref = "–" if not np.isfinite(r.paper) else f"{r.paper:.{digits}f}"
        return f"{ours} ({ref})"

    f = frame.assign(
        col=[_label(c, s) for c, s in zip(frame.pnoise, frame.scheme)],
        text=[cell(r) for r in frame.itertuples()],
    )
    wide = f.pivot(index="row", columns="col", values="text")
    return wide.loc[list(dict.fromkeys(f.row)), list(dict.fromkeys(f.col))]


def markdown_table(frame: pd.DataFrame) -> str:
    """A frame as a Markdown table (index as first column)."""
    rows = [[idx, *row.tolist()] for idx, row in frame.iterrows()]
    return results_markdown_table(["", *frame.columns], rows)


TITLES = {
    "table2": "Table 2: fraction of runs rejecting H0, averaged over streams",
    "table3": "Table 3: McNemar's test (non-prequential) per stream",
    "table4": "Table 4: Wilcoxon's signed-rank test (prequential) per stream",
}
