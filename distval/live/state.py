"""What the live page shows, kept as the run goes: :class:`LiveState`, a
:class:`~distval.engine.observer.RunObserver`.

At every snapshot it keeps a few numbers of the tables the results directory holds (the
same arrays, read at the same check): per learner and fold the run's measure under its
forgetting, their mean over folds, the no-change and majority baselines (accuracy), each
pair's confidence sequence and verdict line, the across-fold tests' p-values and the cost
rows, whose price lines and table the run's answer model renders as ``summary.md`` does
(:class:`~distval.results.answer.Answer`). The page asks for them as JSON
(:meth:`LiveState.to_json`) at most once a second; the charts are serialized once per
snapshot, the progress (rows, rate, ETA, phase) at every request.

A finished or interrupted run's directory gives the same state (:meth:`LiveState.from_directory`),
its snapshots read back from its tables.

>>> import distval, json
>>> state = LiveState()
>>> res = distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"), n_folds=3,
...                        test_every=200, observer=state)
>>> page = json.loads(state.to_json())
>>> page["status"]["state"], page["status"]["rows"], page["charts"]["folds"]["nb"]["mean"]["x"]
('finished', 600, [200, 400, 600])
>>> page["charts"]["verdicts"] == [v["line"] for v in res.summary()["verdicts"]]
True
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from distval.aggregator.snapshot import Snapshot
from distval.columns import COST_SCHEMA, Columns, concat, empty_columns, rows_of
from distval.config import RunConfig, read_config
from distval.engine.observer import Observed, Progress
from distval.errors import DistvalError
from distval.results.answer import Answer, cost_table
from distval.results.cost import learner_costs
from distval.statistics.verdict import short_names
from distval.tasks import task_named

__all__ = ["LiveState", "snapshots_of"]

def _num(v: Any) -> float | None:
    """A finite float, or None (JSON has no NaN)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


class _Series:
    """Points of one line: x (rows) and y."""

    __slots__ = ("x", "y")

    def __init__(self) -> None:
        self.x: list[int] = []
        self.y: list[float | None] = []

    def add(self, x: int, y: Any) -> None:
        self.x.append(x)
        self.y.append(_num(y))

    def json(self, scale: float = 1.0) -> dict[str, list[Any]]:
        """The points, ``y`` times ``scale`` (a share drawn in percent)."""
        y = self.y if scale == 1 else [None if v is None else scale * v for v in self.y]
        return {"x": self.x, "y": y}


