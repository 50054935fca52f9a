"""Synthetic streams from ``river.datasets.synth``, as specs such as ``"SEA(50)"``.

A spec is ``name`` or ``name(args)`` (name case-insensitive). Keyword arguments pass through to
the river class (``"sea(variant=2, noise=0.1)"``). Positional arguments select the stream
configurations of Bifet et al. (2015), "Efficient Online Evaluation of Big Data Stream
Classifiers" (the MOA stream list), with drifts placed relative to the stream length ``n``:

``SEA(w)``
    SEA concept functions 0 -> 1 -> 2 -> 3 (thresholds 8, 9, 7, 9.5 on ``x0 + x1``) switching
    at ``n/4``, ``n/2`` and ``3n/4``; each switch is a sigmoid ``ConceptDriftStream`` drift of
    width ``w``. 10 % label noise (MOA's default). 3 numeric features, 2 classes.
``LED(w)``
    LED digits with 10 % attribute noise and the 17 irrelevant attributes (24 binary nominal
    features, 10 classes); one drift of width ``w`` at ``n/2`` to an ``LEDDrift`` stream in
    which 7 attributes swap with irrelevant ones.
``HYP(d, m)``
    Rotating hyperplane: 10 numeric features, ``d`` of them drifting with magnitude of change
    ``m`` per row (direction reversed with probability 10 %), 5 % label noise, 2 classes.
``RBF(c, s)``
    Random RBF: 2 classes, 10 numeric features, 50 centroids of which ``c`` move at speed
    ``s``; ``RBF(0, 0)`` has no drift.

Every random seed of a generator (and of each drift mixer) is derived from the stream seed.

MOA's benchmarks instead fix the drift positions on 1,000,000-row streams and read however
many rows they need: give ``n=1_000_000`` and ``limit=ROWS`` (the type-errors grid's
``drift_length``), so the first ``ROWS`` rows are those of the long stream whatever
``ROWS`` is.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Hashable
from itertools import islice
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa

from distval.errors import DistvalError
from distval.streams.base import Batches, Categories, Stream, _Pass, codes_to_float, encode_labels

if TYPE_CHECKING:
    from river.datasets.base import Dataset

__all__ = [
    "DEFAULT_N",
    "GENERATOR_NAMES",
    "GeneratorStream",
    "parse_generator_spec",
]

#: Stream length of a generator when none is given.
DEFAULT_N = 100_000

#: The generator names a spec may use (``distval.streams.catalogue.GENERATORS`` has their
#: river classes; a test checks the two agree).
GENERATOR_NAMES = (
    "agrawal", "hyp", "hyperplane", "led", "led_drift", "mixed", "random_tree", "rbf",
    "rbf_drift", "sea", "sine", "stagger", "waveform",
)

_SPEC = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:\((.*)\))?\s*", re.S)


def parse_generator_spec(spec: str) -> tuple[str, tuple[object, ...], dict[str, object]]:
    """Split ``"name(args)"`` into the lower-case name, positional and keyword arguments.

    Arguments must be Python literals (numbers, strings, ``True``/``False``/``None``).

    >>> parse_generator_spec("SEA(50)")
    ('sea', (50,), {})
    >>> parse_generator_spec("sea(variant=2, noise=0.1)")
    ('sea', (), {'variant': 2, 'noise': 0.1})
    """
    m = _SPEC.fullmatch(spec)
    if not m:
        raise DistvalError(
            f"cannot parse stream spec {spec!r}; expected a generator such as 'sea', 'SEA(50)' "
            "or 'sea(variant=2, noise=0.1)', or a file path"
        )
    name = m.group(1).lower().replace("-", "_")
    inner = m.group(2)
    if inner is None or not inner.strip():
        return name, (), {}
    try:
        call = ast.parse(f"f({inner})", mode="eval").body
    except SyntaxError:
        raise DistvalError(
            f"cannot parse the arguments of stream spec {spec!r}; write them like "
            "'SEA(50)' or 'sea(variant=2, noise=0.1)'"
        ) from None
    assert isinstance(call, ast.Call)
    args: list[object] = []
    for node in call.args:
        if isinstance(node, ast.Starred):
            raise DistvalError(f"stream spec {spec!r}: '*' arguments are not allowed")
        args.append(_literal(node, spec))
    kwargs: dict[str, object] = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise DistvalError(f"stream spec {spec!r}: '**' arguments are not allowed")
        kwargs[kw.arg] = _literal(kw.value, spec)
    return name, tuple(args), kwargs


def _literal(node: ast.expr, spec: str) -> object:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise DistvalError(
            f"stream spec {spec!r}: argument {ast.unparse(node)!r} is not a literal; use "
            "numbers, quoted strings, True, False or None"
        ) from None


class GeneratorStream(Stream):
    """A river synthetic generator as a stream of ``n`` rows, re-seeded on every pass.

    Parameters
    ----------
    spec
        ``name`` or ``name(args)``; see the module documentation for the names and the
        positional (paper) configurations.
    n
        Stream length.
    seed
        Seed from which every generator seed is derived; ``None`` means 1.
    limit
        Maximum number of rows per pass.
    name
        Display name; default the spec.

    Examples
    --------
    >>> s = GeneratorStream("SEA(50)", n=1000, seed=7)
    >>> s.feature_names, s.n_rows
    (['0', '1', '2'], 1000)
    >>> first = [c.X for c in s.chunks(300)]
    >>> [len(x) for x in first], sorted(s.classes)
    ([300, 300, 300, 100], ['False', 'True'])
    >>> bool((next(s.chunks(300)).X == first[0]).all())
    True
    """

    def __init__(
        self,
        spec: str = "sea",
        *,
        n: int = DEFAULT_N,
        seed: int | None = 1,
        limit: int | None = None,
        name: str | None = None,
    ) -> None:
        if not isinstance(spec, str):
            raise DistvalError(f"a generator spec must be a string, got {spec!r}")
        generator, args, kwargs = parse_generator_spec(spec)
        if generator not in GENERATOR_NAMES:
            raise DistvalError(
                f"unknown stream {spec.strip()!r}: not a file with a supported extension and "
                f"not a known generator; generators: {', '.join(GENERATOR_NAMES)}"
            )
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
            raise DistvalError(
                f"stream {spec.strip()!r}: n_rows must be a positive integer, got {n!r}"
            )
        if seed is None:
            seed = 1
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise DistvalError(f"seed must be a non-negative integer, got {seed!r}")
        super().__init__(name or spec.strip(), limit)
        self.spec = spec.strip()
        self.generator = generator
        self.args = args
        self.kwargs = kwargs
        self.length = int(n)
        self.seed = int(seed)
        self.n_rows = self.length if self.limit is None else min(self.length, self.limit)
        dataset = self._dataset()
        declared = getattr(dataset, "n_classes", None)
        if isinstance(declared, int) and declared > 0:
            self.n_classes = declared
        x, _ = self._first(dataset)
        self._keys = list(x)
        self.feature_names = [str(k) for k in self._keys]
        from distval.streams.catalogue import nominal_domains

        domains = nominal_domains(dataset)
        self._domains = {f: d for f, d in domains.items() if f in self.feature_names}
        self._strings = [str(k) for k, v in x.items() if isinstance(v, str)]
        self.nominal = {
            f: list(self._domains[f][1]) if f in self._domains else []
            for f in self.feature_names
            if f in self._domains or f in self._strings
        }

    def _dataset(self) -> Dataset:
        from distval.streams.catalogue import build

        return build(self.generator, self.args, self.kwargs, self.length, self.seed)

    def _first(self, dataset: Dataset) -> tuple[dict[Hashable, Any], object]:
        from distval.streams.catalogue import GENERATORS, parameters

        try:
            first: tuple[dict[Hashable, Any], object] = next(iter(dataset))
            return first
        except StopIteration:
            raise DistvalError(f"stream {self.name!r} is empty: a pass yielded no rows") from None
        except (ValueError, TypeError, ArithmeticError, IndexError, AttributeError) as e:
            raise DistvalError(
                f"generator {self.generator!r} failed with parameters {self.kwargs or self.args}:"
                f" {e}; accepted: {', '.join(parameters(GENERATORS[self.generator].cls))}"
            ) from None

    def _open_pass(self, size: int) -> _Pass:
        labels = Categories()
        nominal = {
            f: Categories(self._domains[f][1] if f in self._domains else ()) for f in self.nominal
        }
        return _Pass(self._batches(labels, nominal, size), labels, nominal)

    def _batches(
        self, labels: Categories, nominal: dict[str, Categories], size: int
    ) -> Batches:
        rows = iter(self._dataset())
        keys = self._keys
        d = len(keys)
        getter = itemgetter(*keys) if d else (lambda x: ())
        total = self.n_rows or 0
        done = 0
        while done < total:
            block = list(islice(rows, min(size, total - done)))
            if not block:
                break
            xs = [getter(x) for x, _ in block]
            if d == 1:
                xs = [(v,) for v in xs]
            X = self._matrix(xs, d, nominal)
            y = encode_labels(labels, [yy for _, yy in block], self.name, done)
            done += len(block)
            yield X, y

    def _matrix(
        self, xs: list[tuple[Any, ...]], d: int, nominal: dict[str, Categories]
    ) -> np.ndarray:
        n = len(xs)
        try:
            if self._strings:
                raise ValueError
            X = np.array(xs, dtype=np.float64).reshape(n, d)
        except (ValueError, TypeError):
            X = np.empty((n, d), dtype=np.float64)
            for j, f in enumerate(self.feature_names):
                col = [x[j] for x in xs]
                if f in self._strings or any(isinstance(v, str) for v in col):
                    cats = nominal.setdefault(f, Categories())
                    X[:, j] = codes_to_float(cats.encode(pa.array(col, type=pa.string())))
                else:
                    X[:, j] = np.array(col, dtype=np.float64)
        for f, (values, _) in self._domains.items():
            j = self.feature_names.index(f)
            X[:, j] = self._to_codes(f, X[:, j], values)
        return X

    def _to_codes(self, feature: str, col: np.ndarray, values: list[float]) -> np.ndarray:
        domain = np.asarray(values)
        if len(domain) and domain[0] == 0.0 and np.array_equal(domain, np.arange(len(domain))):
            inside = np.isnan(col) | ((col >= 0) & (col < len(domain)) & (col == np.round(col)))
            codes = col
        else:
            pos = np.clip(np.searchsorted(domain, col), 0, max(len(domain) - 1, 0))
            inside = np.isnan(col) | (domain[pos] == col)
            codes = np.where(np.isnan(col), np.nan, pos.astype(np.float64))
        if not inside.all():
            bad = col[~inside][0]
            raise DistvalError(
                f"stream {self.name!r}: feature {feature!r} produced {bad!r}, outside its "
                f"categories {values}"
            )
        return codes
