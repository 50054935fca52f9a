"""The catalogue of river generators behind :mod:`distval.streams.synth`: the river classes
by name, the paper configurations of Bifet et al. (2015) and each generator's nominal domains.

It is the only stream module that imports ``river.datasets`` (about a second, with
scikit-learn behind it), so :mod:`~distval.streams.synth` imports it only when a generator is
built and a run on a file never pays for it.

>>> sorted(GENERATORS)[:3]
['agrawal', 'hyp', 'hyperplane']
"""

from __future__ import annotations

import inspect
import math
import random
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from river.datasets import synth
from river.datasets.base import Dataset

from distval.errors import DistvalError

__all__ = ["GENERATORS", "build", "derive_seed", "nominal_domains", "parameters"]


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


def parameters(cls: type) -> list[str]:
    return [p for p in inspect.signature(cls).parameters if p not in ("self", "args", "kwargs")]


def build(
    name: str, args: tuple[object, ...], kwargs: dict[str, object], n: int, seed: int
) -> Dataset:
    gen = GENERATORS[name]
    accepted = parameters(gen.cls)
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


def nominal_domains(dataset: object) -> dict[str, tuple[list[float], list[str]]]:
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
