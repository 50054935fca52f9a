"""Ray engine: parallel efficiency, peak memory, and MOA's EvaluatePrequentialCV side by side.

Workload (issue "Ray engine"): Hoeffding tree and Gaussian naive Bayes, 10-fold prequential
bootstrap, river SEA (noise 0), 100,000 rows, on every core of this machine.

- single-replica rate: one river replica of each learner, alone, predict + Poisson(1) learn
  per row (its rows/s, measured here on the first rows of the same stream);
- ideal Ray throughput = cores / (time per row of all replicas run one after the other);
- parallel efficiency = measured Ray-engine throughput / ideal (goal >= 0.90);
- steady-state efficiency: the same from the rows/s between the first and the last snapshot,
  without Ray's start-up and the actors' imports;
- hardware ceiling: the single-replica rates measured again with one calibration loop per core
  running at the same time (cores share caches and memory bandwidth); ideal throughput at
  those rates divided by the ideal above is the best efficiency any layout can reach here;
- ``--sweep``: efficiency of other layouts and batch sizes on a shorter stream (one actor per
  core vs one actor per fold replica; batches of 250 / 1,000 / 4,000 rows);
- peak memory: resident memory of the driver and every Ray process it started (goal <= 2.5 GB);
- MOA: ``EvaluatePrequentialCV -w 10 -a Bootstrap-Validation`` with ``trees.HoeffdingTree``
  and with ``bayes.NaiveBayes`` on ``generators.SEAGenerator -p 0`` (the jar shipped in the
  ``capymoa`` wheel, run with ``java``), wall time of both runs added up.

    python benchmarks/bench_ray.py [--rows 100000] [--batch-size 1000] [--actors N]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

import distval
from distval.host import to_dicts
from distval.learners import parse_learner
from distval.streams import open_stream

from common import PeakRSS, save, table, timed

LEARNERS = ("ht", "nb")
MOA_LEARNERS = {"ht": "trees.HoeffdingTree", "nb": "bayes.NaiveBayes"}


def single_replica_rate(name: str, n: int, seed: int = 1) -> float:
    """Rows/s of one river replica: predict, then learn with a Poisson(1) weight."""
    stream = open_stream("sea", n_rows=n, seed=seed)
    xs, ys = [], []
    for c in stream.chunks(5000):
        xs += to_dicts(c.X, stream.feature_names)
        ys += c.y.tolist()
    w = np.random.default_rng(seed).poisson(1.0, n).tolist()
    spec = parse_learner(name)
    model = spec.build()
    weighted = "w" in model.learn_one.__code__.co_varnames

    def loop():
        for x, y, wi in zip(xs, ys, w):
            model.predict_one(x)
            if wi:
                if weighted:
                    model.learn_one(x, y, w=wi)
                else:
                    for _ in range(wi):
                        model.learn_one(x, y)

    t, _ = timed(loop)
    return n / t


def _rates(n: int) -> dict:
    return {name: single_replica_rate(name, n) for name in LEARNERS}


def contended_rates(n: int, cores: int) -> dict:
    """Single-replica rates while every core runs the same calibration at once."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(cores) as pool:
        results = list(pool.map(_rates, [n] * cores))
    return {name: float(np.mean([r[name] for r in results])) for name in LEARNERS}


def ray_run(opts: dict, n_actors, out: str):
    """(wall seconds, steady rows/s, peak RSS bytes, result) of one Ray-engine run."""
    with PeakRSS() as mem:
        t, res = timed(distval.evaluate, **opts, backend="ray", n_actors=n_actors, output_dir=out)
    secs = res.snapshot_seconds
    first_pos = res.fold_rows[0]["position"]
    steady = (opts["n_rows"] - first_pos) / (secs[-1] - secs[0]) if len(secs) > 1 else None
    return t, steady, mem.peak, res


def moa_jar() -> Path | None:
    spec = importlib.util.find_spec("capymoa")
    if spec is None or spec.origin is None:
        return None
    jar = Path(spec.origin).parent / "jar" / "moa.jar"
    return jar if jar.exists() else None


