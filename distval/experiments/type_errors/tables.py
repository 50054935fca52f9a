"""A grid's results: its decisions, Tables 2-4 beside the paper's, the peeking tables, files.

Tables 2-4 are bifet2015 §4.1's (:func:`distval.experiments.bifet2015.tables`): the decision
at the end of the stream. The peeking tables add, over the cells that recorded every look
(cells written before per-look recording have none and are left out of them):

- *fixed alpha, at the end*: Table 2's decision, over the same cells;
- *fixed alpha, ever*: rejected at any look, what a user who watches the live p-value and
  stops at its first rejection experiences;
- *alpha spending*: O'Brien-Fleming-type Lan-DeMets boundaries over the stream's rows;
- *e-value*: the settled-sign e-process
  (:class:`~distval.statistics.sequential.SettledSignEProcess`).

The last two stay rejected once they reject, so at the end equals ever for them.

>>> import pandas as pd
>>> d = pd.DataFrame({"stream": ["S", "S"], "run": [0, 1], "scheme": "cv",
...                   "prequential": True, "pnoise": 0.0, "test": "sign",
...                   "reject": [False, False], "ever_reject": [True, False],
...                   "spending_reject": [False, False]})
>>> t = peeking_tables(d, pnoise=(), schemes=("cv",))["peeking"]
>>> float(t.set_index("row").loc["sign prequential: fixed alpha, ever", "ours"])
0.5
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors.decisions import (
    RULES,
    _with_effects,
    effect_sizes,
    peeking_tables,
    table_decisions,
)
from distval.experiments.type_errors.paper_cells import ROW_MEANINGS, paper_odd, paper_same_streams
from distval.experiments.type_errors.profiles import GridConfig
from distval.experiments.type_errors.timing import time_markdown
from distval.results import markdown_table

__all__ = [
    "GRID_FILES",
    "ROW_MEANINGS",
    "RULES",
    "GridResult",
    "collect",
    "effect_sizes",
    "median_gap",
    "paper_odd",
    "paper_same_streams",
    "paper_vs_distval",
    "peeking_tables",
    "table_decisions",
]

#: The files a grid writes into its output directory.
GRID_FILES = (
    "grid.json",
    "cells.jsonl",
    "table2.csv",
    "table3.csv",
    "table4.csv",
    "peeking.csv",
    "peeking_summary.csv",
    "decisions.csv",
    "tables.md",
    "paper_vs_distval.csv",
    *(f"{chart}.{fmt}" for chart in ("type_errors", "peeking", "paper_vs_distval")
      for fmt in ("png", "svg", "pdf")),
)
#: The chart formats a grid writes: PNG for the page, SVG and PDF for print.
CHART_FORMATS = ("png", "svg", "pdf")

#: Columns of ``decisions.csv`` (the per-look lists stay in ``cells.jsonl``).
_LISTS = ("pvalues", "decisions")


@dataclass
class GridResult:
    """Outcome of a grid: per-cell decisions and the tables beside the paper's values."""

    config: GridConfig
    cells: pd.DataFrame
    decisions: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    output_dir: Path | None = None

    def to_markdown(self) -> str:
        return _markdown(self)


def collect(
    config: GridConfig, cells: list[dict[str, Any]], output_dir: Path | None
) -> GridResult:
    """The decisions of finished cells (any version of ``cells.jsonl``) and their tables."""
    columns = ["stream", "run", "scheme", "n_rows", "n_classes", "seconds", "cpu_seconds", "pid",
               "machine"]
    meta = pd.DataFrame([{k: c.get(k, np.nan) for k in columns} for c in cells], columns=columns)
    rows = [
        {"stream": c["stream"], "run": c["run"], "scheme": c["scheme"]}
        | {k: v for k, v in r.items() if k not in _LISTS}
        for c in cells
        for r in c["results"]
    ]
    decisions = pd.DataFrame(rows)
    result = GridResult(config, meta, decisions, output_dir=output_dir)
    if len(decisions):
        fixed, tests = table_decisions(decisions, config)
        result.tables = paper.tables(
            fixed,
            meta,
            pnoise=config.pnoise,
            schemes=config.schemes,
            streams=[label for label, _ in config.streams],
            tests=tests,
        )
        effects = effect_sizes(decisions)
        if len(effects):
            result.tables = _with_effects(result.tables, effects)
            result.tables["paper_vs_distval"] = paper_vs_distval(result)
        result.tables |= peeking_tables(decisions, pnoise=config.pnoise, schemes=config.schemes)
    return result


