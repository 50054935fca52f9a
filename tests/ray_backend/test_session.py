"""Starting Ray (distval.ray_backend.session): no SIGTERM notice from a background thread,
a local Ray that distval starts is private (its processes listen on 127.0.0.1 only) and
runs its actors at the driver's priority."""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.ray


def test_ray_started_outside_the_main_thread_prints_no_sigterm_notice():
    """Issue 30 item 8: the auto backend starts Ray in a background thread, where ray.init
    logs "SIGTERM handler is not set because current thread is not the main thread" into
    the progress bar. A fresh process starts a real local Ray that way; its stderr stays
    free of the notice (and Ray did start). A SIGTERM the moment ray.init has returned goes
    to the handler the caller set (the command line's), not to Ray's crash handler, which
    before took it and printed a C++ stack dump ("logging.cc", "*** SIGTERM received")."""
    script = textwrap.dedent(
        """
        import os, signal, threading, time
        import ray
        from distval.ray_backend.session import _start

        started, got = [], []
        signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))

        def start():
            try:
                started.append(_start(None))
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.5)
            except BaseException as exc:
                print("failed:", exc, flush=True)

        t = threading.Thread(target=start)
        t.start()
        t.join()
        print("started", started, ray.is_initialized(), "handled", got, flush=True)
        ray.shutdown()
        """
    )
    # a short RAY_TMPDIR: Ray's socket paths must fit in 107 bytes
    short = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    env = dict(os.environ, RAY_TMPDIR=short, RAY_AUTH_MODE="disabled")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "started [True] True handled [15]" in done.stdout, done.stdout + done.stderr
    assert "SIGTERM handler" not in done.stderr + done.stdout
    assert "logging.cc" not in done.stderr and "***" not in done.stderr, done.stderr


def _tree(root: int) -> set[int]:
    """``root`` and every process descended from it (from /proc, parent ids)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        pid, ppid = int(text.split()[0]), int(text.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(pid)
    out, todo = set(), [root]
    while todo:
        pid = todo.pop()
        out.add(pid)
        todo += children.get(pid, [])
    return out


def _listening(pids: set[int]) -> list[tuple[str, str]]:
    """(local address, process) of every listening TCP socket of ``pids`` (``ss -ltnp``)."""
    lines = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True).stdout
    out = []
    for line in lines.splitlines():
        owners = {int(p) for p in re.findall(r"pid=(\d+)", line)}
        if owners & pids:
            out.append((line.split()[3], line.split()[-1]))
    return out


def _host(address: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    host = address.rsplit(":", 1)[0].strip("[]")
    if host == "*":
        return None  # every interface
    ip = ipaddress.ip_address(host)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


@pytest.mark.skipif(shutil.which("ss") is None or not Path("/proc").is_dir(), reason="needs ss")
def test_a_local_ray_run_listens_on_loopback_only(tmp_path):
    """During ``distval run --backend ray`` (Ray started by distval, its default token
    authentication), every listening socket of the command and the processes it started
    is on a loopback address; before the fix the GCS, raylets and workers listened on
    every interface (``*``)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
    args = [
        sys.executable, "-m", "distval.cli", "run", "--stream", "SEA(50)",
        "--n-rows", "5000000", "--learners", "nb", "majority", "--folds", "2",
        "--backend", "ray", "--actors", "2", "--no-progress", "--output", str(tmp_path / "r"),
    ]
    log = tmp_path / "stderr.txt"
    with log.open("wb") as err:
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=err)
    try:
        seen: list[tuple[str, str]] = []
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            seen = _listening(_tree(proc.pid))
            if any("LearnerAct" in who for _, who in seen):
                break
            time.sleep(0.5)
        assert any("LearnerAct" in who for _, who in seen), (seen, log.read_text()[-2000:])
        time.sleep(1.0)  # the rest of the processes (workers, agents) have started too
        seen = _listening(_tree(proc.pid))
        names = {re.search(r'\("([^"]+)"', who).group(1) for _, who in seen}
        assert {"gcs_server", "raylet"} <= names, names
        exposed = [(a, w) for a, w in seen if (_host(a) is None or not _host(a).is_loopback)]
        assert not exposed, exposed
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_a_local_ray_runs_its_actors_at_the_drivers_priority():
    """Ray starts its worker processes at niceness 15, so beside a driver evaluating at
    niceness 0 a booting actor got almost no CPU on a small machine (it came up only once
    the driver had nothing left to do). In a fresh process, the Ray that ``_start`` starts
    runs an actor whose niceness, read by the operating system (``os.nice(0)``), is the
    driver's; with ``RAY_worker_niceness`` set by the caller, the caller's value is kept."""
    script = textwrap.dedent(
        """
        import os
        import ray
        from distval.ray_backend.session import _start, _stop

        @ray.remote(num_cpus=0)
        class Probe:
            def nice(self):
                return os.nice(0)

        _start(None)
        print("nice", os.nice(0), ray.get(Probe.remote().nice.remote()), flush=True)
        _stop()
        print("restored", os.environ.get("RAY_worker_niceness"), flush=True)
        """
    )
    short = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    base = {k: v for k, v in os.environ.items() if k != "RAY_worker_niceness"}
    for given in (None, "7"):
        env = dict(base, RAY_TMPDIR=short, RAY_AUTH_MODE="disabled")
        if given is not None:
            env["RAY_worker_niceness"] = given
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
        )
        assert done.returncode == 0, done.stderr
        driver, actor = map(int, re.search(r"nice (-?\d+) (-?\d+)", done.stdout).groups())
        want = driver if given is None else min(19, driver + int(given))
        assert actor == want, (given, done.stdout)
        assert f"restored {given}" in done.stdout  # the variable is unset again after the run


