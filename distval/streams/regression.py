"""Streams with a numeric target, for regression runs (``--task regression``).

:func:`open_regression_stream` opens:

- river's regression generators by name, with their keyword arguments: ``friedman``
  (:class:`river.datasets.synth.Friedman`, 10 features), ``planes2d`` (``Planes2D``) and
  ``mv`` (``Mv``), seeded from the run's seed, ``--n-rows`` long (default 100,000);
- ``trump``: the Trump approval ratings (1,001 daily rows, 6 numeric features: the date
  and five pollsters' ratings; the target is FiveThirtyEight's modelled approval), shipped
  with distval (``distval/data/trump_approval.parquet``, 16 kB; FiveThirtyEight's data,
  CC BY 4.0, as reshaped by river, BSD-3-Clause); ``chickweights`` (578 rows; R's
  ``ChickWeight`` data) from inside river;
- a Parquet or CSV file whose target column (``--target``, default the last) is numeric,
  its other columns numeric features;
- from Python, any iterable of ``(x: dict, y: number)``.

Chunks hold float64 features (NaN: missing) and float64 targets. A target that is not a
number, or that is missing (NaN), is refused in one line naming the row.

>>> s = open_regression_stream("friedman", n_rows=5, seed=1)
>>> [(len(c), c.y.dtype.name) for c in s.chunks(3)], s.feature_names[:3]
([(3, 'float64'), (2, 'float64')], ['0', '1', '2'])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from distval.errors import DistvalError, check_positive_int
from distval.streams.base import Chunk, Stream
from distval.streams.synth import DEFAULT_N, parse_generator_spec

__all__ = ["REGRESSION_GENERATORS", "REGRESSION_REAL", "RegressionStream",
           "open_regression_stream"]

#: River's regression generators by name (lower case).
REGRESSION_GENERATORS = {"friedman": "Friedman", "planes2d": "Planes2D", "mv": "Mv"}
#: Real regression streams bundled with river, by name (``trump`` is also shipped with
#: distval: ``distval/data/trump_approval.parquet``, read from there).
REGRESSION_REAL = {"trump": "TrumpApproval", "chickweights": "ChickWeights"}
#: The real regression stream shipped with distval: its file and target column.
SHIPPED = {"trump": ("trump_approval.parquet", "approval")}


class RegressionStream(Stream):
    """A re-readable stream of ``(x: dict, y: number)`` rows from ``rows()`` (a fresh pass
    per call); the feature names are those of the first row, in its order."""

    def __init__(
        self, name: str, rows: Callable[[], Iterable[tuple[dict[Any, Any], Any]]],
        limit: int | None = None, n_rows: int | None = None,
    ) -> None:
        super().__init__(name, limit)
        self._rows = rows
        self.n_rows = n_rows if limit is None or n_rows is None else min(n_rows, limit)
        first = next(iter(rows()), None)
        if first is None:
            raise DistvalError(f"stream {name!r} is empty: a pass yielded no rows")
        self._keys: list[Any] = list(first[0])
        self.feature_names = [str(k) for k in self._keys]
        self.classes = []
        #: Features whose first value is text: nominal, coded in order of first appearance.
        self._nominal = {str(k) for k, v in first[0].items() if isinstance(v, str)}
        self.nominal = {f: [] for f in self._nominal}

    def chunks(self, size: int = 1000) -> Iterator[Chunk]:
        check_positive_int(size, "chunk size")
        return self._pass(int(size))

    def _pass(self, size: int) -> Iterator[Chunk]:
        it = iter(self._rows())
        if self.limit is not None:
            it = islice(it, self.limit)
        start = 0
        codes: dict[str, dict[str, int]] = {f: {} for f in self._nominal}
        self.nominal = {f: [] for f in self._nominal}

        def value(v: Any, row: int, feature: str) -> float:
            if feature in codes and v is not None:
                known = codes[feature]
                if v not in known:
                    known[v] = len(known)
                    self.nominal[feature].append(str(v))
                return float(known[v])
            return _number(v, self.name, row, feature)

        while True:
            block = list(islice(it, size))
            if not block:
                break
            X = np.array(
                [[value(x.get(k), start + i, f) for k, f in zip(self._keys, self.feature_names)]
                 for i, (x, _) in enumerate(block)],
                dtype=np.float64,
            ).reshape(len(block), len(self._keys))
            y = np.array([_target(v, self.name, start + i) for i, (_, v) in enumerate(block)],
                         dtype=np.float64)
            yield Chunk(start, X, y)
            start += len(block)
        if start == 0:
            raise DistvalError(f"stream {self.name!r} is empty: a pass yielded no rows")
        if self.n_rows is None:
            self.n_rows = start


def _number(value: Any, name: str, row: int, feature: str) -> float:
    if value is None:
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        raise DistvalError(
            f"stream {name!r}: feature {feature!r} is {value!r} in row {row + 1}; a regression "
            "stream takes numeric features"
        ) from None


def _target(value: Any, name: str, row: int) -> float:
    try:
        y = float(value)
    except (TypeError, ValueError):
        raise DistvalError(
            f"stream {name!r}: the target is {value!r} in row {row + 1}, not a number: a "
            "regression run (--task regression) needs a numeric target"
        ) from None
    if not math.isfinite(y):
        raise DistvalError(
            f"stream {name!r}: the target is {value!r} in row {row + 1}; a regression run "
            "needs a finite target on every row (drop or fill the rows without one)"
        )
    return y


def _river_generator(name: str, args: tuple[object, ...], kwargs: dict[str, object],
                     seed: int | None) -> Callable[[], Iterable[tuple[dict[Any, Any], Any]]]:
    from river.datasets import synth

    if args:
        raise DistvalError(f"stream {name!r}: give the generator's parameters as key=value")
    cls = getattr(synth, REGRESSION_GENERATORS[name])
    kw = dict(kwargs)
    kw.setdefault("seed", seed)

    def rows() -> Iterable[tuple[dict[Any, Any], Any]]:
        try:
            out: Iterable[tuple[dict[Any, Any], Any]] = iter(cls(**kw))
            return out
        except TypeError as exc:
            raise DistvalError(f"stream {name!r}: bad parameter: {exc}") from None

    rows()  # a bad parameter fails now
    return rows


def _file_rows(path: Path, target: str | None) -> tuple[
    Callable[[], Iterable[tuple[dict[Any, Any], Any]]], int
]:
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path) if path.suffix == ".parquet" else pacsv.read_csv(path)
    except Exception as exc:
        raise DistvalError(f"cannot read {path}: {exc}") from None
    names = table.column_names
    target = target or names[-1]
    if target not in names:
        raise DistvalError(f"{path}: no column {target!r}; columns are {', '.join(names)}")
    import pyarrow as pa

    col = table.column(target)
    if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
        raise DistvalError(
            f"{path}: the target column {target!r} holds {col.type} values, not numbers: a "
            "regression run (--task regression) needs a numeric target"
        )
    features = [n for n in names if n != target]
    for n in features:
        t = table.column(n).type
        if not (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_boolean(t)):
            raise DistvalError(
                f"{path}: feature {n!r} holds {t} values; a regression run takes numeric "
                "features only (for now)"
            )
    X = np.column_stack(
        [table.column(n).to_numpy(zero_copy_only=False).astype(np.float64) for n in features]
    ) if features else np.zeros((table.num_rows, 0))
    y = col.to_numpy(zero_copy_only=False).astype(np.float64)

    def rows() -> Iterable[tuple[dict[Any, Any], Any]]:
        for xs, v in zip(X.tolist(), y.tolist()):
            yield dict(zip(features, xs)), v

    return rows, table.num_rows


def open_regression_stream(
    spec: Any, *, target: str | None = None, n_rows: int | None = None,
    seed: int | None = None,
) -> RegressionStream:
    """The regression stream ``spec`` names (see the module), at most ``n_rows`` long."""
    if spec is None:
        raise DistvalError(
            "a regression run needs a stream with a numeric target: a file, 'trump', or a "
            "generator (friedman, planes2d, mv)"
        )
    if not isinstance(spec, str):
        if not hasattr(spec, "__iter__"):
            raise DistvalError(f"stream {spec!r} is neither a spec nor an iterable of (x, y)")
        source = spec
        name = getattr(spec, "name", None) or type(spec).__name__
        length = getattr(spec, "n_samples", None)
        return RegressionStream(str(name), lambda: iter(source), n_rows, length)
    path = Path(spec)
    if path.suffix in (".parquet", ".csv") or path.exists():
        if not path.exists():
            raise DistvalError(f"stream file {spec} does not exist")
        rows, length = _file_rows(path, target)
        return RegressionStream(path.name, rows, n_rows, length)
    name, args, kwargs = parse_generator_spec(spec)
    key = name.lower()
    if key in SHIPPED:
        from importlib import resources

        file, column = SHIPPED[key]
        shipped = Path(str(resources.files("distval") / "data" / file))
        rows, length = _file_rows(shipped, column)
        return RegressionStream(key, rows, n_rows, length)
    if key in REGRESSION_REAL:
        from river import datasets

        cls = getattr(datasets, REGRESSION_REAL[key])
        return RegressionStream(key, lambda: iter(cls()), n_rows, cls().n_samples)
    if key in REGRESSION_GENERATORS:
        n = n_rows or DEFAULT_N
        return RegressionStream(spec, _river_generator(key, args, kwargs, seed), n, n)
    known = ", ".join([*REGRESSION_GENERATORS, *REGRESSION_REAL])
    raise DistvalError(
        f"unknown regression stream {spec!r}: give a .parquet/.csv file with a numeric target "
        f"or one of {known}"
    )