class LiveState:
    """The live page's numbers, fed by a run (as its observer) or by a saved directory.

    ``directory``: the run's output directory, named in the interrupted state's message
    (``distval run --resume DIR``). ``title``: the page's heading (default: the stream).
    Thread-safe: the run's thread adds snapshots, the server's threads read.
    """

    page: str = "page.html"

    def __init__(self, directory: str | os.PathLike[str] | None = None,
                 title: str | None = None) -> None:
        self.directory = Path(directory).absolute() if directory is not None else None
        self.title = title
        self._lock = threading.Lock()
        self._run: Observed | None = None
        self._fixed: Progress | None = None  # a saved run's progress
        self.config: RunConfig | None = None
        self.version = 0  # one more at every snapshot and at the end
        self._charts_json = "null"
        self._charts_version = -1
        self._folds: dict[str, dict[int, _Series]] = {}
        self._means: dict[str, _Series] = {}
        self._baselines: dict[str, _Series] = {}
        self._pairs: dict[tuple[str, str], dict[str, Any]] = {}
        self._tests: dict[str, _Series] = {}
        self._verdicts: list[str] = []
        self._verdict_rows: list[dict[str, Any]] = []
        self._cost: list[Columns] = []  # the cost rows of every snapshot so far
        self._baseline_line: str | None = None
        #: CPU seconds the run's thread spent keeping the page's numbers (:meth:`add`).
        self.observer_seconds = 0.0

    # -- the observer -------------------------------------------------------------------
    def started(self, run: Observed) -> None:
        with self._lock:
            self._run = run
            self.config = run.config
            if self.title is None:
                self.title = run.stream.name
            self._cost = self._cost_before(run)
            self.version += 1

    def _cost_before(self, run: Observed) -> list[Columns]:
        """A resumed run's cost rows up to its checkpoint, from its directory: the RAM-hours
        add each check's bytes times the CPU spent since the one before, from the first."""
        checkpoint = getattr(run, "resumed_from", None)
        if checkpoint is None or self.directory is None:
            return []
        from distval.results.schema import columns_of, read_table

        try:
            cost = columns_of(read_table(self.directory, "cost"))
        except DistvalError:  # a run that measured nothing
            return []
        keep = np.asarray(cost.get("position", ()), dtype=np.int64) <= checkpoint.rows
        return [{k: np.asarray(v)[keep] for k, v in cost.items()}] if keep.any() else []

    def snapshot(self, run: Observed, snap: Snapshot) -> None:
        self.add(snap)

    def closed(self, run: Observed) -> None:
        with self._lock:
            self.version += 1

    # -- the numbers ----------------------------------------------------------------------
    def add(self, snap: Snapshot) -> None:
        """Keep what the page draws of ``snap`` (a check of the run)."""
        config = self.config
        if config is None:
            raise RuntimeError("LiveState.add before the run started")
        x = int(snap.position)
        start = time.thread_time()
        with self._lock:
            self._add_folds(x, snap.folds, config)
            for v in rows_of(snap.verdicts) if len(snap.verdicts) else []:
                key = (str(v["learner_a"]), str(v["learner_b"]))
                pair = self._pairs.setdefault(
                    key, {"mean": _Series(), "lower": _Series(), "upper": _Series()})
                for part in ("mean", "lower", "upper"):
                    pair[part].add(x, v[part])
                pair["margin"] = _num(v.get("margin"))
                pair["decision"] = v.get("decision")
            if len(snap.verdicts):
                self._verdicts = [str(line) for line in snap.verdicts["line"].tolist()]
                self._verdict_rows = rows_of(snap.verdicts)
            if len(snap.cost.get("position", ())):
                self._cost.append(snap.cost)
            tests = rows_of(snap.tests) if len(snap.tests.get("test", ())) else []
            for t in tests:
                # across folds only: McNemar pools the rows (its p-values would set the
                # scale), an e-value row has none
                if not str(t["test"]).startswith("mcnemar") and _num(t.get("pvalue")) is not None:
                    name = f"{t['test']} {t['learner_a']}/{t['learner_b']}"
                    self._tests.setdefault(name, _Series()).add(x, t["pvalue"])
            self.version += 1
            self.observer_seconds += time.thread_time() - start

    def _add_folds(self, x: int, folds: Columns, config: RunConfig) -> None:
        measure = config.measure
        if not len(folds.get("learner", ())) or measure not in folds:
            return
        learner = np.asarray(folds["learner"], dtype=object)
        forgetting = np.asarray(folds["forgetting"], dtype=object)
        fold = np.asarray(folds["fold"])
        values = np.asarray(folds[measure], dtype=np.float64)
        primary = forgetting == config.forgetting
        for k in dict.fromkeys(learner[primary].tolist()):
            rows = primary & (learner == k)
            per = self._folds.setdefault(str(k), {})
            for f, v in zip(fold[rows].tolist(), values[rows].tolist()):
                per.setdefault(int(f), _Series()).add(x, v)
            finite = values[rows][np.isfinite(values[rows])]
            self._means.setdefault(str(k), _Series()).add(
                x, float(finite.mean()) if len(finite) else None)
        if measure == "accuracy":  # the baselines, over the same rows as the folds' accuracy
            for col, name in (("p_per", "no-change (Persistent)"), ("p_maj", "majority class")):
                if col in folds:
                    v = np.asarray(folds[col], dtype=np.float64)[primary]
                    v = v[np.isfinite(v)]
                    self._baselines.setdefault(name, _Series()).add(
                        x, float(v.mean()) if len(v) else None)
        self._baseline_line = self._baseline_text(folds, config)

    @staticmethod
    def _baseline_text(folds: Columns, config: RunConfig) -> str | None:
        """The results' baseline line (the task's :meth:`~distval.tasks.base.Task.baseline`)
        from the cumulative means over folds at this check."""
        if "forgetting" not in folds or "learner" not in folds:
            return None
        learner = np.asarray(folds["learner"], dtype=object)
        cum = np.asarray(folds["forgetting"], dtype=object) == "cumulative"
        numeric = [k for k, v in folds.items()
                   if np.asarray(v).dtype.kind == "f" and k not in ("fold", "row")]
        learners: dict[str, Any] = {}
        for k in dict.fromkeys(learner[cum].tolist()):
            rows = cum & (learner == k)
            means = {}
            for m in numeric:
                v = np.asarray(folds[m], dtype=np.float64)[rows]
                v = v[np.isfinite(v)]
                means[m] = {"mean": float(v.mean()) if len(v) else None}
            learners[str(k)] = {"cumulative": means}
        if not learners:
            return None
        try:
            out = task_named(config.task).baseline(learners, short_names(config.labels))
        except (TypeError, ValueError):  # a measure without a value yet
            return None
        return str(out["line"]) if out and out.get("line") else None

    # -- what the page reads ------------------------------------------------------------------
    def progress(self) -> Progress | None:
        """Where the run stands (None before it started)."""
        if self._fixed is not None:
            return self._fixed
        return self._run.progress() if self._run is not None else None

    def status(self) -> dict[str, Any]:
        """Rows, rate, ETA, phase, engine and state, with the message of an interrupted run."""
        p = self.progress()
        if p is None:
            return {"state": "starting", "version": self.version, "title": self.title}
        where = {"driver": "in-process (driver)", "actors": "Ray actors"}
        engine = ", ".join(f"{where.get(k, k)} {v:,} rows" for k, v in p.evaluated_by.items())
        phase = p.phase or ("driver" if p.backend in ("inprocess", "auto") else "")
        message = "finished" if p.state == "finished" else ""
        if p.state == "interrupted":
            message = f"interrupted at row {p.rows}"
            if self.directory is not None:
                message += f" \u2014 continue with `distval run --resume {self.directory}`"
        return {
            "state": p.state, "message": message, "version": self.version,
            "title": self.title, "rows": p.rows, "total": p.total,
            "seconds": round(p.seconds, 1), "rate": _num(p.rate), "eta": _num(p.eta),
            "phase": phase, "backend": p.backend, "engine": engine,
            "directory": str(self.directory) if self.directory else None,
        }

    def charts(self) -> dict[str, Any]:
        """Every line the page draws (lists of points), in the units the text prints them
        (the task's :meth:`~distval.tasks.base.Task.show`: a share in percent, a difference
        of two in points) with each chart's axis title, the verdict and baseline lines."""
        config = self.config
        names = short_names(config.labels) if config else {}
        task = task_named(config.task) if config else None
        measure = config.measure if config else ""
        tested = task.tested_measure(measure) if task else measure
        scale = task.scale(measure) if task else 1.0  # the folds' measure and baselines
        cs = task.scale(tested) if task else 1.0  # the verdicts' tested difference
        margin = {k: None if p["margin"] is None else cs * p["margin"]
                  for k, p in self._pairs.items()}
        return {
            "measure": measure or None,
            "forgetting": config.forgetting if config else None,
            "alpha": config.alpha if config else None,
            "axes": {"folds": task.axis(measure) if task else measure,
                     "verdict": task.axis(tested, difference=True) if task else "difference"},
            "folds": {k: {"folds": {str(f): s.json(scale) for f, s in per.items()},
                          "mean": self._means[k].json(scale)}
                      for k, per in self._folds.items() if k in self._means},
            "baselines": {k: s.json(scale) for k, s in self._baselines.items()},
            "pairs": [{"name": f"{names.get(a, a)} vs {names.get(b, b)}",
                       "margin": margin[a, b], "decision": p["decision"],
                       **{part: p[part].json(cs) for part in ("mean", "lower", "upper")}}
                      for (a, b), p in self._pairs.items()],
            "tests": {k: s.json() for k, s in self._tests.items()},
            "verdicts": list(self._verdicts),
            "baseline": self._baseline_line,
            **self._priced(),
        }

    def _priced(self) -> dict[str, Any]:
        """What the learners cost so far, rendered from the run's answer model
        (:class:`~distval.results.answer.Answer`) as every other surface renders it:
        ``prices``, the line after each verdict (None where a learner was not measured),
        and ``cost``, the table (caption, columns, rows, alignment); every price None and
        no table for a run that measures nothing."""
        config = self.config
        if config is None or not self._cost:
            return {"prices": [None] * len(self._verdicts), "cost": None}
        cost = learner_costs(pd.DataFrame(concat(self._cost, COST_SCHEMA)))
        summary = {
            "config": {"task": config.task, "measure": config.measure,
                       "forgetting": config.forgetting, "learners_labels": list(config.labels)},
            "learners": {label: {} for label in config.labels},
            "verdicts": self._verdict_rows,
            "cost": cost,
        }
        answer = Answer.build(summary, names=short_names(config.labels))
        table = cost_table(answer)
        return {
            "prices": [answer.price(pair) for pair in answer.pairs],
            "cost": None if table is None else dict(zip(("caption", "columns", "rows", "align"),
                                                        table)),
        }

    def to_json(self, since: int = -1) -> str:
        """The page's state as JSON: the status always, the charts only when they changed
        after version ``since`` (else null)."""
        with self._lock:
            status = self.status()
            charts = "null"
            if self.version > since:
                if self._charts_version != self.version:
                    self._charts_json = json.dumps(self.charts(), allow_nan=False)
                    self._charts_version = self.version
                charts = self._charts_json
        return f'{{"status": {json.dumps(status)}, "charts": {charts}}}'

    @property
    def done(self) -> bool:
        """Whether the run has ended (finished or interrupted): nothing more will change."""
        p = self.progress()
        return p is not None and p.state != "running"

    # -- a saved run -------------------------------------------------------------------------
    @classmethod
    def from_directory(cls, directory: str | os.PathLike[str]) -> LiveState:
        """The state of the run saved in ``directory``, finished or interrupted (a run still
        going is shown as far as its tables go, as interrupted).

        >>> import distval, json, tempfile
        >>> d = tempfile.mkdtemp()
        >>> res = distval.evaluate(stream="sea", n_rows=400, learners=("nb", "majority"),
        ...                        n_folds=2, test_every=200, output_dir=d, overwrite=True)
        >>> page = json.loads(LiveState.from_directory(d).to_json())
        >>> lines = [v["line"] for v in res.summary()["verdicts"]]
        >>> page["status"]["state"], page["charts"]["verdicts"] == lines
        ('finished', True)
        """
        d = Path(directory)
        try:
            saved = read_config(json.loads((d / "config.json").read_text()),
                                str(d / "config.json"), strict=False)
            summary = json.loads((d / "summary.json").read_text()) \
                if (d / "summary.json").exists() else {}
        except OSError as exc:
            raise DistvalError(f"cannot read {d}: {exc.strerror or exc}") from None
        except (ValueError, RecursionError) as exc:
            raise DistvalError(f"{d} holds a damaged JSON file: {exc}") from None
        names = set(RunConfig.__dataclass_fields__)
        state = cls(d, title=str(saved.get("stream_name") or saved.get("stream") or d.name))
        state.config = RunConfig.from_dict({k: v for k, v in saved.items() if k in names})
        last = 0
        for snap in snapshots_of(d):
            state.add(snap)
            last = snap.position
        finished = summary.get("interrupted") is False
        state._fixed = Progress(
            int(summary.get("rows") or last), None, float(summary.get("elapsed_seconds") or 0),
            "", str(summary.get("backend") or saved.get("backend") or ""),
            dict(summary.get("evaluated_by") or {}), "finished" if finished else "interrupted")
        state.version += 1
        return state


