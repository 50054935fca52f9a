"""Delimited text: :class:`CsvStream` and the pyarrow CSV reading it shares.

Read batch by batch with ``pyarrow.csv.open_csv`` (no per-row Python work). Column types are
inferred from the first block; text columns are nominal by first appearance.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from distval.errors import DistvalError
from distval.streams.base import Batches, _is_number, _Pass
from distval.streams.files import _DEFAULT_BLOCK, _Decoder, _FileStream, _show_list

__all__ = ["CSV_NULLS", "NA_VALUES", "CsvStream", "detect_header", "na_vocabulary"]

#: Field values read as missing in the CSV-formatted data of ARFF files.
CSV_NULLS = ("", "?", "NA", "NaN", "nan")

#: Field values read as missing in CSV files by default (``--na-values`` replaces them; the
#: empty field is always missing). ``-`` is not among them: give it with ``--na-values``.
NA_VALUES = ("", "?", "NA", "N/A", "null", "NaN", "nan")


def na_vocabulary(values: object) -> tuple[str, ...]:
    """The missing-value vocabulary of a CSV file: :data:`NA_VALUES` for None, else the
    values given (text, comma-separated, or a sequence of texts) and the empty field.

    >>> na_vocabulary(None) == NA_VALUES
    True
    >>> na_vocabulary("-,n/a")
    ('', '-', 'n/a')
    """
    if values is None:
        return NA_VALUES
    items = values.split(",") if isinstance(values, str) else values
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, str) for v in items):
        raise DistvalError(f"`na_values` must be texts, got {values!r}")
    return tuple(dict.fromkeys(["", *(v.strip() for v in items)]))

_NUMBER_RE = r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$"


def detect_header(lines: list[list[str]], nulls: tuple[str, ...] = CSV_NULLS) -> bool:
    """Whether the first of some parsed CSV lines is a header.

    The first line is data if all its fields are numbers, or if it has a number and no column
    changes from text on line 1 to numbers below it, or if its fields repeat. Otherwise it is a
    header.

    >>> detect_header([["1", "2.5", "0"], ["2", "3", "1"]])
    False
    >>> detect_header([["a", "b", "class"], ["1", "2", "UP"]])
    True
    >>> detect_header([["0", "tcp", "normal."], ["0", "udp", "smurf."]])
    False
    """
    if not lines:
        return False
    first = [f.strip() for f in lines[0]]
    numeric = [_is_number(f) for f in first]
    if all(numeric):
        return False
    below = lines[1:]
    for j, f in enumerate(first):
        if numeric[j] or f in nulls:
            continue
        values = [row[j].strip() for row in below if j < len(row)]
        values = [v for v in values if v not in nulls]
        if values and all(_is_number(v) for v in values):
            return True
    if any(numeric):
        return False
    return len(set(first)) == len(first)


def _sample_lines(
    path: str, max_lines: int = 51, max_bytes: int = 1 << 16
) -> tuple[list[list[str]], int]:
    """The first lines of a file, parsed, without empty lines; and how many empty lines come
    before the first one (pyarrow's ``skip_rows`` counts them)."""
    buf = b""
    try:
        with pa.input_stream(path, compression="detect") as f:
            while buf.count(b"\n") < max_lines:
                block = f.read(max_bytes)
                if not block:
                    break
                buf += block
                if (len(buf) >= max_bytes and b"\n" in buf) or len(buf) >= 1 << 24:
                    break
    except (pa.ArrowException, OSError) as exc:
        raise DistvalError(f"cannot read {path}: {_io_reason(path, exc)}") from None
    text = buf.decode("utf-8", "replace").lstrip("\ufeff")
    _check_quoting(path, text)
    lines = text.splitlines()
    if buf and not buf.endswith(b"\n") and len(lines) > 1:
        lines = lines[:-1]
    lines = lines[:max_lines]
    lead = next((i for i, ln in enumerate(lines) if ln), len(lines))
    lines = [ln for ln in lines if ln.strip()]
    return list(csv.reader(lines)), lead


def _io_reason(path: str, exc: BaseException) -> str:
    """What went wrong reading ``path``, with a hint for a damaged compressed file.

    >>> _io_reason("d.csv.gz", OSError("Truncated compressed stream"))
    'Truncated compressed stream (is it a complete gzip file?)'
    """
    text = getattr(exc, "strerror", None) or str(exc)
    if path.lower().endswith(".gz") and any(
        w in text.lower() for w in ("compress", "zlib", "gzip", "inflate")
    ):
        text += " (is it a complete gzip file?)"
    return text


def _check_quoting(path: str, text: str) -> None:
    r"""One clear error for text after a closing quote (``"a"b``) in the first lines of a CSV
    file: that is not CSV, and readers disagree on it (Python's ``csv`` keeps ``a"b``,
    pyarrow's reader ``ab``, and the quote that follows may swallow the lines below). A sample
    that ends inside a quoted field is fine.

    >>> _check_quoting("f.csv", 'x,y\n"a,b",1\n"a ""b"" c",2\n"d')
    >>> _check_quoting("f.csv", 'x,y\n"a"b,1\n')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    distval.errors.DistvalError: f.csv, line 2: text after a closing quote; quote the whole...
    """
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        for _ in reader:
            pass
    except csv.Error as e:
        if "expected after" not in str(e):  # e.g. a sample cut inside a quoted field
            return
        raise DistvalError(
            f"{path}, line {reader.line_num}: text after a closing quote; quote the whole "
            "field and double every quote inside it"
        ) from None


_CONVERSION = re.compile(
    r"In CSV column #(\d+): (?:Row #\d+: )?CSV conversion error to ([^:]+): invalid value '(.*)'",
    re.S,
)
_STRADDLE = "straddl"



@contextlib.contextmanager
def _quiet_invalid_rows() -> Iterator[None]:
    """While Arrow reads a CSV: a row with a wrong number of fields that is not UTF-8 cannot
    become the ``InvalidRow`` of our handler (Arrow decodes its text first, and the
    ``UnicodeDecodeError`` goes to ``sys.unraisablehook``, which printed an "Exception
    ignored" block); Arrow then fails the read with its own error, which is reworded in one
    line. So such decoding errors are not printed meanwhile; any other goes on as before."""
    previous = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, UnicodeDecodeError):
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous

