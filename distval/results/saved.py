"""Saved runs as first-class results: load one back, compare two, export every table as CSV.

:func:`load_evaluation` (``distval.load_results``) reads a results directory back as the
:class:`~distval.results.memory.EvaluationResult` that ``distval.evaluate`` returned, with
its tables, summary, ``plot()``, ``to_markdown()`` and ``tests()``. :func:`comparison` puts
the final numbers of two saved runs side by side (``distval compare``) after checking that
they evaluated the same stream under the same settings (:data:`COMPARED_SETTINGS`).
:func:`export_csv` writes every table of a directory as CSV (``distval export``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from distval.aggregator.snapshot import Snapshot
from distval.columns import Columns
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.files import make_dir, replacing
from distval.results.answer import (
    Table,
    cost_table,
    learners_table,
    pairs_table,
    recent_table,
)
from distval.results.memory import EvaluationResult
from distval.results.reader import SavedRun, has_table, load_results
from distval.results.schema import TABLE_SCHEMAS, columns_of, read_table, schemas_of
from distval.streams.open import BUNDLED, bundled_path

__all__ = [
    "COMPARED_SETTINGS",
    "TABLES",
    "VALIDATION_SETTINGS",
    "comparison",
    "export_csv",
    "load_evaluation",
]

#: The tables of a results directory: file stem and schema.
TABLES = TABLE_SCHEMAS

#: How a run splits the rows into folds and what each measure covers: the settings a
#: report shows and two compared runs must share.
VALIDATION_SETTINGS = (
    "scheme",
    "n_folds",
    "prequential",
    "fold_choice",
    "forgetting",
    "window",
    "fading",
    "adwin_delta",
)

#: The settings two runs must share for their numbers to be compared: the rows evaluated,
#: how they are split into folds, and what each measure covers. Learners, seeds, tests and
#: backends may differ.
COMPARED_SETTINGS = (
    "stream",
    "target",
    "n_rows",
    *VALIDATION_SETTINGS,
    "measure",
    "test_every",
)


def _table(saved: SavedRun, name: str) -> pa.Table:
    """One table of a saved run in today's schema: read from its file as written, or (files
    of earlier versions) from the reader's upgraded DataFrame."""
    schema = schemas_of(saved.task)[name]
    d = saved.directory
    if has_table(d, name):
        table = read_table(d, name)
        if set(schema.names) <= set(table.column_names):
            return table.select(schema.names).cast(schema)
    df = getattr(saved, name)
    if not len(df):
        return schema.empty_table()
    return pa.Table.from_pandas(df[schema.names], schema=schema, preserve_index=False)


def _by_position(columns: Columns, positions: np.ndarray, *, at_or_after: bool) -> list[Columns]:
    """The rows of a table per snapshot position: rows at that position, or (events, which
    carry the row of their detection) those since the previous snapshot."""
    pos = columns["position"].astype(np.int64)
    if at_or_after:  # a detection at row r is reported by the first snapshot after it
        which = np.minimum(np.searchsorted(positions, pos, side="right"), len(positions) - 1)
    else:
        which = np.searchsorted(positions, pos, side="left")
    order = np.argsort(which, kind="stable")  # rows keep their order within a snapshot
    cuts = np.searchsorted(which[order], np.arange(1, len(positions)))
    grouped = {k: v[order] for k, v in columns.items()}
    return [
        dict(zip(grouped, parts)) for parts in zip(*(np.split(v, cuts) for v in grouped.values()))
    ]


