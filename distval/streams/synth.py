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
"""

from __future__ import annotations

import ast
import inspect
import math
import random
import re
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from itertools import islice
from operator import itemgetter
from typing import Any

import numpy as np
import pyarrow as pa
from river.datasets import synth
from river.datasets.base import Dataset

from distval.errors import DistvalError
from distval.streams.base import (
    Batches,
    Categories,
    Stream,
    _Pass,
    codes_to_float,
    encode_labels,
)

__all__ = [
    "DEFAULT_N",
    "GENERATORS",
    "GeneratorStream",
    "derive_seed",
    "parse_generator_spec",
]

#: Stream length of a generator when none is given.
DEFAULT_N = 100_000


def derive_seed(seed: int, key: int) -> int:
    """A 32-bit seed derived deterministically from a stream seed and a sub-generator key.

    >>> derive_seed(1, 0) == derive_seed(1, 0), derive_seed(1, 0) == derive_seed(1, 1)
    (True, False)
    """
    return int(np.random.SeedSequence([seed, key]).generate_state(1)[0])


class _DriftStream(synth.ConceptDriftStream):
    """``ConceptDriftStream`` whose sigmoid cannot overflow far from the drift position.

    river computes ``exp(-4 (t - p) / w)`` directly, which overflows for narrow drifts far
    ahead (``(p - t) / w > 177``); the probability is 0 there anyway.
    """

    def __iter__(self) -> Iterator[tuple[dict[Hashable, Any], Any]]:
        rng = random.Random(self.seed)
        stream = iter(self.stream)
        drift_stream = iter(self.drift_stream)
        sample_idx = 0
        while True:
            sample_idx += 1
            v = -4.0 * float(sample_idx - self.position) / float(self.width)
            probability_drift = 0.0 if v > 700.0 else 1.0 / (1.0 + math.exp(v))
            try:
                if rng.random() > probability_drift:
                    x, y = next(stream)
                else:
                    x, y = next(drift_stream)
            except StopIteration:
                break
            yield x, y


class _RandomRBFDrift(synth.RandomRBFDrift):
    """``RandomRBFDrift`` that moves its centroids with numpy: the same floating-point
    operations element by element, so the same rows, several times faster."""

    def __iter__(self) -> Iterator[tuple[dict[Hashable, Any], Any]]:
        self._generate_centroids()  # type: ignore[no-untyped-call]  # unannotated in river
        rng_sample = random.Random(self.seed_sample)
        k = self.n_drift_centroids
        centres = np.array([c.centre for c in self.centroids[:k]], dtype=np.float64)
        speeds = np.array(self.centroid_speed, dtype=np.float64).reshape(k, -1)
        for i in range(k):
            # Row views: moving ``centres`` in place moves the centroids the sampler reads.
            self.centroids[i].centre = centres[i]
        change_speed = self.change_speed
        while True:
            if k:
                centres += speeds * change_speed
                over = centres > 1
                under = centres < 0
                if over.any() or under.any():
                    centres[over] = 1.0
                    centres[under] = 0.0
                    out = over | under
                    speeds[out] = -speeds[out]
            x, y = self._generate_sample(rng_sample)
            yield {i: float(v) for i, v in x.items()}, y


# -- argument checks -------------------------------------------------------------------------


def _int_arg(label: str, param: str, value: object, lo: int, hi: int | None) -> int:
    if (
        not isinstance(value, bool)
        and isinstance(value, (int, float))
        and (not isinstance(value, float) or value.is_integer())
    ):
        number = int(value)
        if number >= lo and (hi is None or number <= hi):
            return number
        value = number  # the message shows the whole number
    bound = f"from {lo} to {hi}" if hi is not None else f"at least {lo}"
    raise DistvalError(f"{label}: `{param}` must be an integer {bound}, got {value!r}")


def _float_arg(label: str, param: str, value: object, lo: float, hi: float | None) -> float:
    if not isinstance(value, bool) and isinstance(value, (int, float)):
        number = float(value)
        if math.isfinite(number) and number >= lo and (hi is None or number <= hi):
            return number
        value = number  # the message shows the float
    bound = f"from {lo} to {hi}" if hi is not None else f"at least {lo}"
    raise DistvalError(f"{label}: `{param}` must be a number {bound}, got {value!r}")


# -- the paper configurations ----------------------------------------------------------------


def _sea_paper(n: int, seed: int, w: object) -> synth.ConceptDriftStream:
    width = _int_arg("SEA(w)", "w (drift width)", w, 1, None)
    sea = [synth.SEA(variant=v, noise=0.1, seed=derive_seed(seed, 10 + v)) for v in range(4)]
    quarter = max(n // 4, 1)
    # Nested drifts count rows relative to their own start, so each switch sits n/4 further on.
    inner = _DriftStream(sea[2], sea[3], position=quarter, width=width, seed=derive_seed(seed, 22))
    middle = _DriftStream(sea[1], inner, position=quarter, width=width, seed=derive_seed(seed, 21))
    return _DriftStream(sea[0], middle, position=quarter, width=width, seed=derive_seed(seed, 20))


def _led_paper(n: int, seed: int, w: object) -> synth.ConceptDriftStream:
    width = _int_arg("LED(w)", "w (drift width)", w, 1, None)
    before = synth.LED(seed=derive_seed(seed, 10), noise_percentage=0.1, irrelevant_features=True)
    after = synth.LEDDrift(
        seed=derive_seed(seed, 11),
        noise_percentage=0.1,
        irrelevant_features=True,
        n_drift_features=7,
    )
    return _DriftStream(
        before, after, position=max(n // 2, 1), width=width, seed=derive_seed(seed, 20)
    )


def _hyp_paper(n: int, seed: int, d: object, m: object) -> synth.Hyperplane:
    drifting = _int_arg("HYP(d, m)", "d (drifting features)", d, 0, 10)
    magnitude = _float_arg("HYP(d, m)", "m (magnitude of change)", m, 0.0, 1.0)
    return synth.Hyperplane(
        seed=derive_seed(seed, 10),
        n_features=10,
        n_drift_features=drifting,
        mag_change=magnitude,
        noise_percentage=0.05,
        sigma=0.1,
    )


def _rbf_paper(n: int, seed: int, c: object, s: object) -> synth.RandomRBF:
    moving = _int_arg("RBF(c, s)", "c (drifting centroids)", c, 0, 50)
    speed = _float_arg("RBF(c, s)", "s (speed of change)", s, 0.0, None)
    seeds = {"seed_model": derive_seed(seed, 1), "seed_sample": derive_seed(seed, 2)}
    if moving == 0 or speed == 0.0:
        return synth.RandomRBF(**seeds, n_classes=2, n_features=10, n_centroids=50)
    return _RandomRBFDrift(
        **seeds,
        n_classes=2,
        n_features=10,
        n_centroids=50,
        change_speed=speed,
        n_drift_centroids=moving,
    )


@dataclass(frozen=True)
class _Generator:
    cls: type[Dataset]
    paper: Callable[..., Dataset] | None = None
    paper_args: tuple[str, ...] = ()
    paper_label: str = ""


#: Generator names (lower case) and the river classes they build.
GENERATORS: dict[str, _Generator] = {
    "sea": _Generator(synth.SEA, _sea_paper, ("w",), "SEA(w)"),
    "led": _Generator(synth.LED, _led_paper, ("w",), "LED(w)"),
    "led_drift": _Generator(synth.LEDDrift),
    "hyperplane": _Generator(synth.Hyperplane, _hyp_paper, ("d", "m"), "HYP(d, m)"),
    "hyp": _Generator(synth.Hyperplane, _hyp_paper, ("d", "m"), "HYP(d, m)"),
    "rbf": _Generator(synth.RandomRBF, _rbf_paper, ("c", "s"), "RBF(c, s)"),
    "rbf_drift": _Generator(_RandomRBFDrift),
    "agrawal": _Generator(synth.Agrawal),
    "stagger": _Generator(synth.STAGGER),
    "sine": _Generator(synth.Sine),
    "waveform": _Generator(synth.Waveform),
    "mixed": _Generator(synth.Mixed),
    "random_tree": _Generator(synth.RandomTree),
}

_SEED_KEYS = {"seed": 0, "seed_model": 1, "seed_tree": 1, "seed_sample": 2}
_SPEC = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*(?:\((.*)\))?\s*", re.S)


def _parameters(cls: type) -> list[str]:
    return [p for p in inspect.signature(cls).parameters if p not in ("self", "args", "kwargs")]


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


def _build(
    name: str, args: tuple[object, ...], kwargs: dict[str, object], n: int, seed: int
) -> Dataset:
    gen = GENERATORS[name]
    accepted = _parameters(gen.cls)
    if args and kwargs:
        raise DistvalError(
            f"generator {name!r}: give either positional arguments (the paper configuration "
            f"{gen.paper_label or 'none'}) or keyword arguments (river parameters: "
            f"{', '.join(accepted)}), not both"
        )
    if args:
        if gen.paper is None:
            raise DistvalError(
                f"generator {name!r} takes keyword arguments only; accepted: {', '.join(accepted)}"
            )
        if len(args) != len(gen.paper_args):
            count = len(gen.paper_args)
            plural = "s" if count != 1 else ""
            raise DistvalError(
                f"generator {name!r} takes {count} positional argument{plural} "
                f"({gen.paper_label}), got {len(args)}; or use keyword arguments: "
                f"{', '.join(accepted)}"
            )
        try:
            return gen.paper(n, seed, *args)
        except (ValueError, TypeError, ArithmeticError) as e:
            raise DistvalError(f"generator {gen.paper_label}: {e}") from None
    unknown = [k for k in kwargs if k not in accepted]
    if unknown:
        raise DistvalError(
            f"generator {name!r} has no parameter {unknown[0]!r}; accepted: {', '.join(accepted)}"
        )
    params: dict[str, object] = {
        p: derive_seed(seed, _SEED_KEYS[p]) for p in accepted if p in _SEED_KEYS
    }
    params.update(kwargs)
    try:
        return gen.cls(**params)
    except (ValueError, TypeError, ArithmeticError, AttributeError) as e:
        raise DistvalError(
            f"generator {name!r} rejected its parameters {kwargs}: {e}; accepted: "
            f"{', '.join(accepted)}"
        ) from None


def _nominal_domains(dataset: object) -> dict[str, tuple[list[float], list[str]]]:
    """Nominal features of a river generator: feature -> (raw values, category names)."""
    while isinstance(dataset, synth.ConceptDriftStream):
        dataset = dataset.stream
    if isinstance(dataset, synth.LED):
        return {str(i): ([0.0, 1.0], ["0", "1"]) for i in range(dataset.n_features)}
    if isinstance(dataset, synth.STAGGER):
        out = {}
        for f in ("size", "color", "shape"):
            labels = getattr(dataset, f"{f}_labels", {0: "0", 1: "1", 2: "2"})
            keys = sorted(labels)
            out[f] = ([float(k) for k in keys], [str(labels[k]) for k in keys])
        return out
    if isinstance(dataset, synth.Agrawal):
        ranges = {"elevel": range(0, 5), "car": range(1, 21), "zipcode": range(0, 9)}
        return {f: ([float(v) for v in r], [str(v) for v in r]) for f, r in ranges.items()}
    if isinstance(dataset, synth.Mixed):
        return {"0": ([0.0, 1.0], ["False", "True"]), "1": ([0.0, 1.0], ["False", "True"])}
    if isinstance(dataset, synth.RandomTree):
        k = range(dataset.n_categories_per_feature)
        return {f: ([float(v) for v in k], [str(v) for v in k]) for f in dataset.features_cat}
    return {}


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
        if generator not in GENERATORS:
            raise DistvalError(
                f"unknown stream {spec.strip()!r}: not a file with a supported extension and "
                f"not a known generator; generators: {', '.join(sorted(GENERATORS))}"
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
        domains = _nominal_domains(dataset)
        self._domains = {f: d for f, d in domains.items() if f in self.feature_names}
        self._strings = [str(k) for k, v in x.items() if isinstance(v, str)]
        self.nominal = {
            f: list(self._domains[f][1]) if f in self._domains else []
            for f in self.feature_names
            if f in self._domains or f in self._strings
        }

    def _dataset(self) -> Dataset:
        return _build(self.generator, self.args, self.kwargs, self.length, self.seed)

    def _first(self, dataset: Dataset) -> tuple[dict[Hashable, Any], object]:
        try:
            first: tuple[dict[Hashable, Any], object] = next(iter(dataset))
            return first
        except StopIteration:
            raise DistvalError(f"stream {self.name!r} is empty: a pass yielded no rows") from None
        except (ValueError, TypeError, ArithmeticError, IndexError, AttributeError) as e:
            raise DistvalError(
                f"generator {self.generator!r} failed with parameters {self.kwargs or self.args}:"
                f" {e}; accepted: {', '.join(_parameters(GENERATORS[self.generator].cls))}"
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
