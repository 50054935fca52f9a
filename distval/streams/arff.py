"""ARFF streams (Weka's format, optionally gzip-compressed), read block by block.

The header is parsed line by line (:mod:`distval.streams.arff_text` has the token rules):
keywords and type names are case-insensitive, names and nominal values may be quoted with
``'`` or ``"`` (with backslash escapes), ``%`` starts a comment anywhere outside quotes.

Attribute types: ``numeric``, ``real`` and ``integer`` are float features (an ``integer``
value is not truncated, as in Weka); ``{a, b, c}`` is nominal in declared order (any other
value is an error); a nominal class numbers its values in declared order too, as MOA and
Weka do (MOA breaks vote ties towards the lowest index); ``string`` is nominal with codes by
first appearance (this package's encoding of free text). ``date`` and ``relational``
attributes are an error.

The ``@data`` section is read in blocks of ``block_size`` bytes. A block of plain rows (no
quote, backslash, brace, ``%`` or non-ASCII byte: what Weka and MOA write for numeric and
simple nominal data) is split by pyarrow's CSV reader; any other block is tokenised line by
line in Python, which handles quotes, comments after values and sparse rows
``{index value, ...}`` (an omitted value is 0 for a numeric attribute and the first declared
value for a nominal one; a ``string`` attribute must be given). ``?`` unquoted, or an empty
field, is a missing value. A dense row may end with a comma after its last attribute (MOA's
``WriteStreamToARFFFile`` writes every row so): the empty field after it is ignored, as Weka
and MOA ignore it.
"""

from __future__ import annotations

import gzip
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from distval.errors import DistvalError, check_positive_int
from distval.streams.arff_text import (
    ArffSyntaxError,
    ends_with_empty_field,
    rest_is_comment,
    split_braced,
    split_dense,
    split_sparse,
    token,
)
from distval.streams.base import Batches, _Pass
from distval.streams.delimited import split_plain_block
from distval.streams.files import _DEFAULT_BLOCK, _Decoder, _FileStream

__all__ = ["ArffHeader", "ArffStream", "parse_arff_header"]

_NUMERIC = {"numeric", "real", "integer"}
_KEYWORD = re.compile(r"@([A-Za-z]+)(?=\s|%|$)")
_TYPE = re.compile(r"[A-Za-z]+")
#: A data block takes the pyarrow path unless it holds one of these bytes.
#: The bytes of a plain dense row: printable ASCII but quotes, escapes, comments and braces.
_PLAIN_BYTES = bytes(sorted(set(range(0x20, 0x7F)) - set(b"'\"\\%{}") | set(b"\t\r\n")))
_BLANK_LINE = re.compile(rb"(?m)^[ \t]+\r?$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class ArffHeader:
    """What an ARFF header declares.

    ``types`` maps each attribute to ``"numeric"``, ``"nominal"`` or ``"string"``;
    ``categories`` holds the declared values of nominal attributes. ``data_offset`` is the byte
    offset of the line after ``@data`` (in the decompressed text) and ``data_line`` its 1-based
    line number.
    """

    relation: str = ""
    names: list[str] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)
    categories: dict[str, list[str]] = field(default_factory=dict)
    data_offset: int = 0
    data_line: int = 0


def _source(path: str) -> pa.NativeFile:
    try:
        return pa.input_stream(path, compression="detect")
    except (pa.ArrowException, OSError) as e:
        raise DistvalError(f"cannot read {path}: {e}") from None


# Repeat kept: its doctest opens as ArffStream's (a temporary file): alike in shape only.
def parse_arff_header(path: str) -> ArffHeader:
    """Parse the header of an ARFF file (``.gz`` allowed) up to its ``@data`` line.

    Raises
    ------
    DistvalError
        For a malformed header or an unsupported attribute type, with the line number.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.arff")
    >>> with open(path, "w") as f:
    ...     _ = f.write("% toy\\n@RELATION toy\\n@attribute 'a b' NUMERIC % the a\\n"
    ...                 "@attribute class {yes, \\"no way\\"}\\n\\n@data\\n1.5,yes\\n")
    >>> h = parse_arff_header(path)
    >>> h.relation, h.names, h.types["class"], h.categories["class"], h.data_line
    ('toy', ['a b', 'class'], 'nominal', ['yes', 'no way'], 7)
    """
    header = ArffHeader()
    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as src:
            _read_header(src, header, path)
    except (OSError, EOFError) as e:
        raise DistvalError(f"cannot read {path}: {e}") from None
    if not header.data_line:
        raise DistvalError(f"{path}: no @data line; is this an ARFF file?")
    if not header.names:
        raise DistvalError(f"{path}: the header declares no @attribute")
    return header


