"""Writing a results directory: the output-directory policy, the appender and its
checkpoints."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import re
import time
import uuid
from collections.abc import Collection
from pathlib import Path
from typing import Any, Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from distval.aggregator.snapshot import Snapshot
from distval.columns import Columns
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.files import open_new, replacing, temporary_of, write_file
from distval.results.lock import LOCK, DirectoryLock, LockLost
from distval.results.provenance import provenance
from distval.results.schema import FILES, TABLE_SCHEMAS, TABLES, read_batches, read_table, table
from distval.results.series import tables_of

__all__ = [
    "CHECKPOINT",
    "RUN_ID",
    "ResultWriter",
    "Summarised",
    "checkpoint_header",
    "claim_output",
    "read_checkpoint",
    "to_parquet",
]

#: The checkpoint file of a results directory (:meth:`ResultWriter.checkpoint`).
CHECKPOINT = "checkpoint.pkl"
#: Its format number (a checkpoint of another format is refused, not misread).
_CHECKPOINT_FORMAT = 3  # 2: ADWIN windows as ADWINState rings; 3: a checked header
#: The first line of a checkpoint file.
_MAGIC = f"distval checkpoint {_CHECKPOINT_FORMAT}\n".encode()
#: The most a checkpoint's header line may hold (it is read before anything is trusted).
_HEADER_BYTES = 65536
#: The key of the run id in each table's Arrow schema metadata (and in ``config.json``).
RUN_ID = "run_id"

#: Files written only once they have a row: drift detections; the paired windows and the
#: verdicts (runs with two learners or more).
_ONLY_WITH_ROWS = ("events.parquet", "paired.parquet", "verdicts.parquet", "cost.parquet")


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
    A temporary file left by a writer killed mid-write (:func:`distval.files.temporary_of`)
    of an owned file is owned too.

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
    present = sorted(p.name for p in d.iterdir() if p.name != LOCK) if d.exists() else []
    foreign = [n for n in present if n not in owned and temporary_of(n) not in owned]
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


class Unpicklable(DistvalError):
    """A run's state that :mod:`pickle` cannot save (:meth:`ResultWriter.checkpoint`)."""


