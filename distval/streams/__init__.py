"""The data stream layer: files and synthetic generators, read as chunks of numpy arrays.

>>> from distval.streams import open_stream
>>> s = open_stream("SEA(50)", n_rows=2000, seed=1)
>>> sum(len(c) for c in s.chunks(500)), s.feature_names
(2000, ['0', '1', '2'])
"""

from __future__ import annotations

from distval.streams.arff import ArffStream, parse_arff_header
from distval.streams.base import Chunk, Stream
from distval.streams.delimited import CsvStream
from distval.streams.iterable import IterableStream
from distval.streams.open import FILE_EXTENSIONS, bundled_path, open_stream
from distval.streams.parquet import ParquetStream
from distval.streams.synth import GENERATOR_NAMES, GeneratorStream

__all__ = [
    "FILE_EXTENSIONS",
    "GENERATOR_NAMES",
    "ArffStream",
    "Chunk",
    "CsvStream",
    "GeneratorStream",
    "IterableStream",
    "ParquetStream",
    "Stream",
    "bundled_path",
    "open_stream",
    "parse_arff_header",
]