def _read_header(src: Iterable[bytes], header: ArffHeader, path: str) -> None:
    """Fill ``header`` from the lines of ``src`` up to ``@data``."""
    offset = 0
    for number, raw in enumerate(src, start=1):
        offset += len(raw)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DistvalError(f"{path}: line {number} is not UTF-8 text") from None
        text = text.lstrip("\ufeff").strip() if number == 1 else text.strip()
        if not text or text[0] == "%":
            continue
        m = _KEYWORD.match(text)
        keyword, end = (m.group(1).lower(), m.end()) if m else ("", 0)
        try:
            if keyword == "relation":
                header.relation = token(text, end)[0]
            elif keyword == "attribute":
                _add_attribute(header, text, end)
            elif keyword == "data":
                if not rest_is_comment(text, end):
                    raise ArffSyntaxError("unexpected text after @data")
                header.data_offset, header.data_line = offset, number + 1
                return
            elif keyword != "end":
                raise ArffSyntaxError(
                    f"expected @relation, @attribute or @data, got {text[:60]!r}"
                )
        except ArffSyntaxError as e:
            raise DistvalError(f"{path}: line {number}: {e}") from None


def _add_attribute(header: ArffHeader, text: str, pos: int) -> None:
    name, quoted, pos = token(text, pos)
    if not name and not quoted:
        raise ArffSyntaxError(f"cannot parse attribute {text[:80]!r}: no name")
    if name in header.types:
        raise ArffSyntaxError(f"attribute {name!r} is declared twice")
    if pos >= len(text) or text[pos] == "%":
        raise ArffSyntaxError(f"attribute {name!r} has no type")
    if text[pos] == "{":
        values, end = split_braced(text, pos)
        if not rest_is_comment(text, end):
            raise ArffSyntaxError(f"unexpected text after the values of attribute {name!r}")
        header.types[name] = "nominal"
        header.categories[name] = values
    else:
        m = _TYPE.match(text, pos)
        kind, end = (m.group(0).lower(), m.end()) if m else ("", pos)
        supported = "supported types: numeric, real, integer, string and nominal {...}"
        if kind in ("date", "relational"):
            raise ArffSyntaxError(
                f"attribute {name!r} has type {kind}, which is not supported; {supported}"
            )
        if kind not in (*_NUMERIC, "string") or not rest_is_comment(text, end):
            raise ArffSyntaxError(
                f"attribute {name!r} has unknown type {text[pos:pos + 40]!r}; {supported}"
            )
        header.types[name] = "numeric" if kind in _NUMERIC else "string"
    header.names.append(name)