def paper_vs_distval(result: GridResult) -> pd.DataFrame:
    """One row per cell of the paper's Tables 2-4: ``table``, ``stream`` (Table 2: the
    average), ``scheme``, ``variant``, ``test`` (the paper's), ``distval_test`` (the row of
    ours beside it), ``pnoise``, ``paper``, ``paper_streams`` (how many of the paper's
    streams ``paper`` averages: 13 for Table 2, the streams run for the Average rows of
    Tables 3 and 4, 1 per stream), ``paper_same_streams`` (Table 2 only: the paper's mean
    over the streams distval ran, where Table 3 or 4 gives the paper's per-stream values,
    i.e. McNemar non-prequential and Wilcoxon prequential; else empty), ``distval``,
    ``distval_streams`` (the streams distval's value averages), ``runs`` (per stream),
    ``gap_a_minus_b`` (distval's mean accuracy gap A - B), ``fold_spread``, ``d`` and
    ``odd`` (:func:`paper_odd`). Streams that did not run (or the paper's cells distval has
    no row for) have no distval value."""
    cfg = result.config
    shown_sign = "sign_critical" if cfg.sign_method == "critical" else "sign_exact"
    runs = result.decisions.groupby("stream")["run"].nunique()
    ran = [label for label, _ in cfg.streams if label in set(runs.index)]
    same = paper_same_streams(ran)
    rows = []
    t2 = result.tables["table2"].set_index(["row", "pnoise", "scheme"])
    for (test, prequential), ref in paper.TABLE2.items():
        ours = shown_sign if test == "sign" else test
        variant = "prequential" if prequential else "non-prequential"
        for (change, scheme), value in ref.items():
            key = (f"{ours} {variant}", change, scheme)
            hit = t2.loc[key] if key in t2.index else None
            rows.append({"table": "table2", "stream": "average", "scheme": scheme,
                         "variant": variant, "test": test, "distval_test": ours,
                         "pnoise": change, "paper": value,
                         "paper_streams": len(paper.PAPER_STREAMS),
                         "paper_same_streams": same.get((test, prequential), {}).get(
                             (change, scheme), np.nan),
                         "distval": np.nan if hit is None else hit["ours"],
                         "distval_streams": len(ran),
                         "runs": int(runs.min()) if len(runs) else 0,
                         "gap_a_minus_b": np.nan if hit is None else hit.get("gap", np.nan),
                         "fold_spread": np.nan if hit is None else hit.get("spread", np.nan),
                         "d": np.nan if hit is None else hit.get("d", np.nan), "odd": ""})
    for name, ref_table, (test, prequential) in (
        ("table3", paper.TABLE3, paper.TABLE3_VARIANT),
        ("table4", paper.TABLE4, paper.TABLE4_VARIANT),
    ):
        t = result.tables[name].set_index(["row", "pnoise", "scheme"])
        for stream in (*paper.PAPER_STREAMS, "Average"):
            refs = paper.TABLE2[(test, prequential)] if stream == "Average" else ref_table[stream]
            for (change, scheme), value in refs.items():
                key = (stream, change, scheme)
                hit = t.loc[key] if key in t.index else None
                rows.append({
                    "table": name, "stream": stream, "scheme": scheme,
                    "variant": "prequential" if prequential else "non-prequential",
                    "test": test, "distval_test": test, "pnoise": change,
                    "paper": value if hit is None else hit["paper"],
                    "paper_streams": 1 if stream != "Average" else (
                        len(ran) if hit is not None else len(paper.PAPER_STREAMS)),
                    "paper_same_streams": np.nan,
                    "distval": np.nan if hit is None else hit["ours"],
                    "distval_streams": (1 if stream != "Average" else len(ran))
                    if hit is not None else 0,
                    "runs": int(runs.get(stream, 0)) if stream != "Average" else (
                        int(runs.min()) if len(runs) else 0),
                    "gap_a_minus_b": np.nan if hit is None else hit.get("gap", np.nan),
                    "fold_spread": np.nan if hit is None else hit.get("spread", np.nan),
                    "d": np.nan if hit is None else hit.get("d", np.nan),
                    "odd": paper_odd(name, stream, scheme, change),
                })
    return pd.DataFrame(rows)


