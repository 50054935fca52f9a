"""What the live page costs a run: CPU seconds of the default job (``distval run``: bundled
elec2, ht against nb, 10-fold bootstrap) with and without ``--live``, in-process and on Ray.

Each run is its own process (``python -m distval.cli run --no-progress``, one fresh
interpreter, its own Ray with ``--backend ray``); its CPU is read from ``/proc`` every 0.1 s
for the process and all its descendants (Ray's GCS, raylet and worker processes included),
each process's last reading counted. With ``--live`` a client plays the page: it fetches the
page and plotly.js once, then asks for ``/state?since=V`` once a second, as the page's
script does (``V``: the last charts version it got). The arms are interleaved, their order
alternating from one repeat to the next, so that both see the same load on the machine.

Run: ``python benchmarks/bench_live.py [--repeats 3] [--rows N]`` from the repository root;
it writes ``results/live.md`` and ``results/live.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from common import load_span, save, table

REPO = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def _tree(root: int) -> dict[int, float]:
    """CPU seconds (user + system) of ``root`` and every process below it."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        pid = int(entry.name)
        parent[pid] = int(fields[1])
        cpu[pid] = (int(fields[11]) + int(fields[12])) / TICK
    out = {}
    for pid in cpu:
        p = pid
        while p > 1 and p != root:
            p = parent.get(p, 0)
        if p == root:
            out[pid] = cpu[pid]
    return out


