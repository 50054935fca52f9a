"""Starting Ray (distval.ray_backend.session)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

pytestmark = pytest.mark.ray


def test_ray_started_outside_the_main_thread_prints_no_sigterm_notice():
    """Issue 30 item 8: the auto backend starts Ray in a background thread, where ray.init
    logs "SIGTERM handler is not set because current thread is not the main thread" into
    the progress bar. A fresh process starts a real local Ray that way; its stderr stays
    free of the notice (and Ray did start)."""
    script = textwrap.dedent(
        """
        import threading
        import ray
        from distval.ray_backend.session import _start

        started = []

        def start():
            try:
                started.append(_start(None))
            except BaseException as exc:
                print("failed:", exc, flush=True)

        t = threading.Thread(target=start)
        t.start()
        t.join()
        print("started", started, ray.is_initialized(), flush=True)
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
    assert "started [True] True" in done.stdout, done.stdout + done.stderr
    assert "SIGTERM handler" not in done.stderr + done.stdout