class ResultWriter:
    """Appends snapshots to the tables of an output directory, durably.

    The directory must be new or empty unless ``overwrite`` (then this writer's own files
    are replaced, other files are left alone).

    While the run goes, each table is an Arrow IPC stream (``folds.arrows``, ...): a flush
    (every ``flush_seconds``) writes one record batch straight to the file, and a stream is
    readable up to its last whole batch, so whatever stops the process — Ctrl-C, SIGTERM,
    SIGKILL, a full disk — what was flushed before stays readable
    (:func:`distval.results.reader.load_results`). :meth:`close` (also after an
    interruption) turns each stream into ``NAME.parquet`` and writes the summary. A write
    that fails (a full disk) stops the writing; :meth:`close` then leaves the streams as
    they are and the error goes on to the caller.

    :meth:`checkpoint` writes a run's state with the rows each table holds at that moment;
    ``resume`` (the rows of a checkpoint, by table) opens a directory written before,
    cuts each table back to those rows and appends after them. ``schemas`` replaces the
    schemas of some tables (a task's fold table:
    :func:`~distval.results.schema.schemas_of`); ``optional`` names tables written only
    once they have a row (a regression run's ``q``, which it never has).
    """

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        flush_seconds: float = 2.0,
        resume: dict[str, int] | None = None,
        run_id: str | None = None,
        lock: DirectoryLock | None = None,
        schemas: dict[str, pa.Schema] | None = None,
        optional: Collection[str] = (),
    ) -> None:
        d = Path(directory)
        #: Each table's schema (``schemas`` replaces some: a regression run's folds).
        self.schemas = TABLE_SCHEMAS | (schemas or {})
        #: The files written only once they have a row (``optional`` adds tables).
        self.optional = {*_ONLY_WITH_ROWS, *(f"{name}.parquet" for name in optional)}
        if d.exists() and not d.is_dir():
            raise DistvalError(f"output path {d} exists and is not a directory")
        #: This run's identity: in ``config.json``, every table's schema metadata and every
        #: checkpoint, so that a checkpoint goes on only with the tables it was written with.
        self.run_id = run_id or uuid.uuid4().hex
        # One writer per directory, taken before anything there is changed; its run.lock
        # is written once the directory is claimed.
        self._lock = lock or DirectoryLock.take(d, self.run_id, announce=False)
        try:
            if resume is None:
                self.dir = claim_output(d, FILES, overwrite=overwrite)
            else:
                self.dir = d
            self._lock.announce(self.run_id)
            self._start(flush_seconds, resume)
        except BaseException:
            self._lock.release()
            raise

    def _start(self, flush_seconds: float, resume: dict[str, int] | None) -> None:
        self.flush_seconds = flush_seconds
        #: Rows written to each table so far.
        self.written = dict.fromkeys(TABLES, 0)
        # Each table's snapshots not yet written, as columns.
        self._pending: dict[str, list[Columns]] = {name: [] for name in TABLES}
        self._streams: dict[str, tuple[pa.NativeFile, pa.ipc.RecordBatchStreamWriter]] = {}
        self._last_flush = time.monotonic()
        self._closed = False
        self.failed: BaseException | None = None
        if resume is not None:
            self._cut_back(resume)

    def _cut_back(self, rows: dict[str, int]) -> None:
        """Each table as its first ``rows[name]`` rows, open for appending (an interrupted
        run's Parquet file back to a stream); the summary of the interrupted run goes."""
        for name in TABLE_SCHEMAS:
            n = rows.get(name, 0)
            parquet, stream = self.dir / f"{name}.parquet", self.dir / f"{name}.arrows"
            if not n and not parquet.exists() and not _has_schema(stream):
                continue  # killed before the table's first batch (or never written)
            self._check_run(parquet if parquet.exists() else stream)
        for name in TABLE_SCHEMAS:
            n = rows.get(name, 0)
            parquet, stream = self.dir / f"{name}.parquet", self.dir / f"{name}.arrows"
            if not n and not parquet.exists() and not _has_schema(stream):
                stream.unlink(missing_ok=True)  # an empty stream: created again when due
                continue
            schema = self._schema(name)
            kept = _first_rows(parquet, stream, n) if n else schema.empty_table()
            if kept.num_rows < n:
                raise DistvalError(
                    f"{stream} holds {kept.num_rows} rows, fewer than the {n} of the "
                    "checkpoint: the directory was changed since"
                )
            sink = pa.PythonFile(open_new(stream), mode="w")  # never through a link
            writer = pa.ipc.new_stream(sink, schema)
            if n:
                writer.write_table(kept.cast(schema))
                sink.flush()
            parquet.unlink(missing_ok=True)
            self._streams[name] = (sink, writer)
            self.written[name] = n
        for name in ("summary.json", "summary.md", f"{CHECKPOINT}.part"):
            (self.dir / name).unlink(missing_ok=True)

    def _check_run(self, path: Path) -> None:
        """Refuse a table that another run wrote (its schema's run id is not this one's)."""
        try:
            if path.suffix == ".parquet":
                schema = pq.read_schema(path)
            else:
                with pa.OSFile(str(path)) as source:
                    schema = pa.ipc.open_stream(source).schema
        except (OSError, pa.ArrowException) as exc:
            raise DistvalError(f"cannot read {path}: {exc}") from None
        found = (schema.metadata or {}).get(RUN_ID.encode(), b"").decode(errors="replace")
        if found != self.run_id:
            raise DistvalError(
                f"{path} was written by another run ({found or 'no run id'}) than the "
                f"checkpoint's ({self.run_id}); refusing to mix them"
            )

    def _schema(self, name: str) -> pa.Schema:
        """Table ``name``'s schema, marked with this run's id."""
        return self.schemas[name].with_metadata({RUN_ID: self.run_id})

    def write_config(self, config: RunConfig, extra: dict[str, Any] | None = None) -> None:
        data = config.to_dict() | (extra or {}) | {
            "provenance": provenance(), RUN_ID: self.run_id}
        write_file(self.dir / "config.json", json.dumps(data, indent=2) + "\n")

    def append(self, snapshot: Snapshot) -> None:
        for name, columns in tables_of(snapshot).items():
            self._pending[name].append(columns)
        if time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def table(self, name: str) -> pa.Table:
        """Table ``name`` as written so far, read back from the directory (each flushed
        batch; a :class:`~distval.results.series.Series` whose memory does not grow)."""
        schema = self.schemas[name]
        if not self._closed:
            self.flush()
        if not any((self.dir / f"{name}.{ext}").exists() for ext in ("parquet", "arrows")):
            return schema.empty_table()  # e.g. events of a run without a detection
        return read_table(self.dir, name).select(schema.names).cast(schema)

    def flush(self) -> None:
        if self.failed is not None:
            return
        try:
            for name, chunks in self._pending.items():
                schema = self.schemas[name]
                rows = table(chunks, schema)
                chunks.clear()
                optional = f"{name}.parquet" in self.optional
                if optional and name not in self._streams and not rows.num_rows:
                    continue  # e.g. events only with drift detection (and a detection)
                if name not in self._streams:
                    sink = pa.PythonFile(open_new(self.dir / f"{name}.arrows"), mode="w")
                    self._streams[name] = (sink, pa.ipc.new_stream(sink, self._schema(name)))
                if rows.num_rows:
                    self._streams[name][1].write_table(rows)
                    self._streams[name][0].flush()  # on disk, not in a buffer
                    self.written[name] += rows.num_rows
        except OSError as exc:  # a full disk: what is on it stays readable
            self.failed = exc
            raise
        self._last_flush = time.monotonic()

    def checkpoint(self, state: object) -> None:
        """Flush, then write ``state`` with the rows of each table now, atomically (a
        temporary file moved over the last checkpoint once it is whole on disk)."""
        self.flush()
        if self.failed is not None:
            return
        self._owned()
        # protocol 4: arrays come back writable even when they were read-only here
        # (states fetched from Ray's object store); protocol 5 keeps the flag
        try:
            payload = pickle.dumps(state, protocol=4)
        except (TypeError, AttributeError, pickle.PicklingError, RecursionError) as exc:
            raise Unpicklable(str(exc)) from None  # a learner holding a lock, say
        header: dict[str, Any] = {RUN_ID: self.run_id, "written": dict(self.written)}
        header |= {"sha256": _digest(header, payload), "bytes": len(payload)}
        try:  # interrupted mid-write, the last whole checkpoint stays
            with replacing(self.dir / CHECKPOINT, sync=True) as f:
                f.write(_MAGIC + json.dumps(header).encode() + b"\n")
                f.write(payload)
        except OSError as exc:
            self.failed = exc
            raise

    def close(self, result: Summarised | None = None, *, finished: bool = False) -> None:
        """Flush, turn each table's stream into its Parquet file, write the summary; a
        ``finished`` run's checkpoint is removed; the directory's lock is let go."""
        try:
            self._close(result, finished=finished)
        finally:
            self._lock.release()

    def _owned(self) -> None:
        """Stop writing (:class:`~distval.results.lock.LockLost`) if the directory's lock
        was removed or replaced under this run."""
        try:
            self._lock.check()
        except LockLost as exc:
            self.failed = exc
            raise

    def _close(self, result: Summarised | None, *, finished: bool) -> None:
        lost: LockLost | None = None
        if self.failed is None:
            try:
                self._owned()
            except LockLost as exc:
                lost = exc
            else:
                self.flush()
        self._closed = True
        for sink, writer in self._streams.values():
            with contextlib.suppress(OSError, pa.ArrowException):
                writer.close()
            with contextlib.suppress(OSError, pa.ArrowException):
                sink.close()
        names = list(self._streams)
        self._streams.clear()
        if lost is not None:
            raise lost  # another writer may be there: write nothing more
        if self.failed is not None:
            return  # the disk refused a write: leave the readable streams as they are
        for name in names:
            to_parquet(self.dir / f"{name}.arrows", self.dir / f"{name}.parquet")
        if finished:
            (self.dir / CHECKPOINT).unlink(missing_ok=True)
        if result is not None:
            summary = result.summary()
            write_file(self.dir / "summary.json", json.dumps(summary, indent=2) + "\n")
            write_file(self.dir / "summary.md", result.to_markdown())