class ArffStream(_FileStream):
    """Rows of an ARFF file (dense or sparse rows, optionally gzip-compressed).

    Parameters
    ----------
    path
        The ``.arff`` or ``.arff.gz`` file.
    target
        Label attribute; default the last attribute.
    limit
        Maximum number of rows per pass.
    block_size
        Bytes per block read from the data section.
    name
        Display name; default the file name without extensions.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.arff")
    >>> with open(path, "w") as f:
    ...     _ = f.write("@relation toy\\n@attribute x numeric\\n@attribute day {1,2,3}\\n"
    ...                 "@attribute class {UP,DOWN}\\n@data\\n0.5,3,DOWN\\n"
    ...                 "% a comment\\n?,'1',\\"UP\\" % another\\n{0 2.5, 2 UP}\\n")
    >>> s = ArffStream(path)
    >>> c = next(s.chunks())
    >>> c.X.tolist(), c.y.tolist(), s.classes, s.nominal, s.n_classes
    ([[0.5, 2.0], [nan, 0.0], [2.5, 0.0]], [1, 0, 0], ['UP', 'DOWN'], {'day': ['1', '2', '3']}, 2)
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        target: str | None = None,
        limit: int | None = None,
        block_size: int = _DEFAULT_BLOCK,
        name: str | None = None,
    ) -> None:
        super().__init__(path, name, limit)
        check_positive_int(block_size, "block_size")
        self.block_size = int(block_size)
        self.header = parse_arff_header(self.path)
        self._columns = list(self.header.names)
        self._set_columns(self._columns, target)
        types = self.header.types
        self._nominal_features = [f for f in self.feature_names if types[f] != "numeric"]
        self._declared = {
            f: list(self.header.categories[f])
            for f in self._nominal_features
            if types[f] == "nominal"
        }
        self._strict = frozenset(self._declared)
        if types[self.target] == "nominal":
            self._label_domain = list(self.header.categories[self.target])
            self.n_classes = len(dict.fromkeys(self._label_domain))
        self._publish_declared()
        self._numeric = [types[c] == "numeric" for c in self._columns]
        # Value of an attribute left out of a sparse row (None: it must be given).
        self._implicit = [
            "0" if types[c] == "numeric" else (
                self.header.categories[c][0] if types[c] == "nominal" else None
            )
            for c in self._columns
        ]

    def _open_pass(self, size: int) -> _Pass:
        decoder = self._new_decoder()
        return decoder.state(self._batches(decoder))

    def _batches(self, decoder: _Decoder) -> Batches:
        start = 0
        for line, block in self._blocks():
            columns = self._plain(block)
            if columns is None:
                columns = self._parse_lines(block, line, start)
            n = len(columns[0])
            if not n:
                continue
            batch = pa.RecordBatch.from_arrays(
                [self._typed(j, col, start) for j, col in enumerate(columns)],
                names=self._columns,
            )
            out = decoder.decode(batch, start)
            start += n
            yield out

    def _blocks(self) -> Iterator[tuple[int, bytes]]:
        """(line number of the first line, bytes) of whole lines of the data section."""
        src = _source(self.path)
        try:
            remaining = self.header.data_offset
            while remaining > 0:
                got = src.read(min(remaining, 1 << 20))
                if not got:
                    break
                remaining -= len(got)
            line, carry = self.header.data_line, b""
            while True:
                chunk = src.read(self.block_size)
                if not chunk:
                    if carry:
                        yield line, carry
                    return
                buf = carry + chunk
                cut = buf.rfind(b"\n")
                if cut < 0:
                    carry = buf
                    continue
                block, carry = buf[: cut + 1], buf[cut + 1 :]
                yield line, block
                line += block.count(b"\n")
        except (pa.ArrowException, OSError, EOFError) as e:
            raise DistvalError(f"cannot read {self.path}: {e}") from None
        finally:
            src.close()

    def _plain(self, block: bytes) -> list[pa.Array] | None:
        """Columns of a block of plain dense rows via pyarrow, or None (parse in Python)."""
        if block.translate(None, _PLAIN_BYTES):  # a byte outside them is left: not plain
            return None
        spaced = b" " in block or b"\t" in block
        if spaced and _BLANK_LINE.search(block):
            return None
        k = len(self._columns)
        columns = split_plain_block(block, k)
        if columns is None:
            # MOA's WriteStreamToARFFFile ends every row with a comma: an empty field after
            # the last attribute is nothing (as Weka and MOA read it)
            columns = split_plain_block(block, k + 1)
            if (
                columns is None
                or pc.any(pc.not_equal(pc.utf8_trim_whitespace(columns[k]), "")).as_py()
            ):
                return None
            columns = columns[:k]
        out = []
        missing = pa.array(["", "?"])
        for col in columns:
            if spaced:
                col = pc.utf8_trim(col, " \t")
                if pc.any(pc.match_substring_regex(col, r"[ \t]")).as_py():
                    return None  # an unquoted value with a space: let the tokenizer say where
            out.append(pc.if_else(pc.is_in(col, value_set=missing), None, col))
        return out

    def _parse_lines(self, block: bytes, first_line: int, start: int) -> list[pa.Array]:
        """Columns of a block tokenised line by line (quotes, comments, sparse rows)."""
        try:
            text = block.decode("utf-8")
        except UnicodeDecodeError as e:
            bad = first_line + block.count(b"\n", 0, e.start)
            raise DistvalError(f"{self.path}: line {bad} is not UTF-8 text") from None
        k = len(self._columns)
        rows: list[list[str | None]] = []
        for number, line in enumerate(_LINE_BREAK.split(text), start=first_line):
            stripped = line.strip()
            if not stripped or stripped[0] == "%":
                continue
            try:
                if stripped[0] == "{":
                    rows.append(self._sparse(split_sparse(stripped)))
                else:
                    values = split_dense(stripped)
                    if len(values) == k + 1 and ends_with_empty_field(stripped):
                        values.pop()  # MOA's trailing comma: nothing after it (Weka, MOA)
                    if len(values) != k:
                        raise ArffSyntaxError(f"{len(values)} values, expected {k}")
                    rows.append(values)
            except ArffSyntaxError as e:
                raise DistvalError(
                    f"{self.path}: line {number} (data row {start + len(rows) + 1}): {e}: "
                    f"{stripped[:80]!r}"
                ) from None
        if not rows:
            return [pa.array([], type=pa.string()) for _ in range(k)]
        return [pa.array(col, type=pa.string()) for col in zip(*rows)]

    def _sparse(self, values: dict[int, str | None]) -> list[str | None]:
        k = len(self._columns)
        row = list(self._implicit)
        for index, value in values.items():
            if index >= k:
                raise ArffSyntaxError(f"index {index} is beyond the {k} attributes")
            row[index] = value
        absent = [self._columns[j] for j, v in enumerate(row) if v is None and j not in values]
        if absent:
            raise ArffSyntaxError(
                f"string attribute {absent[0]!r} needs an explicit value in a sparse row"
            )
        return row

    def _typed(self, j: int, col: pa.Array, start: int) -> pa.Array:
        """Numeric attributes as float64; the others stay text."""
        if not self._numeric[j]:
            return col
        try:
            return pc.cast(col, pa.float64())
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
        values = col.to_pylist()
        for i, v in enumerate(values):
            if v is None:
                continue
            try:
                pc.cast(pa.array([v]), pa.float64())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise DistvalError(
                    f"{self.path}: column {self._columns[j]!r} holds the non-numeric value "
                    f"{v!r} in data row {start + i + 1}; the header declares it numeric. "
                    "Missing values must be written as ?"
                ) from None
        raise DistvalError(f"{self.path}: column {self._columns[j]!r} is not numeric")
