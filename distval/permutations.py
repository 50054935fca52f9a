"""Controlled permutations of a stream and robustness reports over permuted copies.

Žliobaitė's controlled permutations (``zliobaite-controlled-permutations``, Sect. 3) reorder a
stream so that rows that were close in time stay close, which gives several test sets from one
real stream:

- **time** (Sect. 3.1, the overhand shuffle): every gap between consecutive rows is a split
  point with probability ``p``; the blocks between split points are concatenated in reverse
  order, which moves whole periods and makes drifts sudden;
- **speed** (Sect. 3.2, the inverse riffle shuffle): every row is lifted with probability
  ``p``; the lifted rows move to the end, both parts keep their order, so concepts recur;
- **shape** (Sect. 3.3, the transposition shuffle): ``k`` random adjacent transpositions,
  which blur drifts into gradual ones;
- **random**: a uniform permutation, the contrast that destroys every drift (Prop. 10).

A permutation is an index array ``order``: position ``m`` of the permuted stream holds row
``order[m]`` of the original (``j_m`` in Sect. 3). Its extent is measured by the total and
average neighbour distance (Definitions 1 and 2); :func:`expected_and` gives the paper's
expected values (Props. 3, 5, 8 and 10).

:class:`PermutedStream` reads a stream's columns once into numpy arrays and yields chunks in
permuted order. :func:`run_robustness` evaluates the original and ``repeats`` permuted copies
(concurrently as Ray tasks with ``backend="ray"``) and reports the spread of every measure and
the stability of the learner ranking (Sect. 5.2).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from distval.config import RunConfig
from distval.errors import DistvalError, check_positive_int
from distval.streams.base import Categories, Stream, _Pass

__all__ = [
    "KINDS",
    "CopyResult",
    "PermutationSpec",
    "PermutedStream",
    "RobustnessResult",
    "StreamData",
    "average_neighbour_distance",
    "copy_seed",
    "expected_and",
    "parse_permutation",
    "random_permutation",
    "run_robustness",
    "shape_permutation",
    "speed_permutation",
    "time_permutation",
    "total_neighbour_distance",
]

#: Permutation kinds and their parameters (``k`` may be ``n``, the number of rows).
KINDS = {"time": ("p",), "speed": ("p",), "shape": ("k",), "random": ()}
_DEFAULTS = {"p": 0.5, "k": "n"}


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check_n(n) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise DistvalError(f"the number of rows must be a non-negative integer, got {n!r}")
    return int(n)


def _check_p(p) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating)) or not 0 < p < 1:
        raise DistvalError(f"the permutation probability p must be in (0, 1), got {p!r}")
    return float(p)


# -- the permutations ---------------------------------------------------------------------------


def time_permutation(n: int, p: float = 0.5, seed=None) -> np.ndarray:
    """The time permutation (Sect. 3.1): split with probability ``p``, reverse the blocks.

    Each of the ``n - 1`` gaps between consecutive rows is a split point with probability
    ``p``; the blocks are concatenated last block first, each keeping its inner order.

    Examples
    --------
    >>> order = time_permutation(8, p=0.5, seed=3)
    >>> sorted(order.tolist()) == list(range(8))
    True
    >>> time_permutation(5, p=0.999999, seed=0).tolist()
    [4, 3, 2, 1, 0]
    """
    n, p = _check_n(n), _check_p(p)
    if n < 2:
        return np.arange(n, dtype=np.int64)
    splits = _rng(seed).random(n - 1) < p
    block = np.concatenate(([0], np.cumsum(splits)))
    return np.argsort(block[-1] - block, kind="stable").astype(np.int64)


def speed_permutation(n: int, p: float = 0.5, seed=None) -> np.ndarray:
    """The speed permutation (Sect. 3.2): lift each row with probability ``p`` to the end.

    Examples
    --------
    >>> order = speed_permutation(10, p=0.5, seed=1)
    >>> kept = order[: np.argmax(np.diff(order) < 0) + 1]
    >>> bool(np.all(np.diff(kept) > 0)), sorted(order.tolist()) == list(range(10))
    (True, True)
    """
    n, p = _check_n(n), _check_p(p)
    lifted = _rng(seed).random(n) < p
    return np.concatenate((np.flatnonzero(~lifted), np.flatnonzero(lifted))).astype(np.int64)


def shape_permutation(n: int, k: int | None = None, seed=None) -> np.ndarray:
    """The shape permutation (Sect. 3.3): ``k`` random adjacent transpositions (default ``n``).

    Transposition ``t`` swaps the rows at positions ``i_t`` and ``i_t + 1`` of the current
    order, ``i_t`` uniform on ``0 .. n - 2``. Swaps that touch disjoint positions commute, so
    the swaps are applied in runs of consecutive, mutually disjoint swaps, each run as one
    vectorised exchange.

    Examples
    --------
    >>> shape_permutation(4, k=1, seed=0).tolist()
    [0, 1, 3, 2]
    >>> sorted(shape_permutation(1000, seed=2).tolist()) == list(range(1000))
    True
    """
    n = _check_n(n)
    k = n if k is None else k
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 0:
        raise DistvalError(
            f"the number of transpositions k must be a non-negative integer, got {k!r}"
        )
    order = np.arange(n, dtype=np.int64)
    if n < 2 or k == 0:
        return order
    swaps = _rng(seed).integers(0, n - 1, size=int(k))
    # runs of disjoint swaps are about sqrt(pi n / 6) long (a birthday bound): look ahead 2 sqrt(n)
    window = int(2 * math.sqrt(n)) + 8
    # first[v + 1]: index within the current look-ahead of the first swap at position v
    first = np.full(n + 1, window, dtype=np.int64)
    here = np.arange(window)
    t = 0
    while t < len(swaps):
        chunk = swaps[t : t + window]
        m = len(chunk)
        first[chunk[::-1] + 1] = here[:m][::-1]
        at = here[:m]
        clash = (first[chunk] < at) | (first[chunk + 1] < at) | (first[chunk + 2] < at)
        first[chunk + 1] = window
        bad = np.flatnonzero(clash)
        stop = int(bad[0]) if len(bad) else m
        i = chunk[:stop]
        order[i], order[i + 1] = order[i + 1], order[i].copy()
        t += stop
    return order


def random_permutation(n: int, seed=None) -> np.ndarray:
    """A uniformly random permutation, the uncontrolled contrast (Sect. 4.2, Prop. 10).

    >>> sorted(random_permutation(6, seed=0).tolist())
    [0, 1, 2, 3, 4, 5]
    """
    return _rng(seed).permutation(_check_n(n)).astype(np.int64)


# -- neighbour distances ------------------------------------------------------------------------


def total_neighbour_distance(order) -> int:
    """Total neighbour distance ``D = sum |j_i - j_{i+1}|`` (Definition 1).

    Examples
    --------
    >>> total_neighbour_distance([1, 3, 2, 4])
    5
    """
    order = np.asarray(order, dtype=np.int64)
    return int(np.abs(np.diff(order)).sum())


def average_neighbour_distance(order) -> float:
    """Average neighbour distance ``d = D / (n - 1)`` (Definition 2); 1 for the identity.

    Examples
    --------
    >>> round(average_neighbour_distance([1, 3, 2, 4]), 4)
    1.6667
    """
    order = np.asarray(order, dtype=np.int64)
    if len(order) < 2:
        return float("nan")
    return total_neighbour_distance(order) / (len(order) - 1)


def expected_and(kind: str, n: int, *, p: float = 0.5, k: int | None = None) -> float:
    """The paper's expected average neighbour distance of a permutation of ``n`` rows.

    time: ``1 + 2np(n - np - 1) / ((np + 1)(n - 1))`` (Prop. 3); speed:
    ``3(n + 1)/(n - 1) - 3 / (p(1 - p)(n - 1))`` (Prop. 5); shape: the bound
    ``1 + 2k/(n - 1)`` (Prop. 8, close for ``k`` small against ``n``); random:
    ``(n + 1)/3`` (Prop. 10); identity (``"none"``): 1.

    Examples
    --------
    >>> expected_and("random", 8)
    3.0
    >>> round(expected_and("time", 10**6, p=0.5), 3)  # tends to 3 - 2p
    2.0
    """
    if kind == "none":
        return 1.0
    if n < 2:
        return float("nan")
    if kind == "time":
        return 1 + 2 * n * p * (n - n * p - 1) / ((n * p + 1) * (n - 1))
    if kind == "speed":
        return 3 * (n + 1) / (n - 1) - 3 / (p * (1 - p) * (n - 1))
    if kind == "shape":
        return 1 + 2 * (n if k is None else k) / (n - 1)
    if kind == "random":
        return (n + 1) / 3
    raise DistvalError(f"unknown permutation kind {kind!r}; choose one of {', '.join(KINDS)}")


# -- the spec grammar ---------------------------------------------------------------------------

_SPEC = re.compile(r"\s*([A-Za-z]+)\s*(?::\s*(.*?))?\s*")


@dataclass(frozen=True)
class PermutationSpec:
    """A parsed permutation spec: ``kind`` plus ``p`` (time, speed) or ``k`` (shape).

    ``k=None`` means ``k = n``, the stream length. ``generate(n, seed)`` draws the index array.

    >>> spec = parse_permutation("shape:k=n")
    >>> spec.text, spec.generate(5, seed=0).shape
    ('shape:k=n', (5,))
    """

    kind: str
    p: float | None = None
    k: int | None = None

    @property
    def text(self) -> str:
        if self.kind in ("time", "speed"):
            return f"{self.kind}:p={self.p:g}"
        if self.kind == "shape":
            return f"shape:k={'n' if self.k is None else self.k}"
        return self.kind

    def generate(self, n: int, seed=None) -> np.ndarray:
        if self.kind == "time":
            return time_permutation(n, self.p, seed)
        if self.kind == "speed":
            return speed_permutation(n, self.p, seed)
        if self.kind == "shape":
            return shape_permutation(n, self.k, seed)
        return random_permutation(n, seed)

    def expected_and(self, n: int) -> float:
        return expected_and(self.kind, n, p=self.p or 0.5, k=self.k)


def parse_permutation(text: str) -> PermutationSpec:
    """Parse ``time:p=0.5``, ``speed:p=0.5``, ``shape:k=1000`` (or ``k=n``) or ``random``.

    A missing parameter takes its default (``p = 0.5``, ``k = n``).

    Examples
    --------
    >>> parse_permutation("time:p=0.3")
    PermutationSpec(kind='time', p=0.3, k=None)
    >>> parse_permutation("shape:k=1000").k
    1000
    >>> parse_permutation("sideways")
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: bad permutation spec 'sideways': unknown kind 'sideways'; \
choose one of time, speed, shape, random
    """
    if not isinstance(text, str):
        raise DistvalError(f"a permutation spec must be a string, got {text!r}")

    def bad(why: str) -> DistvalError:
        return DistvalError(f"bad permutation spec {text!r}: {why}")

    m = _SPEC.fullmatch(text)
    if not m:
        raise bad("expected KIND or KIND:NAME=VALUE, e.g. time:p=0.5")
    kind, rest = m.group(1).lower(), m.group(2)
    if kind not in KINDS:
        raise bad(f"unknown kind {kind!r}; choose one of {', '.join(KINDS)}")
    allowed = KINDS[kind]
    values = {name: _DEFAULTS[name] for name in allowed}
    for part in filter(None, (s.strip() for s in (rest or "").split(","))):
        name, eq, value = (s.strip() for s in part.partition("="))
        if not eq or not value:
            raise bad(f"expected NAME=VALUE, got {part!r}")
        if name not in allowed:
            takes = f"takes {', '.join(allowed)}" if allowed else "takes no parameters"
            raise bad(f"{kind} {takes}, not {name!r}")
        values[name] = value
    if rest is not None and not rest.strip():
        raise bad("nothing after ':'")
    p = k = None
    if "p" in values:
        try:
            p = float(values["p"])
        except ValueError:
            raise bad(f"p must be a number, got {values['p']!r}") from None
        if not 0 < p < 1:
            raise bad(f"p must be in (0, 1), got {p:g}")
    if "k" in values and values["k"] != "n":
        try:
            k = int(values["k"])
        except ValueError:
            raise bad(f"k must be a non-negative integer or n, got {values['k']!r}") from None
        if k < 0:
            raise bad(f"k must be a non-negative integer or n, got {k}")
    return PermutationSpec(kind, p, k)


def copy_seed(seed: int, index: int) -> int:
    """The permutation seed of permuted copy ``index`` (1-based) of a run with ``seed``.

    >>> copy_seed(1, 1) == copy_seed(1, 1) != copy_seed(1, 2)
    True
    """
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1)[0])


# -- the permuted stream ------------------------------------------------------------------------


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

    Parameters
    ----------
    source
        A :class:`~distval.streams.Stream` (read once, in full) or :class:`StreamData`.
    order
        ``None`` (the original order), an index array (row ``order[m]`` comes ``m``-th) or a
        permutation spec such as ``"time:p=0.5"`` drawn with ``seed``.
    seed
        Seed of a spec's permutation.
    name
        Display name (default: the source's name with the spec).

    Class indices follow first appearance in the permuted order, as for every stream; nominal
    features keep the source's category codes.

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
        order=None,
        *,
        seed=None,
        name: str | None = None,
    ) -> None:
        data = source if isinstance(source, StreamData) else StreamData.read(source)
        n = len(data)
        label = None
        if isinstance(order, str):
            spec = parse_permutation(order)
            label = spec.text
            order = spec.generate(n, seed)
        if order is None:
            order = np.arange(n, dtype=np.int64)
        order = np.asarray(order)
        if order.ndim != 1 or len(order) != n or not np.issubdtype(order.dtype, np.integer):
            raise DistvalError(f"a permutation of {n} rows must be {n} integer indices")
        seen = np.zeros(n, dtype=bool)
        if n and (order.min() < 0 or order.max() >= n):
            raise DistvalError(f"a permutation of {n} rows must use every index 0..{n - 1} once")
        seen[order] = True
        if not seen.all():
            raise DistvalError(f"a permutation of {n} rows must use every index 0..{n - 1} once")
        super().__init__(name or (f"{data.name} [{label}]" if label else data.name))
        self.data = data
        self.order = order.astype(np.int64, copy=False)
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

    def _batches(self, y: np.ndarray, size: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for lo in range(0, len(y), size):
            yield self.data.X[self.order[lo : lo + size]], y[lo : lo + size]


# -- robustness over permuted copies ------------------------------------------------------------


@dataclass
class CopyResult:
    """One evaluated copy: its permutation and the final measures per learner.

    ``values[learner][measure]`` is the mean over folds of the cumulative measure at the end of
    the stream.
    """

    name: str
    index: int
    seed: int | None
    tnd: int
    and_: float
    values: dict[str, dict[str, float | None]]
    rows: int
    elapsed: float
    reused: bool = False

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "index": self.index,
            "seed": self.seed,
            "tnd": self.tnd,
            "and": self.and_,
            "rows": self.rows,
            "elapsed_seconds": round(self.elapsed, 3),
            "reused": self.reused,
            "values": self.values,
        }


@dataclass
class RobustnessResult:
    """The original and the permuted copies' results, with spread and ranking stability.

    ``summary()`` is a JSON-ready dict (as written to ``robustness.json``), ``to_markdown()``
    the report written to ``robustness.md``.
    """

    config: RunConfig
    permutation: str
    copies: list[CopyResult] = field(default_factory=list)
    output_dir: Path | None = None
    elapsed: float = 0.0
    stream_name: str | None = None

    @property
    def _stream(self) -> str:
        return self.stream_name or self.config.stream or "elec2"

    @property
    def original(self) -> CopyResult:
        return self.copies[0]

    @property
    def permuted(self) -> list[CopyResult]:
        return self.copies[1:]

    def _matrix(self, measure: str, copies: list[CopyResult]) -> np.ndarray:
        """(copies, learners) values of ``measure``; NaN where undefined."""
        return np.array(
            [
                [_nan(c.values.get(lab, {}).get(measure)) for lab in self.config.labels]
                for c in copies
            ],
            dtype=float,
        ).reshape(len(copies), len(self.config.labels))

    def spread(self) -> dict[str, dict[str, dict[str, float | None]]]:
        """learner -> measure -> original value, mean and sd (ddof 1) over permuted copies."""
        from distval.metrics import MEASURES

        out: dict[str, dict] = {lab: {} for lab in self.config.labels}
        for m in MEASURES:
            orig = self._matrix(m, [self.original])[0]
            vals = self._matrix(m, self.permuted)
            for j, lab in enumerate(self.config.labels):
                v = vals[:, j][np.isfinite(vals[:, j])]
                out[lab][m] = {
                    "original": _none(orig[j]),
                    "mean": _none(v.mean()) if len(v) else None,
                    "std": _none(v.std(ddof=1)) if len(v) > 1 else None,
                    "min": _none(v.min()) if len(v) else None,
                    "max": _none(v.max()) if len(v) else None,
                }
        return out

    def rankings(self) -> list[dict]:
        """Per copy: the learners ranked by the run's measure (best first; ties share a rank),
        whether the ranks equal the original's, and Kendall's tau-b against the original."""
        from scipy.stats import kendalltau, rankdata

        labels = self.config.labels
        vals = self._matrix(self.config.measure, self.copies)
        ranks = rankdata(-np.nan_to_num(vals, nan=-np.inf), method="min", axis=1)
        out = []
        for c, v, r in zip(self.copies, vals, ranks, strict=True):
            tau = float("nan")
            if len(labels) > 1 and np.ptp(vals[0]) > 0 and np.ptp(v) > 0:
                tau = float(kendalltau(v, vals[0]).statistic)
            order = sorted(range(len(labels)), key=lambda j: (r[j], j))
            out.append(
                {
                    "copy": c.name,
                    "ranking": [labels[j] for j in order],
                    "ranks": {labels[j]: int(r[j]) for j in range(len(labels))},
                    "equals_original": bool(np.array_equal(r, ranks[0])),
                    "kendall_tau": _none(tau),
                }
            )
        return out

    def summary(self) -> dict:
        """Everything in ``robustness.json``."""
        spec = parse_permutation(self.permutation)
        ranks = self.rankings()[1:]
        taus = np.array([_nan(r["kendall_tau"]) for r in ranks], dtype=float)
        ands = np.array([c.and_ for c in self.permuted], dtype=float)
        n = self.original.rows
        return {
            "stream": self._stream,
            "permutation": self.permutation,
            "repeats": len(self.permuted),
            "rows": n,
            "measure": self.config.measure,
            "config": self.config.to_dict(),
            "and": {
                "expected": _none(spec.expected_and(n)),
                "mean": _none(ands.mean()) if len(ands) else None,
                "std": _none(ands.std(ddof=1)) if len(ands) > 1 else None,
            },
            "ranking_equal_to_original": {
                "count": int(sum(r["equals_original"] for r in ranks)),
                "of": len(ranks),
                "fraction": (
                    _none(np.mean([r["equals_original"] for r in ranks])) if ranks else None
                ),
            },
            "kendall_tau": {
                "mean": _none(np.nanmean(taus)) if np.isfinite(taus).any() else None,
                "min": _none(np.nanmin(taus)) if np.isfinite(taus).any() else None,
            },
            "learners": self.spread(),
            "rankings": self.rankings(),
            "copies": [c.to_dict() for c in self.copies],
            "elapsed_seconds": round(self.elapsed, 3),
        }

    def to_markdown(self) -> str:
        """The robustness report as Markdown."""
        from distval.metrics import MEASURES

        s = self.summary()
        cfg = self.config
        labels = cfg.labels
        head = f"{cfg.n_folds}-fold {cfg.scheme}{' prequential' if cfg.prequential else ''}"
        a = s["and"]
        lines = [
            f"## distval robustness: {self._stream}, {head}, {s['rows']} rows, "
            f"original + {s['repeats']} copies permuted by `{self.permutation}`",
            "",
            f"Average neighbour distance of the permuted copies: {_f(a['mean'])} ± {_f(a['std'])}"
            f" (expected {_f(a['expected'])}; identity 1).",
            "",
            f"Cumulative `{cfg.measure}` at the end of the stream (mean over folds): original, "
            "then mean ± sd, min and max over the permuted copies.",
            "",
            "| learner | original | permuted mean ± sd | min | max |",
            "|---|---|---|---|---|",
        ]
        for lab in labels:
            v = s["learners"][lab][cfg.measure]
            lines.append(
                f"| {lab} | {_f(v['original'])} | {_f(v['mean'])} ± {_f(v['std'])} | "
                f"{_f(v['min'])} | {_f(v['max'])} |"
            )
        shown = [m for m in MEASURES if m != "n"]
        lines += [
            "",
            "Every measure (cumulative, mean over folds), mean ± sd over the permuted copies:",
            "",
            "| learner | " + " | ".join(shown) + " |",
            "|---" * (len(shown) + 1) + "|",
        ]
        for lab in labels:
            cells = [
                f"{_f(s['learners'][lab][m]['mean'])} ± {_f(s['learners'][lab][m]['std'])}"
                for m in shown
            ]
            lines.append(f"| {lab} | " + " | ".join(cells) + " |")
        eq, tau = s["ranking_equal_to_original"], s["kendall_tau"]
        lines += [
            "",
            f"Ranking by `{cfg.measure}` equals the original's on {eq['count']} of {eq['of']} "
            f"permuted copies; Kendall's tau with the original: mean {_f(tau['mean'])}, "
            f"min {_f(tau['min'])}.",
            "",
            "| copy | AND | ranking (best first) | same as original | Kendall tau |",
            "|---|---|---|---|---|",
        ]
        for c, r in zip(self.copies, s["rankings"], strict=True):
            lines.append(
                f"| {c.name} | {c.and_:.3f} | {' > '.join(r['ranking'])} | "
                f"{'yes' if r['equals_original'] else 'no'} | {_f(r['kendall_tau'])} |"
            )
        lines += ["", f"{len(self.copies)} evaluations in {self.elapsed:.1f} s."]
        return "\n".join(lines) + "\n"

    def plot(self, path) -> Path:
        """A PNG of the cumulative accuracy of every learner on every copy."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        vals = self._matrix("accuracy", self.copies)
        x = np.arange(len(self.copies))
        fig, ax = plt.subplots(figsize=(max(6.0, 0.35 * len(x) + 3), 4.0))
        for j, lab in enumerate(self.config.labels):
            (line,) = ax.plot(x[1:], vals[1:, j], marker="o", ms=4, lw=1, label=lab)
            ax.axhline(vals[0, j], color=line.get_color(), ls=":", lw=0.8)
            ax.plot([0], [vals[0, j]], marker="*", ms=12, color=line.get_color())
        ax.set_xticks(x, [c.name for c in self.copies], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("accuracy (cumulative, mean over folds)")
        ax.set_title(f"{self._stream}: original (★) and copies permuted by {self.permutation}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = Path(path)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        return path

    def write(self, directory) -> None:
        directory = Path(directory)
        (directory / "robustness.json").write_text(json.dumps(self.summary(), indent=2) + "\n")
        (directory / "robustness.md").write_text(self.to_markdown())
        self.plot(directory / "accuracy.png")


def _nan(v) -> float:
    return float("nan") if v is None else float(v)


def _none(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def _f(v) -> str:
    return "–" if v is None else f"{v:.4f}"


@dataclass(frozen=True)
class _Plan:
    name: str
    index: int
    seed: int | None
    order: np.ndarray

    def extra(self, permutation: str, stream_name: str) -> dict:
        return {
            "backend": "inprocess",
            "stream_name": stream_name,
            "permutation": "none" if self.index == 0 else permutation,
            "copy": self.index,
            "permutation_seed": self.seed,
        }


def _copy_values(summary: dict) -> dict[str, dict[str, float | None]]:
    out = {}
    for lab, per in summary["learners"].items():
        cum = per.get("cumulative") or {}
        out[lab] = {m: d["mean"] for m, d in cum.items()}
    return out


def _evaluate_copy(config: RunConfig, data: StreamData, plan: _Plan, output_dir, extra: dict):
    """One in-process evaluation of a copy; writes ``output_dir`` when given."""
    from distval.engine import evaluate

    stream = PermutedStream(data, plan.order, name=extra["stream_name"])
    result = evaluate(config, source=stream, output_dir=output_dir, overwrite=True)
    if output_dir is not None:
        path = Path(output_dir) / "config.json"
        path.write_text(json.dumps(json.loads(path.read_text()) | extra, indent=2) + "\n")
    return result


def _write_copy(result, directory: Path, extra: dict) -> None:
    """Write a result computed elsewhere (a Ray task) as a normal results directory."""
    from distval.aggregator import Snapshot
    from distval.results import ResultWriter

    writer = ResultWriter(directory, overwrite=True)
    writer.write_config(result.config, extra)
    writer.append(Snapshot(position=result.n_rows, folds=result.fold_rows, tests=result.test_rows))
    writer.close(result)


def _finished(directory: Path, config: RunConfig, extra: dict, overwrite: bool) -> dict | None:
    """The summary of a finished copy with the same settings in ``directory``, else None.

    A directory of a copy with other settings is an error unless ``overwrite``.
    """
    if overwrite or not directory.is_dir() or not any(directory.iterdir()):
        return None
    try:
        saved = json.loads((directory / "config.json").read_text())
    except (OSError, ValueError):
        saved = None
    if saved != json.loads(json.dumps(config.to_dict() | extra)):
        raise DistvalError(
            f"{directory} holds a copy evaluated with other settings; "
            "choose another output directory or pass --overwrite"
        )
    try:
        summary = json.loads((directory / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    return None if summary.get("interrupted", True) else summary


def _check_output(out: Path, names: set[str], overwrite: bool) -> None:
    if out.exists() and not out.is_dir():
        raise DistvalError(f"output path {out} exists and is not a directory")
    if out.exists() and not overwrite:
        foreign = sorted(p.name for p in out.iterdir() if p.name not in names)
        if foreign:
            raise DistvalError(
                f"output directory {out} holds files of another run ({foreign[0]}); "
                "choose another or pass --overwrite"
            )


def run_robustness(
    config: RunConfig,
    *,
    permute: str,
    repeats: int,
    output_dir,
    overwrite: bool = False,
    progress: bool = False,
    backend: str = "inprocess",
    address: str | None = None,
    n_actors: int | None = None,
) -> RobustnessResult:
    """Evaluate ``config`` on the original stream and on ``repeats`` permuted copies.

    Copy ``i`` (1-based) is permuted by ``permute`` with seed :func:`copy_seed` ``(config.seed,
    i)``; folds and learners keep ``config.seed``, so only the row order differs between copies
    (the multiple tests of Sect. 5.2). ``output_dir`` gets one results directory per copy
    (``original``, ``<kind>-01`` …), ``robustness.json``, ``robustness.md`` and
    ``accuracy.png``. A rerun into the same directory reuses every finished copy whose settings
    match; ``overwrite`` recomputes them all. With ``backend="ray"`` the copies run concurrently
    as Ray tasks (one CPU each, at most ``n_actors`` at a time).

    Examples
    --------
    >>> import tempfile
    >>> cfg = RunConfig(stream="sea", n_rows=600, learners=("majority", "persistent"),
    ...                 n_folds=2, test_every=300)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     res = run_robustness(cfg, permute="speed:p=0.5", repeats=2, output_dir=d)
    ...     sorted(p.name for p in Path(d).iterdir())
    ['accuracy.png', 'original', 'robustness.json', 'robustness.md', 'speed-01', 'speed-02']
    >>> [c.name for c in res.copies], res.original.and_
    (['original', 'speed-01', 'speed-02'], 1.0)
    """
    from distval.engine import BACKENDS, open_config_stream

    start = time.perf_counter()
    spec = parse_permutation(permute)
    check_positive_int(repeats, "repeats")
    if backend not in BACKENDS:
        raise DistvalError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend != "ray" and (address or n_actors):
        raise DistvalError("`address` and `n_actors` need the ray backend")
    if n_actors is not None:
        check_positive_int(n_actors, "n_actors")
    if output_dir is None:
        raise DistvalError("run_robustness needs an output directory")
    out = Path(output_dir)
    width = max(2, len(str(repeats)))
    names = ["original"] + [f"{spec.kind}-{i:0{width}d}" for i in range(1, repeats + 1)]
    _check_output(out, {*names, "robustness.json", "robustness.md", "accuracy.png"}, overwrite)

    data = StreamData.read(open_config_stream(config))
    n = len(data)
    plans = [_Plan("original", 0, None, np.arange(n, dtype=np.int64))]
    for i in range(1, repeats + 1):
        seed = copy_seed(config.seed, i)
        plans.append(_Plan(names[i], i, seed, spec.generate(n, seed)))
    extras = [
        p.extra(spec.text, data.name if p.index == 0 else f"{data.name} [{spec.text} #{p.index}]")
        for p in plans
    ]
    out.mkdir(parents=True, exist_ok=True)

    copies: dict[int, CopyResult] = {}

    def record(plan: _Plan, summary: dict, reused: bool) -> None:
        copies[plan.index] = CopyResult(
            name=plan.name,
            index=plan.index,
            seed=plan.seed,
            tnd=total_neighbour_distance(plan.order),
            and_=average_neighbour_distance(plan.order),
            values=_copy_values(summary),
            rows=int(summary["rows"]),
            elapsed=float(summary.get("elapsed_seconds") or 0.0),
            reused=reused,
        )

    pending = []
    for plan, extra in zip(plans, extras, strict=True):
        done = _finished(out / plan.name, config, extra, overwrite)
        if done is not None:
            record(plan, done, True)
        else:
            pending.append((plan, extra))

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(plans), initial=len(copies), unit="copy", desc=f"{data.name} copies")
    try:
        if backend == "ray" and pending:
            _run_on_ray(config, data, pending, out, address, n_actors, record, bar)
        else:
            for plan, extra in pending:
                result = _evaluate_copy(config, data, plan, out / plan.name, extra)
                record(plan, result.summary(), False)
                if bar is not None:
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    result = RobustnessResult(
        config=config,
        permutation=spec.text,
        copies=[copies[i] for i in range(len(plans))],
        output_dir=out,
        elapsed=time.perf_counter() - start,
        stream_name=data.name,
    )
    result.write(out)
    return result


def _ray_copy(config: RunConfig, data: StreamData, plan: _Plan, extra: dict):
    return _evaluate_copy(config, data, plan, None, extra)


def _run_on_ray(config, data, pending, out, address, n_actors, record, bar) -> None:
    import ray

    from distval.ray_engine import _start_ray

    must_shutdown = _start_ray(address)
    try:
        task = ray.remote(num_cpus=1, max_retries=1)(_ray_copy)
        data_ref = ray.put(data)
        limit = n_actors or len(pending)
        queue = list(pending)
        running = {}
        try:
            while queue or running:
                while queue and len(running) < limit:
                    plan, extra = queue.pop(0)
                    running[task.remote(config, data_ref, plan, extra)] = (plan, extra)
                ready, _ = ray.wait(list(running), num_returns=1)
                plan, extra = running.pop(ready[0])
                try:
                    result = ray.get(ready[0])
                except ray.exceptions.RayError as exc:
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, DistvalError):
                        raise cause from None
                    raise DistvalError(f"copy {plan.name} failed on Ray: {exc}") from None
                _write_copy(result, out / plan.name, extra)
                record(plan, result.summary(), False)
                if bar is not None:
                    bar.update(1)
        finally:
            for ref in running:
                ray.cancel(ref, force=True)
    finally:
        if must_shutdown:
            ray.shutdown()
