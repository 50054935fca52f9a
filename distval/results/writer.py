"""Writing a results directory: the output-directory policy and the Parquet appender."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Collection
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pyarrow.parquet as pq

from distval.aggregator import Snapshot
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.results.provenance import provenance
from distval.results.schema import EVENT_SCHEMA, FILES, FOLD_SCHEMA, Q_SCHEMA, TEST_SCHEMA, table

__all__ = ["ResultWriter", "Summarised", "claim_output"]


class Summarised(Protocol):
    """What :meth:`ResultWriter.close` writes at the end (an ``EvaluationResult``)."""

    def summary(self) -> dict[str, Any]: ...

    def to_markdown(self) -> str: ...


def claim_output(
    directory: str | os.PathLike[str],
    owned: Collection[str],
    *,
    overwrite: bool = False,
    resumable: bool = False,
) -> Path:
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

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        flush_seconds: float = 2.0,
    ) -> None:
        self.dir = claim_output(directory, FILES, overwrite=overwrite)
        self.flush_seconds = flush_seconds
        # Each table's snapshots not yet written, as columns.
        self._folds: list[dict[str, np.ndarray]] = []
        self._tests: list[dict[str, np.ndarray]] = []
        self._q: list[dict[str, np.ndarray]] = []
        self._events: list[dict[str, np.ndarray]] = []
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._last_flush = time.monotonic()

    def write_config(self, config: RunConfig, extra: dict[str, Any] | None = None) -> None:
        data = config.to_dict() | (extra or {}) | {"provenance": provenance()}
        (self.dir / "config.json").write_text(json.dumps(data, indent=2) + "\n")

    def append(self, snapshot: Snapshot) -> None:
        self._folds.append(snapshot.folds)
        self._tests.append(snapshot.tests)
        self._q.append(snapshot.q)
        self._events.append(snapshot.events)
        if time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        for name, chunks, schema in (
            ("folds.parquet", self._folds, FOLD_SCHEMA),
            ("tests.parquet", self._tests, TEST_SCHEMA),
            ("q.parquet", self._q, Q_SCHEMA),
            ("events.parquet", self._events, EVENT_SCHEMA),
        ):
            rows = table(chunks, schema)
            chunks.clear()
            if name == "events.parquet" and name not in self._writers and not rows.num_rows:
                continue  # only runs with drift detection (and a detection) get the file
            if name not in self._writers:
                self._writers[name] = pq.ParquetWriter(self.dir / name, schema)
            if rows.num_rows:
                self._writers[name].write_table(rows)
        self._last_flush = time.monotonic()

    def close(self, result: Summarised | None = None) -> None:
        self.flush()
        for w in self._writers.values():
            w.close()
        self._writers.clear()
        if result is not None:
            summary = result.summary()
            (self.dir / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
            (self.dir / "summary.md").write_text(result.to_markdown())