class _CsvReading(_FileStream):
    """Shared reading of CSV-formatted data with pyarrow's streaming reader."""

    block_size: int
    _columns: list[str]
    _types: dict[str, pa.DataType]
    _skip_rows: int = 0
    _nulls: tuple[str, ...] = CSV_NULLS
    _na_hint = ""

    def _parse_options(
        self, handler: Callable[[pacsv.InvalidRow], str] | None = None
    ) -> pacsv.ParseOptions:
        return pacsv.ParseOptions(invalid_row_handler=handler)

    def _source(self) -> pa.NativeFile:
        return pa.input_stream(self.path, compression="detect")

    def _read_options(self) -> pacsv.ReadOptions:
        return pacsv.ReadOptions(
            column_names=self._columns, skip_rows=self._skip_rows, block_size=self.block_size
        )

    def _open_csv(
        self,
        src: Any,
        on_invalid: Callable[[pacsv.InvalidRow], str] | None,
        types: dict[str, pa.DataType],
    ) -> pacsv.CSVStreamingReader:
        """A streaming reader of ``src`` with this file's options, ``types`` per column."""
        return pacsv.open_csv(
            src,
            read_options=self._read_options(),
            parse_options=self._parse_options(on_invalid),
            convert_options=self._convert_options(types),
        )

    def _convert_options(self, types: dict[str, pa.DataType]) -> pacsv.ConvertOptions:
        return pacsv.ConvertOptions(
            column_types=types,
            null_values=list(self._nulls),
            strings_can_be_null=True,
            quoted_strings_can_be_null=True,
        )

    def _numeric_reason(self) -> str:
        return f"it held only numbers in the first {self.block_size} bytes read"

    def _open_pass(self, size: int) -> _Pass:
        decoder = self._new_decoder()
        return decoder.state(self._batches(decoder))

    def _batches(self, decoder: _Decoder) -> Batches:
        bad: list[tuple[int, int, str]] = []

        def on_invalid(row: pacsv.InvalidRow) -> str:
            bad.append((row.expected_columns, row.actual_columns, row.text))
            return "error"

        start = 0
        src = self._source()
        try:
            try:
                with _quiet_invalid_rows():
                    reader = self._open_csv(src, on_invalid, self._types)
            except (pa.ArrowException, OSError) as e:
                raise self._reworded(e, bad, start) from None
            while True:
                try:
                    with _quiet_invalid_rows():
                        batch = reader.read_next_batch()
                except StopIteration:
                    break
                except (pa.ArrowException, OSError) as e:
                    raise self._reworded(e, bad, start) from None
                out = decoder.decode(batch, start)
                start += batch.num_rows
                yield out
        finally:
            src.close()

    def _reworded(self, e: Exception, bad: list[tuple[int, int, str]], start: int) -> DistvalError:
        msg = str(e)
        if bad:
            expected, actual, text = bad[0]
            line = _line_of(self.path, text)
            where = f"line {line}" if line is not None else f"a row after data row {start}"
            return DistvalError(
                f"{self.path}: {where} has {actual} field{'s' if actual != 1 else ''}, "
                f"expected {expected}: {text[:120]!r}"
            )
        m = _CONVERSION.search(msg)
        if m:
            at, value = int(m.group(1)), m.group(3)
            column = self._columns[at] if at < len(self._columns) else f"#{at}"
            row = self._locate_value(column, value, start)
            where = f"data row {row}" if row is not None else f"a row after data row {start}"
            return DistvalError(
                f"{self.path}: column {column!r} holds the non-numeric value {value!r} in {where};"
                f" the column is numeric because {self._numeric_reason()}. Missing values must be"
                f" written as one of {_show_list(list(self._nulls))}{self._na_hint}"
            )
        if _STRADDLE in msg:
            return DistvalError(
                f"{self.path}: a row after data row {start} is longer than the block size "
                f"({self.block_size} bytes); use a larger block_size"
            )
        if "Empty CSV file" in msg:
            return DistvalError(f"stream {self.name!r} is empty: {self.path} holds no rows")
        return DistvalError(f"cannot read {self.path}: {_io_reason(self.path, e)}")

    def _locate_value(self, column: str, value: str, after: int) -> int | None:
        """1-based data row of the first occurrence of ``value`` in ``column`` at or after
        data row ``after + 1``, read as text."""
        src = self._source()
        try:
            reader = pacsv.open_csv(
                src,
                read_options=self._read_options(),
                parse_options=self._parse_options(),
                convert_options=pacsv.ConvertOptions(
                    column_types={c: pa.string() for c in self._columns},
                    include_columns=[column],
                    strings_can_be_null=False,
                ),
            )
            start = 0
            for batch in reader:
                n = batch.num_rows
                if start + n > after:
                    col = batch.column(0)
                    skip = max(after - start, 0)
                    hit: int | None = pc.index(col.slice(skip), value).as_py()
                    if hit is not None and hit >= 0:
                        return start + skip + hit + 1
                start += n
        except (pa.ArrowException, OSError):
            return None
        finally:
            src.close()
        return None


