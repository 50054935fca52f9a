"""Ray's start in the background: a Ray that never answers does not hold the command."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import distval

pytestmark = pytest.mark.ray


def test_an_address_that_never_answers_ends_in_a_warning_and_the_in_process_numbers(tmp_path):
    """Before: ``RAY_ADDRESS`` naming a socket that accepts and never answers kept
    ``ray.init`` waiting for ever, and the command with it after the run's last row. Now
    the start is left after ``CLOSE_WAIT_SECONDS`` (1 s here) with one warning, and the
    run's numbers are the in-process ones."""
    out = tmp_path / "run"
    opts = ["--stream", "sea(noise=0.1)", "--learners", "nb", "majority", "--folds", "2",
            "--test-every", "300", "--batch-size", "300", "--n-rows", "900"]
    argv = ["run", *opts, "--backend", "ray", "--no-progress", "--output", str(out)]
    script = textwrap.dedent(f"""
        import sys
        import distval.ray_backend.starter as starter
        starter.CLOSE_WAIT_SECONDS = 1.0
        from distval.cli import main
        sys.exit(main({argv!r}))
    """)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        env = {**os.environ, "RAY_ADDRESS": f"127.0.0.1:{silent.getsockname()[1]}",
               "DISTVAL_KEEP_ACTORS": "0"}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "distval: warning: Ray did not answer in 1 s after the run's end; the run went " \
           "on in-process" in done.stderr, done.stderr[-3000:]
    ref = distval.evaluate(stream="sea(noise=0.1)", learners=("nb", "majority"), n_folds=2,
                           test_every=300, batch_size=300, n_rows=900)
    got = pq.read_table(out / "folds.parquet").to_pandas()
    assert got.drop(columns="run_id", errors="ignore").equals(
        ref.folds().drop(columns="run_id", errors="ignore"))


def _child_blocks_sigint() -> bool:
    """Whether a process forked from the calling thread starts with SIGINT blocked, as the
    kernel reports it (``SigBlk`` in /proc/PID/status; SIGINT is bit 1)."""
    status = subprocess.run(["cat", "/proc/self/status"], capture_output=True, text=True,
                            check=True).stdout
    mask = next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:"))
    return bool(int(mask, 16) >> (signal.SIGINT - 1) & 1)


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_processes_forked_while_ray_starts_block_ctrl_c_and_the_driver_does_not(ray_local):
    """Before: Ray's processes block SIGINT only in their preexec_fn, once Python runs again
    in the forked child, and a Ctrl-C to the terminal group in between raised
    KeyboardInterrupt there (its traceback on the command's stderr). Now every process the
    start thread forks is born with SIGINT blocked, while the main thread's are not."""
    from distval.ray_backend.starter import RayStarter

    starter = RayStarter(_child_blocks_sigint)
    starter.wait_started()
    try:
        assert starter.error is None
        assert starter.run is True
        assert not _child_blocks_sigint()
    finally:
        starter.close()
