"""Results of a run: kept in memory, appended to disk as they are produced, summarised.

An output directory holds:

- ``config.json``: the run's configuration (written first);
- ``folds.parquet``: per (position, learner, fold, forgetting) every measure — the time series;
- ``tests.parquet``: per (position, test, learner pair) statistic, p-value and decision; the
  rows ``q``, ``q_window`` and ``q_fading`` hold the Q statistic (no p-value);
- ``events.parquet`` (with drift detection): per detection its row, learner, fold, detector;
- ``summary.json`` and ``summary.md``: final measures (mean and standard deviation over folds)
  and final test decisions, written at the end (also after an interruption).

Parquet files are appended a row group at a time, at most a few seconds after the rows were
computed, so an interrupted run keeps what it had computed.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from distval.aggregator import Snapshot
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.metrics import MEASURES

__all__ = [
    "EVENT_SCHEMA",
    "FILES",
    "FOLD_SCHEMA",
    "TEST_SCHEMA",
    "EvaluationResult",
    "ResultWriter",
    "SavedRun",
    "claim_output",
    "finite_or_none",
    "load_results",
    "markdown_table",
]

FOLD_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner", pa.string()),
        ("fold", pa.int32()),
        ("forgetting", pa.string()),
        ("n", pa.float64()),
        ("width", pa.float64()),
        *[(m, pa.float64()) for m in MEASURES],
        ("recall_by_class", pa.list_(pa.float64())),
    ]
)
TEST_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("test", pa.string()),
        ("learner_a", pa.string()),
        ("learner_b", pa.string()),
        ("mean_a", pa.float64()),
        ("mean_b", pa.float64()),
        ("statistic", pa.float64()),
        ("pvalue", pa.float64()),
        ("reject", pa.bool_()),
        ("n", pa.int64()),
    ]
)
EVENT_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner", pa.string()),
        ("fold", pa.int32()),
        ("detector", pa.string()),
    ]
)
#: The files of a results directory (a report adds its own beside them).
FILES = (
    "config.json",
    "folds.parquet",
    "tests.parquet",
    "events.parquet",
    "summary.json",
    "summary.md",
)
SUMMARY_MEASURES = ("accuracy", "kappa", "kappa_m", "kappa_per", "kappa_plus", "recall_harm")


def markdown_table(columns, rows, align: str | None = None) -> str:
    """The one Markdown table writer: a header, a rule and one line per row.

    ``align`` has one character per column, ``l`` or ``r`` (default: every column left).

    >>> print(markdown_table(["a", "b"], [[1, "x"]], align="rl"))
    | a | b |
    |---:|---|
    | 1 | x |
    """
    cols = [str(c) for c in columns]
    rule = ["---:" if a == "r" else "---" for a in (align or "l" * len(cols))]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def finite_or_none(value):
    """``None`` for a float NaN or infinity (JSON has neither), else ``value`` unchanged.

    >>> finite_or_none(float("nan")), finite_or_none(0.5), finite_or_none("a")
    (None, 0.5, 'a')
    """
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        return None
    return float(value) if isinstance(value, np.floating) else value


@dataclass
class EvaluationResult:
    """What a run produced: the time series, the final snapshot and a summary.

    ``folds()`` and ``tests()`` return pandas DataFrames of the whole time series;
    ``final_folds()`` the last position only; ``summary()`` a JSON-ready dict.
    """

    config: RunConfig
    classes: list[str] = field(default_factory=list)
    n_rows: int = 0
    elapsed: float = 0.0
    fold_rows: list[dict] = field(default_factory=list)
    test_rows: list[dict] = field(default_factory=list)
    event_rows: list[dict] = field(default_factory=list)
    snapshot_seconds: list[float] = field(default_factory=list)  # wall time of each snapshot
    final: Snapshot | None = None
    interrupted: bool = False
    output_dir: Path | None = None
    #: Rows evaluated by each part of the backend: ``driver`` (this process) and ``actors``.
    evaluated_by: dict[str, int] = field(default_factory=dict)

    def add(self, snapshot: Snapshot) -> None:
        self.fold_rows.extend(snapshot.folds)
        self.test_rows.extend(snapshot.tests)
        self.event_rows.extend(snapshot.events)
        self.final = snapshot

    def save(self, directory, extra: dict | None = None) -> None:
        """Write this result (e.g. one computed in another process) as a results directory.

        ``extra`` is merged into ``config.json``.
        """
        writer = ResultWriter(directory, overwrite=True)
        writer.write_config(self.config, extra)
        writer.append(
            Snapshot(self.n_rows, self.fold_rows, self.test_rows, events=self.event_rows)
        )
        writer.close(self)

    def folds(self):
        return pa.Table.from_pylist(self.fold_rows, schema=FOLD_SCHEMA).to_pandas()

    def tests(self):
        return pa.Table.from_pylist(self.test_rows, schema=TEST_SCHEMA).to_pandas()

    def events(self):
        return pa.Table.from_pylist(self.event_rows, schema=EVENT_SCHEMA).to_pandas()

    def final_folds(self):
        rows = self.final.folds if self.final else []
        return pa.Table.from_pylist(rows, schema=FOLD_SCHEMA).to_pandas()

    def final_tests(self):
        rows = self.final.tests if self.final else []
        return pa.Table.from_pylist(rows, schema=TEST_SCHEMA).to_pandas()

    def summary(self) -> dict:
        """Mean and standard deviation over folds of the final measures, and final tests."""
        learners: dict[str, dict] = {}
        rows = self.final.folds if self.final else []
        for label in self.config.labels:
            per_forgetting: dict[str, dict] = {}
            for kind in dict.fromkeys(r["forgetting"] for r in rows):
                sel = [r for r in rows if r["learner"] == label and r["forgetting"] == kind]
                stats_ = {}
                for m in MEASURES:
                    v = np.array([r[m] for r in sel], dtype=float)
                    v = v[np.isfinite(v)]
                    stats_[m] = {
                        "mean": finite_or_none(float(v.mean())) if len(v) else None,
                        "std": finite_or_none(float(v.std(ddof=1))) if len(v) > 1 else None,
                    }
                per_forgetting[kind] = stats_
            learners[label] = per_forgetting
        return {
            "rows": self.n_rows,
            "elapsed_seconds": round(self.elapsed, 3),
            "rows_per_second": round(self.n_rows / self.elapsed, 1) if self.elapsed else None,
            "interrupted": self.interrupted,
            "evaluated_by": dict(self.evaluated_by),
            "classes": self.classes,
            "config": self.config.to_dict(),
            "learners": learners,
            "tests": [
                {k: finite_or_none(v) for k, v in t.items()}
                for t in (self.final.tests if self.final else [])
            ],
            "friedman": self.final.friedman if self.final else None,
            "detections": self._detection_counts(),
        }

    def _detection_counts(self) -> dict:
        counts: dict[str, dict[str, int]] = {}
        for e in self.event_rows:
            per = counts.setdefault(e["learner"], {})
            per[e["detector"]] = per.get(e["detector"], 0) + 1
        return counts

    def to_markdown(self) -> str:
        """The final measures and test decisions as Markdown tables."""
        s, cfg = self.summary(), self.config
        kind = cfg.forgetting
        head = f"{cfg.n_folds}-fold {cfg.scheme}{' prequential' if cfg.prequential else ''}"
        lines = [
            f"## distval: {cfg.stream or 'elec2'}, {head}, {self.n_rows} rows"
            f"{' (interrupted)' if self.interrupted else ''}",
            "",
            f"Measures under `{kind}` forgetting at the end of the stream, mean ± sd over folds; "
            "last column: cumulative accuracy.",
            "",
        ]

        def fmt(d):
            if d["mean"] is None:
                return "–"
            return f"{d['mean']:.4f}" + (f" ± {d['std']:.4f}" if d["std"] is not None else "")

        rows = []
        for label, per in s["learners"].items():
            if not per:
                continue
            main = per.get(kind, {})
            cum = per.get("cumulative", main)
            cells = [fmt(main[m]) for m in SUMMARY_MEASURES] if main else []
            rows.append([label, *cells, fmt(cum["accuracy"])])
        cols = ["learner", *SUMMARY_MEASURES, "accuracy (cumulative)"]
        lines.append(markdown_table(cols, rows))

        def decision(t):  # the Q statistic is not a test: no p-value, no decision
            if t["pvalue"] is None:
                return "–"
            return "yes" if t["reject"] else "no"

        if s["tests"]:
            lines += [
                "",
                f"Across-fold tests on `{cfg.measure}` (alpha = {cfg.alpha}):",
                "",
            ]
            rows = []
            for t in s["tests"]:
                p = "–" if t["pvalue"] is None else f"{t['pvalue']:.4g}"
                st = "–" if t["statistic"] is None else f"{t['statistic']:.4g}"
                rows.append([t["learner_a"], t["learner_b"], t["test"], st, p, decision(t)])
            cols = ["A", "B", "test", "statistic", "p-value", "reject H0"]
            lines.append(markdown_table(cols, rows))
        lines.append("")
        lines.append(
            f"{self.n_rows} rows in {self.elapsed:.1f} s ({s['rows_per_second'] or 0:.0f} rows/s)."
        )
        return "\n".join(lines) + "\n"


def claim_output(directory, owned, *, overwrite: bool = False, resumable: bool = False) -> Path:
    """The one output-directory policy of every command; returns the directory, created.

    ``owned`` names the files and folders the command writes there. A path that is not a
    directory is refused. Files of anything else refuse the directory unless ``overwrite``.
    ``overwrite`` deletes the owned files (folders are left for their own writers to
    replace). Without it, owned files refuse the directory too, unless the command is
    ``resumable`` (it then checks its stored settings itself and goes on where it stopped).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "notes.txt").write_text("mine")
    4
    >>> try:
    ...     claim_output(d, {"summary.json"}, resumable=True)
    ... except DistvalError as e:
    ...     print(str(e)[-74:])
    holds files of another run (notes.txt); choose another or pass --overwrite
    """
    d = Path(directory)
    if d.exists() and not d.is_dir():
        raise DistvalError(f"output path {d} exists and is not a directory")
    present = sorted(p.name for p in d.iterdir()) if d.exists() else []
    foreign = [n for n in present if n not in owned]
    if present and not overwrite:
        if not resumable:
            raise DistvalError(
                f"output directory {d} exists and is not empty "
                "(choose another or pass --overwrite)"
            )
        if foreign:
            raise DistvalError(
                f"output directory {d} holds files of another run ({foreign[0]}); "
                "choose another or pass --overwrite"
            )
    if overwrite:
        for name in owned:
            if (d / name).is_file():
                (d / name).unlink()
    d.mkdir(parents=True, exist_ok=True)
    return d


class ResultWriter:
    """Appends snapshots to Parquet files in an output directory.

    The directory must be new or empty unless ``overwrite`` (then this writer's own files
    are replaced, other files are left alone).
    """

    def __init__(self, directory, *, overwrite: bool = False, flush_seconds: float = 2.0):
        self.dir = claim_output(directory, FILES, overwrite=overwrite)
        self.flush_seconds = flush_seconds
        self._folds: list[dict] = []
        self._tests: list[dict] = []
        self._events: list[dict] = []
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._last_flush = time.monotonic()

    def write_config(self, config: RunConfig, extra: dict | None = None) -> None:
        data = config.to_dict() | (extra or {})
        (self.dir / "config.json").write_text(json.dumps(data, indent=2) + "\n")

    def append(self, snapshot: Snapshot) -> None:
        self._folds.extend(snapshot.folds)
        self._tests.extend(snapshot.tests)
        self._events.extend(snapshot.events)
        if time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        for name, rows, schema in (
            ("folds.parquet", self._folds, FOLD_SCHEMA),
            ("tests.parquet", self._tests, TEST_SCHEMA),
            ("events.parquet", self._events, EVENT_SCHEMA),
        ):
            if name == "events.parquet" and name not in self._writers and not rows:
                continue  # only runs with drift detection (and a detection) get the file
            if name not in self._writers:
                self._writers[name] = pq.ParquetWriter(self.dir / name, schema)
            if rows:
                self._writers[name].write_table(pa.Table.from_pylist(rows, schema=schema))
                rows.clear()
        self._last_flush = time.monotonic()

    def close(self, result: EvaluationResult | None = None) -> None:
        self.flush()
        for w in self._writers.values():
            w.close()
        self._writers.clear()
        if result is not None:
            summary = result.summary()
            (self.dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
            (self.dir / "summary.md").write_text(result.to_markdown())


# -- reading a results directory back -------------------------------------------------------


class SavedRun:
    """What a results directory holds, as pandas DataFrames.

    Attributes: ``directory``, ``config`` (dict of ``config.json``), ``folds`` and ``tests``
    (DataFrames, possibly empty), ``summary`` (``summary.json``, None if the run was cut off
    before writing it), ``forgetting`` (the run's forgetting mechanism), ``labels``
    (learners in run order).
    """

    def __init__(self, directory, config: dict, folds, tests, summary: dict | None = None) -> None:
        self.directory = Path(directory)
        self.config = config
        self.summary = summary
        self.folds = folds
        self.tests = tests
        kinds = list(dict.fromkeys(folds["forgetting"]))
        self.forgetting = config.get("forgetting") or next(
            (k for k in kinds if k != "cumulative"), "cumulative"
        )
        if self.forgetting not in kinds:
            self.forgetting = kinds[0]
        labels = list(config.get("labels") or [])
        present = list(dict.fromkeys(folds["learner"]))
        self.labels = [lab for lab in labels if lab in present] or present

    @property
    def primary(self):
        """Fold rows under the run's forgetting mechanism."""
        return self.folds[self.folds["forgetting"] == self.forgetting]

    @property
    def final_position(self) -> int:
        return int(self.folds["position"].max())


def load_results(results_dir) -> SavedRun:
    """Read a run's output directory; a clear :class:`~distval.errors.DistvalError` if unusable.

    The directory of a robustness run (``distval run --permute``) stands for its
    ``original`` sub-directory, the run on the stream in its original order.

    >>> load_results("/no/such/dir")
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: results directory /no/such/dir does not exist
    """
    d = Path(results_dir)
    if not d.exists():
        raise DistvalError(f"results directory {d} does not exist")
    if not d.is_dir():
        raise DistvalError(f"{d} is not a directory")
    if not (d / "folds.parquet").exists() and (d / "original" / "folds.parquet").exists():
        d = d / "original"  # a robustness run (--permute): report the original order
    if not (d / "folds.parquet").exists():
        raise DistvalError(
            f"{d} holds no folds.parquet: not a distval results directory "
            "(make one with `distval run --output DIR`)"
        )
    config = {}
    if (d / "config.json").exists():
        try:
            config = json.loads((d / "config.json").read_text())
        except ValueError as exc:
            raise DistvalError(f"{d / 'config.json'} is not valid JSON: {exc}") from None

    def read(name):
        try:
            return pq.read_table(d / name).to_pandas()
        except (OSError, pa.ArrowInvalid) as exc:
            if name == "tests.parquet" and not (d / name).exists():
                return pd.DataFrame(columns=TEST_SCHEMA.names)
            raise DistvalError(f"cannot read {d / name}: {exc}") from None

    folds = read("folds.parquet")
    tests = read("tests.parquet")
    if folds.empty:
        raise DistvalError(
            f"{d / 'folds.parquet'} has no rows: the run stopped before its first check"
        )
    missing = {"position", "learner", "fold", "forgetting", "accuracy"} - set(folds.columns)
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
    return SavedRun(d, config, folds.reset_index(drop=True), pd.DataFrame(tests), summary)
