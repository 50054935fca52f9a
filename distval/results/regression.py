"""The result of a regression run: its snapshots, summary, text and results directory.

A regression run (:mod:`distval.aggregator.regression`) yields the same snapshots as a
classification run, its fold table in :data:`~distval.columns.REGRESSION_FOLD_SCHEMA`. A
:class:`RegressionResult` keeps every snapshot's tables in memory (Arrow tables on demand) or, run
with an output directory, reads them back from its :class:`~distval.results.writer.ResultWriter`
(its ``series``), which appends each snapshot's tables to ``folds``, ``tests``, ``paired`` and
``verdicts`` as they are produced and writes ``summary.json`` when the run ends, as for a
classification run. :func:`load_regression` reads a results directory back.
"""

from __future__ import annotations

import dataclasses
import json
import os
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from distval.aggregator.snapshot import Snapshot
from distval.columns import (
    PAIRED_SCHEMA,
    REGRESSION_FOLD_SCHEMA,
    TEST_SCHEMA,
    VERDICT_SCHEMA,
    Columns,
    rows_of,
)
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.metrics.regression import REGRESSION_MEASURES
from distval.results.provenance import provenance
from distval.results.schema import columns_of, finite_or_none, read_table, table
from distval.results.series import Series

__all__ = ["REGRESSION_SCHEMAS", "REGRESSION_SHOWN", "RegressionResult", "is_regression_run",
           "load_regression"]

#: The measures the text summary shows (mean ± sd over folds).
REGRESSION_SHOWN = ("mae", "rmse", "r2", "rel_rmse_mean", "rel_rmse_per")

#: The tables of a regression run and their schemas (no Q, no drift events).
REGRESSION_SCHEMAS = {"folds": REGRESSION_FOLD_SCHEMA, "tests": TEST_SCHEMA,
                      "paired": PAIRED_SCHEMA, "verdicts": VERDICT_SCHEMA}
_SCHEMAS = REGRESSION_SCHEMAS


@dataclass
class RegressionResult:
    """Everything a regression run produced (see the module)."""

    config: RunConfig
    output_dir: Path | None = None
    n_rows: int = 0
    elapsed: float = 0.0
    backend: str | None = None
    interrupted: bool = False
    evaluated_by: dict[str, int] = field(default_factory=dict)
    #: When the run's phases began, seconds since its start (:class:`distval.engine.run.Timeline`).
    timeline: dict[str, float] = field(default_factory=dict)
    final: Snapshot | None = None
    stream_name: str = ""
    #: Where the time series goes (a run's :class:`~distval.results.writer.ResultWriter`);
    #: None: kept here, in memory.
    series: Series | None = field(default=None, repr=False, compare=False)
    snapshot_seconds: list[float] = field(default_factory=list)
    _chunks: dict[str, list[Columns]] = field(
        default_factory=lambda: {name: [] for name in _SCHEMAS}, repr=False
    )

    def add(self, snapshot: Snapshot) -> None:
        """Take one check's snapshot."""
        self.final = snapshot
        if self.series is not None:
            self.series.append(snapshot)
            return
        for name, cols in (("folds", snapshot.folds), ("tests", snapshot.tests),
                           ("paired", snapshot.paired), ("verdicts", snapshot.verdicts)):
            if len(next(iter(cols.values()), ())):
                self._chunks[name].append(cols)

    def table(self, name: str) -> pa.Table:
        """One table of the whole time series (folds, tests, paired, verdicts)."""
        if self.series is not None:
            return self.series.table(name)
        return table(self._chunks[name], _SCHEMAS[name])

    def folds(self) -> pd.DataFrame:
        return self.table("folds").to_pandas()

    def tests(self) -> pd.DataFrame:
        return self.table("tests").to_pandas()

    def paired(self) -> pd.DataFrame:
        return self.table("paired").to_pandas()

    def verdicts(self) -> pd.DataFrame:
        return self.table("verdicts").to_pandas()

    def final_folds(self) -> pd.DataFrame:
        chunks = [self.final.folds] if self.final else []
        return table(chunks, REGRESSION_FOLD_SCHEMA).to_pandas()

    def summary(self) -> dict[str, Any]:
        """Mean and standard deviation over folds of the final measures, the final tests
        and verdicts."""
        final = self.final_folds()
        learners: dict[str, Any] = {}
        for label in self.config.labels:
            per: dict[str, Any] = {}
            for kind in dict.fromkeys(final["forgetting"].tolist()):
                sel = final[(final["learner"] == label) & (final["forgetting"] == kind)]
                out = {}
                for m in ("n", *REGRESSION_MEASURES):
                    v = sel[m].to_numpy(dtype=float)
                    v = v[np.isfinite(v)]
                    out[m] = {
                        "mean": finite_or_none(float(v.mean())) if len(v) else None,
                        "std": finite_or_none(float(v.std(ddof=1))) if len(v) > 1 else None,
                    }
                per[kind] = out
            learners[label] = per
        snap = self.final
        return {
            "task": "regression",
            "rows": self.n_rows,
            "elapsed_seconds": round(self.elapsed, 3),
            "timeline": dict(self.timeline),
            "interrupted": self.interrupted,
            "evaluated_by": dict(self.evaluated_by),
            "backend": self.backend,
            "config": self.config.to_dict(),
            "learners": learners,
            "tests": [{k: finite_or_none(v) for k, v in t.items()}
                      for t in (rows_of(snap.tests) if snap else [])],
            "friedman": snap.friedman if snap else None,
            "verdicts": [{k: finite_or_none(v) for k, v in t.items()}
                         for t in (rows_of(snap.verdicts) if snap else [])],
        }

    def to_text(self, verbose: bool = False, width: int = 100) -> str:
        """The summary as plain text: a table of the measures (mean ± sd over folds) under
        the run's forgetting, then the tests and one verdict line per pair, the sentences
        wrapped at word boundaries to ``width`` columns (as a classification run's)."""
        cfg = self.config
        s = self.summary()
        head = (f"{self.stream_name or cfg.stream_text}: {self.n_rows:,} rows, regression, "
                f"{cfg.scheme} {cfg.n_folds} folds, {cfg.forgetting} forgetting")
        cols = ["learner", *REGRESSION_SHOWN]
        rows = []
        for label, per in s["learners"].items():
            main = per.get(cfg.forgetting, {})
            rows.append([label, *(_mean_sd(main.get(m, {})) for m in REGRESSION_SHOWN)])
        widths = [max(len(str(r[i])) for r in [cols, *rows]) for i in range(len(cols))]
        lines = [*textwrap.wrap(head, width), ""]
        lines.append("  ".join(c.ljust(w) for c, w in zip(cols, widths)))
        lines += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)) for r in rows]
        tests = s["tests"]
        if tests:
            lines.append("")
            for t in tests:
                fav = f", favours {t['favours']}" if t.get("favours") else ""
                p = t["pvalue"]
                lines += textwrap.wrap(
                    f"{t['test']} {t['learner_a']} vs {t['learner_b']} on {t['measure']}: "
                    f"p {p if p is None else format(p, '.3g')}{fav}", width,
                    subsequent_indent="  ")
        if s["verdicts"]:
            lines.append("")
            for v in s["verdicts"]:
                lines += textwrap.wrap(v["line"], width, subsequent_indent="  ")
        return "\n".join(lines)

    def to_markdown(self) -> str:
        return "```\n" + self.to_text() + "\n```\n"

    def save(self, directory: str | os.PathLike[str], extra: dict[str, Any] | None = None
             ) -> None:
        """Write the results directory: config, the four tables, the summary."""
        d = Path(directory)
        d.mkdir(parents=True, exist_ok=True)
        data = self.config.to_dict() | (extra or {}) | {"provenance": provenance()}
        (d / "config.json").write_text(json.dumps(data, indent=2) + "\n")
        for name in _SCHEMAS:
            pq.write_table(self.table(name), d / f"{name}.parquet")
        (d / "summary.json").write_text(json.dumps(self.summary(), indent=2) + "\n")
        (d / "summary.md").write_text(self.to_markdown())