def _first_rows(parquet: Path, stream: Path, n: int) -> pa.Table:
    """The first ``n`` rows of a table: its Parquet file if there is one, else its stream."""
    try:
        if parquet.exists():
            return pq.read_table(parquet).slice(0, n)
        with pa.memory_map(str(stream)) as source:
            reader = pa.ipc.open_stream(source)
            batches, rows = [], 0
            for batch in read_batches(reader):
                if rows >= n:
                    break
                batches.append(batch)
                rows += batch.num_rows
            return pa.Table.from_batches(batches, schema=reader.schema).slice(0, n)
    except (OSError, pa.ArrowException) as exc:
        path = parquet if parquet.exists() else stream
        raise DistvalError(f"cannot read {path}: {exc}") from None


def _has_schema(stream: Path) -> bool:
    """Whether an Arrow stream file holds at least its schema (a stream created just
    before a kill, with no batch yet, is empty: Arrow writes the schema with the first)."""
    try:
        return stream.stat().st_size > 0
    except FileNotFoundError:
        return False


def _digest(header: dict[str, Any], payload: bytes) -> str:
    """The SHA-256 of a checkpoint: its run id and rows (as canonical JSON), then the
    pickled state; so a changed header is found as surely as a changed state."""
    told = json.dumps({RUN_ID: header[RUN_ID], "written": header["written"]}, sort_keys=True)
    return hashlib.sha256(told.encode() + b"\n" + payload).hexdigest()


