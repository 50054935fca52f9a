"""A run stopped by SIGTERM or SIGKILL keeps everything it wrote: the partial results read
back, are marked "interrupted at row N", and equal an uninterrupted run's rows up to N."""

from __future__ import annotations

import contextlib
import json
import os
import re
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
from distval.results.schema import TABLES, read_table
from distval.results.writer import CHECKPOINT, read_checkpoint
from tests.helpers.restored_bytes import assert_bytes_as_after_pickling

STREAM = ["--stream", "sea(noise=0.1)", "--learners", "nb", "majority", "--folds", "3",
          "--test-every", "1000", "--batch-size", "500"]


def _start(out, backend, n_rows=3000000, extra=()):
    args = [sys.executable, "-m", "distval.cli", "run", *STREAM, "--n-rows", str(n_rows),
            "--backend", backend, "--no-progress", "--output", str(out), *extra]
    if backend == "ray":
        args += ["--actors", "2", "--private"]
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


def _kill_tree(proc):
    """SIGKILL the driver, then the processes it had started (a local Ray), by process id:
    nothing gets a chance to close anything."""
    started = _tree(proc.pid)
    proc.kill()
    proc.communicate(timeout=60)
    for pid in started - {proc.pid}:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


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
    assert (out / "folds.parquet").exists() and not (out / "folds.arrows").exists()
    saved = _same_as_uninterrupted(out, tmp_path)
    assert saved.summary["interrupted"] is True
    # the row it stopped at, the one its results end at (before: "interrupted; results ...")
    assert (f"distval: interrupted at row {saved.summary['rows']}; results so far are in "
            f"{out}") in err
    assert saved.interrupted_at == saved.summary["rows"] >= saved.final_position
    title = (out / "summary.md").read_text().splitlines()[0]
    assert f"interrupted at row {saved.summary['rows']}" in title


@pytest.mark.parametrize("backend", ["inprocess", pytest.param("ray", marks=pytest.mark.ray)])
def test_after_sigkill_what_was_written_reads_back_marked_interrupted(tmp_path, backend):
    out = tmp_path / "run"
    proc = _start(out, backend)
    _wait_for_rows(proc, out, 6000 if backend == "ray" else 3000)
    _kill_tree(proc)
    assert not (out / "summary.json").exists()  # no chance to close anything
    saved = _same_as_uninterrupted(out, tmp_path)
    assert saved.interrupted_at == saved.final_position >= 3000
    assert cli_main(["report", str(out)]) == 0
    assert f"interrupted at row {saved.final_position}" in (out / "report.md").read_text()


