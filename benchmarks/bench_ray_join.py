"""The default job's start-up with a running local Ray (``ray start``) against a fresh
private one, and its numbers against in-process.

A local Ray is started once by this script (``ray start --head`` on free, non-default ports,
in a temporary directory of its own, loopback only, workers at niceness 0) and stopped at
the end by this script, by the process ids of that cluster alone. Each run is the default
job (elec2, Hoeffding tree against Gaussian naive Bayes, 10-fold prequential bootstrap;
``--rows`` rows) in a fresh Python process, variants alternated in every round:

- ``joined, warm``: ``--backend ray`` with ``RAY_ADDRESS`` naming the running Ray, on the
  actors the run before kept warm there (one such run, not timed, fills the pool first);
- ``joined, nothing kept``: the same with ``DISTVAL_KEEP_ACTORS=0`` (new actors);
- ``auto, joined``: the default backend, ``RAY_ADDRESS`` set (it decides at the first batch);
- ``fresh``: ``--backend ray --private`` (``ray.init`` starts a Ray of the run's own);
- ``in-process``: the reference numbers.

For each run: seconds from the command's launch to Ray up (``ray_init_end``), to the
hand-over (the actors get the driver's state and start evaluating: ``hand_over``) and to the
first batch evaluated on the actors coming back (``first_actor_step``), the whole command's
seconds, and whether every fold row equals the in-process run's.

    python benchmarks/bench_ray_join.py --rounds 3 --rows 15000
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from common import machine, save, table  # noqa: E402

#: Runs the command line in the child, recording each timeline mark as seconds since the
#: child's launch (wall clock, so that the parent's launch time can be subtracted).
CHILD = """
import json, sys, time
from distval.engine.run import Timeline
marks = {}
mark = Timeline.mark
def recording(self, event, again=False):
    mark(self, event, again)
    marks.setdefault(event, time.time())
Timeline.mark = recording
from distval.cli import main
code = main(sys.argv[1:])
print("MARKS " + json.dumps(marks))
sys.exit(code)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_cluster(tmp: str) -> str:
    port = free_port()
    ports = {flag: str(free_port()) for flag in (
        "--dashboard-agent-listen-port",
        "--dashboard-agent-grpc-port", "--metrics-export-port", "--runtime-env-agent-port",
        "--node-manager-port", "--object-manager-port")}
    env = os.environ | {"RAY_AUTH_MODE": "disabled", "RAY_worker_niceness": "0"}
    # (no Ray Client server: it needs ray[client]; Ray leaves it off without the extra)
    subprocess.run(
        [str(Path(sys.executable).parent / "ray"), "start", "--head", "--port", str(port),
         "--temp-dir", tmp, "--num-cpus", "2",
         "--include-dashboard=false", "--node-ip-address", "127.0.0.1",
         "--disable-usage-stats", *[x for kv in ports.items() for x in kv]],
        check=True, capture_output=True, text=True, env=env)
    recorded = Path(tmp) / "ray_current_cluster"  # the address `ray start` reports
    return recorded.read_text().strip() if recorded.exists() else f"127.0.0.1:{port}"


def stop_cluster(tmp: str) -> list[int]:
    """SIGTERM, then SIGKILL, to the processes of the cluster in ``tmp`` (theirs alone:
    their command lines name its directory)."""
    mine = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if tmp.encode() in cmdline.read_bytes():
                mine.append(int(cmdline.parent.name))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in mine:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        time.sleep(2)
    return mine


def one(variant: str, rows: int, address: str, out: Path) -> dict:
    argv = ["run", "--n-rows", str(rows), "--no-progress", "--output", str(out)]
    env = os.environ | {"PYTHONPATH": str(ROOT), "RAY_AUTH_MODE": "disabled"}
    env.pop("RAY_ADDRESS", None)
    if variant.startswith("joined"):
        argv += ["--backend", "ray"]
        env["RAY_ADDRESS"] = address
        if variant == "joined, nothing kept":
            env["DISTVAL_KEEP_ACTORS"] = "0"
    elif variant == "auto, joined":
        env["RAY_ADDRESS"] = address
    elif variant == "fresh":
        argv += ["--backend", "ray", "--private"]
    else:
        argv += ["--backend", "inprocess"]
    launched = time.time()
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], capture_output=True,
                          text=True, env=env)
    total = time.time() - launched
    if done.returncode != 0:
        raise SystemExit(f"{variant}: {done.stderr[-3000:]}")
    marks = json.loads(done.stdout.split("MARKS ", 1)[1].splitlines()[0])
    first_line = done.stderr.strip().splitlines()[0] if done.stderr.strip() else ""
    return {
        "variant": variant,
        "Ray up (s)": round(marks["ray_init_end"] - launched, 2) if "ray_init_end" in marks
        else "",
        "hand-over (s)": round(marks["hand_over"] - launched, 2) if "hand_over" in marks
        else "",
        "first actor batch back (s)": round(marks["first_actor_step"] - launched, 2)
        if "first_actor_step" in marks else "",
        "whole command (s)": round(total, 2),
        "first line": first_line[:90],
    }


def same_folds(a: Path, b: Path) -> bool:
    import pyarrow.parquet as pq

    ta, tb = pq.read_table(a / "folds.parquet"), pq.read_table(b / "folds.parquet")
    cols = [c for c in ta.column_names if c != "run_id"]
    return bool(ta.select(cols).equals(tb.select(cols)))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--rows", type=int, default=15000)
    p.add_argument("--name", default="ray_join")
    p.add_argument("--machine", default="2-core VM, shared (other sessions' work running)")
    args = p.parse_args()
    variants = ["joined, warm", "joined, nothing kept", "auto, joined", "fresh", "in-process"]
    tmp = tempfile.mkdtemp(prefix="dvray-", dir="/tmp")
    load_before = list(os.getloadavg())
    t0 = time.time()
    rows: list[dict] = []
    try:
        address = start_cluster(tmp)
        cluster_start = round(time.time() - t0, 2)
        with tempfile.TemporaryDirectory() as outs:
            first = one("joined, warm", args.rows, address, Path(outs) / "fill")
            print("fills the pool:", first, flush=True)
            for r in range(args.rounds):
                runs = {}
                for v in variants:
                    out = Path(outs) / f"{r}-{v.replace(', ', '-')}"
                    row = one(v, args.rows, address, out) | {"round": r + 1}
                    runs[v] = out
                    rows.append(row)
                    print(row, flush=True)
                for row in rows[-len(variants):]:
                    row["folds = in-process"] = same_folds(runs[row["variant"]],
                                                           runs["in-process"])
    finally:
        stopped = stop_cluster(tmp)
    cols = ["round", "variant", "Ray up (s)", "hand-over (s)", "first actor batch back (s)",
            "whole command (s)", "folds = in-process", "first line"]
    info = machine() | {"machine": args.machine,
                        "load average at the start": load_before, "rows": args.rows,
                        "ray start --head (s)": cluster_start,
                        "the run that filled the pool": first,
                        "cluster processes stopped": len(stopped)}
    text = (f"# Default job's start-up: a running local Ray against a fresh one\n\n"
            f"`python benchmarks/bench_ray_join.py --rounds {args.rounds} --rows {args.rows}`"
            f"\n\nSeconds from the command's launch. {json.dumps(info)}\n\n"
            + table(rows, cols))
    save(args.name, text, {"run": info, "rows": rows})


if __name__ == "__main__":
    main()
