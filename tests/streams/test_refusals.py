"""Data is refused or repaired, never silently damaged (missing-value vocabulary, infinite
values, a continuous column taken for the label, NaN labels, wide headers)."""

from __future__ import annotations

import csv
import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from distval.config import RunConfig
from distval.errors import DistvalError
from distval.evaluation import evaluate
from distval.streams import open_stream

MISSING = ["N/A", "NA", "null", "?", ""]


def _all(stream):
    chunks = list(stream.chunks(1000))
    return np.concatenate([c.X for c in chunks]), np.concatenate([c.y for c in chunks])


def _csv(path, rows, header=("x", "w", "label")):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return str(path)


def _numbers_with(markers, n=400, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        x = f"{rng.normal():.6f}" if i % 7 else markers[i // 7 % len(markers)]
        rows.append([x, f"{rng.normal():.6f}", "a" if rng.random() < 0.5 else "b"])
    return rows


def _expected(rows, vocabulary):
    """The first column as Python reads it: a number, or NaN for the vocabulary."""
    return np.array([math.nan if r[0] in vocabulary else float(r[0]) for r in rows])


def test_the_default_vocabulary_reads_na_null_and_friends_as_missing(tmp_path):
    """Before, N/A, null (and NA among a few numbers) made the numeric column nominal, one
    category per number."""
    rows = _numbers_with(MISSING)
    s = open_stream(_csv(tmp_path / "d.csv", rows))
    X, _ = _all(s)
    assert "x" not in s.nominal
    np.testing.assert_array_equal(X[:, 0], _expected(rows, MISSING))


def test_dash_is_refused_by_default_and_missing_when_named(tmp_path):
    rows = _numbers_with(["-"])
    path = _csv(tmp_path / "d.csv", rows)
    with pytest.raises(DistvalError, match=r"'-'.*--na-values"):
        _all(open_stream(path))
    X, _ = _all(open_stream(path, na_values="-"))
    np.testing.assert_array_equal(X[:, 0], _expected(rows, ["-", ""]))
    # the option of a run, recorded in config.json like every setting
    assert RunConfig(stream=path, na_values="-,n/a").na_values == ("-", "n/a")


def test_infinity_is_refused_with_its_column_and_row_or_read_as_missing(tmp_path):
    rows = _numbers_with(["1.0"])
    rows[41][1] = "inf"
    rows[90][0] = "-inf"
    path = _csv(tmp_path / "d.csv", rows)
    with pytest.raises(DistvalError, match=r"feature 'w' is inf in data row 42"):
        _all(open_stream(path))
    X, _ = _all(open_stream(path, infinite="missing"))
    assert math.isnan(X[41, 1]) and math.isnan(X[90, 0])
    assert np.isfinite(np.delete(X, [41, 90], axis=0)).all()
    # the same through a run (before: inf reached the learners)
    with pytest.raises(DistvalError, match=r"--inf missing"):
        evaluate(stream=path, learners=("nb",), n_folds=2, test_every=100)
    res = evaluate(stream=path, learners=("nb",), n_folds=2, test_every=100, infinite="missing")
    assert res.n_rows == len(rows)


def test_a_continuous_column_taken_for_the_label_is_refused_with_a_hint(tmp_path):
    """A CSV whose class is not its last column: the last (continuous) column would become
    one class per number; it is refused, naming --target."""
    rng = np.random.default_rng(1)
    rows = [[f"{rng.normal():.4f}", "up" if i % 3 else "down", f"{rng.normal():.6f}"]
            for i in range(2000)]
    path = _csv(tmp_path / "d.csv", rows, header=("x", "class", "price"))
    with pytest.raises(DistvalError, match=r"'price' holds \d+ distinct numbers.*--target"):
        _all(open_stream(path))
    _, y = _all(open_stream(path, target="class"))
    assert len(set(y.tolist())) == 2


def test_a_nan_label_from_python_is_refused_not_a_class():
    """Before, float('nan') became a class named 'nan'."""
    rows = [({"a": float(i)}, float(i % 2)) for i in range(10)]
    rows[6] = ({"a": 6.0}, float("nan"))
    with pytest.raises(DistvalError, match="label is missing in row 7"):
        _all(open_stream(rows))


def test_a_wide_header_with_a_duplicate_is_refused_in_linear_time(tmp_path):
    """200,000 columns, one name twice: refused at once (the check counted every name
    against every other, 4e10 comparisons; a generous timeout guards against a hang)."""
    n = 200_000
    path = tmp_path / "wide.csv"
    names = [f"c{i}" for i in range(n - 2)] + ["c7", "label"]
    path.write_text(",".join(names) + "\n" + ",".join(["1"] * (n - 1) + ["a"]) + "\n")
    code = textwrap.dedent(
        f"""
        from distval.errors import DistvalError
        from distval.streams import CsvStream
        try:
            CsvStream({str(path)!r}, header=True)
        except DistvalError as e:
            print(e)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert "names these columns more than once: 'c7'" in done.stdout, done.stderr


def test_folds_have_an_upper_bound():
    with pytest.raises(DistvalError, match="at most 1000 folds, got 1000000"):
        RunConfig(n_folds=1_000_000)
    assert RunConfig(n_folds=1000).n_folds == 1000


def test_a_parquet_int64_beyond_2_53_is_refused_in_one_line(tmp_path):
    """Before: ``ArrowInvalid ... not in range`` and exit 1 from run and describe. An
    integer float64 cannot hold exactly is refused with its column and data row."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    big = np.arange(10, dtype=np.int64)
    big[7] = 2**53 + 1
    path = tmp_path / "big.parquet"
    pq.write_table(pa.table({"t": big, "x": np.arange(10.0), "class": list("ab" * 5)}), path)
    for argv in (["describe", str(path)],
                 ["run", "--stream", str(path), "--backend", "inprocess", "--no-progress",
                  "--learners", "nb", "majority", "--output", str(tmp_path / "o")]):
        done = subprocess.run([sys.executable, "-m", "distval.cli", *argv],
                              capture_output=True, text=True)
        err = [x for x in done.stderr.strip().splitlines()
               if not x.startswith("distval: warning")]
        assert done.returncode == 2 and len(err) == 1, done.stderr
        assert err[0] == (f"distval: error: {path}: column 't' holds integers beyond ±2^53 "
                          "(data row 8), which a float64 feature cannot hold exactly; store "
                          "times as a timestamp type, or scale them (e.g. to seconds)")
