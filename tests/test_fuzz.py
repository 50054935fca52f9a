"""Damaged files of every format a reader takes (CSV, Parquet, ARFF, a suite's TOML, a
checkpoint): each gives one line ``distval: error: ...`` and exit status 2, or a correct
result; never a traceback, an "Exception ignored" block or a hang. Seeded, a few hundred
files per format, read in this process through the command line's error handler
(:func:`distval.cli.handled`), and a few through ``python -m distval.cli``.
``benchmarks/fuzz_readers.py`` runs 2,000 per format.
"""

from __future__ import annotations

import subprocess
import sys

import fuzzing
import pytest

N = 300


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return fuzzing.seed_checkpoint(tmp_path_factory.mktemp("cp") / "run")


def _cli(*argv):
    done = subprocess.run([sys.executable, "-m", "distval.cli", *argv], capture_output=True,
                          text=True, timeout=120)
    lines = [x for x in done.stderr.splitlines() if not x.startswith("distval: warning: ")]
    return done.returncode, lines, done.stderr


@pytest.mark.parametrize("fmt", fuzzing.FORMATS)
def test_damaged_files_give_one_line_or_a_correct_result(fmt, tmp_path, checkpoint):
    outcome, kept = fuzzing.fuzz(fmt, N, seed=38, work=tmp_path, checkpoint=checkpoint)
    assert outcome.problems == []
    assert sum(outcome.counts.values()) == N
    assert outcome.counts["error"] > N // 2  # the damage is seen, not read past
    for path in kept:  # the same one line from the program itself
        argv = ["suite", str(path), "--plan"] if fmt == "toml" else ["describe", str(path)]
        code, lines, err = _cli(*argv)
        assert code == 2 and len(lines) == 1 and lines[0].startswith("distval: error: "), err
        assert "Traceback" not in err and "Exception ignored" not in err


def test_a_damaged_checkpoint_through_the_program(checkpoint):
    from distval.results.writer import CHECKPOINT

    path = checkpoint.directory / CHECKPOINT
    original = path.read_bytes()
    try:
        for data in fuzzing.mutants(original, 3, seed=5):
            path.write_bytes(data)
            code, lines, err = _cli("run", "--resume", str(checkpoint.directory),
                                    "--no-progress", "--backend", "inprocess")
            assert code == 2 and len(lines) == 1, err
            assert lines[0].startswith("distval: error: ") and "Traceback" not in err
    finally:
        path.write_bytes(original)
