"""Running a grid: cells in this process or as Ray tasks, stored at once, resumed later.

Finished cells are appended to ``cells.jsonl`` as they finish, so an interrupted grid
resumes without recomputing them (a line cut by the interruption is recomputed). A grid may
be resumed with more or fewer runs or streams; its other settings must match the stored
``grid.json`` (settings added since it was written take their defaults, so directories of
earlier versions resume: their old cells lack the per-look fields, new cells have them).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import tempfile
import time
from dataclasses import MISSING, fields
from pathlib import Path
from typing import IO, Any

from distval.errors import DistvalError
from distval.evaluation import check_backend
from distval.experiments.study import Part, run_study
from distval.experiments.type_errors.cell import cell_key, run_cell
from distval.experiments.type_errors.charts import write
from distval.experiments.type_errors.profiles import REAL, GridConfig, stream_rows
from distval.experiments.type_errors.projection import project
from distval.experiments.type_errors.tables import GRID_FILES, GridResult, collect
from distval.files import open_append, write_file
from distval.results import claim_output
from distval.streams.fingerprint import changed, fingerprint

__all__ = ["GRID_NOTES", "Progress", "local_copy", "read_cells", "run_grid", "ship_files"]


def _read_cells(path: Path) -> list[dict[str, Any]]:
    cells = []
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                cells.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut by an interruption: that cell runs again
    return cells


#: Notes that may sit beside a grid's files (a committed result's README) without making
#: the directory "another run's"; never deleted, even by ``overwrite``.
GRID_NOTES = ("README.md", "goals.txt")


def _prepare_dir(config: GridConfig, output_dir: Path, overwrite: bool) -> Path:
    # with overwrite, foreign files are allowed anyway and only GRID_FILES are deleted
    owned = GRID_FILES if overwrite else GRID_FILES + GRID_NOTES
    claim_output(output_dir, owned, overwrite=overwrite, resumable=True)
    cfg_path, cells_path = output_dir / "grid.json", output_dir / "cells.jsonl"
    wanted = config.to_dict()
    if cfg_path.exists() and not overwrite:
        defaults = {f.name: f.default for f in fields(GridConfig) if f.default is not MISSING}
        stored = defaults | GridConfig.upgrade(json.loads(cfg_path.read_text()))
        # cells are keyed by (stream, run, scheme) and their seeds follow from the key alone,
        # so a grid may be resumed with more (or fewer) runs or streams
        free = ("streams", "runs")
        same = {k: v for k, v in stored.items() if k not in free} == {
            k: v for k, v in wanted.items() if k not in free
        }
        if not same:
            raise DistvalError(
                f"{output_dir} holds a grid with other settings; use another --output "
                "or --overwrite to start again"
            )
    write_file(cfg_path, json.dumps(wanted, indent=2))
    return cells_path


def run_grid(
    config: GridConfig,
    *,
    output_dir: str | Path | None = None,
    overwrite: bool = False,
    backend: str = "inprocess",
    address: str | None = None,
    progress: bool = True,
    max_cells: int | None = None,
    progress_stream: IO[str] | None = None,
) -> GridResult:
    """Run (or resume) the grid; every finished cell is appended to ``cells.jsonl`` at once.

    Parameters
    ----------
    config : GridConfig
    output_dir : path, optional
        Where ``grid.json``, ``cells.jsonl``, the tables (Markdown, CSV) and the chart go.
        Cells already in ``cells.jsonl`` are not recomputed. None: nothing is written.
    overwrite : bool
        Discard the cells of an earlier grid in ``output_dir``.
    backend : {"inprocess", "ray"}
        ``ray``: each cell is a Ray task with one CPU (local Ray, or ``address``).
    progress : bool
        A :class:`Progress` line: cells done, cells/hour, CPU-seconds per cell and the
        projected finish (rewritten in place on a terminal, one line per update otherwise).
    progress_stream : text stream, optional
        Where progress goes (default ``sys.stderr``).
    max_cells : int, optional
        Stop after this many new cells (a partial grid, resumable later).
    """
    if backend not in ("inprocess", "ray"):
        raise DistvalError(f"unknown backend {backend!r}; choose inprocess or ray")
    check_backend(backend, address)
    # run-major order: a partial grid covers every stream
    todo = [
        (label, spec, run, scheme)
        for run in range(config.runs)
        for label, spec in config.streams
        for scheme in config.schemes
    ]
    keys = {cell_key(lb, r, s) for lb, _, r, s in todo}
    # each cell of a stream read from a file carries the file's fingerprint: a cell is
    # reused only on the same file (a file changed since is computed again, never mixed)
    prints = {label: fingerprint(spec, None) for label, spec in config.streams
              if os.path.isfile(spec)}
    cells_path = None
    done: dict[str, dict[str, Any]] = {}
    if output_dir is not None:
        output_dir = Path(output_dir)
        cells_path = _prepare_dir(config, output_dir, overwrite)
        done = {c["key"]: c for c in _read_cells(cells_path) if c.get("key") in keys}
        done = _same_files(done, prints, progress_stream or sys.stderr)
    todo = [c for c in todo if cell_key(c[0], c[2], c[3]) not in done]
    if max_cells is not None:
        todo = todo[:max_cells]

    bar = Progress(len(keys), len(done), stream=progress_stream) if progress else None

    def store(cell: dict[str, Any]) -> None:
        label = cell["key"].split("|")[0]
        if label in prints:
            cell = cell | {STREAM_FINGERPRINT: prints[label]}
        done[cell["key"]] = cell
        if cells_path is not None:
            with open_append(cells_path) as fh:
                fh.write((json.dumps(cell) + "\n").encode())
        if bar is not None:
            bar.update(cell)

    try:
        # a cell is deterministic: Ray may rerun it if its node or worker is lost
        weight = cell_costs(config, list(done.values()))
        run_study(
            [Part(cell_key(c[0], c[2], c[3]), weight[c[0]], c) for c in todo],
            _cell,
            # on Ray the real streams' files travel through the object store, once, so no
            # node needs them at the driver's path (synthetic streams are generated there)
            shared=(config, ship_files(config) if backend == "ray" and todo else {}),
            finished=lambda part: None,  # the stored cells are already left out of `todo`
            store=lambda part, cell: store(cell),
            backend=backend,
            address=address,
            max_retries=2,
        )
    finally:
        if bar is not None:
            bar.close()
    result = collect(config, [done[k] for k in sorted(done)], output_dir)
    if output_dir is not None and len(result.cells):
        write(result)
    return result


#: The key of a file stream's fingerprint in each of its cells.
STREAM_FINGERPRINT = "stream_fingerprint"


def _same_files(done: dict[str, dict[str, Any]], prints: dict[str, dict[str, Any]],
                say: IO[str]) -> dict[str, dict[str, Any]]:
    """The stored cells computed on the files the grid reads now; one line for each stream
    whose file changed since (or whose cells do not say which file they read), whose
    cells are then computed again."""
    kept: dict[str, dict[str, Any]] = {}
    stale: dict[str, list[Any]] = {}
    for key, cell in done.items():
        label = key.split("|")[0]
        if label in prints:
            why = (changed(cell[STREAM_FINGERPRINT], prints[label])
                   if isinstance(cell.get(STREAM_FINGERPRINT), dict)
                   else "its cells do not record which file they read")
            if why is not None:
                stale.setdefault(label, [0, why])[0] += 1
                continue
        kept[key] = cell
    for label, (n, why) in stale.items():
        print(f"distval: the file of stream {label} changed since {n} of its cells were "
              f"computed ({why}); they are computed again", file=say, flush=True)
    return kept


def cell_costs(config: GridConfig, cells: list[dict[str, Any]]) -> dict[str, float]:
    """Each stream's expected CPU seconds per cell (:func:`project`: from ``cells`` done or
    the reference costs), so that Ray starts the costliest cells first; a stream's rows
    where no cost is known.

    >>> from distval.experiments.type_errors.profiles import make_grid
    >>> costs = cell_costs(make_grid("quick"), [])
    >>> len(costs) == len(make_grid("quick").streams), min(costs.values()) > 0
    (True, True)
    """
    try:
        return {s["stream"]: float(s["cpu_per_cell"]) for s in project(config, cells).streams}
    except DistvalError:
        return {label: float(stream_rows(config, label, spec)) for label, spec in config.streams}


class Progress:
    """Progress of a grid: cells done, cells/hour, CPU-seconds per cell, projected finish.

    On a terminal the line is rewritten in place; otherwise (a log file, ``nohup``, a
    cluster job) a plain line is printed every ``every`` seconds and at the end, so logs
    stay readable. The rate counts only cells finished in this session (resumed cells are
    not timed again).

    >>> import io
    >>> out = io.StringIO()
    >>> p = Progress(4, 1, stream=out, every=0)
    >>> p.update({"cpu_seconds": 2.0}); p.close()
    >>> out.getvalue().splitlines()[0].split(",")[0]
    'type-errors grid: 2/4 cells (50.0%)'
    """

    def __init__(
        self, total: int, done: int = 0, *, stream: IO[str] | None = None, every: float = 60.0
    ) -> None:
        self.total, self.done, self.start_done = total, done, done
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self.t0 = time.time()
        self.last = -float("inf")
        self.cpu = 0.0

    def line(self) -> str:
        new = self.done - self.start_done
        elapsed = time.time() - self.t0
        share = 100 * self.done / max(self.total, 1)
        text = f"type-errors grid: {self.done}/{self.total} cells ({share:.1f}%)"
        if new > 0 and elapsed > 0:
            rate = new / elapsed * 3600
            left = (self.total - self.done) / rate * 3600
            finish = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() + left))
            text += (
                f", {rate:.1f} cells/h, {self.cpu / new:.1f} CPU-s/cell, "
                f"projected finish {finish} (in {_duration(left)})"
            )
        return text

    def update(self, cell: dict[str, Any] | None = None) -> None:
        self.done += 1
        if cell is not None:
            self.cpu += float(cell.get("cpu_seconds") or 0.0)
        now = time.time()
        if self.tty:
            self.stream.write("\r" + self.line() + " " * 4)
            self.stream.flush()
        elif now - self.last >= self.every or self.done == self.total:
            self.last = now
            print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
        elif self.done > self.start_done and self.done < self.total:
            print(self.line(), file=self.stream, flush=True)
        self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds // 3600:.0f} h {seconds % 3600 // 60:02.0f} min"
    return f"{seconds / 86400:.1f} days"


def ship_files(config: GridConfig) -> dict[str, bytes]:
    """The bytes of every file a grid's streams read (CovType and Poker given as paths),
    by the path in ``config.streams``: what Ray puts in its object store for the cells.

    >>> from distval.experiments.type_errors.profiles import make_grid
    >>> ship_files(make_grid("quick", streams=["SEA(50)", "Electricity"]))
    {}
    """
    return {spec: Path(spec).read_bytes() for label, spec in config.streams if label in REAL}


def local_copy(spec: str, files: dict[str, bytes]) -> str:
    """Where this node reads a shipped file: a copy in its temporary directory, named by
    the content's hash (written once per node), keeping the file's extension, which tells
    its format; ``spec`` itself when it was not shipped.

    >>> import tempfile
    >>> path = local_copy("/elsewhere/covtype.csv", {"/elsewhere/covtype.csv": b"a,b"})
    >>> Path(path).read_bytes(), path.endswith(".csv"), path.startswith(tempfile.gettempdir())
    (b'a,b', True, True)
    """
    data = files.get(spec)
    if data is None:
        return spec
    name = Path(spec).name
    suffix = "".join(Path(name).suffixes)
    digest = hashlib.sha256(data).hexdigest()
    target = _shipped_dir() / f"{digest[:16]}{suffix}"
    if not target.is_file() or target.is_symlink() or _sha256(target) != digest:
        write_file(target, data)  # a copy is reused only when its whole digest matches
    return str(target)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _shipped_dir() -> Path:
    """This user's folder of shipped files in the temporary directory: created atomically
    with mode 0700, and refused when it is anything else (a link, another user's folder,
    one that others may write into)."""
    d = Path(tempfile.gettempdir()) / f"distval-shipped-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        os.mkdir(d, 0o700)
    info = os.lstat(d)
    if (not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid()
            or info.st_mode & 0o077):
        raise DistvalError(
            f"{d} is not a folder of this user's alone (mode 0700); distval keeps shipped "
            "stream files there: remove it or set TMPDIR to another directory"
        )
    return d


def _cell(config: GridConfig, files: dict[str, bytes], part: Part) -> dict[str, Any]:
    label, spec, run, scheme = part.payload
    return run_cell(config, label, local_copy(spec, files), run, scheme)


def read_cells(output_dir: str | Path) -> list[dict[str, Any]]:
    """The finished cells stored in a grid's output directory (none if there is none)."""
    return _read_cells(Path(output_dir) / "cells.jsonl")