def checkpoint_header(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The header of a directory's checkpoint, checked, without unpickling anything: its
    run id, the rows of each table, and the size of the pickled state that follows and the
    SHA-256 digest of all three. One clear :class:`DistvalError` if there is none or it is not a
    checkpoint of this format."""
    path = Path(directory) / CHECKPOINT
    if not path.exists():
        raise DistvalError(
            f"{path.parent} holds no checkpoint (the run stopped before its first one, or "
            "is not a distval run); re-run it with --config DIR --overwrite"
        )
    try:
        with open(path, "rb") as f:
            magic = f.readline(len(_MAGIC))
            line = f.readline(_HEADER_BYTES)
    except OSError as exc:
        raise DistvalError(f"cannot read {path}: {exc.strerror or exc}") from None
    if magic != _MAGIC:
        raise DistvalError(f"{path} is not a distval checkpoint of format "
                           f"{_CHECKPOINT_FORMAT} (damaged, or written by another version)")
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not (
        isinstance(header, dict)
        and isinstance(header.get(RUN_ID), str)
        and re.fullmatch(r"[0-9a-f]{64}", str(header.get("sha256")))
        and type(header.get("bytes")) is int
        and isinstance(header.get("written"), dict)
        and all(k in TABLES and type(v) is int and v >= 0
                for k, v in header["written"].items())
    ):
        raise DistvalError(f"{path} has a damaged header")
    return header


def read_checkpoint(
    directory: str | os.PathLike[str], run_id: str | None = None
) -> tuple[Any, dict[str, int]]:
    """The state and the rows of each table of a directory's checkpoint
    (:meth:`ResultWriter.checkpoint`); one clear :class:`DistvalError` if there is none or
    it cannot be read. Before anything is unpickled, the header is checked
    (:func:`checkpoint_header`), its run id against ``run_id`` if given, and the state's
    bytes against the header's SHA-256 digest (a damaged or cut file is refused). The
    digest finds damage, not tampering: like a config file, a checkpoint is
    code-equivalent input (pickle); resume only your own runs.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> w = ResultWriter(d)
    >>> w.checkpoint({"rows": 5})
    >>> state, written = read_checkpoint(d, w.run_id)
    >>> state, written["folds"], sorted(written) == sorted(TABLE_SCHEMAS)
    ({'rows': 5}, 0, True)
    >>> w.close()
    """
    header = checkpoint_header(directory)
    path = Path(directory) / CHECKPOINT
    if run_id is not None and header[RUN_ID] != run_id:
        raise DistvalError(
            f"{path} belongs to another run ({header[RUN_ID]}) than its directory's "
            f"config.json ({run_id or 'no run id'}); refusing to mix them"
        )
    try:
        with open(path, "rb") as f:
            f.readline(len(_MAGIC))
            f.readline(_HEADER_BYTES)
            payload = f.read(header["bytes"] + 1)
    except OSError as exc:
        raise DistvalError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(payload) != header["bytes"] or _digest(header, payload) != header["sha256"]:
        raise DistvalError(f"{path} is damaged (its SHA-256 digest does not match)")
    try:
        state = pickle.loads(payload)
    except Exception as exc:  # classes this version lacks
        raise DistvalError(f"cannot read {path}: {type(exc).__name__}: {exc}") from None
    return state, dict(header["written"])


def to_parquet(stream: Path, parquet: Path) -> None:
    """An Arrow IPC stream file as a Parquet file, batch by batch (bounded memory); the
    stream file is removed once the Parquet file is whole. A torn last batch is left out.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> t = pa.table({"a": [1, 2]})
    >>> with pa.OSFile(str(d / "t.arrows"), "wb") as f, pa.ipc.new_stream(f, t.schema) as w:
    ...     w.write_table(t)
    >>> to_parquet(d / "t.arrows", d / "t.parquet")
    >>> pq.read_table(d / "t.parquet")["a"].to_pylist(), (d / "t.arrows").exists()
    ([1, 2], False)
    """
    with pa.OSFile(str(stream)) as source:  # read, not mapped: a batch at a time in RSS
        reader = pa.ipc.open_stream(source)
        with replacing(parquet) as fh, pq.ParquetWriter(fh, reader.schema) as out:
            for batch in read_batches(reader):
                out.write_batch(batch)
    stream.unlink()
