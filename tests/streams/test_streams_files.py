"""File streams (Parquet, CSV, ARFF), checked against pyarrow/pandas reading the same files."""

from __future__ import annotations

import gzip
import pickle
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from distval.streams import (
    ArffStream,
    Chunk,
    CsvStream,
    ParquetStream,
    bundled_path,
    open_stream,
)

#: Real streams in the repository: the bundled Electricity file and UCI's Ozone Level
#: Detection (eight-hour peak, 2,534 rows, 72 attributes with 14,937 missing cells; UCI,
#: CC BY 4.0), shipped for the tests in tests/data.
OZONE = Path(__file__).resolve().parents[1] / "data" / "ozone8hr.parquet"
REAL_FILES = {"elec2": bundled_path("elec2"), "ozone8hr": OZONE}


def read_all(stream, size=1000):
    chunks = list(stream.chunks(size))
    X = np.concatenate([c.X for c in chunks])
    y = np.concatenate([c.y for c in chunks])
    return chunks, X, y


def first_appearance_codes(values) -> tuple[np.ndarray, list[str]]:
    codes, uniques = pd.factorize(pd.Series(values), use_na_sentinel=True)
    return codes.astype(np.int64), [str(u) for u in uniques]


# -- bundled Electricity ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def elec_table() -> pa.Table:
    return pq.read_table(bundled_path("elec2"))


@pytest.fixture(scope="module")
def elec_read():
    stream = open_stream()
    return stream, *read_all(stream, 1000)


def test_bundled_elec2_shape_and_names(elec_read, elec_table):
    stream, chunks, X, y = elec_read
    assert stream.name == "elec2"
    assert stream.n_rows == 45_312
    assert sum(len(c) for c in chunks) == 45_312
    assert X.shape == (45_312, 8) and X.dtype == np.float64
    assert y.dtype == np.int64
    assert stream.feature_names == elec_table.column_names[:-1]
    assert len(stream.classes) == 2 and set(stream.classes) == {"UP", "DOWN"}
    assert list(stream.nominal) == ["day"]


def test_bundled_elec2_labels_match_pyarrow(elec_read, elec_table):
    stream, _, _, y = elec_read
    labels = elec_table.column("class").to_pylist()
    expected, order = first_appearance_codes(labels)
    assert stream.classes == order
    np.testing.assert_array_equal(y, expected)
    assert np.bincount(y).tolist() == [labels.count(order[0]), labels.count(order[1])]


def test_bundled_elec2_features_match_pyarrow(elec_read, elec_table):
    stream, _, X, _ = elec_read
    for j, name in enumerate(stream.feature_names):
        col = elec_table.column(name)
        if name == "day":
            days = col.to_pylist()
            decoded = [stream.nominal["day"][int(c)] for c in X[:, j]]
            assert decoded == days
        else:
            np.testing.assert_array_equal(X[:, j], col.to_numpy())


def test_chunk_sizes_and_starts(elec_read):
    _, chunks, _, _ = elec_read
    assert all(len(c) == 1000 for c in chunks[:-1])
    assert len(chunks[-1]) == 45_312 - 45 * 1000
    assert [c.start for c in chunks] == list(range(0, 45_312, 1000))
    assert all(c.X.shape == (len(c), 8) for c in chunks)


def test_two_passes_identical_and_chunk_size_independent(elec_read):
    stream, _, X, y = elec_read
    for size in (1000, 777, 45_312, 100_000):
        _, X2, y2 = read_all(stream, size)
        np.testing.assert_array_equal(X2, X)
        np.testing.assert_array_equal(y2, y)
    small = ParquetStream(bundled_path(), batch_size=333)
    _, X3, y3 = read_all(small, 1000)
    np.testing.assert_array_equal(X3, X)
    np.testing.assert_array_equal(y3, y)


def test_limit_stops_early(elec_read):
    _, _, X, y = elec_read
    stream = open_stream("electricity", n_rows=2_500)
    assert stream.n_rows == 2_500
    chunks, X2, y2 = read_all(stream, 1000)
    assert [len(c) for c in chunks] == [1000, 1000, 500]
    np.testing.assert_array_equal(X2, X[:2500])
    np.testing.assert_array_equal(y2, y[:2500])