def load_evaluation(results_dir: str | os.PathLike[str]) -> EvaluationResult:
    """A saved run as the :class:`EvaluationResult` ``distval.evaluate`` gave: one snapshot
    per test point, its summary's rows, time, backend and classes.

    A stream that was a Python object keeps its recorded name (``python:SEA``); a directory
    whose configuration cannot be rebuilt (a learner or delay that was a Python object no
    text describes) is refused in one line; :func:`~distval.results.reader.load_results`
    still reads its tables.

    >>> import distval, tempfile
    >>> d = tempfile.mkdtemp()
    >>> res = distval.evaluate(stream="sea", n_rows=400, learners=("nb", "majority"),
    ...                        n_folds=2, test_every=200, output_dir=d, overwrite=True)
    >>> back = load_evaluation(d)
    >>> back.folds().equals(res.folds()), back.final.position, back.config == res.config
    (True, 400, True)
    """
    saved = load_results(results_dir)
    try:
        config = RunConfig.from_dict(saved.config, reading=True)
    except (TypeError, ValueError) as exc:
        raise DistvalError(
            f"{saved.directory / 'config.json'} does not describe a run: {exc}"
        ) from None
    tables = {name: columns_of(_table(saved, name)) for name in TABLE_SCHEMAS}
    positions = np.unique(tables["folds"]["position"].astype(np.int64))
    parts = {
        name: _by_position(cols, positions, at_or_after=name in ("events", "cost"))
        for name, cols in tables.items()
    }
    summary = saved.summary or {}
    result = EvaluationResult(
        config,
        classes=list(summary.get("classes") or []),
        n_rows=int(summary.get("rows") or positions[-1]),
        elapsed=float(summary.get("elapsed_seconds") or 0.0),
        interrupted=bool(summary.get("interrupted", not summary)),
        output_dir=saved.directory,
        evaluated_by=dict(summary.get("evaluated_by") or {}),
        timeline=dict(summary.get("timeline") or {}),
        backend=summary.get("backend"),
    )
    for i, position in enumerate(positions.tolist()):
        last = i == len(positions) - 1
        result.add(
            Snapshot(
                position,
                parts["folds"][i],
                parts["tests"][i],
                summary.get("friedman") if last else None,
                parts["events"][i],
                parts["q"][i],
                parts["paired"][i],
                parts["verdicts"][i],
                cost=parts["cost"][i],
            )
        )
    return result


def _stream(text: Any) -> Any:
    """A saved run's stream as one name for one stream: the default (None), ``elec2``,
    ``electricity`` and the bundled file's path are all the bundled Electricity data.

    >>> _stream(None) == _stream("electricity") == _stream(str(bundled_path())) == "elec2"
    True
    """
    if text is None or (isinstance(text, str) and text.strip().lower() in BUNDLED):
        return "elec2"
    if isinstance(text, str) and Path(text).exists():
        return "elec2" if Path(text).resolve() == bundled_path().resolve() else str(
            Path(text).resolve()
        )
    return text


def _differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    def value(d: dict[str, Any], key: str) -> Any:
        return _stream(d.get(key)) if key == "stream" else d.get(key)

    return [
        f"{key} {value(a, key)!r} vs {value(b, key)!r}"
        for key in COMPARED_SETTINGS
        if value(a, key) != value(b, key)
    ]


def comparison(run_a: str | os.PathLike[str], run_b: str | os.PathLike[str]) -> list[Table]:
    """Two saved runs side by side: (caption, columns, rows, alignment) tables of their
    answers (:meth:`SavedRun.answer`, rendered as the screen renders it: each verdict and the
    line of its price, what the verdicts rest on, the recent windows, each learner, what
    each cost; a table both runs have with the same columns, once, with a ``run`` column)
    and of their final test decisions. Runs that evaluated another stream or under
    other settings (:data:`COMPARED_SETTINGS`) are refused in one line naming what differs.

    >>> import distval, tempfile
    >>> a, b = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> opts = dict(stream="sea", n_rows=400, n_folds=2, test_every=200, overwrite=True)
    >>> _ = distval.evaluate(learners=("nb", "majority"), output_dir=a, **opts)
    >>> _ = distval.evaluate(learners=("ht", "majority"), output_dir=b, seed=2, **opts)
    >>> [row[:2] for row in comparison(a, b)[-3][2]]
    [['A', 'nb'], ['A', 'majority'], ['B', 'ht'], ['B', 'majority']]
    """
    a, b = load_results(run_a), load_results(run_b)
    if a.task is not b.task:
        raise DistvalError(
            f"{run_a} and {run_b} are not comparable: one is a {a.task} run, the other a "
            f"{b.task} run"
        )
    differ = _differences(a.config, b.config)
    if differ:
        raise DistvalError(
            f"{a.directory} and {b.directory} are not comparable: they differ in "
            + "; ".join(differ)
        )
    answers = {"A": a.answer(), "B": b.answer()}
    verdict_rows: list[list[str]] = []
    for tag, ans in answers.items():
        for p in ans.pairs:  # each verdict, then its price
            verdict_rows += [[tag, p.line]] + [[tag, line] for line in [ans.price(p)] if line]
        verdict_rows += [[tag, line] for line in (ans.twin, ans.baseline) if line]
    runs = f"A: {_run_name(a)}, B: {_run_name(b)}"
    answer_rows: list[Table] = []
    for make in (pairs_table, recent_table, learners_table, cost_table):
        both = {tag: make(ans) for tag, ans in answers.items()}
        made = {tag: t for tag, t in both.items() if t is not None}
        if len(made) == 2 and made["A"][1] == made["B"][1]:  # one table, a run column
            caption, cols, _, align = made["A"]
            rows = [[tag, *r] for tag, t in made.items() for r in t[2]]
            answer_rows.append((f"{caption.rstrip(':')} ({runs}):", ["run", *cols], rows,
                                "l" + align))
        else:
            answer_rows += [(f"{tag}: {t[0]}", t[1], t[2], t[3]) for tag, t in made.items()]
    decisions: dict[tuple[str, str, str], list[str]] = {}
    for tag, run in (("A", a), ("B", b)):
        final = run.tests[run.tests["position"] == run.tests["position"].max()]
        for t in final.itertuples(index=False):
            key = (str(t.test), str(t.learner_a), str(t.learner_b))
            cells = decisions.setdefault(key, ["–"] * 6)
            at = 0 if tag == "A" else 3
            favours = getattr(t, "favours", None)
            cells[at : at + 3] = [_pvalue(float(t.pvalue)), "yes" if t.reject else "no",
                                  str(favours) if isinstance(favours, str) else "–"]
    tests = (
        "Final test decisions of each run, with the learner its data favour (– where the run "
        "has no such test).",
        [
            "test",
            "learner A",
            "learner B",
            "p-value (A)",
            "reject (A)",
            "favours (A)",
            "p-value (B)",
            "reject (B)",
            "favours (B)",
        ],
        [[*key, *cells] for key, cells in decisions.items()],
        "lllrllrll",
    )
    verdicts = (
        "Verdicts of each run at its last look (which learner is better on the same rows), "
        "and its baselines.",
        ["run", "verdict"],
        verdict_rows,
        "ll",
    )
    return ([verdicts] if verdict_rows else []) + answer_rows + [tests]