def _wait_for_checkpoint(proc, out, where):
    """Until the run has a checkpoint of rows evaluated ``where`` (driver or actors), after
    its first check is written."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            state, written = read_checkpoint(out)
            if state["evaluated_by"].get(where) and written["folds"]:
                return
        except DistvalError:
            pass  # none yet (or being replaced)
        time.sleep(0.2)
    raise AssertionError(f"no checkpoint: {proc.poll()} {proc.stderr.read()[-2000:]}")


def _stop(proc, how):
    if how == "SIGTERM":
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)
        assert proc.returncode == 130
        return
    _kill_tree(proc)


#: Summary entries that differ between any two runs of one configuration.
_RUN_OWN = {"elapsed_seconds", "rows_per_second", "evaluated_by", "backend", "timeline",
            "cost"}  # cost: CPU seconds differ run to run (the cost table is compared above)


# SIGTERM's resume is slow: a SIGTERM closes the results as Ctrl-C does
# (test_sigterm_closes_the_results_like_ctrl_c) and a Ctrl-C's resume is exact
# (test_ctrl_c_while_ray_starts_names_the_resume_and_the_resume_is_exact).
@pytest.mark.parametrize("how", [pytest.param("SIGTERM", marks=pytest.mark.slow), "SIGKILL"])
@pytest.mark.parametrize(
    "backend",
    ["inprocess", pytest.param("ray", marks=[pytest.mark.ray, pytest.mark.slow])],
)
def test_resume_continues_a_stopped_run_to_the_uninterrupted_results(tmp_path, backend, how):
    """Stopped after a checkpoint, the run's partial results read back marked interrupted;
    ``--resume`` then ends with every table and the summary of a run never stopped.
    (The Ray variants are slow: Ray starts twice; tests/ray_backend covers Ray's
    checkpoints and their resumption in-process and on Ray.)"""
    n = 12000 if backend == "inprocess" else 60000
    out = tmp_path / "run"
    proc = _start(out, backend, n, ["--checkpoint-seconds", "0.3"])
    _wait_for_checkpoint(proc, out, "driver" if backend == "inprocess" else "actors")
    _stop(proc, how)
    partial = load_results(out)
    assert partial.interrupted_at is not None and partial.final_position < n
    assert (out / CHECKPOINT).exists()
    _, written = read_checkpoint(out)
    # the cost rows the checkpoint keeps, as the stopped run measured them
    before = read_table(out, "cost").to_pandas()[:written["cost"]]
    extra = ["--actors", "2"] if backend == "ray" else []
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    done = subprocess.run(
        [sys.executable, "-m", "distval.cli", "run", "--resume", str(out), "--backend",
         backend, "--no-progress", *extra], env=env, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    ref = tmp_path / "ref"
    distval.evaluate(stream="sea(noise=0.1)", learners=("nb", "majority"), n_folds=3,
                     test_every=1000, batch_size=500, n_rows=n, output_dir=ref)
    for name in TABLES:
        assert (out / f"{name}.parquet").exists() == (ref / f"{name}.parquet").exists()
        if (ref / f"{name}.parquet").exists():
            got, want = pq.read_table(out / f"{name}.parquet"), pq.read_table(
                ref / f"{name}.parquet")
            assert got.num_rows == want.num_rows > 0
            if name == "cost":  # CPU seconds differ run to run: compared below
                _same_cost(got.to_pandas(), want.to_pandas(), before)
                keep = ["position", "learner", "fold", "rows", "measure"]
                got, want = got.select(keep), want.select(keep)
            assert got.equals(want), name
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in ref.iterdir())
    got, want = (
        {k: v for k, v in json.loads((d / "summary.json").read_text()).items()
         if k not in _RUN_OWN}
        for d in (out, ref)
    )
    assert got == want and got["rows"] == n and got["interrupted"] is False
    assert (out / "summary.md").read_text().splitlines()[0] == (
        ref / "summary.md").read_text().splitlines()[0]


def _same_cost(got, want, before):
    """A resumed run's cost against the uninterrupted run's: the same rows at every
    position; the rows measured before the stop kept exactly as measured; the accumulated
    CPU and RAM-hours of each learner equal within the CPU noise of a shared machine (each
    process's own CPU). Bytes are river's walk of the models each run holds: a run that
    checkpoints pickles its models, which gives each object its own ``__dict__`` that the
    walk then counts (docs/cost.md), so they differ from a run that never pickled by what
    pickling adds (tests/helpers/restored_bytes.py; tests/learners/test_cost.py checks them
    exactly against river's walk)."""
    import numpy as np
    import pandas as pd

    assert got["rows"].tolist() == want["rows"].tolist() and len(before) > 0
    pd.testing.assert_frame_equal(got[:len(before)], before)
    assert_bytes_as_after_pickling(got["bytes"], want["bytes"])
    # carried over the resume, not restarted: each replica's CPU and RAM-hours only grow
    for _, g in got.groupby(["learner", "fold"]):
        assert (np.diff(g["cpu"]) >= 0).all() and (np.diff(g["ram_hours"]) >= 0).all()
    last = lambda t: t[t["position"] == t["position"].max()].groupby("learner")  # noqa: E731
    a, b = last(got)["cpu"].sum(), last(want)["cpu"].sum()
    np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=0.5)
    # RAM-hours are bytes times CPU: nb's within the noise (the majority class's bytes differ
    # by more, above)
    a, b = last(got)["ram_hours"].sum(), last(want)["ram_hours"].sum()
    assert a["nb"] == pytest.approx(b["nb"], rel=0.5)


def _handling_sigterm(proc):
    """Wait until ``proc`` handles SIGTERM itself (the command line's handler is set:
    the command is under way), from /proc/PID/status."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                if line.startswith("SigCgt:") and int(line.split()[1], 16) >> 14 & 1:
                    return
        time.sleep(0.05)
    raise AssertionError(f"no SIGTERM handler: {proc.poll()} {proc.stderr.read()[-2000:]}")


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT])
def test_report_and_suite_plan_end_in_one_line_when_stopped(tmp_path, how):
    """Before: Ctrl-C or SIGTERM during `suite --plan` or `distval report` printed an
    87-line KeyboardInterrupt traceback."""
    out = tmp_path / "run"
    distval.evaluate(stream="sea", n_rows=3000, learners=("nb", "majority"), n_folds=3,
                     test_every=500, output_dir=out)
    commands = [["report", str(out)],
                ["suite", "--streams", "sea", "sea(noise=0.2)", "--learners", "ht", "nb",
                 "--n-rows", "1000000", "--plan", "--output", str(tmp_path / "plan")]]
    stopped = 0
    for argv in commands:
        proc = subprocess.Popen([sys.executable, "-m", "distval.cli", *argv],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _handling_sigterm(proc)
        time.sleep(0.3)  # into the command's own work
        proc.send_signal(how)
        _, err = proc.communicate(timeout=120)
        if proc.returncode == 0:  # it finished first (a fast machine): nothing to see
            continue
        lines = err.strip().splitlines()
        assert proc.returncode == 130 and lines[-1] == "distval: interrupted", err[-3000:]
        assert "Traceback" not in err, err[-3000:]
        stopped += 1
    assert stopped  # the plan's probes of a million rows outlast 0.3 s anywhere


@pytest.mark.ray
def test_ctrl_c_while_ray_starts_names_the_resume_and_the_resume_is_exact(tmp_path):
    """Ctrl-C to the whole terminal group (Ray's own processes get it too) while Ray
    starts: one line naming the --resume command, none of Ray's noise; the resume ends
    with the uninterrupted run's numbers."""
    out, n = tmp_path / "run", 6000
    args = [sys.executable, "-m", "distval.cli", "run", *STREAM, "--n-rows", str(n),
            "--backend", "ray", "--private", "--actors", "2", "--no-progress", "--output",
            str(out)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while not (out / "checkpoint.pkl").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=180)
    lines = [x for x in err.strip().splitlines() if x.strip()]
    assert proc.returncode == 130, err[-3000:]
    assert all(x.startswith("distval: ") for x in lines), err[-3000:]
    assert lines[-1].endswith(f"continue with: distval run --resume {out}"), err[-3000:]
    assert cli_main(["run", "--resume", str(out), "--backend", "inprocess",
                     "--no-progress"]) == 0
    ref = tmp_path / "ref"
    distval.evaluate(stream="sea(noise=0.1)", learners=("nb", "majority"), n_folds=3,
                     test_every=1000, batch_size=500, n_rows=n, output_dir=ref)
    for name in ("folds", "tests"):
        got = pq.read_table(out / f"{name}.parquet").drop_columns(["run_id"]) \
            if "run_id" in pq.read_schema(out / f"{name}.parquet").names \
            else pq.read_table(out / f"{name}.parquet")
        want = pq.read_table(ref / f"{name}.parquet")
        want = want.drop_columns(["run_id"]) if "run_id" in want.column_names else want
        assert got.to_pandas().equals(want.to_pandas()), name


def test_ctrl_c_while_ray_init_runs_ends_at_once_and_the_run_can_resume(tmp_path):
    """Before: Ctrl-C while ``ray.init`` ran waited for it to return: 6-11 s where the
    Ctrl-C had also ended the private Ray's processes, and for ever here, where the run
    joins a Ray address (RAY_ADDRESS) that accepts connections and never answers. Now the
    command ends with its one line at once, and the directory is resumable."""
    import socket

    out, n = tmp_path / "run", 6000
    args = [sys.executable, "-m", "distval.cli", "run", *STREAM, "--n-rows", str(n),
            "--backend", "ray", "--no-progress", "--output", str(out)]
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        env = {**os.environ, "RAY_ADDRESS": f"127.0.0.1:{silent.getsockname()[1]}"}
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True, env=env)
        try:
            deadline = time.monotonic() + 120
            while not (out / CHECKPOINT).exists() and time.monotonic() < deadline:
                time.sleep(0.02)  # written just after the start of ray.init is asked for
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=60)  # before: no end (ray.init never returns)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
    lines = [x for x in err.strip().splitlines() if x.strip()]
    assert proc.returncode == 130, err[-3000:]
    assert all(x.startswith("distval: ") for x in lines), err[-3000:]
    where = re.escape(str(out))
    assert re.fullmatch(rf"distval: interrupted( at row \d+)?; results so far are in {where}; "
                        rf"continue with: distval run --resume {where}", lines[-1]), err[-3000:]
    state, _ = read_checkpoint(out)  # resumable (the resume's numbers: the test above)
    assert 0 <= state["checkpoint"].rows < n
