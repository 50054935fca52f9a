"""A run stopped by SIGTERM or SIGKILL keeps everything it wrote: the partial results read
back, are marked "interrupted at row N", and equal an uninterrupted run's rows up to N."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import distval
from distval.cli import main as cli_main
from distval.errors import DistvalError
from distval.results import load_results
from distval.results.reader import read_table

STREAM = ["--stream", "sea(noise=0.1)", "--learners", "nb", "majority", "--folds", "3",
          "--test-every", "1000", "--batch-size", "500"]


def _start(out, backend):
    args = [sys.executable, "-m", "distval.cli", "run", *STREAM, "--n-rows", "3000000",
            "--backend", backend, "--no-progress", "--output", str(out)]
    if backend == "ray":
        args += ["--actors", "2"]
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _tree(root):
    """``root`` and its descendants (from /proc)."""
    children = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        children.setdefault(int(text.rsplit(")", 1)[1].split()[1]), []).append(
            int(text.split()[0])
        )
    out, todo = set(), [root]
    while todo:
        pid = todo.pop()
        out.add(pid)
        todo += children.get(pid, [])
    return out


def _wait_for_rows(proc, out, rows):
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if load_results(out).final_position >= rows:
                return
        except DistvalError:
            pass  # nothing written yet
        time.sleep(0.5)
    raise AssertionError(f"no {rows} rows written: {proc.poll()} {proc.stderr.read()[-2000:]}")


def _same_as_uninterrupted(out, tmp_path):
    """The interrupted run's fold rows equal those of a run of exactly that many rows."""
    saved = load_results(out)
    n = saved.final_position
    ref = tmp_path / "ref"
    distval.evaluate(stream="sea(noise=0.1)", learners=("nb", "majority"), n_folds=3,
                     test_every=1000, batch_size=500, n_rows=n, output_dir=ref)
    got = read_table(out, "folds").to_pandas()
    got = got[got["position"] <= n].reset_index(drop=True)
    want = pq.read_table(ref / "folds.parquet").to_pandas()
    assert len(got) == len(want) > 0
    assert got.equals(want)
    return saved


@pytest.mark.parametrize("backend", ["inprocess", pytest.param("ray", marks=pytest.mark.ray)])
def test_sigterm_closes_the_results_like_ctrl_c(tmp_path, backend):
    """Before: in-process, no handler and a Parquet file without footer ("magic bytes not
    found"); on Ray, an abort with a C++ stack dump and status -6."""
    out = tmp_path / "run"
    proc = _start(out, backend)
    _wait_for_rows(proc, out, 6000 if backend == "ray" else 3000)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "SIGABRT" not in err and "*** " not in err, err[-3000:]
    assert f"interrupted; results so far are in {out}" in err
    assert (out / "folds.parquet").exists() and not (out / "folds.arrows").exists()
    saved = _same_as_uninterrupted(out, tmp_path)
    assert saved.summary["interrupted"] is True
    assert saved.interrupted_at == saved.summary["rows"] >= saved.final_position
    title = (out / "summary.md").read_text().splitlines()[0]
    assert f"interrupted at row {saved.summary['rows']}" in title


@pytest.mark.parametrize("backend", ["inprocess", pytest.param("ray", marks=pytest.mark.ray)])
def test_after_sigkill_what_was_written_reads_back_marked_interrupted(tmp_path, backend):
    out = tmp_path / "run"
    proc = _start(out, backend)
    _wait_for_rows(proc, out, 6000 if backend == "ray" else 3000)
    started = _tree(proc.pid)
    proc.kill()
    proc.communicate(timeout=60)
    for pid in started - {proc.pid}:  # a local Ray the killed driver started, by process id
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not (out / "summary.json").exists()  # no chance to close anything
    saved = _same_as_uninterrupted(out, tmp_path)
    assert saved.interrupted_at == saved.final_position >= 3000
    assert cli_main(["report", str(out)]) == 0
    assert f"interrupted at row {saved.final_position}" in (out / "report.md").read_text()
