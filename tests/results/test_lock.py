"""One writer per results directory: a live run's lock refuses a resume, a second run with
--overwrite and a second resume, in one line naming its process; a killed run's lock is
taken over."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

import distval
from distval.cli import main
from distval.errors import DistvalError
from distval.results.lock import LOCK, DirectoryLock, holder
from distval.results.schema import TABLES
from distval.results.writer import CHECKPOINT, read_checkpoint

OPTS = ["--stream", "sea(noise=0.1)", "--learners", "nb", "majority", "--folds", "3",
        "--test-every", "1000", "--batch-size", "500", "--backend", "inprocess",
        "--no-progress"]


def _one_error(capsys, *argv):
    code = main(list(argv))
    _, err = capsys.readouterr()
    lines = [x for x in err.strip().splitlines() if not x.startswith("distval: warning: ")]
    assert code == 2 and len(lines) == 1 and lines[0].startswith("distval: error: "), err
    return lines[0]


def _checkpointed(proc, out):
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            _, written = read_checkpoint(out)
            if written["folds"]:
                return
        except DistvalError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"no checkpoint: {proc.poll()} {proc.stderr.read()[-2000:]}")


def test_a_live_run_refuses_other_writers_and_a_killed_ones_lock_is_taken_over(
    tmp_path, capsys
):
    """Before: a resume beside the live run cut its tables back under it (760 duplicated
    rows, two checks lost) and --overwrite deleted its files."""
    out, n = tmp_path / "run", 20000
    proc = subprocess.Popen(
        [sys.executable, "-m", "distval.cli", "run", *OPTS, "--n-rows", str(n), "--output",
         str(out), "--checkpoint-seconds", "0.3"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        _checkpointed(proc, out)
        assert holder(out)["pid"] == proc.pid
        before = sorted(p.name for p in out.iterdir())
        for argv in (["run", "--resume", str(out)],
                     ["run", *OPTS, "--n-rows", "100", "--output", str(out), "--overwrite"]):
            line = _one_error(capsys, *argv)
            assert f"in use by another distval run (pid {proc.pid} on " in line
        assert proc.poll() is None  # untouched, still going
        assert set(before) <= {p.name for p in out.iterdir()} | {"checkpoint.pkl.part"}
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
    # killed: its lock file stays, but no process holds it
    assert (out / LOCK).exists() and holder(out)["pid"] == proc.pid
    assert main(["run", "--resume", str(out), "--no-progress"]) == 0
    assert not (out / LOCK).exists() and not (out / CHECKPOINT).exists()
    ref = tmp_path / "ref"
    distval.evaluate(stream="sea(noise=0.1)", learners=("nb", "majority"), n_folds=3,
                     test_every=1000, batch_size=500, n_rows=n, output_dir=ref)
    for name in (t for t in TABLES if t != "cost"):  # CPU seconds differ run to run
        if (ref / f"{name}.parquet").exists():
            got = pq.read_table(out / f"{name}.parquet")
            assert got.equals(pq.read_table(ref / f"{name}.parquet")), name
    assert json.loads((out / "summary.json").read_text())["rows"] == n


def test_two_resumes_at_once_the_second_is_refused(tmp_path, capsys):
    """A resume in progress (its lock held in this process) refuses another one."""
    d = tmp_path / "run"
    d.mkdir()
    lock = DirectoryLock.take(d, "r")
    try:
        line = _one_error(capsys, "run", "--resume", str(d))
        assert f"pid {os.getpid()} on " in line and "since " in line
        with pytest.raises(DistvalError, match="in use by another distval run"):
            distval.evaluate(stream="sea", n_rows=100, learners=("nb", "majority"),
                             output_dir=d, overwrite=True)
    finally:
        lock.release()
    assert not (d / LOCK).exists()


def test_a_stale_lock_file_is_taken_over(tmp_path):
    """A lock file whose process is gone (nobody holds its flock) is taken over and says
    who holds it now."""
    d = tmp_path / "run"
    d.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    (d / LOCK).write_text(json.dumps({"pid": int(dead.stdout), "host": "h", "started": "t"}))
    res = distval.evaluate(stream="sea", n_rows=500, learners=("nb", "majority"), n_folds=2,
                           test_every=250, output_dir=d)
    assert res.n_rows == 500 and not (d / LOCK).exists()


def test_the_lock_file_says_who_holds_it(tmp_path):
    lock = DirectoryLock.take(tmp_path, "abc")
    try:
        who = holder(tmp_path)
        assert who["pid"] == os.getpid() and who["run_id"] == "abc"
        assert who["host"] == os.uname().nodename
    finally:
        lock.release()


def test_a_suite_or_permuted_copies_directory_has_one_writer_too(tmp_path):
    from distval.experiments.robustness import run_robustness
    from distval.experiments.suite import suite

    d = tmp_path / "study"
    lock = DirectoryLock.take(d, "r")
    try:
        with pytest.raises(DistvalError, match="in use by another distval run"):
            suite(["sea"], learners=("nb", "majority"), n_rows=300, output_dir=d)
        with pytest.raises(DistvalError, match="in use by another distval run"):
            run_robustness(distval.RunConfig(stream="sea", n_rows=300), permute="random",
                           repeats=2, output_dir=d, overwrite=True)
    finally:
        lock.release()
    res = suite(["sea"], learners=("nb", "majority"), n_rows=300, n_folds=2, output_dir=d,
                figures=False)
    assert res is not None and not (d / LOCK).exists()


def _planted(d, victim, how):
    d.mkdir(exist_ok=True)
    if how == "symlink":
        os.symlink(victim, d / LOCK)
    else:
        os.link(victim, d / LOCK)


@pytest.mark.parametrize("how", ["symlink", "hardlink"])
def test_a_planted_lock_file_never_writes_the_file_it_links_to(tmp_path, capsys, how):
    """Before: a run.lock linked to any file made the next run there truncate that file and
    write a JSON line into it, also when the directory was then refused as not empty."""
    victim = tmp_path / "bashrc"
    victim.write_text("precious\n")
    # a new run into a directory holding only the planted link: accepted, link unlinked
    new = tmp_path / "new"
    _planted(new, victim, how)
    assert main(["run", *OPTS, "--n-rows", "600", "--output", str(new)]) == 0
    # a directory refused as not empty (a file of another kind there)
    full = tmp_path / "full"
    _planted(full, victim, how)
    (full / "notes.txt").write_text("mine")
    line = _one_error(capsys, "run", *OPTS, "--n-rows", "600", "--output", str(full))
    assert "holds files of another run" in line or "not empty" in line
    assert os.path.lexists(full / LOCK)  # left as it was: nothing followed or removed
    # a resume of an interrupted run whose directory got the link
    res = tmp_path / "res"
    distval.evaluate(stream="sea(noise=0.1)", learners=("nb", "majority"), n_folds=3,
                     test_every=1000, batch_size=500, n_rows=3000, output_dir=res,
                     checkpoint_seconds=0)
    summary = json.loads((res / "summary.json").read_text())
    (res / "summary.json").write_text(json.dumps(summary | {"interrupted": True}))
    _planted(res, victim, how)
    main(["run", "--resume", str(res), "--no-progress"])
    capsys.readouterr()
    assert victim.read_text() == "precious\n"
    assert os.stat(victim).st_nlink == (1 if how == "symlink" else 2)  # only `full`'s link


def test_a_removed_lock_file_stops_its_owner_and_still_refuses_a_resume(tmp_path, capsys):
    """Before: deleting run.lock by hand while a run lived let a resume cut its tables, and
    the owner then reported a complete run with a third of its fold rows. Now the lock is
    the directory's (a resume is still refused) and the owner, at its next checkpoint,
    stops with one line, leaving what it wrote readable."""
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "distval.cli", "run", *OPTS, "--n-rows", "200000", "--output",
         str(out), "--checkpoint-seconds", "0.3"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        _checkpointed(proc, out)
        (out / LOCK).unlink()
        line = _one_error(capsys, "run", "--resume", str(out))
        assert "in use by another distval run" in line
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    lines = [x for x in err.strip().splitlines() if not x.startswith("distval: warning: ")]
    assert proc.returncode == 2 and len(lines) == 1, err
    assert lines[0].startswith("distval: error: ") and "removed or replaced" in lines[0]
    assert not (out / "summary.json").exists()  # not reported as a finished run
    _, written = read_checkpoint(out)
    assert written["folds"] > 0
