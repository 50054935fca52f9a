"""Reading a results directory back: :func:`load_results` and the :class:`SavedRun` it gives.

Directories of every earlier version load: tests written before ``q.parquet`` existed are
upgraded to today's columns.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from distval.config import read_config
from distval.errors import DistvalError
from distval.results.schema import (
    COST_SCHEMA,
    EVENT_SCHEMA,
    PAIRED_SCHEMA,
    Q_SCHEMA,
    TEST_SCHEMA,
    VERDICT_SCHEMA,
    read_table,
)
from distval.tasks import Task, task_of

if TYPE_CHECKING:  # imported where a run is read back, not by every command's start
    import pandas as pd

    from distval.results.answer import Answer

__all__ = ["SavedRun", "has_table", "load_results"]


class SavedRun:
    """What a results directory holds, as pandas DataFrames.

    Attributes: ``directory``, ``config`` (dict of ``config.json``), ``folds``, ``tests``,
    ``q`` (the Q statistic), ``events`` (drift detections), ``paired`` (each pair's paired
    windows per fold) and ``verdicts`` (each pair's confidence sequence and verdict line)
    (DataFrames, possibly empty;
    tests of results written before ``q.parquet`` existed are upgraded), ``summary``
    (``summary.json``, None if the run was cut off before writing it), ``forgetting`` (the
    run's forgetting mechanism), ``labels`` (learners in run order).
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        config: dict[str, Any],
        folds: pd.DataFrame,
        tests: pd.DataFrame,
        summary: dict[str, Any] | None = None,
        *,
        q: pd.DataFrame | None = None,
        events: pd.DataFrame | None = None,
        paired: pd.DataFrame | None = None,
        verdicts: pd.DataFrame | None = None,
        cost: pd.DataFrame | None = None,
    ) -> None:
        import pandas as pd

        self.directory = Path(directory)
        self.config = config
        self.summary = summary
        self.folds = folds
        tests, old_q = _upgrade_tests(tests, config)
        self.tests = _with_decision_columns(tests)
        self.q: pd.DataFrame = q if q is not None and len(q) else old_q
        self.events: pd.DataFrame = (
            events if events is not None else pd.DataFrame(columns=EVENT_SCHEMA.names)
        )
        self.paired: pd.DataFrame = (
            paired if paired is not None else pd.DataFrame(columns=PAIRED_SCHEMA.names)
        )
        self.verdicts: pd.DataFrame = (
            verdicts if verdicts is not None else pd.DataFrame(columns=VERDICT_SCHEMA.names)
        )
        #: What each learner and fold cost over time (:data:`COST_SCHEMA`; empty if not
        #: measured).
        self.cost: pd.DataFrame = (
            cost if cost is not None else pd.DataFrame(columns=COST_SCHEMA.names)
        )
        kinds = list(dict.fromkeys(folds["forgetting"]))
        self.forgetting: str = config.get("forgetting") or next(
            (k for k in kinds if k != "cumulative"), "cumulative"
        )
        if self.forgetting not in kinds:
            self.forgetting = kinds[0]
        labels = list(config.get("labels") or [])
        present = list(dict.fromkeys(folds["learner"]))
        self.labels: list[str] = [lab for lab in labels if lab in present] or present

    @property
    def task(self) -> Task:
        """The run's task (:func:`~distval.tasks.task_of` its configuration)."""
        return task_of(self.config)

    @property
    def primary(self) -> pd.DataFrame:
        """Fold rows under the run's forgetting mechanism."""
        return self.folds[self.folds["forgetting"] == self.forgetting]

    @property
    def final_position(self) -> int:
        return int(self.folds["position"].max())

    def answer(self) -> Answer:
        """The run's answer (:class:`~distval.results.answer.Answer`), from its summary and
        last paired table; a run killed before its summary: from its tables' last rows."""
        from distval.results.answer import Answer
        from distval.statistics.verdict import short_names

        paired = self.paired
        last = paired[paired["position"] == paired["position"].max()] if len(paired) else paired
        columns = {c: last[c].to_numpy() for c in last.columns} if len(last) else None
        summary = dict(self.summary or self._final_summary())
        summary.setdefault("task", self.task.name)
        summary.setdefault("config", self.config)
        return Answer.build(summary, columns, short_names(self.labels))

    def _final_summary(self) -> dict[str, Any]:
        """What the summary would hold of the last check: mean and sd over folds of each
        measure, the last verdict rows and the cost so far."""
        from distval.results.cost import cost_summary

        f = self.folds[self.folds["position"] == self.final_position]
        learners: dict[str, Any] = {}
        measures = [m for m in self.task.measures if m in f and f[m].dtype.kind == "f"]
        for (label, kind), g in f.groupby(["learner", "forgetting"], sort=False):
            learners.setdefault(str(label), {})[str(kind)] = {
                m: {"mean": float(g[m].mean()) if g[m].notna().any() else None,
                    "std": float(g[m].std()) if g[m].notna().sum() > 1 else None}
                for m in measures}
        v = self.verdicts
        last = v[v["position"] == v["position"].max()] if len(v) else v
        return {"learners": learners, "verdicts": last.to_dict("records"),
                "cost": cost_summary(self.cost)}

    @property
    def interrupted_at(self) -> int | None:
        """The row at which the run stopped if it did not finish, else None: the rows its
        summary counts, or, without a summary (a killed run), its last check's row."""
        if self.summary is None:
            return self.final_position
        if self.summary.get("interrupted"):
            return int(self.summary.get("rows") or self.final_position)
        return None


def _with_decision_columns(tests: pd.DataFrame) -> pd.DataFrame:
    """Tests written before ``--sequential`` existed: their decisions were fixed-alpha ones
    (``anytime_valid`` False; ``boundary`` unknown, NaN)."""
    if "boundary" in tests.columns and "anytime_valid" in tests.columns:
        return tests
    tests = tests.copy()
    if "boundary" not in tests.columns:
        tests["boundary"] = np.nan
    if "anytime_valid" not in tests.columns:
        tests["anytime_valid"] = False
    return tests


def _upgrade_tests(
    tests: pd.DataFrame, config: dict[str, Any]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Tests in today's columns and the Q rows, from a table of any version.

    Older results kept the Q statistic as ``q*`` test rows and had ``mean_a``/``mean_b``
    (the fold means, even on McNemar rows) and ``n``; their values are kept where they mean
    the same and left empty where they do not.
    """
    import pandas as pd

    empty_q = pd.DataFrame({f.name: pd.Series(dtype=object) for f in Q_SCHEMA})
    if tests is None or "mean_a" not in tests.columns:
        return tests, empty_q
    tests = tests.copy()
    is_q = tests["test"].astype(str).str.match(r"^q(_window|_fading)?$")
    old_q = tests[is_q]
    kind = old_q["test"].map({"q": "cumulative", "q_window": "window", "q_fading": "fading"})
    q = pd.DataFrame(
        {
            "position": old_q["position"],
            "learner_a": old_q["learner_a"],
            "learner_b": old_q["learner_b"],
            "forgetting": kind,
            "q": old_q["statistic"],
            "errors_a": np.nan,
            "errors_b": np.nan,
            "favours": np.where(
                old_q["statistic"] < 0,
                old_q["learner_a"],
                np.where(old_q["statistic"] > 0, old_q["learner_b"], None),
            ),
        }
    ).reset_index(drop=True)
    tests = tests[~is_q].reset_index(drop=True)
    mcnemar = tests["test"].astype(str).str.startswith("mcnemar")
    suffix = tests["test"].astype(str).str.extract(r"_(window|fading)$")[0].fillna("cumulative")
    tests["measure"] = np.where(mcnemar, "errors", config.get("measure", "accuracy"))
    tests["forgetting"] = np.where(mcnemar, suffix, config.get("forgetting", "adwin"))
    tests["value_a"] = tests.pop("mean_a").where(~mcnemar)
    tests["value_b"] = tests.pop("mean_b").where(~mcnemar)
    n = tests.pop("n") if "n" in tests else pd.Series(np.nan, index=tests.index)
    tests["favours"] = None
    tests["folds_used"] = n.where(~mcnemar)
    tests["discordant_pairs"] = n.where(mcnemar)
    tests = _with_decision_columns(tests)
    return tests[[f.name for f in TEST_SCHEMA]], q


def load_results(results_dir: str | os.PathLike[str]) -> SavedRun:
    """Read a run's output directory; a clear :class:`~distval.errors.DistvalError` if unusable.

    The directory of a robustness run (``distval run --permute``) stands for its
    ``original`` sub-directory, the run on the stream in its original order.

    >>> load_results("/no/such/dir")
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: results directory /no/such/dir does not exist
    """
    import pandas as pd

    d = Path(results_dir)
    if not d.exists():
        raise DistvalError(f"results directory {d} does not exist")
    if not d.is_dir():
        raise DistvalError(f"{d} is not a directory")
    if not has_table(d, "folds") and has_table(d / "original", "folds"):
        d = d / "original"  # a robustness run (--permute): report the original order
    if not has_table(d, "folds") and (d / "config.json").is_file():
        raise DistvalError(  # a run killed (or still starting) before it wrote anything
            f"{d} holds a run's configuration but no results: the run stopped before its "
            "first check"
        )
    if not has_table(d, "folds"):
        raise DistvalError(
            f"{d} holds no folds.parquet: not a distval results directory "
            "(make one with `distval run --output DIR`)"
        )
    config: dict[str, Any] = {}
    if (d / "config.json").exists():
        try:
            config = read_config(
                json.loads((d / "config.json").read_text()), str(d / "config.json"), strict=False
            )
        except (ValueError, RecursionError) as exc:
            raise DistvalError(f"{d / 'config.json'} is not valid JSON: {exc}") from None

    ids: dict[str, str] = {}  # each table's run id (its schema's metadata)

    def read(name: str) -> pd.DataFrame:
        table = read_table(d, name)
        found = (table.schema.metadata or {}).get(b"run_id")
        if found:
            ids[name] = found.decode(errors="replace")
        return table.to_pandas()

    folds = read("folds")
    tests = read("tests") if has_table(d, "tests") else pd.DataFrame(columns=TEST_SCHEMA.names)
    q = read("q") if has_table(d, "q") else None
    events = read("events") if has_table(d, "events") else None
    paired = read("paired") if has_table(d, "paired") else None
    verdicts = read("verdicts") if has_table(d, "verdicts") else None
    cost = read("cost") if has_table(d, "cost") else None
    if isinstance(config.get("run_id"), str):
        ids["config.json"] = config["run_id"]
    if len(set(ids.values())) > 1:  # tables of two runs copied together
        raise DistvalError(
            f"{d} mixes the tables of different runs ("
            + ", ".join(f"{k}: {v}" for k, v in ids.items())
            + "); refusing to read them as one run")
    if folds.empty:
        raise DistvalError(
            f"{d / 'folds.parquet'} has no rows: the run stopped before its first check"
        )
    task = task_of(config)
    missing = {"position", "learner", "fold", "forgetting", task.cumulative} - set(folds.columns)
    if missing:
        raise DistvalError(f"{d / 'folds.parquet'} lacks the columns {', '.join(sorted(missing))}")
    folds = folds.sort_values(["position", "learner", "fold"], kind="stable")
    tests = tests.sort_values("position", kind="stable") if len(tests) else tests
    summary = None
    if (d / "summary.json").exists():
        try:
            summary = json.loads((d / "summary.json").read_text())
        except ValueError:
            summary = None  # a summary cut off mid-write: the tables fall back on folds
    return SavedRun(
        d, config, folds.reset_index(drop=True), pd.DataFrame(tests), summary, q=q, events=events,
        paired=paired, verdicts=verdicts, cost=cost,
    )


def has_table(d: Path, name: str) -> bool:
    """Whether ``d`` holds table ``name``: its Parquet file, or an Arrow stream that got as
    far as its schema (a stream cut back to no row by a resumed run is still empty)."""
    stream = d / f"{name}.arrows"
    return (d / f"{name}.parquet").exists() or (stream.exists() and stream.stat().st_size > 0)

