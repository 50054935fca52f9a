"""The ``distval`` program as the console script runs it: a Ctrl-C at any moment of a
command, its imports included, is one line ``distval: interrupted`` and status 130; output
into a pipe whose reader has gone ends quietly, as Unix tools end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

#: The console script installed beside this Python (``[project.scripts]``), else the same
#: program through ``python -m distval.cli``.
_SCRIPT = Path(sys.executable).with_name("distval")
DISTVAL = [str(_SCRIPT)] if _SCRIPT.is_file() else [sys.executable, "-m", "distval.cli"]

#: A run long enough never to end by itself within the test.
RUN = ["run", "--stream", "sea", "--n-rows", "5000000", "--learners", "nb", "majority",
       "--folds", "2", "--backend", "inprocess", "--no-progress"]


def _interrupted(delay, out):
    """Start ``distval run``, send SIGINT ``delay`` seconds after its ``distval.cli`` module
    is imported (the moment distval's own code starts, told by Python's import-time
    report on stderr), and return its status and its stderr without the report's lines."""
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    proc = subprocess.Popen([*DISTVAL, *RUN, "--output", str(out)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines, started = [], threading.Event()

    def read():  # drain stderr all along: a full pipe would stop the program mid-import
        for line in proc.stderr:
            lines.append(line)
            if line.rstrip().endswith("| distval.cli"):
                started.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        assert started.wait(60), "".join(lines)[-2000:]
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(10)
        proc.stdout.close()
        proc.stderr.close()
    return proc.returncode, [x.rstrip("\n") for x in lines if not x.startswith("import time:")]


@pytest.mark.parametrize("delay", [0.0, 0.3, 1.0])
def test_ctrl_c_during_the_imports_or_the_run_is_one_line_and_status_130(tmp_path, delay):
    """At once (the command modules being imported: a second of imports on this machine),
    a little later, and about when the run starts: never a traceback."""
    status, err = _interrupted(delay, tmp_path / "out")
    text = "\n".join(err)
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert status == 130, text
    assert len([x for x in err if x.startswith("distval: interrupted")]) == 1, text


@pytest.mark.parametrize("argv", [["learners"], ["run", "--help"]])
def test_output_into_a_pipe_closed_early_ends_quietly(argv):
    """The reader gone before the program writes (``distval learners | head -1`` when
    ``head`` has already ended): no error line, and the status a Unix tool ends with (0,
    or 128 + SIGPIPE)."""
    with subprocess.Popen([*DISTVAL, *argv], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as proc:
        proc.stdout.close()  # nobody reads the output
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=120) in (0, 128 + signal.SIGPIPE)
    assert err == ""


def test_head_reads_its_line_and_the_pipeline_ends_well():
    """``distval learners | head -1``: the first learner's line, and both ends succeed."""
    done = subprocess.run(
        f"{' '.join(DISTVAL)} learners | head -1; echo \"status ${{PIPESTATUS[0]}}\"",
        shell=True, executable="/bin/bash", capture_output=True, text=True, timeout=120)
    first, status = done.stdout.splitlines()
    assert first.split()[0] == "ht" and status in ("status 0", "status 141")
    assert done.stderr == ""
