"""A grid's decisions as tables: Table 2's sign-test variant, the effect sizes beside the
rates, and the peeking tables (one rate per decision rule and variant).

>>> [label for label, _, _ in RULES]
['fixed alpha, at the end', 'fixed alpha, ever', 'alpha spending', 'e-value']
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors.profiles import TESTS, GridConfig
from distval.statistics.comparison import EVALUE_TEST

__all__ = ["RULES", "effect_sizes", "peeking_tables", "table_decisions"]

#: Decision rules of the peeking tables: (label, decisions column, tests it applies to).
RULES = (
    ("fixed alpha, at the end", "reject", TESTS),
    ("fixed alpha, ever", "ever_reject", TESTS),
    ("alpha spending", "spending_reject", TESTS),
    ("e-value", "reject", (EVALUE_TEST,)),
)

def table_decisions(
    decisions: pd.DataFrame, config: GridConfig
) -> tuple[pd.DataFrame, dict[str, str]]:
    """The end-of-stream decisions of Tables 2-4 and Table 2's rows, each with the paper's
    test it stands beside: McNemar as pooled over all pairs (``mcnemar``, the row Table 3
    breaks down), per row and per fold (when the cells recorded them), the sign test under
    both rules (re-decided from its statistic: wins of A among ``n`` non-tied folds) and
    Wilcoxon.

    >>> d = pd.DataFrame({"test": ["sign"], "statistic": [8.0], "n": [10], "pvalue": [0.109],
    ...                   "reject": [False]})
    >>> out, tests = table_decisions(d, GridConfig(streams=(("S", "SEA(50)"),),
    ...                                            learner="majority"))
    >>> out.set_index("test")["reject"].to_dict()
    {'sign_critical': True, 'sign_exact': False}
    >>> list(tests)  # the grid's rule (here the default, exact) first
    ['mcnemar', 'sign_exact', 'sign_critical', 'wilcoxon']
    """
    from distval.statistics.sign import sign_test_critical_value

    keep = ("mcnemar", "mcnemar_row", "mcnemar_fold", "wilcoxon")
    parts = [decisions[decisions["test"].isin(keep)]]
    sign = decisions[decisions["test"] == "sign"]
    if len(sign):
        n = sign["n"].astype(int)
        wins = sign["statistic"].astype(float)
        crit = np.array([sign_test_critical_value(k, alpha=config.alpha) if k > 0 else 1 << 30
                         for k in n])
        parts.append(sign.assign(test="sign_critical",
                                 reject=(np.maximum(wins, n - wins) >= crit) & (n > 0)))
        parts.append(sign.assign(test="sign_exact",
                                 reject=(sign["pvalue"].astype(float) <= config.alpha) & (n > 0)))
    out = pd.concat(parts, ignore_index=True)
    present = set(out["test"])
    order = ["mcnemar", "mcnemar_row", "mcnemar_fold", "sign_critical", "sign_exact", "wilcoxon"]
    if config.sign_method == "exact":  # the rule the grid was asked for first
        order[3], order[4] = order[4], order[3]
    tests = {t: ("mcnemar" if t.startswith("mcnemar") else t.split("_")[0]) for t in order
             if t in present or t in ("mcnemar", "wilcoxon")}
    return out, tests


def effect_sizes(decisions: pd.DataFrame) -> pd.DataFrame:
    """Per (stream, variant, pnoise, scheme): mean accuracy gap A - B (``gap``), mean
    standard deviation of the fold differences (``spread``) and mean effect size ``d`` =
    gap / spread of each run, over the runs (one row per cell per variant, read from the
    Wilcoxon rows, which every cell has)."""
    need = {"mean_a", "mean_b", "sd_diff"}
    w = decisions[decisions["test"] == "wilcoxon"]
    if not len(w) or not need <= set(w.columns):
        return pd.DataFrame()
    w = w.assign(gap=w["mean_a"] - w["mean_b"])
    if "d" not in w.columns:
        w = w.assign(d=w["gap"] / w["sd_diff"])
    w = w.assign(d=w["d"].where(np.isfinite(w["d"].astype(float))))
    return (w.groupby(["stream", "prequential", "pnoise", "scheme"])
            .agg(gap=("gap", "mean"), spread=("sd_diff", "mean"), d=("d", "mean"),
                 runs=("run", "nunique"))
            .reset_index())


def _with_effects(
    tables: dict[str, pd.DataFrame], effects: pd.DataFrame
) -> dict[str, pd.DataFrame]:
    """Tables 2-4 with ``gap``, ``spread`` and ``d`` beside every entry (Table 2 and the
    Average rows: means over the streams)."""
    out = dict(tables)
    avg = (effects.groupby(["prequential", "pnoise", "scheme"])[["gap", "spread", "d"]]
           .mean().reset_index())
    t2 = tables["table2"]
    prequential = ~t2["row"].str.contains("non-prequential")
    out["table2"] = _merge(t2.assign(prequential=prequential), avg,
                           ["prequential", "pnoise", "scheme"]).drop(columns="prequential")
    for name, (_, flag) in (("table3", paper.TABLE3_VARIANT), ("table4", paper.TABLE4_VARIANT)):
        t = tables[name]
        per = effects[effects["prequential"] == flag].rename(columns={"stream": "row"})
        merged = _merge(t, per.drop(columns=["prequential", "runs"]), ["row", "pnoise", "scheme"])
        a = avg[avg["prequential"] == flag].drop(columns="prequential")
        mean = merged["row"] == "Average"
        fill = merged[mean].drop(columns=["gap", "spread", "d"]).merge(
            a, on=["pnoise", "scheme"], how="left")
        merged.loc[mean, ["gap", "spread", "d"]] = fill[["gap", "spread", "d"]].to_numpy()
        out[name] = merged
    return out


def _merge(left: pd.DataFrame, right: pd.DataFrame, on: list[str]) -> pd.DataFrame:
    key = [np.round(left[c], 6) if left[c].dtype.kind == "f" else left[c] for c in on]
    rkey = [np.round(right[c], 6) if right[c].dtype.kind == "f" else right[c] for c in on]
    left = left.assign(**{f"_k{i}": k for i, k in enumerate(key)})
    right = right.drop(columns=on).assign(**{f"_k{i}": k for i, k in enumerate(rkey)})
    cols = [f"_k{i}" for i in range(len(on))]
    return left.merge(right, on=cols, how="left").drop(columns=cols)


def _fraction(part: pd.DataFrame, column: str) -> float:
    """Mean over streams of the fraction of runs rejecting (as bifet2015's Table 2)."""
    if not len(part):
        return float("nan")
    return float(part[column].astype(float).groupby(part["stream"]).mean().mean())


def peeking_tables(
    decisions: pd.DataFrame, *, pnoise: tuple[float, ...], schemes: tuple[str, ...]
) -> dict[str, pd.DataFrame]:
    """``peeking``: per (test, variant, rule) and (pnoise, scheme) the fraction of runs
    rejecting H0 (mean over streams), with the cells counted; ``peeking_summary``: per
    (test, rule) averaged over the schemes and both variants. Empty without per-look rows.
    """
    if "ever_reject" not in decisions.columns:
        return {}
    d = decisions[decisions["ever_reject"].notna()]
    if not len(d):
        return {}
    changes = (0.0, *pnoise)
    long, short = [], []
    for label, column, tests in RULES:
        for test in tests:
            name = "sign e-value" if test == EVALUE_TEST else test
            sel = d[d["test"] == test]
            for prequential in (False, True):
                variant = sel[sel["prequential"] == prequential]
                row = f"{name} {'prequential' if prequential else 'non-prequential'}: {label}"
                for change in changes:
                    for scheme in schemes:
                        part = variant[np.isclose(variant["pnoise"], change)
                                       & (variant["scheme"] == scheme)]
                        long.append({"row": row, "pnoise": change, "scheme": scheme,
                                     "ours": _fraction(part, column), "cells": len(part)})
            for change in changes:
                part = sel[np.isclose(sel["pnoise"], change)]
                groups = [g for _, g in part.groupby(["prequential", "scheme"])]
                value = np.mean([_fraction(g, column) for g in groups]) if groups else np.nan
                short.append({"test": name, "rule": label, "pnoise": change,
                              "ours": float(value), "cells": len(part)})
    return {"peeking": pd.DataFrame(long), "peeking_summary": pd.DataFrame(short)}
