"""Bad input raises DistvalError with a message naming the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from distval.errors import DistvalError
from distval.streams import CsvStream, open_stream


def _write(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def _drain(stream) -> None:
    for _ in stream.chunks(100):
        pass


def missing_file(tmp: Path):
    open_stream(str(tmp / "absent.csv"))


def missing_file_other_extension(tmp: Path):
    open_stream(str(tmp / "absent.txt"))


def unsupported_extension(tmp: Path):
    open_stream(_write(tmp / "data.txt", "1,2\n3,4\n"))


def wrong_field_count(tmp: Path):
    _drain(open_stream(_write(tmp / "f.csv", "a,b,c\n1,2,x\n3,4,y\n5,6\n7,8,z\n")))


def non_numeric_after_first_block(tmp: Path):
    lines = ["a,b,label"] + [f"{i},{i % 7},y{i % 2}" for i in range(3000)]
    lines[2001] = "2000,oops,y0"
    path = _write(tmp / "conv.csv", "\n".join(lines) + "\n")
    _drain(CsvStream(path, block_size=512))


def empty_stream_header_only(tmp: Path):
    _drain(open_stream(_write(tmp / "hdr.csv", "a,b,label\n")))


def empty_file(tmp: Path):
    open_stream(_write(tmp / "void.csv", ""))


def unknown_target(tmp: Path):
    open_stream(_write(tmp / "t.csv", "a,b,label\n1,2,x\n"), target="klass")


def missing_label(tmp: Path):
    _drain(open_stream(_write(tmp / "l.csv", "a,label\n1,x\n2,?\n3,x\n")))


def unknown_generator():
    open_stream("seaa(50)")


def unknown_generator_keyword():
    open_stream("sea(varient=2)")


def wrong_positional_count():
    open_stream("SEA(50, 2)")


def positional_for_keyword_only_generator():
    open_stream("stagger(1)")


def river_rejects_value():
    open_stream("sea(variant=7)")


def paper_argument_out_of_range():
    open_stream("HYP(11, 0.001)")


def non_literal_argument():
    open_stream("sea(noise=__import__('os'))")


def sparse_arff(tmp: Path):
    # Sparse rows are read; an index beyond the attributes is an error with its line.
    text = "@relation s\n@attribute a numeric\n@attribute c {x,y}\n@data\n{0 1, 2 y}\n"
    _drain(open_stream(_write(tmp / "sparse.arff", text)))


def date_arff(tmp: Path):
    text = "@relation s\n@attribute d date 'yyyy-MM-dd'\n@attribute c {x,y}\n@data\n2020-01-01,x\n"
    open_stream(_write(tmp / "date.arff", text))


def undeclared_arff_value(tmp: Path):
    text = "@relation s\n@attribute a {p,q}\n@attribute c {x,y}\n@data\np,x\nr,y\n"
    _drain(open_stream(_write(tmp / "u.arff", text)))


def arff_numeric_holds_text(tmp: Path):
    text = "@relation s\n@attribute a numeric\n@attribute c {x,y}\n@data\n1,x\nabc,y\n"
    _drain(open_stream(_write(tmp / "n.arff", text)))


def bad_chunk_size():
    open_stream("sea", n_rows=10).chunks(0)


def bad_length():
    open_stream("sea", n_rows=0)


CASES = [
    (missing_file, ["no such file", "absent.csv"]),
    (missing_file_other_extension, ["no such file", "absent.txt"]),
    (unsupported_extension, ["data.txt", ".parquet", ".csv.gz", ".arff"]),
    (wrong_field_count, ["f.csv", "line 4", "2 fields", "expected 3"]),
    (non_numeric_after_first_block, ["conv.csv", "'b'", "'oops'", "data row 2001"]),
    (empty_stream_header_only, ["empty", "hdr"]),
    (empty_file, ["empty", "void"]),
    (unknown_target, ["'klass'", "'a'", "'b'", "'label'"]),
    (missing_label, ["label", "row 2"]),
    (unknown_generator, ["seaa", "sea", "hyperplane", "rbf"]),
    (unknown_generator_keyword, ["'varient'", "variant", "noise"]),
    (wrong_positional_count, ["1 positional argument", "SEA(w)", "got 2"]),
    (positional_for_keyword_only_generator, ["stagger", "keyword", "classification_function"]),
    (river_rejects_value, ["variant", "0, 1, 2, 3"]),
    (paper_argument_out_of_range, ["HYP(d, m)", "d (drifting features)", "11"]),
    (non_literal_argument, ["not a literal"]),
    (sparse_arff, ["sparse.arff", "line 5", "index 2"]),
    (date_arff, ["date", "not supported", "'d'"]),
    (undeclared_arff_value, ["'a'", "'r'", "data row 2", "'p', 'q'"]),
    (arff_numeric_holds_text, ["'a'", "'abc'", "data row 2"]),
    (bad_chunk_size, ["chunk size", "0"]),
    (bad_length, ["n_rows", "0"]),
]


@pytest.mark.parametrize(("case", "facts"), CASES, ids=[c.__name__ for c, _ in CASES])
def test_bad_input_raises_distval_error(case, facts, tmp_path):
    args = (tmp_path,) if case.__code__.co_argcount else ()
    with pytest.raises(DistvalError) as info:
        case(*args)
    message = str(info.value)
    for fact in facts:
        assert fact in message, f"{fact!r} not in {message!r}"
    assert info.value.__cause__ is None or isinstance(info.value.__cause__, DistvalError)
    assert info.value.__suppress_context__ or info.value.__context__ is None