def test_a_ray_that_does_not_start_is_one_line_and_the_run_resumes(tmp_path):
    """Before: Ray not starting (its 30 s start-up timeout at load 20-30, here a socket
    path it refuses) ended in Ray's own exception and exit 1. Now: one line naming the
    --resume command, from the checkpoint the run saved before it asked for Ray; the resume
    gives the uninterrupted run's numbers."""
    import pyarrow.parquet as pq

    import distval
    from distval.cli import main

    deep = tmp_path / ("x" * 110)  # Ray's sockets there would exceed AF_UNIX's 107 bytes
    deep.mkdir()
    out = tmp_path / "run"
    opts = ["--stream", "sea(noise=0.1)", "--learners", "nb", "majority", "--folds", "3",
            "--test-every", "1000", "--batch-size", "500", "--n-rows", "4000"]
    done = subprocess.run(
        [sys.executable, "-m", "distval.cli", "run", *opts, "--backend", "ray", "--private",
         "--no-progress", "--output", str(out)],
        capture_output=True, text=True, timeout=300, env=os.environ | {"RAY_TMPDIR": str(deep)},
    )
    lines = [x for x in done.stderr.strip().splitlines()
             if not x.startswith("distval: warning: ")]
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith("distval: error: cannot start or join a private Ray: ")
    assert lines[0].endswith(f"continue with: distval run --resume {out}")
    assert main(["run", "--resume", str(out), "--backend", "inprocess", "--no-progress"]) == 0
    ref = distval.evaluate(stream="sea(noise=0.1)", learners=("nb", "majority"), n_folds=3,
                           test_every=1000, batch_size=500, n_rows=4000)
    got = pq.read_table(out / "folds.parquet").to_pandas()
    assert got.drop(columns="run_id", errors="ignore").equals(
        ref.folds().drop(columns="run_id", errors="ignore"))


