"""What the paired score windows cost: the aggregator's CPU per 1,000 rows by measure.

With ``--measure auc`` (or ``brier``, ``log_loss``) the verdicts compare both learners of each
pair on the same rows (:class:`distval.statistics.pair_verdicts.PairVerdicts`): per (pair,
fold) and side, a score window over the rows that fold tested with both
(:class:`distval.metrics.probabilistic.ScoreWindows`), on top of each learner's own score
windows. This script feeds the aggregator alone (no learner: predictions and class-1
probabilities are drawn in advance with numpy, two classes) the same rows under each
measure, 10 folds that test every row, 2 and 3 learners, tests every 1,000 rows, and reports
the CPU seconds (``time.process_time``) per 1,000 rows of the whole aggregator and of the
verdicts' part (:meth:`PairVerdicts.update` and :meth:`PairVerdicts.look`, timed around
each call), the best of ``--repeats`` runs.

    python benchmarks/bench_paired_scores.py [--rows 40000] [--batch 1000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from distval import RunConfig
from distval.aggregator.core import Aggregator

from common import save, table

LEARNERS = ("ht", "nb", "lb")


def timed_verdicts(agg: Aggregator) -> list[float]:
    """Wrap the aggregator's verdicts so that their CPU seconds add up in the returned list."""
    spent = [0.0]
    verdicts = agg.verdicts
    if verdicts is None:
        return spent
    for name in ("update", "look"):
        inner = getattr(verdicts, name)

        def wrapper(*args, _inner=inner, **kw):
            t0 = time.process_time()
            try:
                return _inner(*args, **kw)
            finally:
                spent[0] += time.process_time() - t0

        setattr(verdicts, name, wrapper)
    return spent


def feed(config: RunConfig, y, pred, p1, batch: int) -> tuple[float, float]:
    """(CPU seconds of the whole aggregator, of its verdicts) over every row."""
    agg = Aggregator.from_config(config, n_classes=2)
    spent = timed_verdicts(agg)
    ids = np.arange(pred.shape[0])
    scored = config.measure in ("auc", "brier", "log_loss")
    t0 = time.process_time()
    for lo in range(0, len(y), batch):
        part = pred[:, lo:lo + batch]
        if scored:
            p = p1[:, lo:lo + batch]
            part = (part, np.stack([1 - p, p], axis=2))
        agg.update(lo, y[lo:lo + batch], [(ids, part)])
    agg.finish()
    return time.process_time() - t0, spent[0]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=40_000)
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    k = 10
    y = rng.integers(0, 2, a.rows)
    rows = []
    for n_learners in (2, 3):
        # scores leaning to the true class, each learner by its own amount; a change half-way
        lean = np.repeat(np.linspace(0.3, 0.15, n_learners), k)[:, None]
        lean = lean * np.where(np.arange(a.rows) < a.rows // 2, 1.0, 0.5)
        p1 = np.clip(0.5 + lean * (2 * y - 1) + rng.normal(0, 0.25, (n_learners * k, a.rows)),
                     0.0, 1.0)
        pred = (p1 > 0.5).astype(np.int64)
        base = base_verdicts = None
        for measure in ("accuracy", "auc", "brier", "log_loss"):
            cfg = RunConfig(learners=LEARNERS[:n_learners], n_folds=k, measure=measure,
                            test_every=1000)
            feed(cfg, y[:3000], pred[:, :3000], p1[:, :3000], a.batch)  # numba kernels
            runs = [feed(cfg, y, pred, p1, a.batch) for _ in range(a.repeats)]
            total, verdicts = min(runs)
            per = 1000 / a.rows
            base = base or total
            base_verdicts = base_verdicts or verdicts
            rows.append({
                "learners": n_learners,
                "measure": measure,
                "CPU ms / 1,000 rows": 1000 * total * per,
                "verdicts' CPU ms / 1,000 rows": 1000 * verdicts * per,
                "verdicts' share": f"{100 * verdicts / total:.0f} %",
                "paired score windows' ms / 1,000 rows": 1000 * (verdicts - base_verdicts) * per,
                "x accuracy": total / base,
            })
    text = (
        f"### Aggregator CPU by measure: {k} folds, {a.rows:,} rows, batches of {a.batch}, "
        f"tests every 1,000 rows, adwin forgetting (best of {a.repeats})\n\n{table(rows)}\n\n"
        "The verdicts' part: the paired windows (hard labels for every measure, the paired "
        "score windows for auc, brier and log_loss), the confidence sequences and the "
        "verdict rows; the rest: each learner's own windows (and own score windows), the "
        "fold tests and McNemar. The paired score windows' cost: the verdicts' CPU beyond "
        "that of the same learners under `--measure accuracy`."
    )
    save("paired_scores", text, {"rows": rows, "args": vars(a)})


if __name__ == "__main__":
    main()