def median_gap(
    result: GridResult, *, n_boot: int = 1000, seed: int = 0, streams: bool = False
) -> tuple[float, float, float]:
    """Median |paper - distval| over Table 2's cells (the rows set beside the paper's:
    McNemar over all pairs, the grid's sign rule, Wilcoxon), and a 95 % percentile interval
    from resampling each stream's runs with replacement (the cells of a run together); with
    ``streams``, the streams are resampled with replacement too (both sources of noise).
    Either way the paper's values are held fixed.

    Returns (median, low, high); NaN without Table 2 values.
    """
    cfg = result.config
    table = result.tables.get("paper_vs_distval")
    if table is None:
        return (float("nan"),) * 3
    t2 = table[(table["table"] == "table2") & table["distval"].notna()]
    if not len(t2):
        return (float("nan"),) * 3
    point = float(np.median(np.abs(t2["paper"] - t2["distval"])))
    fixed, _ = table_decisions(result.decisions, cfg)
    keys = [(r.distval_test, r.variant == "prequential", r.pnoise, r.scheme)
            for r in t2.itertuples()]
    index = {k: i for i, k in enumerate(keys)}
    paper_values = t2["paper"].to_numpy()
    rng = np.random.default_rng(seed)
    per_stream = []
    for _, part in fixed.groupby("stream"):
        run_ids = sorted(part["run"].unique())
        grid = np.full((len(run_ids), len(keys)), np.nan)
        pos = {r: i for i, r in enumerate(run_ids)}
        for r in part.itertuples():
            k = index.get((r.test, bool(r.prequential), round(float(r.pnoise), 6), r.scheme))
            if k is None:
                k = index.get((r.test, bool(r.prequential), float(r.pnoise), r.scheme))
            if k is not None:
                grid[pos[r.run], k] = float(r.reject)
        per_stream.append(grid)
    stats = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cell no resampled run has
        for _ in range(n_boot):
            chosen = (rng.integers(0, len(per_stream), len(per_stream)) if streams
                      else range(len(per_stream)))
            means = [np.nanmean(g[rng.integers(0, len(g), len(g))], axis=0)
                     for g in (per_stream[i] for i in chosen)]
            values = np.nanmean(np.vstack(means), axis=0)
            stats.append(np.nanmedian(np.abs(paper_values - values)))
    low, high = np.percentile(stats, [2.5, 97.5])
    return point, float(low), float(high)


def _wide(frame: pd.DataFrame, rows: str, digits: int = 2) -> pd.DataFrame:
    """One row per ``rows`` value, one column per (pnoise, scheme) or pnoise."""
    cols = ["pnoise", "scheme"] if "scheme" in frame.columns else ["pnoise"]
    f = frame.assign(
        col=[
            " ".join([("no change" if c == 0 else f"pnoise={c:.2f}"), *rest])
            for c, *rest in frame[cols].itertuples(index=False)
        ],
        text=["–" if not np.isfinite(v) else f"{v:.{digits}f}" for v in frame["ours"]],
    )
    wide = f.pivot(index=rows, columns="col", values="text")
    return wide.loc[list(dict.fromkeys(f[rows])), list(dict.fromkeys(f["col"]))]


def _table(frame: pd.DataFrame, digits: int = 2) -> str:
    return paper.markdown_table(paper.wide(frame, digits))


