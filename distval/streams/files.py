"""File streams: Parquet and CSV, read batch by batch with pyarrow (no per-row Python work).

Numeric columns become float64 features (null -> NaN). Dictionary (categorical) Parquet
columns are nominal with their declared category order; string columns are nominal with
codes by first appearance. The label column may have any type; its values are categories.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from distval.errors import DistvalError, check_positive_int
from distval.streams.base import (
    Categories,
    Stream,
    _Pass,
    codes_to_float,
    format_value,
    numeric_column,
)

__all__ = ["CSV_NULLS", "CsvStream", "ParquetStream", "detect_header"]

#: Field values read as missing in CSV files.
CSV_NULLS = ("", "?", "NA", "NaN", "nan")

_DEFAULT_BLOCK = 1 << 20
_DEFAULT_BATCH = 1 << 16
_SHOW = 20


def _show_list(values: list[str], limit: int = _SHOW) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    if len(values) > limit:
        shown += f", ... ({len(values)} in all)"
    return shown


def stream_name(path: str | os.PathLike) -> str:
    """Display name of a file: its name without data and compression suffixes.

    >>> stream_name("/data/covtype.data.gz"), stream_name("elec2.parquet")
    ('covtype', 'elec2')
    """
    name = Path(path).name
    low = name.lower()
    for ext in (".gz", ".parquet", ".csv", ".data", ".arff"):
        if low.endswith(ext):
            name, low = name[: -len(ext)], low[: -len(ext)]
    return name or Path(path).name


def check_file(path: str | os.PathLike) -> str:
    """The path as ``str``; raise DistvalError if there is no such file."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise DistvalError(f"no such file: {p}")
    if not os.path.isfile(p):
        raise DistvalError(f"not a file: {p}")
    return p


class _FileStream(Stream):
    """Shared state of file streams: feature kinds, declared categories and batch decoding."""

    def __init__(self, path: str | os.PathLike, name: str | None, limit: int | None) -> None:
        self.path = check_file(path)
        super().__init__(name or stream_name(self.path), limit)
        self.target = ""
        self._nominal_features: list[str] = []
        self._declared: dict[str, list[str]] = {}
        self._strict: frozenset[str] = frozenset()
        self._label_domain: list[str] | None = None

    def _set_columns(self, columns: list[str], target: str | None) -> None:
        if target is None:
            if len(columns) < 1:
                raise DistvalError(f"{self.path}: the file has no columns")
            target = columns[-1]
        elif target not in columns:
            raise DistvalError(
                f"{self.path}: no column named {target!r} to use as target; "
                f"columns: {_show_list(columns, 200)}"
            )
        self.target = target
        self.feature_names = [c for c in columns if c != target]

    def _publish_declared(self) -> None:
        self.nominal = {f: list(self._declared.get(f, ())) for f in self._nominal_features}

    def _new_decoder(self) -> _Decoder:
        return _Decoder(self)


class _Decoder:
    """Turns Arrow record batches into ``(X, y)`` arrays with one pass's encoders."""

    def __init__(self, stream: _FileStream) -> None:
        self.stream = stream
        self.labels = Categories(allowed=stream._label_domain)
        self.nominal = {
            f: Categories(stream._declared.get(f, ()), strict=f in stream._strict)
            for f in stream._nominal_features
        }
        self._where: list[int] | None = None
        self._target_at = -1

    def state(self, batches: Iterator[tuple[np.ndarray, np.ndarray]]) -> _Pass:
        return _Pass(batches, self.labels, self.nominal)

    def decode(self, batch: pa.RecordBatch, start: int) -> tuple[np.ndarray, np.ndarray]:
        s = self.stream
        if self._where is None:
            names = batch.schema.names
            self._where = [names.index(f) for f in s.feature_names]
            self._target_at = names.index(s.target)
        n = batch.num_rows
        # Filling rows of the transpose and copying once is much faster than strided columns.
        T = np.empty((len(s.feature_names), n), dtype=np.float64)
        for j, (f, at) in enumerate(zip(s.feature_names, self._where, strict=True)):
            cats = self.nominal.get(f)
            arr = batch.column(at)
            if cats is None:
                T[j] = numeric_column(arr)
            else:
                T[j] = codes_to_float(cats.encode(arr, self._unknown(f, start)))
        X = np.ascontiguousarray(T.T)
        y = self.labels.encode(batch.column(self._target_at), self._unknown(s.target, start))
        if n and y.min() < 0:
            row = start + int(np.argmax(y < 0)) + 1
            raise DistvalError(
                f"{s.path}: the label (column {s.target!r}) is missing in data row {row}"
            )
        return X, y

    def _unknown(self, feature: str, start: int):
        def fail(value: str, pos: int) -> None:
            s = self.stream
            declared = s._label_domain if feature == s.target else s._declared.get(feature)
            raise DistvalError(
                f"{self.stream.path}: column {feature!r} holds {value!r} in data row "
                f"{start + pos + 1}, which is not one of its declared categories: "
                f"{_show_list(declared or [])}"
            )

        return fail


