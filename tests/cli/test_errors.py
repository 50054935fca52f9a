"""Every input that used to end in a traceback ends in one line ``distval: error: ...`` and
exit status 2: damaged .csv.gz files, an output path under a file or on a read-only disk,
junk result files under ``report``, a deeply nested or misspelt ``--config``."""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
import subprocess

import pytest
from cli_errors import one_line_error

from distval.cli import main

CSV = b"a,b,label\n" + b"".join(b"%d,%d,%s\n" % (i, 2 * i, b"xy"[i % 2 : i % 2 + 1])
                               for i in range(3000))

RUN = ["run", "--backend", "inprocess", "--no-progress", "--n-rows", "500"]


def test_a_plain_text_file_named_csv_gz(tmp_path, capsys):
    (tmp_path / "d.csv.gz").write_bytes(CSV)
    line = one_line_error(capsys, *RUN, "--stream", str(tmp_path / "d.csv.gz"),
                          "--output", str(tmp_path / "o"))
    assert "d.csv.gz" in line and "gzip" in line


def test_a_truncated_csv_gz(tmp_path, capsys):
    packed = gzip.compress(CSV)
    (tmp_path / "d.csv.gz").write_bytes(packed[: len(packed) // 2])
    line = one_line_error(capsys, *RUN, "--stream", str(tmp_path / "d.csv.gz"),
                          "--output", str(tmp_path / "o"))
    assert "d.csv.gz" in line and "gzip" in line


def test_output_under_a_file(tmp_path, capsys):
    (tmp_path / "f").write_text("a file")
    line = one_line_error(capsys, *RUN, "--stream", "sea", "--output", str(tmp_path / "f" / "o"))
    assert str(tmp_path / "f") in line


@contextlib.contextmanager
def _tmpfs(path, options):
    """A small tmpfs at ``path`` (root only; skips elsewhere)."""
    path.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=True)


def test_output_on_a_read_only_disk(tmp_path, capsys):
    with _tmpfs(tmp_path / "ro", "size=1m,ro") as ro:
        line = one_line_error(capsys, *RUN, "--stream", "sea", "--output", str(ro / "o"))
    assert "Read-only file system" in line


@pytest.mark.parametrize("name", ["q.parquet", "events.parquet", "tests.parquet"])
def test_report_of_a_directory_with_a_junk_table(tmp_path, capsys, name):
    out = tmp_path / "r"
    assert main([*RUN, "--stream", "sea", "--test-every", "250", "--output", str(out)]) == 0
    capsys.readouterr()
    (out / name).write_text("junk")
    line = one_line_error(capsys, "report", str(out))
    assert f"cannot read {out / name}" in line


def test_a_deeply_nested_config(tmp_path, capsys):
    (tmp_path / "c.json").write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    line = one_line_error(capsys, *RUN, "--config", str(tmp_path / "c.json"),
                          "--output", str(tmp_path / "o"))
    assert "nests too deeply" in line


def test_a_misspelt_config_key_is_refused_with_the_closest_name(tmp_path, capsys):
    """Before, {"n_fold": 3} ran with the default 10 folds."""
    (tmp_path / "c.json").write_text(json.dumps({"stream": "sea", "n_fold": 3}))
    line = one_line_error(capsys, *RUN, "--config", str(tmp_path / "c.json"),
                          "--output", str(tmp_path / "o"))
    assert "unknown key 'n_fold' (did you mean 'n_folds'?)" in line
    assert not (tmp_path / "o").exists()


def test_a_full_disk_ends_in_one_line_and_keeps_what_was_written(tmp_path, capsys):
    """A 300 kB disk fills during the run: before, a traceback (and a Parquet file without
    footer); now one line, and the rows written before read back, marked interrupted."""
    from distval.results import load_results

    with _tmpfs(tmp_path / "small", "size=300k") as small:
        # learners named: the default job's learners line would precede the error
        line = one_line_error(capsys, *RUN[:-2], "--n-rows", "200000", "--stream", "sea",
                              "--learners", "ht", "nb",
                              "--test-every", "500", "--output", str(small / "o"))
        assert "No space left on device" in line
        saved = load_results(small / "o")
        assert saved.final_position >= 500
        assert saved.interrupted_at == saved.final_position


def test_a_binary_suite_file_is_one_line(tmp_path, capsys):
    """Before: a ``UnicodeDecodeError`` traceback from tomllib."""
    path = tmp_path / "suite.toml"
    path.write_bytes(b"\xff\xfe\x00bad = \x80\n")
    line = one_line_error(capsys, "suite", str(path))
    assert line == (f"distval: error: {path} is not valid TOML: not UTF-8 text (invalid start "
                    "byte at byte 0)")


def test_a_parquet_column_name_that_is_not_utf8_is_one_line(tmp_path, capsys):
    """Before: a ``UnicodeDecodeError`` traceback (6 of 2,000 damaged Parquet files)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "u.parquet"
    pq.write_table(pa.table({"colzz": [1.0, 2.0, 3.0, 4.0], "class": list("abab")}), path,
                   store_schema=False)
    path.write_bytes(path.read_bytes().replace(b"colzz", b"col\xff\xfe"))
    for argv in (["describe", str(path)],
                 [*RUN, "--stream", str(path), "--output", str(tmp_path / "o")]):
        line = one_line_error(capsys, *argv)
        assert line.startswith(f"distval: error: cannot read {path} as Parquet: a name in its "
                               "schema is not UTF-8")


def test_a_csv_row_that_is_not_utf8_gives_only_the_one_line(tmp_path):
    """Before: an "Exception ignored ... UnicodeDecodeError" block (Arrow decoding the bad
    row for our handler) printed before the one-line error (68 of 2,000 damaged CSVs)."""
    import sys

    path = tmp_path / "n.csv"
    path.write_bytes(b"a,b,class\n1,2,x\n3,\xff,4,y\n")
    done = subprocess.run(
        [sys.executable, "-m", "distval.cli", *RUN, "--stream", str(path), "--learners", "nb",
         "majority", "--output", str(tmp_path / "o")], capture_output=True, text=True)
    lines = [x for x in done.stderr.splitlines() if not x.startswith("distval: warning:")]
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"distval: error: cannot read {path}: CSV parse error: "
                               "Expected 3 columns, got 4")


def test_checkpoint_seconds_nan_is_refused(capsys):
    """Before: accepted (a NaN period: never due, silently)."""
    with pytest.raises(SystemExit) as done:  # a usage error, from argparse
        main([*RUN, "--checkpoint-seconds", "nan"])
    err = capsys.readouterr().err.strip().splitlines()
    assert done.value.code == 2 and len(err) == 1 and err[0].startswith("distval: error: ")
    assert "--checkpoint-seconds: expected a number of seconds, got 'nan'" in err[0]


def test_tests_none_with_a_sequential_rule_blames_the_tests_not_the_learners(capsys):
    """Before: "give two learners or more" to a run that had two."""
    line = one_line_error(capsys, *RUN, "--stream", "sea", "--learners", "nb", "majority",
                          "--tests", "none", "--sequential", "spending")
    assert line == "distval: error: --sequential spending decides tests: --tests none runs none"
