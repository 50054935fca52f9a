"""Aggregator throughput: (fold x instance) metric updates per second with ADWIN windows.

A trivial learner: predictions are drawn in advance (numpy), so only the aggregator works —
per-fold ADWIN-windowed and cumulative measures, McNemar counts, and at every 1,000 rows a
snapshot with the Sign, Wilcoxon and McNemar tests. 10 folds x 2 learners, prequential.
Goal: >= 10,000,000 updates per second (issue 14).

    python benchmarks/bench_aggregator.py [--rows 200000] [--batch 1000]
"""

from __future__ import annotations

import argparse

import numpy as np

import distval.metrics.trackers as metrics
from distval import RunConfig
from distval.aggregator.core import Aggregator

from common import save, table, timed

#: The commit before issue 14's aggregator work: its metrics module is loaded from git for the
#: ratio in the same run (river's ADWIN called once per tested row from Python).
BEFORE = "a404bc0"


def tracker_before():
    """``ADWINWindow`` of distval.metrics (then one module) at :data:`BEFORE`."""
    import subprocess
    import sys
    import types

    src = subprocess.check_output(["git", "show", f"{BEFORE}:distval/metrics.py"], text=True)
    module = types.ModuleType("metrics_before")
    sys.modules["metrics_before"] = module
    exec(compile(src, "metrics_before.py", "exec"), module.__dict__)
    module.ADWINWindow.from_counts = True  # what the aggregator asks of a tracker since
    return module.ADWINWindow


def feed(config: RunConfig, y, pred, batch):
    agg = Aggregator.from_config(config)
    ids = np.arange(pred.shape[0])
    for lo in range(0, len(y), batch):
        agg.update(lo, y[lo : lo + batch], [(ids, pred[:, lo : lo + batch])])
    agg.finish()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=200_000)
    p.add_argument("--batch", type=int, default=1000)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    k, n_learners = 10, 2
    y = rng.integers(0, 2, a.rows)
    # learners right 85 % / 80 % of the time, with a change half-way for ADWIN to find
    skill = np.where(np.arange(a.rows) < a.rows // 2, 0.85, 0.7)
    pred = np.where(rng.random((n_learners * k, a.rows)) < skill, y, 1 - y)
    rows = []
    compiled = metrics.ADWINWindow
    metrics.ADWINWindow = tracker_before()  # type: ignore[misc]
    cfg = RunConfig(learners=("nb", "ht"), n_folds=k, forgetting="adwin", test_every=1000)
    t_before, _ = timed(feed, cfg, y, pred, a.batch)
    metrics.ADWINWindow = compiled  # type: ignore[misc]
    rows.append(
        {
            "forgetting": f"adwin (before, {BEFORE}: river per call)",
            "seconds": t_before,
            "updates/s": n_learners * k * a.rows / t_before,
            "instances/s": a.rows / t_before,
        }
    )
    for forgetting in ("adwin", "window", "fading", "cumulative"):
        cfg = RunConfig(learners=("nb", "ht"), n_folds=k, forgetting=forgetting, test_every=1000)
        feed(cfg, y[:2000], pred[:, :2000], a.batch)  # load (or compile) the numba kernels
        t, _ = timed(feed, cfg, y, pred, a.batch)
        rows.append(
            {
                "forgetting": forgetting,
                "seconds": t,
                "updates/s": n_learners * k * a.rows / t,
                "instances/s": a.rows / t,
            }
        )
    text = (
        f"### Aggregator alone: {k} folds x {n_learners} learners, {a.rows:,} rows, batches "
        f"of {a.batch}, tests every 1,000 rows\n\n{table(rows)}\n\n(fold x instance) updates/s "
        f"with ADWIN windows: **{rows[1]['updates/s']:,.0f}** (goal >= 10,000,000); "
        f"{t_before / rows[1]['seconds']:.2f}x the implementation before issue 14, same run"
    )
    save("aggregator", text, {"rows": rows, "args": vars(a)})


if __name__ == "__main__":
    main()