# -- real data sets in the repository --------------------------------------------------------


@pytest.mark.parametrize("name", sorted(REAL_FILES))
def test_real_files_counts_match_pyarrow(name):
    path = REAL_FILES[name]
    table = pq.read_table(path)
    stream = open_stream(str(path))
    _, X, y = read_all(stream, 1000)
    assert len(y) == table.num_rows == stream.n_rows
    assert X.shape == (table.num_rows, table.num_columns - 1)
    labels = table.column("class").cast(pa.string()).to_numpy(zero_copy_only=False)
    values, counts = np.unique(labels.astype(str), return_counts=True)
    got = {stream.classes[k]: int(v) for k, v in enumerate(np.bincount(y))}
    assert got == dict(zip(values.tolist(), counts.tolist(), strict=True))
    expected_codes, order = first_appearance_codes(labels)
    assert stream.classes == order
    np.testing.assert_array_equal(y, expected_codes)


def test_ozone_nulls_become_nan():
    path = OZONE
    table = pq.read_table(path)
    stream = open_stream(str(path))
    _, X, _ = read_all(stream, 500)
    nulls = sum(table.column(c).null_count for c in stream.feature_names)
    assert nulls > 0
    assert int(np.isnan(X).sum()) == nulls
    for j, c in enumerate(stream.feature_names[:5]):
        mask = table.column(c).is_null().to_numpy(zero_copy_only=False)
        np.testing.assert_array_equal(np.isnan(X[:, j]), mask)


# -- CSV -------------------------------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def toy_rows(n: int = 3000) -> list[tuple[float, str, str]]:
    rng = np.random.default_rng(5)
    colours = ["red", "green", "blue"]
    rows = []
    for i in range(n):
        label = "c" if i == 2500 else ("a" if rng.random() < 0.5 else "b")
        x = "?" if i % 97 == 3 else f"{rng.normal():.6f}"
        colour = "" if i % 89 == 5 else colours[int(rng.integers(3))]
        rows.append((x, colour, label))
    return rows


@pytest.fixture
def toy_csv(tmp_path) -> Path:
    lines = ["x,colour,label"] + [",".join(r) for r in toy_rows()]
    return write(tmp_path / "toy.csv", "\n".join(lines) + "\n")


def test_csv_values_labels_and_nominal(toy_csv):
    stream = open_stream(str(toy_csv))
    assert stream.feature_names == ["x", "colour"]
    assert stream.nominal == {"colour": []}
    df = pd.read_csv(toy_csv, na_values=["?"], keep_default_na=True)
    _, X, y = read_all(stream, 1000)
    np.testing.assert_array_equal(X[:, 0], df["x"].to_numpy(dtype=float))
    colour_codes, colour_order = first_appearance_codes(df["colour"])
    assert stream.nominal["colour"] == colour_order
    np.testing.assert_array_equal(np.isnan(X[:, 1]), colour_codes < 0)
    np.testing.assert_array_equal(X[colour_codes >= 0, 1], colour_codes[colour_codes >= 0])
    codes, order = first_appearance_codes(df["label"])
    np.testing.assert_array_equal(y, codes)
    assert stream.classes == order


def test_class_first_seen_mid_stream_gets_next_index(toy_csv):
    stream = open_stream(str(toy_csv))
    chunks = stream.chunks(1000)
    next(chunks)
    assert sorted(stream.classes) == ["a", "b"]
    next(chunks)
    assert len(stream.classes) == 2
    third = next(chunks)
    assert stream.classes[2] == "c"
    assert third.y[2500 - third.start] == 2
    assert (third.y == 2).sum() == 1
    again = next(stream.chunks(1000))
    assert len(stream.classes) == 2
    assert again.y.max() == 1


