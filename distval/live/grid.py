"""The live page of the type I/II grid (``distval reproduce type-errors --live``): cells done
of the grid's cells, the rate and the time left, and Tables 2-4 (bifet2015 §4.1) filling in
beside the paper's values as cells finish. It reads the grid's ``cells.jsonl``, to which
:func:`~distval.experiments.type_errors.run_grid` appends each finished cell: only the new
complete lines, only when the file grew. The tables come from a function of the cells read
(the grid's, :func:`distval.experiments.type_errors.live.grid_state`, gives those of
:func:`~distval.experiments.type_errors.tables.collect`), called again at most once per
request and only when cells were added.

>>> import json, tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp())
>>> count = lambda cells: {"table2": [{"row": "cells", "pnoise": 0.0, "scheme": "cv",
...                                    "ours": len(cells), "paper": None}]}
>>> state = GridState(d, {"S|0|cv", "S|1|cv"}, count)
>>> page = json.loads(state.to_json())
>>> page["status"]["state"], page["status"]["done"], page["status"]["total"]
('starting', 0, 2)
>>> _ = (d / "cells.jsonl").write_text(json.dumps({"key": "S|0|cv"}) + "\\n")
>>> page = json.loads(state.to_json())
>>> page["status"]["done"], page["charts"]["tables"]["table2"][0]["ours"]
(1, 1.0)
>>> state.end()
>>> json.loads(state.to_json())["status"]["message"][:31]
'interrupted after 1 of 2 cells '
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Any

from distval.live.state import _num

__all__ = ["GridState", "TableRows"]

#: The tables of the cells read: per table (``table2``, ``table3``, ``table4``), its rows as
#: dicts with ``row``, ``pnoise``, ``scheme``, ``ours`` and ``paper``.
TableRows = Callable[[list[dict[str, Any]]], Mapping[str, list[dict[str, Any]]]]


class GridState:
    """What the grid page shows, from ``directory/cells.jsonl``: the cells whose ``key`` is
    one of ``keys`` (the grid's), ``tables`` of them; :meth:`end` marks the end.

    ``about``: facts of the grid shown as they are (``learner``, ``streams``, ``runs``,
    ``schemes``); ``backend`` (``ray``/``inprocess``) names where the cells run."""

    page: str = "grid.html"

    def __init__(self, directory: str | os.PathLike[str], keys: Collection[str],
                 tables: TableRows, *, about: Mapping[str, Any] | None = None,
                 backend: str = "inprocess", title: str | None = None) -> None:
        self.directory = Path(directory).absolute()
        self.backend = backend
        self.title = title or self.directory.name
        self.about = dict(about or {})
        self._keys = set(keys)
        self._table_rows = tables
        self._lock = threading.Lock()
        self._offset = 0  # bytes of cells.jsonl read
        self._inode: int | None = None
        self._cells: dict[str, dict[str, Any]] = {}
        self._state = "running"
        self._start = time.monotonic()
        self._seconds = 0.0
        self._base: tuple[float, int] | None = None  # (time, cells) when first seen
        self._tables: dict[str, list[dict[str, Any]]] = {}
        self._tables_version = -1
        self.version = 0

    @property
    def total(self) -> int:
        return len(self._keys)

    @property
    def done(self) -> bool:
        return self._state != "running"

    def end(self) -> None:
        """The grid's command has ended: finished if every cell is in ``cells.jsonl``, else
        interrupted (stopped, or ``--max-cells`` reached)."""
        with self._lock:
            self._read()
            self._state = "finished" if len(self._cells) == self.total else "interrupted"
            self._seconds = time.monotonic() - self._start
            self.version += 1

    def _read(self) -> None:
        """Read the complete lines added to ``cells.jsonl`` since the last read (all of it
        again if it was replaced or shortened, as ``--overwrite`` does)."""
        path = self.directory / "cells.jsonl"
        try:
            st = path.stat()
        except OSError:
            if self._cells:  # removed (--overwrite): start again
                self._cells, self._offset, self._inode = {}, 0, None
                self.version += 1
            return
        if st.st_ino != self._inode or st.st_size < self._offset:
            self._cells, self._offset, self._inode = {}, 0, st.st_ino
            self.version += 1
        if st.st_size == self._offset:
            return
        with path.open("rb") as fh:
            fh.seek(self._offset)
            chunk = fh.read(st.st_size - self._offset)
        complete = chunk[: chunk.rfind(b"\n") + 1]  # a line being written: next time
        self._offset += len(complete)
        added = False
        for line in complete.splitlines():
            try:
                cell = json.loads(line)
            except ValueError:
                continue  # a line cut by an interruption: the grid runs that cell again
            if isinstance(cell, dict) and cell.get("key") in self._keys:
                self._cells[cell["key"]] = cell
                added = True
        if added:
            self.version += 1

    def _make_tables(self) -> None:
        """The tables of the cells read, their numbers as JSON numbers (NaN: null)."""
        cells = [self._cells[k] for k in sorted(self._cells)]
        tables = self._table_rows(cells) if cells else {}
        self._tables = {
            name: [{"row": str(r["row"]), "pnoise": _num(r["pnoise"]),
                    "scheme": str(r["scheme"]), "ours": _num(r["ours"]),
                    "paper": _num(r.get("paper"))} for r in rows]
            for name, rows in tables.items()
        }
        self._tables_version = self.version

    def _status(self) -> dict[str, Any]:
        done = len(self._cells)
        now = time.monotonic()
        if self._base is None or done < self._base[1]:
            self._base = (now, done)
        seconds = self._seconds if self.done else now - self._start
        new, spent = done - self._base[1], now - self._base[0]
        rate = new / spent * 3600 if new > 0 and spent > 0 else None  # cells per hour
        eta = (self.total - done) / rate * 3600 if rate and not self.done else None
        state = self._state
        if state == "running" and not self._cells and self._offset == 0:
            state = "starting"
        if self.done:
            phase = state
        elif new == 0:
            phase = ("Ray: first cells running" if self.backend == "ray"
                     else "in-process: first cell running")
        else:
            phase = "cells on Ray" if self.backend == "ray" else "cells in-process"
        message = {"finished": f"finished: all {self.total} cells",
                   "interrupted": f"interrupted after {done} of {self.total} cells \u2014 run "
                   "the same `distval reproduce type-errors` command again to continue "
                   "(finished cells are kept)"}.get(state, "")
        cpu = [float(c.get("cpu_seconds") or 0.0) for c in self._cells.values()]
        return {"state": state, "message": message, "version": self.version,
                "title": self.title, "done": done, "total": self.total,
                "seconds": round(seconds, 1), "rate": None if rate is None else round(rate, 1),
                "eta": None if eta is None else round(eta), "phase": phase,
                "cpu_per_cell": round(sum(cpu) / len(cpu), 2) if cpu else None,
                "directory": str(self.directory)} | self.about

    def to_json(self, since: int = -1) -> str:
        """The status (cells done, rate, ETA, phase) and, when changed since version
        ``since``, the tables: one list of rows (``row``, ``pnoise``, ``scheme``, ``ours``,
        ``paper``) per table."""
        with self._lock:
            self._read()
            status = self._status()
            charts = None
            if self.version > since:
                if self._tables_version != self.version:
                    self._make_tables()
                charts = {"tables": self._tables}
        return json.dumps({"status": status, "charts": charts}, allow_nan=False)
