"""A run's books: a learner that cannot be pickled makes no checkpoint (one warning line,
the run goes on to the same numbers), and is refused by Ray in one line; no traceback and
no hang, from the command line or from Python."""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow.parquet as pq

from distval.cli import main

OPTS = ["--stream", "sea(noise=0.1)", "--n-rows", "3000", "--folds", "3", "--test-every",
        "1000", "--batch-size", "500", "--no-progress", "--checkpoint-seconds", "0"]


def test_an_unpicklable_learner_runs_without_checkpoints_and_says_so(tmp_path, capsys):
    """Before: the first checkpoint printed a 40-line 'cannot pickle' traceback and the
    process never exited."""
    locked, plain = tmp_path / "locked", tmp_path / "plain"
    assert main(["run", *OPTS, "--learners", "nb", "locked_learner:LockedNB", "--backend",
                 "auto", "--output", str(locked)]) == 0
    _, err = capsys.readouterr()
    said = [x for x in err.splitlines() if "locked_learner:LockedNB" in x]
    assert all(x.startswith("distval: warning: ") for x in err.strip().splitlines()), err
    assert any("cannot be saved for --resume" in x for x in said), err
    assert not (locked / "checkpoint.pkl").exists()
    # the same learner without its lock: the same numbers
    assert main(["run", *OPTS, "--learners", "nb", "river.naive_bayes:GaussianNB",
                 "--backend", "inprocess", "--output", str(plain)]) == 0
    a, b = pq.read_table(locked / "folds.parquet"), pq.read_table(plain / "folds.parquet")
    cols = [c for c in a.column_names if c not in ("learner", "run_id")]
    assert a.select(cols).equals(b.select(cols))


def test_ray_refuses_an_unpicklable_learner_in_one_line_and_python_exits(tmp_path):
    """Ray moves learners by pickling them: one error, and the interpreter ends (before,
    it hung at exit)."""
    code = (
        "import distval\n"
        "from distval.errors import DistvalError\n"
        "try:\n"
        "    distval.evaluate(stream='sea', n_rows=3000, learners=('nb', "
        "'locked_learner:LockedNB'), n_folds=2, backend='ray', address='local', "
        f"output_dir={str(tmp_path / 'r')!r})\n"
        "except DistvalError as e:\n"
        "    print('refused:', e)\n"
    )
    env = os.environ | {"PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=240, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused: learner 'locked_learner:LockedNB': cannot pickle" in done.stdout
    assert "Traceback" not in done.stderr
