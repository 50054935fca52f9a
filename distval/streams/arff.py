"""ARFF streams: the header is parsed in Python, the ``@data`` section is read by pyarrow's CSV
reader with the declared column names and types.

Supported attribute types: ``numeric``, ``real``, ``integer`` (float features), ``{a,b,c}``
(nominal in declared order) and ``string`` (nominal by first appearance). Missing values are
``?``; values may be single-quoted. Sparse rows and ``date``/``relational`` attributes are not
supported.
"""

from __future__ import annotations

import csv
import gzip
import os
import re
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.csv as pacsv

from distval.errors import DistvalError, check_positive_int
from distval.streams.delimited import _CsvReading
from distval.streams.files import _DEFAULT_BLOCK

__all__ = ["ArffHeader", "ArffStream", "parse_arff_header"]

_ATTRIBUTE = re.compile(
    r"""@attribute\s+('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s{]+)\s*(.*)$""",
    re.IGNORECASE | re.S,
)
_NUMERIC = {"numeric", "real", "integer"}


@dataclass
class ArffHeader:
    """What an ARFF header declares.

    ``types`` maps each attribute to ``"numeric"``, ``"nominal"`` or ``"string"``;
    ``categories`` holds the declared values of nominal attributes. ``data_offset`` is the byte
    offset of the first data row (in the decompressed text) and ``data_line`` its 1-based line.
    """

    relation: str = ""
    names: list[str] = field(default_factory=list)
    types: dict[str, str] = field(default_factory=dict)
    categories: dict[str, list[str]] = field(default_factory=dict)
    data_offset: int = 0
    data_line: int = 0


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        inner = text[1:-1]
        return re.sub(r"\\(.)", r"\1", inner)
    return text


def _nominal_values(spec: str, path: str, line: int) -> list[str]:
    inner = spec.strip()
    if not inner.endswith("}"):
        raise DistvalError(f"{path}: line {line}: nominal attribute values must end with '}}'")
    inner = inner[1:-1]
    values: list[str] = []
    for row in csv.reader([inner], quotechar="'", escapechar="\\", skipinitialspace=True):
        values.extend(v.strip() for v in row)
    values = [_unquote(v) for v in values if v.strip() != ""]
    if not values:
        raise DistvalError(f"{path}: line {line}: a nominal attribute declares no values")
    return values


def _open_text(path: str):
    if path.lower().endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def parse_arff_header(path: str) -> ArffHeader:
    """Parse the header of an ARFF file (``.gz`` allowed) up to its first data row.

    Raises
    ------
    DistvalError
        For a malformed header, unsupported attribute types or sparse data.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.arff")
    >>> with open(path, "w") as f:
    ...     _ = f.write("% toy\\n@relation toy\\n@attribute 'a b' numeric\\n"
    ...                 "@attribute class {yes, no}\\n\\n@data\\n1.5,no\\n")
    >>> h = parse_arff_header(path)
    >>> h.relation, h.names, h.types["class"], h.categories["class"], h.data_line
    ('toy', ['a b', 'class'], 'nominal', ['yes', 'no'], 7)
    """
    header = ArffHeader()
    offset = 0
    in_data = False
    try:
        with _open_text(path) as f:
            for number, raw in enumerate(f, start=1):
                text = raw.decode("utf-8", "replace").strip()
                if number == 1:
                    text = text.lstrip("\ufeff")
                if not text or text.startswith("%"):
                    offset += len(raw)
                    continue
                if in_data:
                    if text.startswith("{"):
                        raise DistvalError(
                            f"{path}: line {number}: sparse ARFF rows ({{index value, ...}}) "
                            "are not supported; write the data section in dense form"
                        )
                    header.data_offset, header.data_line = offset, number
                    break
                offset += len(raw)
                low = text.lower()
                if low.startswith("@relation"):
                    header.relation = _unquote(text[len("@relation") :])
                elif low.startswith("@attribute"):
                    _add_attribute(header, text, path, number)
                elif low.startswith("@data"):
                    in_data = True
                elif low.startswith("@end"):
                    continue
                else:
                    raise DistvalError(
                        f"{path}: line {number}: expected @relation, @attribute or @data, "
                        f"got {text[:60]!r}"
                    )
            else:
                header.data_offset, header.data_line = offset, 0
    except (OSError, EOFError) as e:
        raise DistvalError(f"cannot read {path}: {e}") from None
    if not in_data:
        raise DistvalError(f"{path}: no @data line; is this an ARFF file?")
    if not header.names:
        raise DistvalError(f"{path}: the header declares no @attribute")
    return header


def _add_attribute(header: ArffHeader, text: str, path: str, line: int) -> None:
    m = _ATTRIBUTE.match(text)
    if not m:
        raise DistvalError(f"{path}: line {line}: cannot parse attribute {text[:80]!r}")
    name = _unquote(m.group(1))
    spec = m.group(2).strip()
    if name in header.types:
        raise DistvalError(f"{path}: line {line}: attribute {name!r} is declared twice")
    kind = spec.split(None, 1)[0].lower() if spec else ""
    if spec.startswith("{"):
        header.types[name] = "nominal"
        header.categories[name] = _nominal_values(spec, path, line)
    elif kind in _NUMERIC:
        header.types[name] = "numeric"
    elif kind == "string":
        header.types[name] = "string"
    elif kind in ("date", "relational"):
        raise DistvalError(
            f"{path}: line {line}: attribute {name!r} has type {kind}, which is not supported; "
            "supported types: numeric, real, integer, string and nominal {...}"
        )
    else:
        raise DistvalError(
            f"{path}: line {line}: attribute {name!r} has unknown type {spec[:40]!r}; "
            "supported types: numeric, real, integer, string and nominal {...}"
        )
    header.names.append(name)


class ArffStream(_CsvReading):
    """Rows of an ARFF file (MOA/Weka dense format, optionally gzip-compressed).

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
    ...                 "@attribute class {UP,DOWN}\\n@data\\n0.5,3,DOWN\\n?,'1',UP\\n")
    >>> s = ArffStream(path)
    >>> c = next(s.chunks())
    >>> c.X.tolist(), c.y.tolist(), s.classes, s.nominal
    ([[0.5, 2.0], [nan, 0.0]], [0, 1], ['DOWN', 'UP'], {'day': ['1', '2', '3']})
    """

    _nulls = ("?", "")

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        target: str | None = None,
        limit: int | None = None,
        block_size: int = _DEFAULT_BLOCK,
        name: str | None = None,
    ) -> None:
        super().__init__(path, name, limit)
        check_positive_int(block_size, "block_size")
        self.block_size = block_size
        self.header = parse_arff_header(self.path)
        self._columns = list(self.header.names)
        self._set_columns(self._columns, target)
        types = self.header.types
        self._types = {
            c: pa.float64() if types[c] == "numeric" else pa.string() for c in self._columns
        }
        self._types[self.target] = pa.string()
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

    def _source(self) -> pa.NativeFile:
        src = pa.input_stream(self.path, compression="detect")
        remaining = self.header.data_offset
        if self.header.data_line == 0:
            # No data rows: read nothing.
            src.close()
            return pa.BufferReader(b"")
        while remaining > 0:
            got = src.read(min(remaining, 1 << 20))
            if not got:
                break
            remaining -= len(got)
        return src

    def _parse_options(self, handler=None) -> pacsv.ParseOptions:
        return pacsv.ParseOptions(quote_char="'", escape_char="\\", invalid_row_handler=handler)

    def _numeric_reason(self) -> str:
        return "the header declares it numeric"