class _Page(threading.Thread):
    """A client in place of the browser: the page and plotly.js once, then the state once a
    second until the run ends."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url, self.polls, self.stop = url, 0, threading.Event()

    def run(self) -> None:
        base, token = self.url.split("/?token=")
        for path in ("/", "/plotly.min.js"):
            urllib.request.urlopen(f"{base}{path}?token={token}").read()
        version = -1
        while not self.stop.is_set():
            try:
                with urllib.request.urlopen(f"{base}/state?token={token}&since={version}") as r:
                    data = json.loads(r.read())
            except OSError:
                return
            self.polls += 1
            if data["charts"] is not None:
                version = data["status"]["version"]
            if data["status"]["state"] in ("finished", "interrupted"):
                return
            self.stop.wait(1.0)


def one(backend: str, live: bool, rows: int | None) -> dict[str, Any]:
    """One default run as its own process: CPU seconds of its tree, wall seconds."""
    out = tempfile.mkdtemp(prefix="distval-bench-live-")
    cmd = [sys.executable, "-m", "distval.cli", "run", "--backend", backend, "--no-progress",
           "--output", out, "--overwrite"]
    if rows:
        cmd += ["--n-rows", str(rows)]
    if live:
        cmd += ["--live", "--no-browser"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    seen: dict[int, float] = {}
    page: _Page | None = None
    err: list[str] = []

    def read_stderr() -> None:
        nonlocal page
        assert proc.stderr is not None
        for line in proc.stderr:
            err.append(line)
            m = re.search(r"live page: (http://\S+)", line)
            if m and page is None:
                page = _Page(m.group(1))
                page.start()

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    while proc.poll() is None:
        seen.update(_tree(proc.pid))
        time.sleep(0.1)
    wall = time.perf_counter() - t0
    reader.join(timeout=10)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{''.join(err)}")
    polls = 0
    if page is not None:
        page.stop.set()
        page.join(timeout=5)
        polls = page.polls
    elif live:
        raise RuntimeError("no live page address printed:\n" + "".join(err))
    summary = json.loads((Path(out) / "summary.json").read_text())
    return {"backend": backend, "live": live, "cpu_seconds": round(sum(seen.values()), 2),
            "wall_seconds": round(wall, 2), "polls": polls, "rows": summary["rows"],
            "evaluated_by": summary.get("evaluated_by")}


def threads(backend: str, rows: int | None) -> dict[str, Any]:
    """The page's own CPU, counted in its threads: one default run in this process with a
    :class:`~distval.live.LiveState` observer and a :class:`~distval.live.LiveServer` asked
    once a second; the thread CPU of keeping the numbers (``observer_seconds``) and of
    answering (``request_seconds``), against this process's CPU (the client's thread left
    out; on Ray, the actors' processes are not counted, so the share is an upper bound)."""
    import distval
    from distval.live import LiveServer, LiveState

    state = LiveState()
    server = LiveServer(state)
    page = _Page(server.url)
    client = {"cpu": 0.0}
    run = page.run

    def timed_run() -> None:
        start = time.thread_time()
        run()
        client["cpu"] = time.thread_time() - start

    page.run = timed_run  # type: ignore[method-assign]
    t0, w0 = time.process_time(), time.perf_counter()
    page.start()
    options = {"n_rows": rows} if rows else {}
    distval.evaluate(backend=backend, observer=state, **options)
    page.join(timeout=10)
    server.close()
    cpu = time.process_time() - t0 - client["cpu"]
    spent = state.observer_seconds + server.request_seconds
    return {"backend": backend, "process_cpu_seconds": round(cpu, 2),
            "wall_seconds": round(time.perf_counter() - w0, 2), "polls": page.polls,
            "observer_seconds": round(state.observer_seconds, 4),
            "request_seconds": round(server.request_seconds, 4),
            "page_share": f"{100 * spent / cpu:.2f} %"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", action="store_true",
                    help="instead: the page's own CPU counted in its threads (one run per "
                    "backend in this process); writes results/live_threads.md")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rows", type=int, default=None, help="rows (default: all of elec2)")
    ap.add_argument("--backends", default="inprocess,ray")
    args = ap.parse_args()
    start = os.getloadavg()
    if args.threads:
        got = [threads(b, args.rows) for b in args.backends.split(",")]
        save("live_threads", "\n".join([
            "# The live page's own CPU, counted in its threads",
            "",
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 2-core VM, shared; "
            f"{load_span(start)}. `python benchmarks/bench_live.py --threads"
            f"{' --rows ' + str(args.rows) if args.rows else ''}`: the default job"
            f"{' on its first ' + str(args.rows) + ' rows' if args.rows else ''}, one run per "
            "backend in one process, a client asking for the state once a second; the CPU of "
            "the observer (the run's thread) and of the server's threads against the "
            "process's (the client's thread left out; Ray's actors not counted).",
            "",
            table(got),
        ]), {"runs": got})
        return
    runs = []
    for r in range(args.repeats):
        for backend in args.backends.split(","):
            for live in ((False, True) if r % 2 == 0 else (True, False)):
                runs.append(one(backend, live, args.rows))
                print(json.dumps(runs[-1]), flush=True)
    rows = []
    for backend in args.backends.split(","):
        off = [x["cpu_seconds"] for x in runs if x["backend"] == backend and not x["live"]]
        on = [x["cpu_seconds"] for x in runs if x["backend"] == backend and x["live"]]
        cost = 100 * (statistics.median(on) / statistics.median(off) - 1)
        rows.append({
            "backend": backend,
            "CPU-s without --live (each)": " / ".join(f"{v:.1f}" for v in off),
            "CPU-s with --live (each)": " / ".join(f"{v:.1f}" for v in on),
            "median without": statistics.median(off), "median with": statistics.median(on),
            "cost of --live": f"{cost:+.1f} %",
        })
    text = "\n".join([
        "# The live page's cost: the default job with and without --live",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; 2-core VM, shared (other "
        f"jobs running beside it); {load_span(start)}. `python benchmarks/bench_live.py "
        f"--repeats {args.repeats}`: the default job (elec2, ht vs nb, 10-fold bootstrap"
        f"{', ' + str(args.rows) + ' rows' if args.rows else ''}), each run its own "
        "process; CPU seconds of the process and all its descendants (Ray's processes "
        "included), arms interleaved; with --live a client asks for the state once a "
        "second, as the page does.",
        "",
        table(rows),
        "",
        "Every run:",
        "",
        table(runs, ["backend", "live", "cpu_seconds", "wall_seconds", "polls", "rows"]),
    ])
    save("live", text, {"runs": runs, "summary": rows, "repeats": args.repeats})


if __name__ == "__main__":
    main()