def test_which_ray_a_run_uses(tmp_path, monkeypatch):
    """--address, then RAY_ADDRESS, then the cluster `ray start` recorded while its GCS
    answers, else a private Ray; --private ("local") always a private one."""
    import socket

    from distval.ray_backend.session import find_ray, joining_line

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    assert find_ray(None) == ("local", "private")  # nothing recorded
    with socket.socket() as gcs:  # a port that answers, as a live GCS does
        gcs.bind(("127.0.0.1", 0))
        gcs.listen()
        address = f"127.0.0.1:{gcs.getsockname()[1]}"
        (tmp_path / "ray").mkdir()
        (tmp_path / "ray" / "ray_current_cluster").write_text(address + "\n")
        assert find_ray(None) == (address, "ray start")
        assert find_ray("local") == ("local", "private")
        monkeypatch.setenv("DISTVAL_KEEP_ACTORS", "0")  # nothing kept: no word of it
        assert joining_line(None, "ray") == (
            f"using the running Ray at {address} (found by ray start); --backend ray "
            "--private starts a Ray of this run's own")
        assert joining_line("local", "ray") is None
        monkeypatch.setenv("RAY_ADDRESS", "10.1.2.3:6379")
        assert find_ray(None) == ("10.1.2.3:6379", "RAY_ADDRESS")
        assert find_ray("ray://head:10001") == ("ray://head:10001", "--address")
        monkeypatch.delenv("RAY_ADDRESS")
    assert find_ray(None) == ("local", "private")  # recorded, but its GCS is gone


def _cluster_pids(directory):
    return [int(p.parent.name) for p in Path("/proc").glob("[0-9]*/cmdline")
            if _reads(p, str(directory))]


def _reads(path, text):
    try:
        return text.encode() in path.read_bytes()
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.ray
def test_a_run_joins_a_running_ray_and_gives_the_in_process_numbers(tmp_path):
    """A cluster started with `ray start --head` (its own directory and free ports; stopped
    by its process ids alone): the run says it joins it, runs its actors there, and every
    fold row equals the in-process run's."""
    import socket

    import pyarrow.parquet as pq

    import distval

    def free():
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return str(s.getsockname()[1])

    ray_dir = Path(tempfile.mkdtemp(prefix="dvj-", dir="/tmp"))  # short: AF_UNIX paths
    env = os.environ | {"RAY_AUTH_MODE": "disabled", "RAY_worker_niceness": "0"}
    ports = [x for flag in ("--dashboard-agent-listen-port", "--dashboard-agent-grpc-port",
                            "--metrics-export-port", "--runtime-env-agent-port",
                            "--node-manager-port", "--object-manager-port")
             for x in (flag, free())]
    ray_bin = str(Path(sys.executable).parent / "ray")
    try:
        subprocess.run([ray_bin, "start", "--head", "--port", free(), "--temp-dir",
                        str(ray_dir), "--num-cpus", "2", "--include-dashboard=false",
                        "--disable-usage-stats", *ports],
                       check=True, capture_output=True, timeout=180, env=env)
        address = (ray_dir / "ray_current_cluster").read_text().strip()
        opts = ["--stream", "sea(noise=0.1)", "--learners", "nb", "majority", "--folds", "3",
                "--test-every", "1000", "--batch-size", "500", "--n-rows", "6000"]
        outs = [tmp_path / "joined", tmp_path / "warm"]  # the second on the first's actors
        for out in outs:
            done = subprocess.run(
                [sys.executable, "-m", "distval.cli", "run", *opts, "--backend", "ray",
                 "--actors", "2", "--no-progress", "--output", str(out)],
                capture_output=True, text=True, timeout=300,
                env=env | {"RAY_ADDRESS": address, "DISTVAL_KEEP_ACTORS": "60"})
            assert done.returncode == 0, done.stderr[-3000:]
            assert done.stderr.splitlines()[0] == (
                f"distval: using the running Ray at {address} (found by RAY_ADDRESS); "
                "--backend ray --private starts a Ray of this run's own; on one machine its "
                "actors stay warm 60 s for the next run (DISTVAL_KEEP_ACTORS=0: not kept)")
            summary = json.loads((out / "summary.json").read_text())
            assert summary["evaluated_by"].get("actors", 0) > 0
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for pid in _cluster_pids(ray_dir):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            time.sleep(1)
        shutil.rmtree(ray_dir, ignore_errors=True)
    ref = distval.evaluate(stream="sea(noise=0.1)", learners=("nb", "majority"), n_folds=3,
                           test_every=1000, batch_size=500, n_rows=6000)
    for out in outs:
        got = pq.read_table(out / "folds.parquet").to_pandas()
        assert got.drop(columns="run_id", errors="ignore").equals(
            ref.folds().drop(columns="run_id", errors="ignore"))