def run_moa(jar: Path, learner: str, rows: int, folds: int) -> float | None:
    java = shutil.which("java")
    if java is None:
        return None
    task = (
        f"EvaluatePrequentialCV -l {learner} -s (generators.SEAGenerator -p 0) "
        f"-i {rows} -f {rows} -w {folds} -a Bootstrap-Validation"
    )
    t, out = timed(
        subprocess.run,
        [java, "-Xmx4g", "-Xss10M", "-cp", str(jar), "moa.DoTask", task],
        capture_output=True,
        text=True,
    )
    return t if out.returncode == 0 else None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=1000)
    p.add_argument("--actors", type=int, default=None)
    p.add_argument("--calibration-rows", type=int, default=20_000)
    p.add_argument("--skip-inprocess", action="store_true")
    p.add_argument("--sweep", action="store_true", help="also try other layouts/batch sizes")
    p.add_argument("--sweep-rows", type=int, default=30_000)
    a = p.parse_args()
    cores = os.cpu_count() or 1
    rates = {name: single_replica_rate(name, a.calibration_rows) for name in LEARNERS}
    busy = contended_rates(a.calibration_rows, cores)
    serial_row = a.folds * sum(1 / r for r in rates.values())  # s per row, all replicas
    ideal = cores / serial_row
    ceiling = (cores / (a.folds * sum(1 / r for r in busy.values()))) / ideal
    opts = dict(
        stream="sea",
        n_rows=a.rows,
        learners=LEARNERS,
        n_folds=a.folds,
        scheme="bootstrap",
        batch_size=a.batch_size,
        test_every=1000,
    )
    rows = []
    with tempfile.TemporaryDirectory() as out:
        t_ray, steady, peak, res = ray_run(opts, a.actors, f"{out}/ray")
        rows.append(
            {
                "run": f"distval ray ({a.actors or cores} learner actors)",
                "wall s": t_ray,
                "rows/s": a.rows / t_ray,
                "steady rows/s": steady,
                "peak RSS GB": peak / 1e9,
                "ht acc": res.summary()["learners"]["ht"]["cumulative"]["accuracy"]["mean"],
                "nb acc": res.summary()["learners"]["nb"]["cumulative"]["accuracy"]["mean"],
            }
        )
        if not a.skip_inprocess:
            with PeakRSS() as mem:
                t_in, _ = timed(distval.evaluate, **opts, output_dir=f"{out}/in")
            rows.append(
                {
                    "run": "distval in-process",
                    "wall s": t_in,
                    "rows/s": a.rows / t_in,
                    "peak RSS GB": mem.peak / 1e9,
                }
            )
    # This VM's speed drifts over minutes: calibrate again after the runs and use the mean.
    after = {name: single_replica_rate(name, a.calibration_rows) for name in LEARNERS}
    rates = {name: (rates[name] + after[name]) / 2 for name in LEARNERS}
    serial_row = a.folds * sum(1 / r for r in rates.values())
    ideal_before = ideal
    ideal = cores / serial_row
    efficiency = (a.rows / t_ray) / ideal
    steady_eff = steady / ideal if steady else float("nan")
    sweep = []
    if a.sweep:
        replicas = a.folds * len(LEARNERS)
        for n_act, bs in [(cores, 250), (cores, 1000), (cores, 4000), (replicas, 1000)]:
            o = opts | {"n_rows": a.sweep_rows, "batch_size": bs, "test_every": max(bs, 1000)}
            with tempfile.TemporaryDirectory() as out:
                t, st, pk, _ = ray_run(o, n_act, f"{out}/s")
            sweep.append(
                {
                    "learner actors": n_act,
                    "batch rows": bs,
                    "rows/s": a.sweep_rows / t,
                    "efficiency": a.sweep_rows / t / ideal,
                    "steady efficiency": (st or float("nan")) / ideal,
                    "peak RSS GB": pk / 1e9,
                }
            )
    jar = moa_jar()
    moa = {k: run_moa(jar, v, a.rows, a.folds) for k, v in MOA_LEARNERS.items()} if jar else {}
    if moa and all(moa.values()):
        t_moa = sum(moa.values())
        rows.append(
            {
                "run": "MOA EvaluatePrequentialCV (HT run + NB run, 1 core)",
                "wall s": t_moa,
                "rows/s": a.rows / t_moa,
            }
        )
    per_core = 1 / serial_row  # rows/s one core gives with every replica on it
    lines = [
        f"### Ray engine: HT + NB, {a.folds}-fold prequential bootstrap, SEA {a.rows:,} rows, "
        f"{cores} cores, batches of {a.batch_size}",
        "",
        table(rows),
        "",
        table(
            [
                {"learner": k, "single replica rows/s": v, "same, all cores busy": busy[k]}
                for k, v in rates.items()
            ]
        ),
        "",
        f"- single-replica rates: mean of a calibration before and after the runs (ideal "
        f"{ideal_before:,.0f} rows/s from the first alone; the machine's speed drifts)",
        f"- ideal throughput on {cores} cores: {ideal:,.0f} rows/s "
        f"({a.folds * len(LEARNERS)} replicas, {serial_row * 1e3:.2f} ms per row serially)",
        f"- parallel efficiency: **{efficiency:.3f}** overall, **{steady_eff:.3f}** in steady "
        "state (goal >= 0.90)",
        f"- hardware ceiling: with every core busy a replica runs at the rates of the second "
        f"column; the best efficiency any layout can reach here is **{ceiling:.3f}**",
        f"- peak memory of all Ray processes: **{rows[0]['peak RSS GB']:.2f} GB** (goal <= 2.5 GB)",
    ]
    if moa and all(moa.values()):
        t_moa = sum(moa.values())
        lines += [
            f"- MOA wall time {t_moa:.1f} s (HT {moa['ht']:.1f} s + NB {moa['nb']:.1f} s) vs "
            f"distval {t_ray:.1f} s: distval / MOA time = **{t_ray / t_moa:.1f}x**",
            f"- break-even: distval would match MOA's {a.rows / t_moa:,.0f} rows/s with about "
            f"**{(a.rows / t_moa) / (per_core * efficiency):,.0f} cores** at the measured "
            f"per-core rate ({per_core:,.0f} rows/s) and efficiency",
        ]
    else:
        lines.append(
            "- MOA not run: needs `pip install capymoa` (its wheel ships moa.jar) and `java`"
        )
    if sweep:
        lines += ["", f"Layouts and batch sizes ({a.sweep_rows:,} rows):", "", table(sweep)]
    data = {
        "rows": rows,
        "rates": rates,
        "rates_after": after,
        "ideal_before": ideal_before,
        "busy_rates": busy,
        "ideal": ideal,
        "efficiency": efficiency,
        "steady_efficiency": steady_eff,
        "ceiling": ceiling,
        "sweep": sweep,
        "moa_seconds": moa,
        "args": vars(a),
    }
    save("ray", "\n".join(lines), data)


if __name__ == "__main__":
    main()