def _peeking_markdown(result: GridResult) -> list[str]:
    if "peeking" not in result.tables:
        return []
    summary = result.tables["peeking_summary"].copy()
    summary["test / rule"] = summary["test"] + ": " + summary["rule"]
    looked = result.decisions.dropna(subset=["ever_reject"])
    n_cells = len(looked.drop_duplicates(["stream", "run", "scheme"]))
    return [
        "## Peeking: decisions at every look",
        "",
        f"Over the {n_cells} of {len(result.cells)} cells that recorded the decision at each "
        f"of their {result.config.looks} looks (equally spaced over the stream; fractions "
        "of runs rejecting H0, mean over streams). 'no change' columns: type I error rates; "
        "'pnoise' columns: power. 'fixed alpha, ever': rejected at some look, what a user who "
        "stops at the first live rejection gets; 'alpha spending' (O'Brien-Fleming-type, "
        "Lan-DeMets) and 'e-value' (the settled-sign e-process) stay valid at every look.",
        "",
        "Averaged over the schemes and both variants:",
        "",
        markdown_table(*_frame_rows(_wide(summary, "test / rule"))),
        "",
        "Per scheme and variant:",
        "",
        markdown_table(*_frame_rows(_wide(result.tables["peeking"], "row"))),
        "",
    ]


def _frame_rows(frame: pd.DataFrame) -> tuple[list[str], list[list[Any]]]:
    return ["", *frame.columns], [[idx, *row.tolist()] for idx, row in frame.iterrows()]


def _markdown(result: GridResult) -> str:
    cfg = result.config
    n_cells = len(result.cells)
    rows = cfg.n_rows if cfg.n_rows is not None else f"whole files, {cfg.synthetic_rows} generated"
    lines = [
        "# Type I / type II errors (bifet2015 §4.1, Tables 2-4)",
        "",
        f"Learner `{cfg.learner}`, {cfg.n_folds} folds, alpha = {cfg.alpha}, "
        f"{cfg.runs} runs per stream, rows per stream: "
        f"{rows}"
        f"; {n_cells} cells. Each entry: ours (paper). 'no change' columns are type I error "
        "rates (lower is better); 'pnoise' columns are power, 1 - type II error (higher is "
        "better). Times are wall seconds of one pass, which serves both variants.",
        "",
    ]
    noise = {
        "training": "the filtered learner learns from labels flipped with probability pnoise "
        "to another class (MOA's AddNoiseFilter rule) and is scored on the clean labels",
        "predictions": "the filtered learner's predictions are replaced, with probability "
        "pnoise, by another class",
    }[cfg.noise_on]
    filtered = "A' (another seed)" if cfg.noise_learner == "other" else "A itself"
    drift = ("drifts where a stream of "
             f"{cfg.drift_length:,} rows has them (MOA's convention)"
             if cfg.drift_length else "drifts placed relative to the rows read")
    lines += [
        f"Type II pair: A against {filtered} through the noise filter: {noise}. "
        f"Synthetic streams: {drift}.",
        "",
        "Rows of Table 2 (each beside the paper's row of the same test and variant):",
        "",
        *[f"- `{t}`: {m}" for t, m in ROW_MEANINGS.items()
          if (result.tables.get("table2") is not None
              and result.tables["table2"]["row"].str.startswith(t + " ").any())],
        "",
        "Table 3 shows `mcnemar` (all pairs pooled): summing the folds' counts is what an "
        "evaluator that aggregates each fold's contingency table does, and the paper's "
        "explanation of McNemar's type I error (many instances) is about that count; the "
        "other poolings are Table 2's `mcnemar_row` and `mcnemar_fold` rows. "
        f"Sign rule of the grid: {cfg.sign_method} (`sign_critical`: the paper's w_alpha "
        "rule, Table 1; `sign_exact`: the exact binomial test); both are in Table 2.",
        "",
    ]
    if "paper_vs_distval" in result.tables:
        med, low, high = median_gap(result)
        _, slow, shigh = median_gap(result, streams=True)
        if np.isfinite(med):
            lines += [
                f"Median |paper - distval| over Table 2's {TABLE2_CELLS} cells (McNemar all "
                f"pairs, sign {cfg.sign_method}, Wilcoxon; the paper's 13-stream averages): "
                f"**{med:.3f}** (95 % interval from resampling the runs only: "
                f"{low:.3f}-{high:.3f}; the runs and the streams: {slow:.3f}-{shigh:.3f}; "
                "the paper's values held fixed). One row per cell of "
                "Tables 2-4: `paper_vs_distval.csv`; chart: `paper_vs_distval.png`.",
                "",
            ]
            like = _like_for_like(result.tables["paper_vs_distval"])
            if like:
                lines += [like, ""]
    labels = [label for label, _ in cfg.streams]
    if set(labels) != set(paper.PAPER_STREAMS):
        lines += [
            f"Streams run: {', '.join(labels)} ({len(labels)} of the paper's "
            f"{len(paper.PAPER_STREAMS)}). Table 2's values in parentheses are the paper's "
            f"averages over all of the paper's {len(paper.PAPER_STREAMS)} streams, ours over "
            f"these {len(labels)}; the Average rows of Tables 3 and 4 give the paper's mean "
            "over the same streams as ours.",
            "",
        ]
    for name in ("table2", "table3", "table4"):
        frame = result.tables.get(name)
        if frame is None:
            continue
        if name == "table2":
            body = frame[~frame.row.str.startswith("avg time")]
            lines += [f"## {paper.TITLES[name]}", "", _table(body), ""]
            lines += _effects_markdown(body)
            lines += time_markdown(result.config.schemes, result.cells)
            continue
        lines += [f"## {paper.TITLES[name]}", "", _table(frame), ""]
    return "\n".join(lines + _peeking_markdown(result))


