"""The peeking tables (distval.experiments.type_errors.tables) against a computation by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from distval.experiments.type_errors import peeking_tables


def decisions(rng: np.random.Generator) -> pd.DataFrame:
    rows = []
    keys = itertools.product(["S1", "S2"], range(4), ["cv", "split"], [False, True], [0.0, 0.1])
    for stream, run, scheme, prequential, pnoise in keys:
        for test in ("mcnemar", "sign", "wilcoxon", "sign_evalue"):
            end = bool(rng.random() < 0.3)
            row = {"stream": stream, "run": run, "scheme": scheme, "prequential": prequential,
                   "pnoise": pnoise, "test": test, "reject": end,
                   "ever_reject": end or bool(rng.random() < 0.3)}
            if test != "sign_evalue":
                row["spending_reject"] = bool(rng.random() < 0.2)
            if run == 3:  # a cell written before per-look recording: no per-look fields
                row = {k: v for k, v in row.items() if k not in ("ever_reject", "spending_reject")}
            rows.append(row)
    return pd.DataFrame(rows)


def by_hand(d: pd.DataFrame, test: str, column: str, **where) -> float:
    """Mean over streams of the share of rejecting runs, over rows that have looks."""
    shares = []
    for stream in ("S1", "S2"):
        sel = [r for r in d.to_dict("records")
               if r["stream"] == stream and r["test"] == test and r["run"] != 3
               and all(r[k] == v for k, v in where.items())]
        if sel:
            shares.append(sum(bool(r[column]) for r in sel) / len(sel))
    return sum(shares) / len(shares)


def test_peeking_tables_against_a_computation_by_hand():
    d = decisions(np.random.default_rng(8))
    tables = peeking_tables(d, pnoise=(0.1,), schemes=("cv", "split"))
    t = tables["peeking"].set_index(["row", "pnoise", "scheme"])
    for test, variant, column, label in [
        ("sign", True, "ever_reject", "sign prequential: fixed alpha, ever"),
        ("mcnemar", False, "reject", "mcnemar non-prequential: fixed alpha, at the end"),
        ("wilcoxon", True, "spending_reject", "wilcoxon prequential: alpha spending"),
        ("sign_evalue", False, "reject", "sign e-value non-prequential: e-value"),
    ]:
        for pnoise, scheme in itertools.product((0.0, 0.1), ("cv", "split")):
            got = t.loc[(label, pnoise, scheme)]
            want = by_hand(d, test, column, prequential=variant, pnoise=pnoise, scheme=scheme)
            assert got["ours"] == pytest.approx(want)
            assert got["cells"] == 6  # 2 streams x 3 runs with looks
    s = tables["peeking_summary"].set_index(["test", "rule", "pnoise"])
    want = np.mean([by_hand(d, "sign", "ever_reject", prequential=v, pnoise=0.0, scheme=sc)
                    for v in (False, True) for sc in ("cv", "split")])
    assert s.loc[("sign", "fixed alpha, ever", 0.0), "ours"] == pytest.approx(want)


def test_no_per_look_rows_no_peeking_tables():
    d = decisions(np.random.default_rng(1)).drop(columns=["ever_reject", "spending_reject"])
    assert peeking_tables(d, pnoise=(0.1,), schemes=("cv",)) == {}