# -- Parquet ---------------------------------------------------------------------------------


class ParquetStream(_FileStream):
    """Rows of a Parquet file, read with ``ParquetFile.iter_batches``.

    Parameters
    ----------
    path
        The ``.parquet`` file.
    target
        Label column; default the last column.
    limit
        Maximum number of rows per pass.
    batch_size
        Rows per Arrow batch read from the file.
    name
        Display name; default the file name without extension.

    Examples
    --------
    >>> from distval.streams import bundled_path
    >>> s = ParquetStream(bundled_path("elec2"), limit=2500)
    >>> s.n_rows, len(s.feature_names), s.nominal["day"][:3]
    (2500, 8, ['1', '2', '3'])
    >>> sum(len(c) for c in s.chunks(1000)), s.classes
    (2500, ['UP', 'DOWN'])
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        target: str | None = None,
        limit: int | None = None,
        batch_size: int = _DEFAULT_BATCH,
        name: str | None = None,
    ) -> None:
        super().__init__(path, name, limit)
        check_positive_int(batch_size, "batch_size")
        self.batch_size = batch_size
        pf = self._open()
        try:
            self._inspect(pf, target)
        finally:
            pf.close()

    def _inspect(self, pf: pq.ParquetFile, target: str | None) -> None:
        schema = pf.schema_arrow
        self._set_columns(list(schema.names), target)
        declared_meta = _declared_categories(schema)
        dict_columns = []
        for f in self.feature_names:
            t = schema.field(f).type
            if pa.types.is_dictionary(t):
                self._nominal_features.append(f)
                if f in declared_meta:
                    self._declared[f] = declared_meta[f]
                else:
                    dict_columns.append(f)
            elif pa.types.is_string(t) or pa.types.is_large_string(t):
                self._nominal_features.append(f)
            elif not _is_numeric(t):
                raise DistvalError(
                    f"{self.path}: column {f!r} has type {t}, which cannot be a feature; "
                    "feature columns must be numeric, boolean, string or dictionary "
                    "(categorical)"
                )
        if dict_columns and pf.metadata.num_rows:
            first = next(pf.iter_batches(batch_size=1, columns=dict_columns))
            for f in dict_columns:
                values = first.column(f).dictionary.to_pylist()
                self._declared[f] = [format_value(v) for v in values if v is not None]
        self._publish_declared()
        rows = pf.metadata.num_rows
        self.n_rows = rows if self.limit is None else min(rows, self.limit)

    def _open(self) -> pq.ParquetFile:
        try:
            return pq.ParquetFile(self.path)
        except (pa.ArrowException, OSError) as e:
            raise DistvalError(f"cannot read {self.path} as Parquet: {e}") from None

    def _open_pass(self, size: int) -> _Pass:
        decoder = self._new_decoder()
        return decoder.state(self._batches(decoder, size))

    def _batches(self, decoder: _Decoder, size: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        pf = self._open()
        columns = [*self.feature_names, self.target]
        batch_size = max(self.batch_size, size)
        if self.limit is not None:
            batch_size = min(batch_size, self.limit)
        start = 0
        batches = pf.iter_batches(batch_size=batch_size, columns=columns)
        try:
            while True:
                try:
                    batch = next(batches)
                except StopIteration:
                    break
                except (pa.ArrowException, OSError) as e:
                    raise DistvalError(f"cannot read {self.path} as Parquet: {e}") from None
                out = decoder.decode(batch, start)
                start += batch.num_rows
                yield out
        finally:
            pf.close()


def _is_numeric(t: pa.DataType) -> bool:
    return (
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_boolean(t)
        or pa.types.is_null(t)
        or pa.types.is_decimal(t)
    )


def _declared_categories(schema: pa.Schema) -> dict[str, list[str]]:
    meta = schema.metadata or {}
    raw = meta.get(b"nominal_categories")
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): [str(v) for v in vs] for k, vs in data.items() if isinstance(vs, list)}


# -- CSV -------------------------------------------------------------------------------------


_NUMBER_RE = r"^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


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


def _sample_lines(path: str, max_lines: int = 51, max_bytes: int = 1 << 16) -> list[list[str]]:
    buf = b""
    with pa.input_stream(path, compression="detect") as f:
        while buf.count(b"\n") < max_lines:
            block = f.read(max_bytes)
            if not block:
                break
            buf += block
            if (len(buf) >= max_bytes and b"\n" in buf) or len(buf) >= 1 << 24:
                break
    text = buf.decode("utf-8", "replace").lstrip("\ufeff")
    lines = text.splitlines()
    if buf and not buf.endswith(b"\n") and len(lines) > 1:
        lines = lines[:-1]
    lines = [ln for ln in lines[:max_lines] if ln.strip()]
    return list(csv.reader(lines))


_CONVERSION = re.compile(
    r"In CSV column #(\d+): (?:Row #\d+: )?CSV conversion error to ([^:]+): invalid value '(.*)'",
    re.S,
)
_STRADDLE = "straddl"


class _CsvReading(_FileStream):
    """Shared reading of CSV-formatted data with pyarrow's streaming reader."""

    block_size: int
    _columns: list[str]
    _types: dict[str, pa.DataType]
    _skip_rows: int = 0
    _nulls: tuple[str, ...] = CSV_NULLS

    def _parse_options(self, handler=None) -> pacsv.ParseOptions:
        return pacsv.ParseOptions(invalid_row_handler=handler)

    def _source(self) -> pa.NativeFile:
        return pa.input_stream(self.path, compression="detect")

    def _read_options(self) -> pacsv.ReadOptions:
        return pacsv.ReadOptions(
            column_names=self._columns, skip_rows=self._skip_rows, block_size=self.block_size
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

    def _batches(self, decoder: _Decoder) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        bad: list[tuple[int, int, str]] = []

        def on_invalid(row) -> str:
            bad.append((row.expected_columns, row.actual_columns, row.text))
            return "error"

        start = 0
        src = self._source()
        try:
            try:
                reader = pacsv.open_csv(
                    src,
                    read_options=self._read_options(),
                    parse_options=self._parse_options(on_invalid),
                    convert_options=self._convert_options(self._types),
                )
            except (pa.ArrowException, OSError) as e:
                raise self._reworded(e, bad, start) from None
            while True:
                try:
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
                f" written as one of {_show_list(list(self._nulls))}"
            )
        if _STRADDLE in msg:
            return DistvalError(
                f"{self.path}: a row after data row {start} is longer than the block size "
                f"({self.block_size} bytes); use a larger block_size"
            )
        if "Empty CSV file" in msg:
            return DistvalError(f"stream {self.name!r} is empty: {self.path} holds no rows")
        return DistvalError(f"cannot read {self.path}: {msg}")

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
                    hit = pc.index(col.slice(skip), value).as_py()
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
                block = f.read(1 << 22)
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
    ``""``, ``"?"``, ``"NA"``, ``"NaN"``, ``"nan"``. Without a header, columns are named
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
        path: str | os.PathLike,
        *,
        target: str | None = None,
        header: bool | None = None,
        limit: int | None = None,
        block_size: int = _DEFAULT_BLOCK,
        name: str | None = None,
    ) -> None:
        super().__init__(path, name, limit)
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
            raise DistvalError(f"block_size must be a positive integer, got {block_size!r}")
        self.block_size = block_size
        lines = _sample_lines(self.path)
        if not lines:
            raise DistvalError(f"stream {self.name!r} is empty: {self.path} holds no rows")
        self.header = detect_header(lines) if header is None else bool(header)
        if self.header:
            columns = [f.strip() or f"c{i}" for i, f in enumerate(lines[0])]
            dupes = sorted({c for c in columns if columns.count(c) > 1})
            if dupes:
                raise DistvalError(
                    f"{self.path}: the header names these columns more than once: "
                    f"{_show_list(dupes)}"
                )
            self._skip_rows = 1
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
            if n_num and n_num < n_all and n_num >= 0.9 * n_all:
                odd = np.flatnonzero(
                    ~looks.to_numpy(zero_copy_only=False).astype(bool)
                    & col.is_valid().to_numpy(zero_copy_only=False)
                )[0]
                raise DistvalError(
                    f"{self.path}: non-numeric value {col[int(odd)].as_py()!r} in numeric "
                    f"column {name!r} (data row {int(odd) + 1})"
                )

    def _infer_types(self) -> dict[str, pa.DataType]:
        bad: list[tuple[int, int, str]] = []

        def on_invalid(row) -> str:
            bad.append((row.expected_columns, row.actual_columns, row.text))
            return "error"

        src = self._source()
        try:
            reader = pacsv.open_csv(
                src,
                read_options=self._read_options(),
                parse_options=self._parse_options(on_invalid),
                convert_options=self._convert_options({self.target: pa.string()}),
            )
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