def _pvalue(p: float) -> str:
    """A p-value for a table: 4 significant digits, never ``0``.

    >>> _pvalue(0.001953125), _pvalue(0.0)
    ('0.001953', '< 1e-16')
    """
    return "< 1e-16" if p < 1e-16 else f"{p:.4g}"


def _run_name(run: SavedRun) -> str:
    """A run's directory, and where it was interrupted if it did not finish (a killed run
    has no summary: its measures show "–")."""
    at = run.interrupted_at
    return f"{run.directory}" if at is None else f"{run.directory}, interrupted at row {at}"


def export_csv(
    results_dir: str | os.PathLike[str], output: str | os.PathLike[str] | None = None
) -> list[Path]:
    """Every table of a results directory as a CSV file (``folds.csv``, ``tests.csv``,
    ``q.csv``, ``events.csv``, ``paired.csv``, ``verdicts.csv``, for every task; a regression
    run's Q and events are empty) in ``output``
    (default: a ``csv`` folder inside it), in today's columns; a list column
    (``recall_by_class``) as JSON text. Returns the files.

    >>> import distval, tempfile, pandas as pd
    >>> d = tempfile.mkdtemp()
    >>> _ = distval.evaluate(stream="sea", n_rows=400, learners=("nb", "majority"),
    ...                      n_folds=2, test_every=200, output_dir=d, overwrite=True)
    >>> [p.name for p in export_csv(d)]
    ['folds.csv', 'tests.csv', 'q.csv', 'events.csv', 'paired.csv', 'verdicts.csv', 'cost.csv']
    >>> len(pd.read_csv(Path(d) / "csv" / "folds.csv"))
    16
    """
    saved = load_results(results_dir)
    d = saved.directory
    tables = {name: _table(saved, name) for name in TABLE_SCHEMAS}
    out = Path(output) if output is not None else d / "csv"
    if out.exists() and not out.is_dir():
        raise DistvalError(f"output path {out} exists and is not a directory")
    make_dir(out)
    written = []
    for name, table in tables.items():
        for i, field in enumerate(table.schema):
            if pa.types.is_list(field.type):
                text = [None if v is None else json.dumps(v) for v in table.column(i).to_pylist()]
                table = table.set_column(i, field.name, pa.array(text, type=pa.string()))
        path = out / f"{name}.csv"
        with replacing(path) as fh:
            pacsv.write_csv(table, fh)
        written.append(path)
    return written