def is_regression_run(directory: str | os.PathLike[str]) -> bool:
    """Whether a results directory holds a regression run (its ``config.json`` says so)."""
    try:
        config = json.loads((Path(directory) / "config.json").read_text())
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and config.get("task") == "regression"


def load_regression(directory: str | os.PathLike[str]) -> RegressionResult:
    """A regression run's results directory read back: its tables (Parquet, or the Arrow
    streams of an interrupted run), configuration and the final snapshot (the rows of the
    last check; the Friedman test from ``summary.json``).

    >>> import distval, tempfile
    >>> d = tempfile.mkdtemp()
    >>> res = distval.evaluate(stream="friedman", n_rows=400, learners=("linreg", "htr"),
    ...     task="regression", n_folds=2, test_every=200, output_dir=d, overwrite=True)
    >>> back = load_regression(d)
    >>> back.folds().equals(res.folds()), back.summary()["learners"] == res.summary()["learners"]
    (True, True)
    """
    from distval.config import read_config

    d = Path(directory)
    try:
        saved = read_config(json.loads((d / "config.json").read_text()),
                            str(d / "config.json"), strict=False)
        summary = json.loads((d / "summary.json").read_text()) if (
            d / "summary.json").exists() else {}
    except OSError as exc:
        raise DistvalError(f"cannot read {d}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise DistvalError(f"{d} holds a damaged JSON file: {exc}") from None
    names = {f.name for f in dataclasses.fields(RunConfig)}
    config = RunConfig.from_dict({k: v for k, v in saved.items() if k in names})
    result = RegressionResult(config, output_dir=d, backend=saved.get("backend"),
                              stream_name=str(saved.get("stream_name") or ""))
    for name, schema in REGRESSION_SCHEMAS.items():
        if (d / f"{name}.parquet").exists() or (d / f"{name}.arrows").exists():
            got = read_table(d, name).select(schema.names).cast(schema)
            result._chunks[name].append(columns_of(got))
    result.final = _last_snapshot(result, summary.get("friedman"))
    result.n_rows = int(summary.get("rows") or (result.final.position if result.final else 0))
    result.elapsed = float(summary.get("elapsed_seconds") or 0.0)
    result.interrupted = summary.get("interrupted") is not False
    result.evaluated_by = dict(summary.get("evaluated_by") or {})
    return result


def _last_snapshot(result: RegressionResult, friedman: Any) -> Snapshot | None:
    """The snapshot of the last check in ``result``'s tables (None: no check yet)."""
    folds = result.table("folds")
    if not folds.num_rows:
        return None
    import pyarrow.compute as pc

    last = pc.max(folds["position"]).as_py()
    at = {name: columns_of(t.filter(pc.equal(t["position"], last)))
          for name in REGRESSION_SCHEMAS for t in [result.table(name)]}
    return Snapshot(last, at["folds"], at["tests"], friedman, paired=at["paired"],
                    verdicts=at["verdicts"])


def _mean_sd(d: dict[str, float | None]) -> str:
    mean, sd = d.get("mean"), d.get("std")
    if mean is None:
        return "-"
    return f"{mean:.4g} ± {sd:.2g}" if sd is not None else f"{mean:.4g}"
