"""A periodic holdout error beside the prequential estimates (gama2013 §3, Fig. 1).

>>> from distval.streams import open_stream
>>> curve = holdout_curve(open_stream("sea", n_rows=3000), "nb", holdout=500, every=500)
>>> len(curve["position"]), sorted(curve)[:3]
(5, ['cumulative', 'fading_0.999', 'holdout'])
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from distval.learners import parse_learner, to_dicts
from distval.metrics.prequential import PrequentialError, zero_one_loss
from distval.streams.base import Stream

__all__ = ["holdout_curve"]


def holdout_curve(
    stream: Stream,
    learner: str,
    *,
    holdout: int = 1000,
    every: int = 1000,
    windows: Iterable[int] = (1000,),
    fadings: Iterable[float] = (0.999,),
    n_rows: int | None = None,
) -> dict[str, list[float]]:
    """Periodic holdout error next to prequential estimates for one learner (gama2013 §3).

    The first ``holdout`` rows of ``stream`` are set aside; the learner is trained
    test-then-train on the rest, and every ``every`` rows its error on the holdout set is
    recorded along with its prequential error (cumulative, each window, each fading factor).
    Returns a dict of equally long lists keyed ``position``, ``holdout``, ``cumulative``,
    ``window_<w>``, ``fading_<f>``.
    """
    # LearnerSpec.build is unannotated (distval/learners/registry.py): typed here until it is.
    build: Callable[[], Any] = parse_learner(learner).build
    model = build()
    names = stream.feature_names
    held_x: list[dict[str, float]] = []
    held_y: list[int] = []
    est = {"cumulative": PrequentialError("cumulative")}
    est |= {f"window_{w}": PrequentialError("window", window=w) for w in windows}
    est |= {f"fading_{f}": PrequentialError("fading", fading=f) for f in fadings}
    out: dict[str, list[float]] = {k: [] for k in ("position", "holdout", *est)}
    seen = 0
    for chunk in stream.chunks(every):
        xs, ys = to_dicts(chunk.X, names), chunk.y.tolist()
        if len(held_x) < holdout:
            take = min(holdout - len(held_x), len(xs))
            held_x += xs[:take]
            held_y += ys[:take]
            xs, ys = xs[take:], ys[take:]
        if not xs:
            continue
        preds: list[Any] = []
        for x, y in zip(xs, ys):
            p = model.predict_one(x)
            preds.append(0 if p is None else p)
            model.learn_one(x, y)
        losses = zero_one_loss(np.array(ys), np.array(preds))
        values = {k: e.update(losses)[-1] for k, e in est.items()}
        seen += len(xs)
        held_preds = [model.predict_one(x) for x in held_x]
        hp = np.array([0 if p is None else p for p in held_preds])
        out["position"].append(seen)
        out["holdout"].append(float(np.mean(zero_one_loss(np.array(held_y), hp))))
        for k, v in values.items():
            out[k].append(float(v))
        if n_rows is not None and seen >= n_rows:
            break
    return out