def _line_of(path: str, text: str) -> int | None:
    """1-based number of the first line of a file equal to ``text`` (ignoring ``\\r``)."""
    needle = b"\n" + text.encode("utf-8")
    size = len(needle)
    lines_before = 0
    buf = b"\n"
    try:
        with pa.input_stream(path, compression="detect") as f:
            while True:
                block: bytes = f.read(1 << 22)
                eof = not block
                buf += block
                pos = 0
                while True:
                    i = buf.find(needle, pos)
                    if i < 0:
                        break
                    end = i + size
                    if end < len(buf):
                        if buf[end : end + 1] in (b"\n", b"\r"):
                            return lines_before + buf.count(b"\n", 0, i) + 1
                    elif eof:
                        return lines_before + buf.count(b"\n", 0, i) + 1
                    else:
                        break
                    pos = i + 1
                if eof:
                    return None
                cut = max(len(buf) - size, 0)
                lines_before += buf.count(b"\n", 0, cut)
                buf = buf[cut:]
    except (pa.ArrowException, OSError):
        return None


class CsvStream(_CsvReading):
    """Rows of a CSV file (optionally gzip-compressed), read with ``pyarrow.csv.open_csv``.

    Column types are inferred from the first block: numeric columns are features, text columns
    are nominal (codes by first appearance), the label column is read as text. Missing values:
    ``na_values`` and the empty field; by default (:data:`NA_VALUES`) ``""``, ``"?"``,
    ``"NA"``, ``"N/A"``, ``"null"``, ``"NaN"``, ``"nan"``. Without a header, columns are named
    ``c0, c1, ...``.

    Parameters
    ----------
    path
        The ``.csv``, ``.csv.gz``, ``.data`` or ``.data.gz`` file.
    target
        Label column; default the last column.
    header
        Whether the first line holds column names; default detected (see
        :func:`detect_header`).
    limit
        Maximum number of rows per pass.
    block_size
        Bytes per block read; type inference looks at the first block.
    name
        Display name; default the file name without extensions.
    na_values
        Field values read as missing, besides the empty field (default :data:`NA_VALUES`).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("x,colour,label\\n1.5,red,b\\n?,blue,a\\n2,red,b\\n")
    >>> s = CsvStream(path)
    >>> c = next(s.chunks(10))
    >>> c.X.tolist(), c.y.tolist(), s.classes, s.nominal
    ([[1.5, 0.0], [nan, 1.0], [2.0, 0.0]], [0, 1, 0], ['b', 'a'], {'colour': ['red', 'blue']})
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        target: str | None = None,
        header: bool | None = None,
        limit: int | None = None,
        block_size: int = _DEFAULT_BLOCK,
        name: str | None = None,
        na_values: str | tuple[str, ...] | list[str] | None = None,
    ) -> None:
        super().__init__(path, name, limit)
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
            raise DistvalError(f"block_size must be a positive integer, got {block_size!r}")
        self.block_size = block_size
        self._nulls = na_vocabulary(na_values)
        self._na_hint = " (or name it with --na-values)"
        lines, lead = _sample_lines(self.path)
        if not lines:
            raise DistvalError(f"stream {self.name!r} is empty: {self.path} holds no rows")
        self.header = detect_header(lines, self._nulls) if header is None else bool(header)
        if self.header:
            columns = [f.strip() or f"c{i}" for i, f in enumerate(lines[0])]
            dupes = sorted(c for c, n in Counter(columns).items() if n > 1)
            if dupes:
                raise DistvalError(
                    f"{self.path}: the header names these columns more than once: "
                    f"{_show_list(dupes)}"
                )
            self._skip_rows = lead + 1
        else:
            columns = [f"c{i}" for i in range(len(lines[0]))]
            self._skip_rows = 0
        self._columns = columns
        self._set_columns(columns, target)
        self._types = self._infer_types()
        self._nominal_features = [
            f for f in self.feature_names if pa.types.is_string(self._types[f])
        ]
        self._publish_declared()

    def _check_mostly_numeric(self, batch: pa.RecordBatch) -> None:
        """A text column whose values are numbers but for a few is a numeric column with
        bad values, not a nominal one: say which value, where."""
        for name, col in zip(batch.schema.names, batch.columns):
            if name == self.target or not pa.types.is_string(col.type):
                continue
            looks = pc.match_substring_regex(col, _NUMBER_RE)
            n_num = pc.sum(looks).as_py() or 0
            n_all = len(col) - col.null_count
            if not n_num or n_num == n_all:
                continue
            # Mostly numbers, or numbers and a marker or two ('-', 'n/a'): a numeric column
            # whose other values are missing-value markers or mistakes, not categories.
            markers = pc.count_distinct(pc.filter(col, pc.invert(looks))).as_py()
            if n_num >= 0.9 * n_all or (n_num >= 0.5 * n_all and markers <= 2):
                odd = np.flatnonzero(
                    ~looks.to_numpy(zero_copy_only=False).astype(bool)
                    & col.is_valid().to_numpy(zero_copy_only=False)
                )[0]
                raise DistvalError(
                    f"{self.path}: non-numeric value {col[int(odd)].as_py()!r} in numeric "
                    f"column {name!r} (data row {int(odd) + 1}); if it marks a missing value, "
                    "name it with --na-values"
                )

    def _infer_types(self) -> dict[str, pa.DataType]:
        bad: list[tuple[int, int, str]] = []

        def on_invalid(row: pacsv.InvalidRow) -> str:
            bad.append((row.expected_columns, row.actual_columns, row.text))
            return "error"

        src = self._source()
        try:
            with _quiet_invalid_rows():
                reader = self._open_csv(src, on_invalid, {self.target: pa.string()})
                schema = reader.schema
                first = reader.read_next_batch()
        except StopIteration:
            first = None
        except (pa.ArrowException, OSError) as e:
            raise self._reworded(e, bad, 0) from None
        finally:
            src.close()
        if first is not None:
            self._check_mostly_numeric(first)
        types: dict[str, pa.DataType] = {}
        for field in schema:
            t = field.type
            if field.name == self.target:
                types[field.name] = pa.string()
            elif pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t):
                types[field.name] = pa.float64()
            elif pa.types.is_boolean(t):
                types[field.name] = pa.bool_()
            else:
                types[field.name] = pa.string()
        return types


def split_plain_block(block: bytes, n_columns: int) -> list[pa.Array] | None:
    """Split a block of complete, unquoted comma-separated lines into ``n_columns`` string
    arrays with pyarrow (empty lines skipped, no null conversion, UTF-8 checked); ``None`` if
    pyarrow cannot (a line with another field count, invalid UTF-8), so that the caller can
    parse the lines itself and say what is wrong.

    >>> [a.to_pylist() for a in split_plain_block(b"1,a\\n\\n2,?\\n", 2)]
    [['1', '2'], ['a', '?']]
    >>> split_plain_block(b"1,a\\n2\\n", 2) is None
    True
    """
    names = [f"f{j}" for j in range(n_columns)]
    try:
        table = pacsv.read_csv(
            pa.BufferReader(block),
            read_options=pacsv.ReadOptions(
                column_names=names, use_threads=False, block_size=max(len(block), 1 << 16)
            ),
            parse_options=pacsv.ParseOptions(
                quote_char=False, double_quote=False, escape_char=False, ignore_empty_lines=True
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.string()),
                strings_can_be_null=False,
                null_values=[],
                check_utf8=True,
            ),
        )
    except (pa.ArrowException, OSError):
        return None
    return [table.column(j).combine_chunks() for j in range(n_columns)]