def test_csv_with_and_without_header_and_gzip(tmp_path):
    rows = [f"{i * 0.5},{(i * 7) % 5},{i % 3}" for i in range(2000)]
    with_header = write(tmp_path / "h.csv", "a,b,y\n" + "\n".join(rows) + "\n")
    no_header = write(tmp_path / "n.data", "\n".join(rows) + "\n")
    gz = tmp_path / "g.csv.gz"
    with gzip.open(gz, "wt") as f:
        f.write("a,b,y\n" + "\n".join(rows) + "\n")
    h, n, g = open_stream(str(with_header)), open_stream(str(no_header)), open_stream(str(gz))
    assert h.feature_names == ["a", "b"] and h.target == "y"
    assert n.feature_names == ["c0", "c1"] and n.target == "c2"
    results = [read_all(s, 300)[1:] for s in (h, n, g)]
    expected_X = np.array([[i * 0.5, (i * 7) % 5] for i in range(2000)])
    expected_y = np.array([i % 3 for i in range(2000)])
    for X, y in results:
        np.testing.assert_array_equal(X, expected_X)
        np.testing.assert_array_equal(y, expected_y)
    assert h.classes == n.classes == g.classes == ["0", "1", "2"]
    assert h.n_rows == 2000


def test_csv_header_detection_uci_style(tmp_path):
    covtype = write(tmp_path / "covtype.data", "2596,51,3,258,0,5\n2590,56,2,212,-6,5\n")
    kdd = write(tmp_path / "kdd.data", "0,tcp,http,181,normal.\n0,udp,private,105,smurf.\n")
    assert open_stream(str(covtype)).feature_names == [f"c{i}" for i in range(5)]
    kdd_stream = open_stream(str(kdd))
    assert kdd_stream.feature_names == ["c0", "c1", "c2", "c3"]
    _, X, y = read_all(kdd_stream)
    assert X.tolist() == [[0, 0, 0, 181], [0, 1, 1, 105]]
    assert y.tolist() == [0, 1] and kdd_stream.classes == ["normal.", "smurf."]
    assert kdd_stream.nominal == {"c1": ["tcp", "udp"], "c2": ["http", "private"]}


def test_csv_numeric_labels_print_as_in_file(tmp_path):
    path = write(tmp_path / "num.csv", "x,label\n1,10\n2,-3\n3,10\n4,7\n")
    stream = open_stream(str(path))
    _, _, y = read_all(stream)
    assert stream.classes == ["10", "-3", "7"]
    assert y.tolist() == [0, 1, 0, 2]


def test_csv_target_option(tmp_path):
    path = write(tmp_path / "t.csv", "label,x,z\nyes,1,2\nno,3,4\n")
    stream = open_stream(str(path), target="label")
    assert stream.feature_names == ["x", "z"]
    _, X, y = read_all(stream)
    assert X.tolist() == [[1.0, 2.0], [3.0, 4.0]] and y.tolist() == [0, 1]


def test_parquet_float_labels_print_without_point_zero(tmp_path):
    path = tmp_path / "f.parquet"
    pq.write_table(pa.table({"x": [1.0, 2.0, 3.0], "y": [2.0, 1.0, 2.5]}), path)
    stream = open_stream(str(path))
    read_all(stream)
    assert stream.classes == ["2", "1", "2.5"]


def test_parquet_string_feature_and_nulls(tmp_path):
    path = tmp_path / "s.parquet"
    table = pa.table(
        {
            "s": ["u", None, "v", "u"],
            "i": pa.array([1, None, 3, 4], pa.int64()),
            "b": [True, False, None, True],
            "y": ["p", "q", "p", "p"],
        }
    )
    pq.write_table(table, path)
    stream = ParquetStream(path)
    _, X, y = read_all(stream)
    assert stream.nominal == {"s": ["u", "v"]}
    np.testing.assert_array_equal(X, [[0, 1, 1], [np.nan, np.nan, 0], [1, 3, np.nan], [0, 4, 1]])
    assert y.tolist() == [0, 1, 0, 0]


