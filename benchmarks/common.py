"""Shared helpers of the benchmarks: timing, load and machine capture, tables, result files.

Every benchmark imports this module (as ``common``, run as a script of this folder) and
:mod:`distval`; nothing else of the repository.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def timed(fn, *args, **kwargs):
    """(seconds, result) of one call."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return time.perf_counter() - t0, out


def table(rows: list[dict], columns: list[str] | None = None) -> str:
    """A Markdown table of dict rows (floats to 4 significant digits)."""
    columns = columns or list(rows[0])

    def fmt(v):
        if isinstance(v, float):
            return f"{v:,.4g}" if abs(v) < 1e4 else f"{v:,.0f}"
        return str(v)

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(fmt(r.get(c, "")) for c in columns) + " |" for r in rows]
    return "\n".join(lines)


def in_fresh_process(script: str, *args: str) -> Any:
    """Run ``script --one *args`` in a fresh Python process (cold imports, JIT, JVM; its own
    Ray) with the repository on the path, and return the JSON its last line prints."""
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run(
        [sys.executable, script, "--one", *args],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "load average (1, 5, 15 min) at the end": list(os.getloadavg()),
    }


def load_span(start: tuple[float, float, float]) -> str:
    """``"load average at the start a / b / c, at the end d / e / f"``: the machine's load
    over a measurement that began when ``os.getloadavg()`` was ``start``."""
    def three(load: tuple[float, float, float]) -> str:
        return " / ".join(f"{x:.1f}" for x in load)

    return f"load average at the start {three(start)}, at the end {three(os.getloadavg())}"


def tables_of(text: str) -> dict[str, dict[str, list]]:
    """The Markdown tables of ``text``, keyed "1", "2", ... in order: each its ``columns``
    and ``rows`` (cells as text).

    >>> tables_of("# t\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |\\n")
    {'1': {'columns': ['a', 'b'], 'rows': [['1', '2']]}}
    """
    out: dict[str, dict[str, list]] = {}
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.lstrip().startswith("|"):
            block.append(line.strip())
            continue
        if len(block) >= 2:
            cells = [[c.strip() for c in row.strip("|").split(" | ")] for row in block]
            out[str(len(out) + 1)] = {"columns": cells[0], "rows": cells[2:]}
        block = []
    return out


def save(name: str, text: str, data: dict) -> None:
    """Write results/NAME.md (the Markdown) and results/NAME.json and print the Markdown.

    Run by the harness (``python -m benchmarks NAME``), NAME is the benchmark's name and the
    folder the harness's (``results/quick/`` for ``--quick``), whatever ``name`` the script
    passes. The JSON holds the benchmark's name, the command, the date and machine, the
    tables of the Markdown (:func:`tables_of`) and the script's own ``data``.
    """
    name = os.environ.get("DISTVAL_BENCHMARK") or name
    out = Path(os.environ.get("DISTVAL_BENCHMARK_OUT") or RESULTS)
    out.mkdir(parents=True, exist_ok=True)
    data = dict(data)
    measured_on = data.pop("machine", None) or machine()
    command = os.environ.get("DISTVAL_BENCHMARK_COMMAND") or shlex.join(
        ["python", *sys.argv])
    result = {
        "benchmark": name,
        "command": command,
        "date": measured_on.get("date"),
        "machine": measured_on,
        "tables": tables_of(text),
        "data": data,
    }
    (out / f"{name}.md").write_text(text + "\n")
    (out / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    print(text)


def _proc_stats() -> Iterator[tuple[int, str, list[str]]]:
    """(pid, name, the fields after the name) of every process, from /proc/<pid>/stat."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name, rest = stat.split("(", 1)[1].rsplit(")", 1)
            yield int(entry.name), name, rest.split()


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for pid, _, fields in _proc_stats():
        kids.setdefault(int(fields[1]), []).append(pid)
    return kids


def tree_rss(pid: int | None = None) -> int:
    """Resident memory in bytes of a process and all its descendants (Linux /proc)."""
    pid = pid or os.getpid()
    kids, total, todo = _children(), 0, [pid]
    while todo:
        p = todo.pop()
        todo.extend(kids.get(p, []))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


class PeakRSS:
    """Samples :func:`tree_rss` in a background thread; ``peak`` in bytes."""

    def __init__(self, every: float = 0.5) -> None:
        import threading

        self.every, self.peak = every, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss())
            self._stop.wait(self.every)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, tree_rss())


def cpu_seconds(prefix: str) -> dict[int, float]:
    """CPU seconds (user + system) of every process whose name starts with ``prefix``."""
    tick = os.sysconf("SC_CLK_TCK")
    return {
        pid: (int(fields[11]) + int(fields[12])) / tick
        for pid, name, fields in _proc_stats()
        if name.startswith(prefix)
    }


class ProcessCPU:
    """Samples :func:`cpu_seconds` of the processes named ``prefix...`` in a background
    thread; ``seconds`` holds each one's last reading (processes that ended keep theirs),
    ``series`` (time, their summed CPU seconds) at every sample."""

    def __init__(self, prefix: str, every: float = 0.25) -> None:
        import threading

        self.prefix, self.every, self.seconds = prefix, every, {}
        self.series: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            now = {p: c for p, c in cpu_seconds(self.prefix).items() if p not in self._before}
            self.seconds.update(now)
            self.series.append((time.perf_counter(), sum(self.seconds.values())))
            self._stop.wait(self.every)

    def cores(self, start: float, end: float) -> float:
        """Cores these processes kept busy on average between two sample times."""
        inside = [(t, c) for t, c in self.series if start <= t <= end]
        if len(inside) < 2:
            return float("nan")
        (t0, c0), (t1, c1) = inside[0], inside[-1]
        return (c1 - c0) / (t1 - t0)

    def __enter__(self):
        self._before = set(cpu_seconds(self.prefix))  # processes of an earlier run: left out
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
