"""Which shape of per-row cost extrapolates a short probe best (``distval suite --plan``).

Each stream is probed to its end (one replica per learner, batches of 250 rows:
:class:`distval.experiments.suite.probe.StreamProbe`), which gives its whole cost curve in
one script run. Then the first 1/12, 1/6 and 1/3 of the batches are fitted with a per-row
cost that is flat, ``a + b ln x``, ``a + b sqrt(x)`` (what ``--plan`` uses, with and without
its one-standard-error shrinkage of the growth) or ``a + b x``, and the rest extrapolated;
the table gives whole cost / projection (1 = exact, above 1 = the projection is low).

    python benchmarks/bench_plan_shapes.py
"""

from __future__ import annotations

import argparse
import math
import os

import numpy as np

from distval import RunConfig
from distval.experiments.suite.probe import StreamProbe, fit_cost, warm_up

from common import load_span, save, table

STREAMS = ["SEA(50)", "agrawal", "RBF(10,0.001)"]
LEARNERS = ["hat", "arf(n_models=3)", "ht", "nb"]

SHAPES = {
    "ln x": lambda x: np.where(x > 0, x * np.log(np.maximum(x, 1e-300)) - x, 0.0),
    "sqrt x": lambda x: 2.0 / 3.0 * x**1.5,
    "x": lambda x: x * x / 2.0,
}


def project(ends: list[int], costs: list[float], n: int, shape: str) -> float:
    """The whole cost of ``n`` rows from the first batches, least squares, growth >= 0."""
    e, c = np.asarray(ends, float), np.asarray(costs, float)
    flat = c.sum() + c.sum() / e[-1] * (n - e[-1])
    if shape == "flat":
        return float(flat)
    if shape == "sqrt x, shrunk (--plan)":
        a, b = fit_cost(ends, costs)
        g = SHAPES["sqrt x"]
        return float(c.sum() + a * (n - e[-1]) + b * (g(float(n)) - g(e[-1])))
    g = SHAPES[shape]
    s = np.r_[0.0, e[:-1]]
    design = np.column_stack([e - s, g(e) - g(s)])
    (a, b), *_ = np.linalg.lstsq(design, c, rcond=None)
    if b < 0 or a + b * (g(e[-1] + 1) - g(e[-1])) <= 0:
        return float(flat)
    return float(c.sum() + a * (n - e[-1]) + b * (g(float(n)) - g(e[-1])))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", nargs="+", default=STREAMS)
    ap.add_argument("--learners", nargs="+", default=LEARNERS)
    ap.add_argument("--n-rows", type=int, default=15_000)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--name", default="plan_shapes")
    args = ap.parse_args(argv)
    start = os.getloadavg()
    shapes = ["flat", "ln x", "sqrt x", "sqrt x, shrunk (--plan)", "x"]
    rows, curves = [], {}
    configs = [
        RunConfig(stream=s, n_rows=args.n_rows, learners=(lr,), n_folds=args.folds)
        for lr in args.learners for s in args.streams
    ]
    warm_up(configs[0])
    for cfg in configs:
        probe = StreamProbe(cfg)
        while probe.step():
            pass
        whole = sum(probe.costs)
        curves[f"{cfg.learners[0]} {cfg.stream}"] = {"ends": probe.ends, "costs": probe.costs}
        for share in (12, 6, 3):
            m = max(4, math.ceil(len(probe.ends) / share))
            row = {"learner": cfg.learners[0], "stream": cfg.stream,
                   "probe rows": probe.ends[m - 1]}
            for shape in shapes:
                row[shape] = whole / project(probe.ends[:m], probe.costs[:m], probe.rows, shape)
            rows.append(row)
        print(table(rows[-3:]), flush=True)
    worst = {
        shape: (min(r[shape] for r in rows), max(r[shape] for r in rows)) for shape in shapes
    }
    text = "\n\n".join([
        f"# Shapes of the per-row cost: {args.n_rows:,d} rows, {args.folds} folds",
        "Whole cost / projection from the first batches (1 = exact; above 1: too low).",
        table(rows),
        "Range per shape: " + "; ".join(
            f"{s} {lo:.2f}-{hi:.2f}" for s, (lo, hi) in worst.items()
        ) + ".",
        f"Probes to the end of each stream in one process; {load_span(start)}.",
    ])
    save(args.name, text, {"rows": rows, "curves": curves})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
