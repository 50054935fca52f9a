"""Results of a run: kept in memory, appended to disk as they are produced, summarised.

An output directory holds:

- ``config.json``: the run's configuration (written first);
- ``folds.parquet``: per (position, learner, fold, forgetting) every measure — the time series;
- ``tests.parquet``: per (position, test, learner pair) what the test compared (``measure``
  under ``forgetting``, A's and B's ``value``), statistic, p-value, decision, the learner the
  data favour and what the test counted (``folds_used`` or ``discordant_pairs``);
- ``q.parquet``: per (position, learner pair, forgetting) the Q statistic and both errors;
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
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    "Q_SCHEMA",
    "TEST_SCHEMA",
    "EvaluationResult",
    "ResultWriter",
    "SavedRun",
    "claim_output",
    "finite_or_none",
    "load_results",
    "markdown_table",
    "text_table",
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
        ("measure", pa.string()),  # what was compared: a fold measure, or McNemar's errors
        ("forgetting", pa.string()),  # over which rows: the run's mechanism, or McNemar's
        ("value_a", pa.float64()),  # A's value: mean over folds, or errors (faded: weighted)
        ("value_b", pa.float64()),
        ("statistic", pa.float64()),
        ("pvalue", pa.float64()),
        ("reject", pa.bool_()),
        ("favours", pa.string()),  # the learner the data favour (null: a tie)
        ("folds_used", pa.int64()),  # sign, Wilcoxon: non-tied folds; Friedman: folds
        ("discordant_pairs", pa.int64()),  # McNemar: (row, fold) pairs where A, B differ
        ("boundary", pa.float64()),  # the p-value limit `reject` used at this check
        ("anytime_valid", pa.bool_()),  # `reject` stays valid when the checks are watched
    ]
)
Q_SCHEMA = pa.schema(
    [
        ("position", pa.int64()),
        ("learner_a", pa.string()),
        ("learner_b", pa.string()),
        ("forgetting", pa.string()),
        ("q", pa.float64()),  # log(errors_a / errors_b); negative favours A (gama2013)
        ("errors_a", pa.float64()),
        ("errors_b", pa.float64()),
        ("favours", pa.string()),
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
    "q.parquet",
    "events.parquet",
    "summary.json",
    "summary.md",
)
#: What the decisions of each ``--sequential`` rule mean, for the summary and the report.
SEQUENTIAL_NOTES = {
    "none": "Each decision is a fixed-alpha test at this check: watching the checks and "
    "stopping at the first rejection errs more often than alpha (--sequential spending or "
    "evalue give decisions that stay valid).",
    "spending": "Decisions valid under peeking: each test's p-value met the alpha-spending "
    "limit of its check (Lan-DeMets; 'p limit' at the last check) at some check so far.",
    "evalue": "sign_evalue is valid at every check (an e-process over the folds' settled "
    "signs; its statistic is the e-value, H0 rejected once it reaches 1/alpha, its p-value "
    "1/largest e-value); the other rows are fixed-alpha tests at this check.",
}
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
    q_rows: list[dict] = field(default_factory=list)
    event_rows: list[dict] = field(default_factory=list)
    snapshot_seconds: list[float] = field(default_factory=list)  # wall time of each snapshot
    final: Snapshot | None = None
    interrupted: bool = False
    output_dir: Path | None = None
    #: Rows evaluated by each part of the backend: ``driver`` (this process) and ``actors``.
    evaluated_by: dict[str, int] = field(default_factory=dict)
    #: The backend that ran: "inprocess" or "ray" (None: not known).
    backend: str | None = None

    def add(self, snapshot: Snapshot) -> None:
        self.fold_rows.extend(snapshot.folds)
        self.test_rows.extend(snapshot.tests)
        self.q_rows.extend(snapshot.q)
        self.event_rows.extend(snapshot.events)
        self.final = snapshot

    def save(self, directory, extra: dict | None = None) -> None:
        """Write this result (e.g. one computed in another process) as a results directory.

        ``extra`` is merged into ``config.json``.
        """
        writer = ResultWriter(directory, overwrite=True)
        writer.write_config(self.config, extra)
        writer.append(
            Snapshot(
                self.n_rows, self.fold_rows, self.test_rows, events=self.event_rows, q=self.q_rows
            )
        )
        writer.close(self)

    def folds(self):
        return pa.Table.from_pylist(self.fold_rows, schema=FOLD_SCHEMA).to_pandas()

    def tests(self):
        return pa.Table.from_pylist(self.test_rows, schema=TEST_SCHEMA).to_pandas()

    def q(self):
        """The Q statistic of every pair over time (cumulative, window, fading)."""
        return pa.Table.from_pylist(self.q_rows, schema=Q_SCHEMA).to_pandas()

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
            "backend": self.backend,
            "classes": self.classes,
            "config": self.config.to_dict(),
            "learners": learners,
            "tests": [
                {k: finite_or_none(v) for k, v in t.items()}
                for t in (self.final.tests if self.final else [])
            ],
            "q": [
                {k: finite_or_none(v) for k, v in t.items()}
                for t in (self.final.q if self.final else [])
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

    def _blocks(self) -> list[tuple[str, list[str], list[list[str]], str]]:
        """The summary as (caption, columns, rows, alignment) tables, for every renderer."""
        s, cfg = self.summary(), self.config
        kind = cfg.forgetting

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
        blocks = [
            (
                f"Measures under `{kind}` forgetting at the end of the stream, mean ± sd over "
                "folds; last column: cumulative accuracy.",
                ["learner", *SUMMARY_MEASURES, "accuracy (cumulative)"],
                rows,
                "l" + "r" * (len(SUMMARY_MEASURES) + 1),
            )
        ]

        def num(v, spec=".4g"):
            return "–" if v is None else format(v, spec)

        if s["tests"]:
            blocks.append(self._tests_block(s["tests"], num))
        if s["q"]:
            rows = [
                [
                    q["learner_a"],
                    q["learner_b"],
                    q["forgetting"],
                    num(q["q"], "+.4f"),
                    num(q["errors_a"], ".6g"),
                    num(q["errors_b"], ".6g"),
                    q.get("favours") or "–",
                ]
                for q in s["q"]
            ]
            blocks.append(
                (
                    "Q statistic log(errors A / errors B) (gama2013; negative favours A):",
                    ["A", "B", "forgetting", "Q", "errors A", "errors B", "favours"],
                    rows,
                    "lllrrrl",
                )
            )
        return blocks

    def _tests_block(
        self, tests: list[dict[str, Any]], num: Callable[..., str]
    ) -> tuple[str, list[str], list[list[str]], str]:
        """The final tests as a table; with ``--sequential``, which decisions stay valid
        when the checks are watched and the p-value limit each used."""
        cfg = self.config
        sequential = cfg.sequential != "none"
        rows = []
        for t in tests:
            compared = f"{t['measure']}, {t['forgetting']}" if t.get("measure") else "–"
            digits = ".4f" if t.get("measure") != "errors" else ".6g"
            row = [
                t["learner_a"],
                t["learner_b"],
                t["test"],
                compared,
                num(t["value_a"], digits),
                num(t["value_b"], digits),
                num(t["statistic"]),
                num(t["pvalue"]),
                "yes" if t["reject"] else "no",
            ]
            if sequential:
                row += ["yes" if t.get("anytime_valid") else "no", num(t.get("boundary"), ".3g")]
            rows.append([*row, t.get("favours") or "–"])
        caption = (
            f"Tests (alpha = {cfg.alpha}): sign and Wilcoxon across folds; McNemar on the errors "
            "of the (row, fold) pairs both learners tested. Values: the compared quantity of A "
            "and B. "
        )
        cols = ["A", "B", "test", "compares", "A", "B", "statistic", "p-value", "reject H0"]
        if sequential:
            cols += ["valid under peeking", "p limit"]
            caption += SEQUENTIAL_NOTES[cfg.sequential]
        else:
            caption += SEQUENTIAL_NOTES["none"]
        align = "llllrrrrl" + ("lr" if sequential else "") + "l"
        return caption, [*cols, "favours"], rows, align

    def _title(self) -> str:
        cfg = self.config
        head = f"{cfg.n_folds}-fold {cfg.scheme}{' prequential' if cfg.prequential else ''}"
        cut = " (interrupted)" if self.interrupted else ""
        return f"distval: {cfg.stream or 'elec2'}, {head}, {self.n_rows} rows{cut}"

    def _footer(self) -> list[str]:
        s = self.summary()
        lines = [
            f"{self.n_rows} rows in {self.elapsed:.1f} s ({s['rows_per_second'] or 0:.0f} rows/s)."
        ]
        by = self.evaluated_by
        if self.backend == "ray" or "actors" in by:
            parts = [f"{by[k]} by the {'driver' if k == 'driver' else 'Ray actors'}" for k in by]
            lines.append("Rows evaluated: " + (", ".join(parts) or "none") + ".")
            if not by.get("actors"):
                lines.append(
                    "Ray's actors evaluated no row: the driver finished the stream while they "
                    "started, so this ran in-process (a job this short gains nothing from Ray)."
                )
        return lines

    def to_markdown(self) -> str:
        """The final measures and test decisions as Markdown tables."""
        lines = [f"## {self._title()}", ""]
        for caption, cols, rows, align in self._blocks():
            lines += [caption, "", markdown_table(cols, rows, align), ""]
        lines += self._footer()
        return "\n".join(lines) + "\n"

    def to_text(self) -> str:
        """The final measures and test decisions as aligned plain-text tables (a terminal).

        >>> res = EvaluationResult(RunConfig(learners=("nb",), n_folds=2), n_rows=0)
        >>> print(res.to_text().splitlines()[0])
        distval: elec2, 2-fold bootstrap prequential, 0 rows
        """
        lines = [self._title(), ""]
        for caption, cols, rows, align in self._blocks():
            lines += [caption.replace("`", ""), text_table(cols, rows, align), ""]
        lines += self._footer()
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        """A short summary: rows, final accuracy per learner, and the final decisions."""
        cfg = self.config
        lines = [f"<EvaluationResult {self._title().removeprefix('distval: ')}>"]
        final = self.final.folds if self.final else []
        for label in cfg.labels:
            v = [r[cfg.measure] for r in final
                 if r["learner"] == label and r["forgetting"] == cfg.forgetting]
            v = [x for x in v if x == x]
            if v:
                lines.append(f"  {label}: {cfg.measure} {np.mean(v):.4f} ({cfg.forgetting})")
        for t in self.final.tests if self.final else []:
            if t["test"] in ("sign", "wilcoxon", "friedman"):
                verdict = f"favours {t['favours']}" if t["reject"] else "no difference"
                lines.append(
                    f"  {t['test']} {t['learner_a']} vs {t['learner_b']}: p {t['pvalue']:.3g}, "
                    f"{verdict}"
                )
        return "\n".join(lines)

    def plot(self, measure: str | None = None):
        """The common figure: ``measure`` (default the run's) under the run's forgetting over
        time, the mean over folds per learner with the min–max range of the folds; a
        matplotlib Figure (``distval report`` draws the full set).

        >>> import distval
        >>> res = distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"),
        ...                        n_folds=2, test_every=200)
        >>> [line.get_label() for line in res.plot().axes[0].get_lines()]
        ['nb', 'majority']
        """
        from matplotlib.figure import Figure

        measure = measure or self.config.measure
        if measure not in MEASURES:
            raise DistvalError(f"unknown measure {measure!r}; choose one of {', '.join(MEASURES)}")
        df = self.folds()
        df = df[df["forgetting"] == self.config.forgetting]
        fig = Figure(figsize=(8, 4.2), layout="constrained")
        ax = fig.add_subplot()
        styles = ["-", "--", "-.", ":"]
        for i, label in enumerate(self.config.labels):
            g = df[df["learner"] == label].groupby("position")[measure]
            if not len(g):
                continue
            x = np.asarray(g.mean().index)
            ax.plot(x, g.mean().to_numpy(), ls=styles[i % 4], lw=1.8, label=label)
            ax.fill_between(x, g.min().to_numpy(), g.max().to_numpy(), alpha=0.15)
        ax.set_xlabel("stream position (rows)")
        ax.set_ylabel(f"{measure} ({self.config.forgetting})")
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize="small", ncol=1 + len(self.config.labels) // 6)
        return fig

    def saved(self) -> SavedRun:
        """This result as a :class:`SavedRun` (what ``load_results`` gives for a directory)."""
        folds = self.folds()
        return SavedRun(
            self.output_dir or Path("."),
            self.config.to_dict(),
            folds,
            self.tests(),
            self.summary(),
            q=self.q(),
            events=self.events(),
        )


def text_table(columns, rows, align: str | None = None) -> str:
    """Columns padded to their widest cell, a rule under the header (for a terminal).

    >>> print(text_table(["a", "bb"], [[10, "x"]], align="rl"))
     a  bb
    --  --
    10  x
    """
    cols = [str(c) for c in columns]
    cells = [[str(v) for v in r] for r in rows]
    widths = [max(len(x) for x in [c, *(r[i] for r in cells)]) for i, c in enumerate(cols)]
    align = align or "l" * len(cols)

    def line(values):
        out = [v.rjust(w) if a == "r" else v.ljust(w) for v, w, a in zip(values, widths, align)]
        return "  ".join(out).rstrip()

    return "\n".join([line(cols), line(["-" * w for w in widths]), *map(line, cells)])


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
        self._q: list[dict] = []
        self._events: list[dict] = []
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._last_flush = time.monotonic()

    def write_config(self, config: RunConfig, extra: dict | None = None) -> None:
        data = config.to_dict() | (extra or {})
        (self.dir / "config.json").write_text(json.dumps(data, indent=2) + "\n")

    def append(self, snapshot: Snapshot) -> None:
        self._folds.extend(snapshot.folds)
        self._tests.extend(snapshot.tests)
        self._q.extend(snapshot.q)
        self._events.extend(snapshot.events)
        if time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        for name, rows, schema in (
            ("folds.parquet", self._folds, FOLD_SCHEMA),
            ("tests.parquet", self._tests, TEST_SCHEMA),
            ("q.parquet", self._q, Q_SCHEMA),
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

    Attributes: ``directory``, ``config`` (dict of ``config.json``), ``folds``, ``tests``,
    ``q`` (the Q statistic) and ``events`` (drift detections) (DataFrames, possibly empty;
    tests of results written before ``q.parquet`` existed are upgraded), ``summary``
    (``summary.json``, None if the run was cut off before writing it), ``forgetting`` (the
    run's forgetting mechanism), ``labels`` (learners in run order).
    """

    def __init__(
        self, directory, config: dict, folds, tests, summary: dict | None = None, *, q=None,
        events=None,
    ) -> None:
        self.directory = Path(directory)
        self.config = config
        self.summary = summary
        self.folds = folds
        self.tests, old_q = _upgrade_tests(tests, config)
        if self.tests is not None:
            self.tests = _with_decision_columns(self.tests)
        self.q = q if q is not None and len(q) else old_q
        self.events = events if events is not None else pd.DataFrame(columns=EVENT_SCHEMA.names)
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


def _upgrade_tests(tests, config: dict):
    """Tests in today's columns and the Q rows, from a table of any version.

    Older results kept the Q statistic as ``q*`` test rows and had ``mean_a``/``mean_b``
    (the fold means, even on McNemar rows) and ``n``; their values are kept where they mean
    the same and left empty where they do not.
    """
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
    q = pq.read_table(d / "q.parquet").to_pandas() if (d / "q.parquet").exists() else None
    events = None
    if (d / "events.parquet").exists():
        events = pq.read_table(d / "events.parquet").to_pandas()
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
    return SavedRun(
        d, config, folds.reset_index(drop=True), pd.DataFrame(tests), summary, q=q, events=events
    )