def snapshots_of(directory: str | os.PathLike[str]) -> Iterator[Snapshot]:
    """The snapshots of a results directory, one per check, from its fold, test and verdict
    tables (Parquet, or an interrupted run's Arrow streams); the fold tables of either task.
    """
    from distval.results.schema import columns_of, read_table

    d = Path(directory)
    tables: dict[str, Columns] = {}
    for name in ("folds", "tests", "verdicts", "cost"):
        if (d / f"{name}.parquet").exists() or (d / f"{name}.arrows").exists():
            tables[name] = columns_of(read_table(d, name))
    folds = tables.get("folds")
    if folds is None or not len(folds.get("position", ())):
        return
    positions = np.unique(folds["position"].astype(np.int64))
    split = {name: _by_position(cols, positions) for name, cols in tables.items()}
    for i, x in enumerate(positions.tolist()):
        parts = {name: split[name][i] for name in split}
        yield Snapshot(int(x), parts["folds"], parts.get("tests", {}),
                       verdicts=parts.get("verdicts", {}),
                       cost=parts.get("cost") or empty_columns(COST_SCHEMA))


def _by_position(columns: Columns, positions: np.ndarray) -> list[Columns]:
    """The rows of a table at each of ``positions``."""
    pos = np.asarray(columns["position"]).astype(np.int64) if "position" in columns \
        else np.zeros(0, dtype=np.int64)
    return [{k: np.asarray(v)[pos == x] for k, v in columns.items()} for x in positions]