def _like_for_like(table: pd.DataFrame) -> str:
    """Table 2's cells where the paper has per-stream values: distval against the paper's
    mean over the same streams and against its 13-stream average ('' if none)."""
    t = table[(table["table"] == "table2") & table["distval"].notna()
              & table["paper_same_streams"].notna()]
    if not len(t):
        return ""
    same = float(np.median(np.abs(t["paper_same_streams"] - t["distval"])))
    all13 = float(np.median(np.abs(t["paper"] - t["distval"])))
    return (f"Like against like: over the {len(t)} cells of Table 2 where the paper gives "
            "per-stream values (McNemar non-prequential, Table 3; Wilcoxon prequential, "
            f"Table 4), median |paper - distval| is **{same:.3f}** against the paper's mean "
            f"over the same {int(t['distval_streams'].iloc[0])} streams and {all13:.3f} "
            "against its 13-stream average (column `paper_same_streams` of "
            "`paper_vs_distval.csv`).")


#: Cells of bifet2015 Table 2 (6 test rows x 9 columns).
TABLE2_CELLS = 54


def _effects_markdown(table2: pd.DataFrame) -> list[str]:
    """Beside every entry of Table 2: the mean accuracy gap A - B, the folds' spread of
    it and the effect size d (means over the streams of the means over runs)."""
    if "d" not in table2.columns:
        return []
    f = table2.drop_duplicates(["pnoise", "scheme", "d", "gap"]).copy()
    f["row"] = np.where(f["row"].str.contains("non-prequential"), "non-prequential",
                        "prequential")
    f = f.drop_duplicates(["row", "pnoise", "scheme"])
    f["ours"] = 0.0
    text = [f"{g:+.4f} / {sd:.4f} / {d:+.2f}" if np.isfinite(d) else "–"
            for g, sd, d in zip(f["gap"], f["spread"], f["d"])]
    f["col"] = [paper._label(c, sc) for c, sc in zip(f["pnoise"], f["scheme"])]
    f["text"] = text
    wide = f.pivot(index="row", columns="col", values="text")
    wide = wide.loc[list(dict.fromkeys(f["row"])), list(dict.fromkeys(f["col"]))]
    return [
        "Why an entry is high or low: mean accuracy gap A - B / mean standard deviation of "
        "the fold differences / effect size d = gap / spread (Wilcoxon's power on 10 normal "
        "fold differences is 0.28 at d = 0.5, 0.78 at d = 1 and 1.00 at d = 2):",
        "",
        paper.markdown_table(wide),
        "",
    ]