def test_parquet_dictionary_column_keeps_declared_order(tmp_path):
    path = tmp_path / "d.parquet"
    df = pd.DataFrame(
        {
            "size": pd.Categorical(["m", "s", None, "l", "s"], categories=["s", "m", "l"]),
            "y": pd.Categorical(["b", "a", "b", "b", "a"], categories=["a", "b"]),
        }
    )
    df.to_parquet(path)
    stream = open_stream(str(path))
    assert stream.nominal == {"size": ["s", "m", "l"]}
    _, X, y = read_all(stream)
    np.testing.assert_array_equal(X[:, 0], [1, 0, np.nan, 2, 0])
    # the label too: a categorical's declared order, as MOA numbers an ARFF header's classes
    assert stream.classes == ["a", "b"] and y.tolist() == [1, 0, 1, 1, 0]


# -- ARFF ------------------------------------------------------------------------------------

MOA_HEADER = """% Forest CoverType, normalised as in MOA's covtypeNorm.arff
% (comment lines and blank lines are allowed anywhere in the header)

@relation covtypeNorm

@attribute Elevation numeric
@attribute 'Hillshade 9am' real
@ATTRIBUTE Wilderness_Area1 {0,1}
@attribute s1 { 1, 2, 3, 4 }
@attribute r1 INTEGER
@attribute "quoted name" {'a b', c}
@attribute class {1,2,3,4,5,6,7}

@DATA
"""


def moa_rows(n: int = 1500) -> list[list[str]]:
    rng = np.random.default_rng(11)
    out = []
    for i in range(n):
        elevation = "?" if i % 53 == 7 else f"{rng.random():.6f}"
        shade = f"{rng.random():.4f}"
        wild = "?" if i % 61 == 9 else str(int(rng.integers(2)))
        suit = str(int(rng.integers(1, 5)))
        rank = str(int(rng.integers(1, 14)))
        quoted = "a b" if rng.random() < 0.5 else "c"
        label = str(int(rng.integers(1, 8)))
        out.append([elevation, shade, wild, suit, rank, quoted, label])
    return out


def test_arff_moa_layout_equals_same_data_as_csv(tmp_path):
    rows = moa_rows()
    arff_lines = [
        ",".join(v if " " not in v else f"'{v}'" for v in r[:5]) + f",'{r[5]}',{r[6]}" for r in rows
    ]
    arff = write(tmp_path / "cov.arff", MOA_HEADER + "\n".join(arff_lines) + "\n")
    names = ["Elevation", "Hillshade 9am", "Wilderness_Area1", "s1", "r1", "quoted name"]
    csv_text = ",".join([*names, "class"]) + "\n"
    csv_text += "\n".join(",".join(r) for r in rows) + "\n"
    csv = write(tmp_path / "cov.csv", csv_text)
    a, c = open_stream(str(arff)), CsvStream(csv)
    assert isinstance(a, ArffStream)
    assert a.feature_names == c.feature_names == names
    assert a.nominal == {
        "Wilderness_Area1": ["0", "1"],
        "s1": ["1", "2", "3", "4"],
        "quoted name": ["a b", "c"],
    }
    _, Xa, ya = read_all(a, 400)
    _, Xc, yc = read_all(c, 400)
    assert len(ya) == len(rows)
    # the same labels; the ARFF numbers them in declared order, the CSV by first appearance
    assert [a.classes[i] for i in ya] == [c.classes[i] for i in yc] == [r[6] for r in rows]
    assert a.classes == [str(k) for k in range(1, 8)]
    for j, name in enumerate(names):
        if name in ("s1", "Wilderness_Area1", "quoted name"):
            decoded = [None if np.isnan(v) else a.nominal[name][int(v)] for v in Xa[:, j]]
            expected = [None if r[j] == "?" else r[j] for r in rows]
            assert decoded == expected
        else:
            np.testing.assert_array_equal(Xa[:, j], Xc[:, j])
    assert np.isnan(Xa[:, 0]).sum() == sum(r[0] == "?" for r in rows) > 0


def test_arff_elecnormnew_layout_equals_bundled_parquet(tmp_path, elec_table, elec_read):
    _, _, X, y = elec_read
    df = elec_table.to_pandas()
    lines = ["@relation 'electricity-weka.filters.unsupervised.attribute.Normalize'", ""]
    for c in df.columns:
        if c == "day":
            lines.append("@attribute day {1,2,3,4,5,6,7}")
        elif c == "class":
            lines.append("@attribute class {UP,DOWN}")
        else:
            lines.append(f"@attribute {c} numeric")
    path = tmp_path / "elecNormNew.arff"
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n\n@data\n")
        df.to_csv(f, header=False, index=False, float_format="%.17g")
    stream = open_stream(str(path))
    _, Xa, ya = read_all(stream, 1000)
    np.testing.assert_array_equal(Xa, X)
    np.testing.assert_array_equal(ya, y)


