"""A stream read once into numpy arrays (:class:`StreamData`) and replayed in another order.

>>> from distval.streams import open_stream
>>> s = PermutedStream(open_stream("sea", n_rows=100, seed=1), "within-class", seed=2)
>>> sum(len(c) for c in s.chunks(30)), s.name
(100, 'sea [within-class, seed 2]')
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from distval.errors import DistvalError
from distval.streams.base import Batches, Categories, Stream, _Pass
from distval.streams.permutations import Seed, parse_permutation

__all__ = ["PermutedStream", "StreamData"]


@dataclass(frozen=True, eq=False)
class StreamData:
    """A whole stream read into numpy arrays (one pass), with its encoders' final state.

    >>> from distval.streams import open_stream
    >>> data = StreamData.read(open_stream("sea", n_rows=300))
    >>> data.X.shape, data.y.dtype.name, data.classes
    ((300, 3), 'int64', ['True', 'False'])
    """

    name: str
    feature_names: list[str]
    nominal: dict[str, list[str]]
    classes: list[str]
    X: np.ndarray
    y: np.ndarray

    @classmethod
    def read(cls, stream: Stream, chunk_size: int = 10_000) -> StreamData:
        Xs, ys = [], []
        for chunk in stream.chunks(chunk_size):
            Xs.append(chunk.X)
            ys.append(chunk.y)
        return cls(
            name=stream.name,
            feature_names=list(stream.feature_names),
            nominal={f: list(c) for f, c in stream.nominal.items()},
            classes=list(stream.classes),
            X=np.ascontiguousarray(np.concatenate(Xs), dtype=np.float64),
            y=np.concatenate(ys).astype(np.int64, copy=False),
        )

    def __len__(self) -> int:
        return len(self.y)


class PermutedStream(Stream):
    """A stream's rows in a permuted order, read once into numpy arrays.

    Class indices follow first appearance in the permuted order, as for every stream; nominal
    features keep the source's category codes.

    Parameters
    ----------
    source
        A :class:`~distval.streams.Stream` (read once, in full) or :class:`StreamData`.
    order
        ``None`` (the original order), an index array (row ``order[m]`` comes ``m``-th) or a
        permutation spec such as ``"time:p=0.5"``, ``"iid"`` or ``"within-class"`` drawn
        with ``seed`` (:func:`~distval.streams.permutations.parse_permutation`).
    seed
        Seed of a spec's permutation.
    name
        Display name (default: the source's name with the spec).

    Examples
    --------
    >>> from distval.streams import open_stream
    >>> s = PermutedStream(open_stream("sea", n_rows=6), order=[5, 4, 3, 2, 1, 0])
    >>> rows = np.concatenate([c.X for c in s.chunks(4)])
    >>> bool(np.array_equal(rows, np.concatenate([c.X for c in open_stream("sea", n_rows=6)
    ...                                             .chunks(6)])[::-1]))
    True
    """

    def __init__(
        self,
        source: Stream | StreamData,
        order: npt.ArrayLike | str | None = None,
        *,
        seed: Seed = None,
        name: str | None = None,
    ) -> None:
        data = source if isinstance(source, StreamData) else StreamData.read(source)
        n = len(data)
        label = None
        if isinstance(order, str):
            spec = parse_permutation(order)
            label = spec.text if seed is None else f"{spec.text}, seed {seed}"
            order = spec.generate(n, seed, data.y)
        if order is None:
            order = np.arange(n, dtype=np.int64)
        index = np.asarray(order)
        if index.ndim != 1 or len(index) != n or not np.issubdtype(index.dtype, np.integer):
            raise DistvalError(f"a permutation of {n} rows must be {n} integer indices")
        seen = np.zeros(n, dtype=bool)
        if n and (index.min() < 0 or index.max() >= n):
            raise DistvalError(f"a permutation of {n} rows must use every index 0..{n - 1} once")
        seen[index] = True
        if not seen.all():
            raise DistvalError(f"a permutation of {n} rows must use every index 0..{n - 1} once")
        super().__init__(name or (f"{data.name} [{label}]" if label else data.name))
        self.data = data
        self.order = index.astype(np.int64, copy=False)
        self.feature_names = list(data.feature_names)
        self.n_rows = n

    def _open_pass(self, size: int) -> _Pass:
        y = self.data.y[self.order]
        codes, first = np.unique(y, return_index=True)
        by_appearance = codes[np.argsort(first)]
        remap = np.zeros(int(codes.max()) + 1 if len(codes) else 0, dtype=np.int64)
        remap[by_appearance] = np.arange(len(by_appearance))
        labels = Categories([self.data.classes[c] for c in by_appearance])
        nominal = {f: Categories(cats) for f, cats in self.data.nominal.items()}
        return _Pass(self._batches(remap[y], size), labels, nominal)

    def _batches(self, y: np.ndarray, size: int) -> Batches:
        for lo in range(0, len(y), size):
            yield self.data.X[self.order[lo : lo + size]], y[lo : lo + size]
