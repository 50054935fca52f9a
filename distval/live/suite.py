"""The live page of a suite (``distval suite --live``): its streams' progress, the average
ranks (the suite's one rule: ties within the ROPE) as they fill in and the values in the
run's unit (shares in percent), each stream's best rank in bold, read from the
``suite.json`` the suite rewrites whenever a stream finishes
(:mod:`distval.experiments.suite`). The file is read again only when it changed.

>>> import json, tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp())
>>> state = SuiteState(d)
>>> json.loads(state.to_json())["status"]["state"]
'starting'
>>> _ = (d / "suite.json").write_text(json.dumps({"measure": "accuracy", "streams": [
...     {"name": "sea", "done": True, "rows": 500}, {"name": "elec2", "done": False}],
...     "comparison": {"average_ranks": {"nb": 1.0, "majority": 2.0}, "values": [[0.8, 0.6]],
...                    "spread": [[0.01, 0.02]], "ranks": [[1.0, 2.0]]}}))
>>> page = json.loads(state.to_json())
>>> page["status"]["done"], page["status"]["total"], page["charts"]["ranks"]
(1, 2, {'nb': 1.0, 'majority': 2.0})
>>> page["charts"]["cells"], page["charts"]["best"], page["charts"]["label"]
([['80.0 ±1.0', '60.0 ±2.0']], [[True, False]], 'accuracy (%)')
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from distval.tasks import task_of

__all__ = ["SuiteState"]


class SuiteState:
    """What the suite page shows, from ``directory/suite.json``; :meth:`end` marks the end."""

    page: str = "suite.html"

    def __init__(self, directory: str | os.PathLike[str], title: str | None = None) -> None:
        self.directory = Path(directory).absolute()
        self.title = title or self.directory.name
        self._lock = threading.Lock()
        self._stamp: tuple[float, int] | None = None
        self._data: dict[str, Any] = {}
        self._state = "running"
        self._start = time.monotonic()
        self._seconds = 0.0
        self._history: list[dict[str, Any]] = []  # the ranks after each stream that finished
        self.version = 0

    def end(self) -> None:
        """The suite's command has ended: finished if ``suite.json`` has every stream done,
        else interrupted."""
        with self._lock:
            self._read()
            streams = self._data.get("streams", [])
            complete = bool(streams) and all(s.get("done") for s in streams)
            self._state = "finished" if complete else "interrupted"
            self._seconds = time.monotonic() - self._start
            self.version += 1

    @property
    def done(self) -> bool:
        return self._state != "running"

    def _read(self) -> None:
        """Read ``suite.json`` again if it changed (a version more)."""
        path = self.directory / "suite.json"
        try:
            st = path.stat()
        except OSError:
            return
        stamp = (st.st_mtime, st.st_size)
        if stamp == self._stamp:
            return
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):  # being rewritten: next time
            return
        if not isinstance(data, dict):
            return
        self._stamp, self._data = stamp, data
        done = sum(bool(s.get("done")) for s in data.get("streams", []))
        ranks = (data.get("comparison") or {}).get("average_ranks") or {}
        if ranks and (not self._history or self._history[-1]["done"] != done):
            self._history.append({"done": done, "ranks": dict(ranks)})
        self.version += 1

    def to_json(self, since: int = -1) -> str:
        """The status (streams done, each stream's state) and, when changed since version
        ``since``, the ranks and their history."""
        with self._lock:
            self._read()
            streams = self._data.get("streams", [])
            done = sum(bool(s.get("done")) for s in streams)
            state = self._state if self._data or self._state != "running" else "starting"
            message = {"finished": "finished",
                       "interrupted": f"interrupted after {done} of {len(streams)} streams \u2014 "
                       "run the same `distval suite` command again to continue (finished "
                       "streams are kept)"}.get(state, "")
            seconds = self._seconds if self.done else time.monotonic() - self._start
            status = {"state": state, "message": message, "version": self.version,
                      "title": self.title, "done": done, "total": len(streams),
                      "seconds": round(seconds, 1), "directory": str(self.directory),
                      "streams": [{k: s.get(k) for k in ("name", "done", "rows",
                                                         "elapsed_seconds")}
                                  for s in streams]}
            charts = None
            if self.version > since and self._data:
                charts = self._charts()
        return json.dumps({"status": status, "charts": charts}, allow_nan=False)

    def _charts(self) -> dict[str, Any]:
        """The ranks, their history and the values table: each value as the run's task
        prints it (shares in percent), in bold where it holds its stream's best rank under
        the suite's one rank rule (ties within the ROPE, ``comparison.ranks``)."""
        comparison = self._data.get("comparison") or {}
        task = task_of((self._data.get("config") or {}).get("run") or {})
        measure = str(self._data.get("measure") or task.default_measure)
        values, spread = comparison.get("values") or [], comparison.get("spread") or []
        cells = [[task.short_cell(measure, {"mean": v, "std": e})
                  for v, e in zip(row, sd, strict=False)]
                 for row, sd in zip(values, spread, strict=False)]
        ranks = comparison.get("ranks") or []
        return {"measure": self._data.get("measure"), "label": task.label(measure),
                "units": task.units_of(measure), "rule": comparison.get("rank_rule") or "",
                "ranks": comparison.get("average_ranks") or {},
                "history": list(self._history),
                "streams": comparison.get("streams") or [],
                "learners": comparison.get("learners") or [],
                "values": values, "cells": cells,
                "best": [[r == min(row) for r in row] for row in ranks]}