def test_arff_gzip_and_string_attribute(tmp_path):
    text = "@relation r\n@attribute w string\n@attribute c {x,y}\n@data\nfoo,x\nbar,y\n?,x\nfoo,y\n"
    path = tmp_path / "s.arff.gz"
    with gzip.open(path, "wt") as f:
        f.write(text)
    stream = open_stream(str(path))
    _, X, y = read_all(stream)
    assert stream.nominal == {"w": ["foo", "bar"]}
    np.testing.assert_array_equal(X[:, 0], [0, 1, np.nan, 0])
    assert y.tolist() == [0, 1, 0, 1] and stream.classes == ["x", "y"]


# -- pickling --------------------------------------------------------------------------------


def test_file_streams_and_chunks_survive_pickle(tmp_path, toy_csv):
    arff = write(
        tmp_path / "p.arff",
        "@relation r\n@attribute a numeric\n@attribute c {u,v}\n@data\n1,u\n2,v\n3,u\n",
    )
    for stream in (open_stream(), open_stream(str(toy_csv)), open_stream(str(arff))):
        fresh = pickle.loads(pickle.dumps(stream))
        assert fresh.feature_names == stream.feature_names
        assert fresh.nominal == stream.nominal
        it = stream.chunks(100)
        first = next(it)
        during = pickle.loads(pickle.dumps(stream))
        assert during.classes == stream.classes
        _, X_a, y_a = read_all(stream, 100)
        _, X_b, y_b = read_all(fresh, 100)
        _, X_c, y_c = read_all(during, 100)
        np.testing.assert_array_equal(X_a, X_b)
        np.testing.assert_array_equal(X_a, X_c)
        np.testing.assert_array_equal(y_a, y_b)
        np.testing.assert_array_equal(y_a, y_c)
        chunk = pickle.loads(pickle.dumps(first))
        assert isinstance(chunk, Chunk) and chunk.start == first.start
        np.testing.assert_array_equal(chunk.X, first.X)
        np.testing.assert_array_equal(chunk.y, first.y)
        it.close()


def test_empty_cells_are_said_once_with_their_count(tmp_path, elec_table, capsys):
    """90 empty cells in a CSV of Electricity's first 3,000 rows: one line, once per stream,
    names how many (pandas' count of the file's NaN cells) and how they were read; a run of
    the file prints it once. (Before: nothing said.)"""
    from distval.cli import main
    from distval.errors import MissingValuesWarning

    df = elec_table.slice(0, 3000).to_pandas()
    features = [c for c in df.columns if c != "class"]
    rng = np.random.default_rng(4)
    cells = rng.choice(3000 * len(features), size=90, replace=False)
    df = df.astype({c: object for c in features})
    for i in cells.tolist():
        df.iat[i // len(features), df.columns.get_loc(features[i % len(features)])] = None
    path = tmp_path / "holes.csv"
    df.to_csv(path, index=False)
    empty = int(pd.read_csv(path)[features].isna().sum().sum())
    assert empty == 90
    stream = open_stream(str(path))
    with pytest.warns(MissingValuesWarning) as said:
        _, X, _ = read_all(stream)
        read_all(stream)  # a second pass says nothing more
    assert len(said) == 1 and int(np.isnan(X).sum()) == empty
    assert f"{empty} of {3000 * len(features):,} feature cells are empty" in str(said[0].message)
    argv = ["run", "--stream", str(path), "--learners", "nb", "majority", "--folds", "2",
            "--no-progress", "--output", str(tmp_path / "out")]
    assert main(argv) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if "feature cells" in x]
    assert len(lines) == 1 and lines[0].startswith("distval: warning: ") and \
        f" {empty} of " in lines[0], lines
