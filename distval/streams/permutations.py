"""Row orders of a stream: controlled permutations, shuffles and their neighbour distances.

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
- **random** (or **iid**, zliobaite2015 §6.5): a uniform permutation, the contrast that
  destroys every drift (Prop. 10);
- **within-class** (zliobaite2015 §6.5): the label sequence stays, rows are shuffled within
  their class, which removes drift in P(X | y) and keeps temporal dependence.

A permutation is an index array ``order``: position ``m`` of the permuted stream holds row
``order[m]`` of the original (``j_m`` in Sect. 3). Its extent is measured by the total and
average neighbour distance (Definitions 1 and 2); :func:`expected_and` gives the paper's
expected values (Props. 3, 5, 8 and 10).

The spec grammar (``time:p=0.5``, ``shape:k=n`` …) is :func:`parse_permutation`;
:class:`distval.streams.permuted.PermutedStream` applies an order to a stream.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from distval.errors import DistvalError, check_open_unit

__all__ = [
    "KINDS",
    "PermutationSpec",
    "average_neighbour_distance",
    "copy_seed",
    "expected_and",
    "parse_permutation",
    "random_permutation",
    "shape_permutation",
    "speed_permutation",
    "time_permutation",
    "total_neighbour_distance",
    "within_class_permutation",
]

#: Permutation kinds and their parameters (``k`` may be ``n``, the number of rows).
#: ``iid`` is another name for ``random`` (zliobaite2015 §6.5); ``within-class`` keeps the
#: label sequence and needs the labels.
KINDS = {
    "time": ("p",),
    "speed": ("p",),
    "shape": ("k",),
    "random": (),
    "iid": (),
    "within-class": (),
}
_DEFAULTS: dict[str, float | str] = {"p": 0.5, "k": "n"}

#: A permutation's seed: an int, a numpy generator (used as is) or ``None`` (fresh entropy).
Seed: TypeAlias = "int | np.random.Generator | None"


def _rng(seed: Seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check_n(n: object) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise DistvalError(f"the number of rows must be a non-negative integer, got {n!r}")
    return int(n)


# -- the permutations ---------------------------------------------------------------------------


def time_permutation(n: int, p: float = 0.5, seed: Seed = None) -> npt.NDArray[np.int64]:
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
    n, p = _check_n(n), check_open_unit(p, "p")
    if n < 2:
        return np.arange(n, dtype=np.int64)
    splits = _rng(seed).random(n - 1) < p
    block = np.concatenate(([0], np.cumsum(splits)))
    return np.argsort(block[-1] - block, kind="stable").astype(np.int64)


def speed_permutation(n: int, p: float = 0.5, seed: Seed = None) -> npt.NDArray[np.int64]:
    """The speed permutation (Sect. 3.2): lift each row with probability ``p`` to the end.

    Examples
    --------
    >>> order = speed_permutation(10, p=0.5, seed=1)
    >>> kept = order[: np.argmax(np.diff(order) < 0) + 1]
    >>> bool(np.all(np.diff(kept) > 0)), sorted(order.tolist()) == list(range(10))
    (True, True)
    """
    n, p = _check_n(n), check_open_unit(p, "p")
    lifted = _rng(seed).random(n) < p
    return np.concatenate((np.flatnonzero(~lifted), np.flatnonzero(lifted))).astype(np.int64)


def shape_permutation(n: int, k: int | None = None, seed: Seed = None) -> npt.NDArray[np.int64]:
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


def random_permutation(n: int, seed: Seed = None) -> npt.NDArray[np.int64]:
    """A uniformly random permutation, the uncontrolled contrast (Sect. 4.2, Prop. 10).

    >>> sorted(random_permutation(6, seed=0).tolist())
    [0, 1, 2, 3, 4, 5]
    """
    return _rng(seed).permutation(_check_n(n)).astype(np.int64)


# -- neighbour distances ------------------------------------------------------------------------


def total_neighbour_distance(order: npt.ArrayLike) -> int:
    """Total neighbour distance ``D = sum |j_i - j_{i+1}|`` (Definition 1).

    Examples
    --------
    >>> total_neighbour_distance([1, 3, 2, 4])
    5
    """
    index = np.asarray(order, dtype=np.int64)
    return int(np.abs(np.diff(index)).sum())


def average_neighbour_distance(order: npt.ArrayLike) -> float:
    """Average neighbour distance ``d = D / (n - 1)`` (Definition 2); 1 for the identity.

    Examples
    --------
    >>> round(average_neighbour_distance([1, 3, 2, 4]), 4)
    1.6667
    """
    index = np.asarray(order, dtype=np.int64)
    if len(index) < 2:
        return float("nan")
    return total_neighbour_distance(index) / (len(index) - 1)


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
    if kind in ("random", "iid"):
        return (n + 1) / 3
    raise DistvalError(f"unknown permutation kind {kind!r}; choose one of {', '.join(KINDS)}")


# -- the spec grammar ---------------------------------------------------------------------------

_SPEC = re.compile(r"\s*([A-Za-z][A-Za-z-]*)\s*(?::\s*(.*?))?\s*")


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

    def generate(
        self, n: int, seed: Seed = None, y: np.ndarray | None = None
    ) -> npt.NDArray[np.int64]:
        """The index array for ``n`` rows; ``within-class`` needs the labels ``y``."""
        if self.kind == "within-class":
            if y is None or len(y) != n:
                raise DistvalError("a within-class permutation needs the stream's labels")
            return within_class_permutation(y, seed)
        # p is None only in a hand-made spec: check_open_unit rejects it as before.
        if self.kind == "time":
            return time_permutation(_check_n(n), check_open_unit(self.p, "p"), seed)
        if self.kind == "speed":
            return speed_permutation(_check_n(n), check_open_unit(self.p, "p"), seed)
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
choose one of time, speed, shape, random, iid, within-class
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
    values: dict[str, float | str] = {name: _DEFAULTS[name] for name in allowed}
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
    p: float | None = None
    k: int | None = None
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


def within_class_permutation(y: npt.ArrayLike, seed: Seed = None) -> npt.NDArray[np.int64]:
    """A seeded order that keeps the label sequence and shuffles rows within their class.

    Row ``t`` of the new stream is row ``order[t]`` of the original, with
    ``y[order] == y``: the label sequence (hence P(M), P(T) and every Δ(ℓ)) is unchanged,
    while the features of each class are spread uniformly over that class's positions,
    removing drift in P(X | y).

    >>> y = np.array([0, 0, 1, 1, 0, 1])
    >>> order = within_class_permutation(y, seed=3)
    >>> bool((y[order] == y).all()), sorted(order.tolist()) == list(range(6))
    (True, True)
    """
    labels = np.asarray(y)
    rng = np.random.default_rng(seed)
    positions = np.argsort(labels, kind="stable")  # each class's positions, in time order
    sources = np.lexsort((rng.random(len(labels)), labels))  # each class's rows, in random order
    order = np.empty(len(labels), dtype=np.int64)
    order[positions] = sources
    return order


def copy_seed(seed: int, index: int) -> int:
    """The permutation seed of permuted copy ``index`` (1-based) of a run with ``seed``.

    >>> copy_seed(1, 1) == copy_seed(1, 1) != copy_seed(1, 2)
    True
    """
    return int(np.random.SeedSequence([int(seed), int(index)]).generate_state(1)[0])
