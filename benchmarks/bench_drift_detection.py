"""Drift detection delay of Page-Hinkley on prequential error estimates (gama2013 Tables 2, 3).

Structure of gama2013 §5.2–5.3: streams with one abrupt change, two Hoeffding trees (leaves
predicting the majority class, "VFDT-MC", and adaptive naive Bayes leaves, "VFDT-NBa"),
Page-Hinkley (delta = 0.1, lambda = 100) on

- Table 2: the prequential error over the whole history, over sliding windows of 1k–5k rows
  and with fading factors 0.9970–0.9994;
- Table 3: the ratio of a short- to a long-term estimate: fading 0.9970 against 0.9994 /
  0.9990, and windows of 1k against 5k / 3k (Algorithm 4);

reporting the mean and standard deviation of the detection delay over seeds, and how many
runs missed the change or raised a false alarm before it.

Streams (river generators; the change is abrupt, at ``--change`` rows, default 32,000):
RT (random tree, the second concept from another tree seed), RBF (random RBF to a drifting
RBF with model seed 10 and centroid speed 0.01), LED (LED to LED with 7 drifting
attributes; the paper changes LED at 128k, here at the same point as the others to keep the
run short), SEA (concept 0 to concept 3; river has no drifting Waveform generator, the
paper's fourth stream).

    python benchmarks/bench_drift_detection.py [--seeds 10] [--change 32000]
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np
from river.datasets import synth
from tqdm import tqdm

from distval.learners import parse_learner
from distval.metrics.prequential import PageHinkley, PrequentialError

from common import save, table, timed

LEARNERS = {"VFDT-MC": "ht(leaf_prediction='mc')", "VFDT-NBa": "ht(leaf_prediction='nba')"}


def streams(seed: int):
    return {
        "RT": (
            synth.RandomTree(seed_tree=seed, seed_sample=seed),
            synth.RandomTree(seed_tree=seed + 1000, seed_sample=seed),
        ),
        "RBF": (
            synth.RandomRBF(seed_model=seed, seed_sample=seed),
            synth.RandomRBFDrift(seed_model=10, seed_sample=seed, change_speed=0.01),
        ),
        "LED": (
            synth.LED(seed=seed, noise_percentage=0.1, irrelevant_features=True),
            synth.LEDDrift(
                seed=seed, noise_percentage=0.1, irrelevant_features=True, n_drift_features=7
            ),
        ),
        "SEA": (synth.SEA(variant=0, seed=seed), synth.SEA(variant=3, seed=seed)),
    }


def losses(before, after, learner: str, change: int) -> np.ndarray:
    model = parse_learner(learner).build()
    out = np.empty(2 * change)
    rows = itertools.chain(before.take(change), after.take(change))
    for i, (x, y) in enumerate(rows):
        out[i] = model.predict_one(x) != y
        model.learn_one(x, y)
    return out


ESTIMATES = {
    "cumulative": lambda: [PrequentialError("cumulative")],
    **{
        f"window {w // 1000}k": (lambda w=w: [PrequentialError("window", window=w)])
        for w in (1000, 2000, 3000, 4000, 5000)
    },
    **{
        f"fading {a}": (lambda a=a: [PrequentialError("fading", fading=a)])
        for a in (0.997, 0.9985, 0.999, 0.9993, 0.9994)
    },
}
RATIOS = {
    **{
        f"ratio fading 0.997/{a}": (
            lambda a=a: [
                PrequentialError("fading", fading=0.997),
                PrequentialError("fading", fading=a),
            ]
        )
        for a in (0.9994, 0.9992, 0.999)
    },
    **{
        f"ratio window 1k/{w // 1000}k": (
            lambda w=w: [
                PrequentialError("window", window=1000),
                PrequentialError("window", window=w),
            ]
        )
        for w in (5000, 4000, 3000)
    },
}


def detect(loss: np.ndarray, make, change: int, delta: float, lam: float):
    est = [e.update(loss) for e in make()]
    series = est[0] if len(est) == 1 else np.where(est[1] > 0, est[0] / est[1], 1.0)
    alarms = PageHinkley(delta, lam).update(series)
    false = int(np.sum(alarms < change))
    after = alarms[alarms >= change]
    return (int(after[0] - change) if len(after) else None), false


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", type=int, default=10)
    p.add_argument("--change", type=int, default=32_000)
    p.add_argument("--delta", type=float, default=0.1)
    p.add_argument("--lam", type=float, default=100.0)
    a = p.parse_args()
    results: dict = {}
    runs = [(s, st, ln) for s in range(1, a.seeds + 1) for st in streams(1) for ln in LEARNERS]
    elapsed = 0.0
    for seed, stream, learner in tqdm(runs, desc="runs", unit="run"):
        before, after = streams(seed)[stream]
        dt, loss = timed(losses, before, after, LEARNERS[learner], a.change)
        elapsed += dt
        for name, make in {**ESTIMATES, **RATIOS}.items():
            delay, false = detect(loss, make, a.change, a.delta, a.lam)
            results.setdefault((stream, learner, name), []).append((delay, false))

    def rows_for(names):
        rows = []
        for stream, learner in itertools.product(streams(1), LEARNERS):
            row = {"stream": stream, "learner": learner}
            for name in names:
                got = results[stream, learner, name]
                delays = [d for d, _ in got if d is not None]
                misses = sum(d is None for d, _ in got)
                false = sum(f > 0 for _, f in got)
                cell = (
                    f"{np.mean(delays):.0f} ± {np.std(delays, ddof=len(delays) > 1):.0f}"
                    if delays
                    else "–"
                )
                if misses or false:
                    cell += f" ({misses}; {false})"
                row[name] = cell
            rows.append(row)
        return rows

    text = "\n".join(
        [
            f"### Page-Hinkley (delta {a.delta}, lambda {a.lam}) detection delay, abrupt change at "
            f"row {a.change:,} of {2 * a.change:,}, {a.seeds} seeds",
            "",
            "Cells: mean ± sd of the delay in rows over the runs that detected the change; "
            "(misses; runs with a false alarm before the change) when not zero.",
            "",
            "#### Table 2 structure: PH on the error estimates",
            "",
            table(rows_for(list(ESTIMATES))),
            "",
            "#### Table 3 structure: PH on the ratio of short- to long-term estimates",
            "",
            table(rows_for(list(RATIOS))),
            "",
            f"{len(runs)} runs, {elapsed:.0f} s of learning in total.",
        ]
    )
    data = {f"{k[0]}|{k[1]}|{k[2]}": v for k, v in results.items()}
    save("drift_detection", text, {"results": data, "args": vars(a)})


if __name__ == "__main__":
    main()
