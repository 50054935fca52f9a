"""Parquet streams, read batch by batch with ``ParquetFile.iter_batches``.

Dictionary (categorical) columns are nominal with their declared category order (or the
``nominal_categories`` schema metadata); string columns are nominal by first appearance.
Timestamp and date columns are numbers, Unix seconds; an integer beyond ±2^53 (which a
float64 feature cannot hold exactly) is refused with its column and row.
"""

from __future__ import annotations

import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

from distval.errors import DistvalError, check_positive_int
from distval.streams.base import Batches, _Pass, format_value
from distval.streams.files import _DEFAULT_BATCH, _Decoder, _FileStream

__all__ = ["ParquetStream"]


# Repeat kept: its parameters read as ArffStream's (numpydoc sections per reader): alike in prose
# only.
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
        path: str | os.PathLike[str],
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
        except (pa.ArrowException, OSError) as e:  # a damaged first page
            raise DistvalError(f"cannot read {self.path} as Parquet: {e}") from None
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
        label_type = schema.field(self.target).type
        if self.target in declared_meta:
            self._label_order = declared_meta[self.target]
        elif pa.types.is_dictionary(label_type):
            dict_columns.append(self.target)
        if dict_columns and pf.metadata.num_rows:
            first = next(pf.iter_batches(batch_size=1, columns=dict_columns))
            for f in dict_columns:
                values = first.column(f).dictionary.to_pylist()
                order = [format_value(v) for v in values if v is not None]
                if f == self.target:
                    self._label_order = order
                else:
                    self._declared[f] = order
        self._publish_declared()
        rows = pf.metadata.num_rows
        self.n_rows = rows if self.limit is None else min(rows, self.limit)

    def _open(self) -> pq.ParquetFile:
        try:
            return pq.ParquetFile(self.path)
        except (pa.ArrowException, OSError) as e:
            raise DistvalError(f"cannot read {self.path} as Parquet: {e}") from None
        except UnicodeDecodeError as e:  # a column name that is not UTF-8
            raise DistvalError(
                f"cannot read {self.path} as Parquet: a name in its schema is not UTF-8 "
                f"({e.reason} at byte {e.start} of {e.object[:40]!r})"
            ) from None

    def _open_pass(self, size: int) -> _Pass:
        decoder = self._new_decoder()
        return decoder.state(self._batches(decoder, size))

    def _batches(self, decoder: _Decoder, size: int) -> Batches:
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
    return bool(
        pa.types.is_integer(t)
        or pa.types.is_floating(t)
        or pa.types.is_boolean(t)
        or pa.types.is_null(t)
        or pa.types.is_decimal(t)
        or pa.types.is_timestamp(t)  # as Unix seconds (a time column for --delay-column)
        or pa.types.is_date(t)
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
