"""What every file stream shares: path checks, display names and the Arrow batch decoder.

A file stream (:mod:`distval.streams.parquet`, :mod:`distval.streams.delimited`,
:mod:`distval.streams.arff`) reads Arrow record batches; :class:`_Decoder` turns each into
``(X, y)`` arrays without per-row Python work. Numeric columns become float64 features
(null -> NaN); nominal columns become category codes (declared order first, then first
appearance); the label column may have any type, its values are categories, numbered in the
order a header declares them (an ARFF nominal class, a Parquet file's declared categories or
dictionary), then by first appearance.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from distval.errors import DistvalError
from distval.streams.base import (
    Batches,
    Categories,
    Stream,
    _Pass,
    codes_to_float,
    numeric_column,
)

__all__ = ["check_file", "stream_name"]

_DEFAULT_BLOCK = 1 << 20
_DEFAULT_BATCH = 1 << 16
_SHOW = 20


def _show_list(values: list[str], limit: int = _SHOW) -> str:
    shown = ", ".join(repr(v) for v in values[:limit])
    if len(values) > limit:
        shown += f", ... ({len(values)} in all)"
    return shown


def stream_name(path: str | os.PathLike[str]) -> str:
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


def check_file(path: str | os.PathLike[str]) -> str:
    """The path as ``str``; raise DistvalError if there is no such file."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise DistvalError(f"no such file: {p}")
    if not os.path.isfile(p):
        raise DistvalError(f"not a file: {p}")
    return p


class _FileStream(Stream):
    """Shared state of file streams: feature kinds, declared categories and batch decoding."""

    def __init__(self, path: str | os.PathLike[str], name: str | None, limit: int | None) -> None:
        self.path = check_file(path)
        super().__init__(name or stream_name(self.path), limit)
        self.target = ""
        self._nominal_features: list[str] = []
        self._declared: dict[str, list[str]] = {}
        self._strict: frozenset[str] = frozenset()
        self._label_domain: list[str] | None = None
        #: Label values in the order a header declares them (they get codes 0, 1, ... in this
        #: order, as in MOA and Weka); undeclared labels follow by first appearance.
        self._label_order: list[str] = []

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


def _beyond_float(path: str, feature: str, arr: pa.Array, start: int) -> DistvalError:
    """The error of an integer column holding a value float64 cannot hold exactly."""
    where = ""
    if pa.types.is_integer(arr.type):
        values = pc.fill_null(arr, 0).to_numpy()
        big = values > 2**53
        if pa.types.is_signed_integer(arr.type):
            big |= values < -(2**53)
        if big.any():
            where = f" (data row {start + int(np.argmax(big)) + 1})"
    return DistvalError(
        f"{path}: column {feature!r} holds integers beyond ±2^53{where}, which a "
        "float64 feature cannot hold exactly; store times as a timestamp type, or scale them "
        "(e.g. to seconds)"
    )


class _Decoder:
    """Turns Arrow record batches into ``(X, y)`` arrays with one pass's encoders."""

    def __init__(self, stream: _FileStream) -> None:
        self.stream = stream
        self.labels = Categories(
            stream._label_order or stream._label_domain or (), allowed=stream._label_domain
        )
        self.nominal = {
            f: Categories(stream._declared.get(f, ()), strict=f in stream._strict)
            for f in stream._nominal_features
        }
        self._where: list[int] | None = None
        self._target_at = -1

    def state(self, batches: Batches) -> _Pass:
        return _Pass(batches, self.labels, self.nominal)

    def decode(self, batch: pa.RecordBatch, start: int) -> tuple[np.ndarray, np.ndarray]:
        s = self.stream
        if self._where is None:
            column_at = {name: j for j, name in enumerate(batch.schema.names)}
            self._where = [column_at[f] for f in s.feature_names]
            self._target_at = column_at[s.target]
        n = batch.num_rows
        # Filling rows of the transpose and copying once is much faster than strided columns.
        T = np.empty((len(s.feature_names), n), dtype=np.float64)
        for j, (f, at) in enumerate(zip(s.feature_names, self._where, strict=True)):
            cats = self.nominal.get(f)
            arr = batch.column(at)
            if cats is None:
                try:
                    T[j] = numeric_column(arr)
                except pa.ArrowInvalid:
                    raise _beyond_float(s.path, f, arr, start) from None
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

    def _unknown(self, feature: str, start: int) -> Callable[[str, int], None]:
        def fail(value: str, pos: int) -> None:
            s = self.stream
            declared = s._label_domain if feature == s.target else s._declared.get(feature)
            raise DistvalError(
                f"{self.stream.path}: column {feature!r} holds {value!r} in data row "
                f"{start + pos + 1}, which is not one of its declared categories: "
                f"{_show_list(declared or [])}"
            )

        return fail
