"""Ray engine: parallel efficiency, peak memory, and MOA's EvaluatePrequentialCV side by side.

Workload (issue "Ray engine"): Hoeffding tree and Gaussian naive Bayes, 10-fold prequential
bootstrap, river SEA (noise 0), 100,000 rows, on every core of this machine.

- single-replica rate: one river replica of each learner, alone, predict + Poisson(1) learn
  per row (its rows/s, measured here on the first rows of the same stream);
- ideal Ray throughput = cores / (time per row of all replicas run one after the other);
- parallel efficiency = measured Ray-engine throughput / ideal (goal >= 0.90). This machine's
  speed drifts by +-25 % within seconds, so every Ray run (``--repeats``, default 3) has its
  own calibration just before and just after it, and the median run is reported;
- steady-state efficiency: the same from the rows/s between the first and the last snapshot,
  without Ray's start-up and shutdown;
- hardware scaling: the same bare river loop (HT then NB) timed alone and then on every core
  at once, in interleaved pairs so that the drift cancels; the median of (time alone / time
  with every core busy) is the best parallel efficiency any program reaches on this machine
  with these learners, and efficiency / scaling is the engine's share of what is left;
- ``--sweep``: efficiency of other layouts and batch sizes on a shorter stream (one actor per
  core vs one actor per fold replica; batches of 250 / 1,000 / 4,000 rows);
- balance: each learner actor's CPU seconds over the run (from /proc, boot included) and
  how far the busiest is above their mean; the engine's own looks at the balance
  (``RayRun.balance``: the spread of the replicas' work since the previous look, and whether
  the replicas moved);
- peak memory: resident memory of the driver and every Ray process it started (goal <= 2.5 GB);
- MOA: ``EvaluatePrequentialCV -w 10 -a Bootstrap-Validation`` with ``trees.HoeffdingTree``
  and with ``bayes.NaiveBayes`` on ``generators.SEAGenerator -p 0`` (the jar shipped in the
  ``capymoa`` wheel, run with ``java``), wall time of both runs added up.

    python benchmarks/bench_ray.py [--rows 100000] [--repeats 3] [--batch-size 1000]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import distval
from distval import RunConfig
from distval.engine.loop import open_config_stream
from distval.engine.run import Run
from distval.learners import parse_learner
from distval.learners.batch import to_dicts
from distval.learners.weights import learns_with_weight
from distval.ray_backend.engine import RayRun
from distval.ray_backend.session import ray_session
from distval.streams import open_stream

from common import PeakRSS, ProcessCPU, save, table, timed

LEARNERS = ("ht", "nb")
MOA_LEARNERS = {"ht": "trees.HoeffdingTree", "nb": "bayes.NaiveBayes"}


def _replica_data(n: int, seed: int):
    stream = open_stream("sea", n_rows=n, seed=seed)
    xs, ys = [], []
    for c in stream.chunks(5000):
        xs += to_dicts(c.X, stream.feature_names)
        ys += c.y.tolist()
    return xs, ys, np.random.default_rng(seed).poisson(1.0, n).tolist()


def _replica_loop(name: str, xs, ys, w) -> float:
    """Seconds of one river replica: predict each row, then learn it with its weight."""
    model = parse_learner(name).build()
    weighted = learns_with_weight(model)
    predict, learn = model.predict_one, model.learn_one

    def loop():
        for x, y, wi in zip(xs, ys, w):
            predict(x)
            if wi:
                if weighted:
                    learn(x, y, w=wi)
                else:
                    for _ in range(wi):
                        learn(x, y)

    return timed(loop)[0]


def single_replica_rate(name: str, n: int, seed: int = 1) -> float:
    """Rows/s of one river replica: predict, then learn with a Poisson(1) weight."""
    return n / _replica_loop(name, *_replica_data(n, seed))


def calibrate(n: int) -> dict:
    return {name: single_replica_rate(name, n) for name in LEARNERS}


def _both_learners(args) -> float:
    n, seed = args
    data = _replica_data(n, seed)
    return sum(_replica_loop(name, *data) for name in LEARNERS)


def hardware_scaling(n: int, cores: int, pairs: int) -> list[float]:
    """(time alone / mean time with every core running the same loop) for interleaved pairs."""
    from concurrent.futures import ProcessPoolExecutor

    ratios = []
    with ProcessPoolExecutor(cores) as pool:
        list(pool.map(_both_learners, [(n, s) for s in range(cores)]))  # warm the workers
        for rep in range(pairs):
            alone = pool.submit(_both_learners, (n, rep)).result()
            busy = list(pool.map(_both_learners, [(n, rep + 100 * c) for c in range(cores)]))
            ratios.append(alone / float(np.mean(busy)))
    return ratios


def ideal_rate(rates: dict, folds: int, cores: int) -> float:
    """Rows/s of the whole job if the cores ran the replicas at these single rates."""
    return cores / (folds * sum(1 / r for r in rates.values()))


def evaluate_on_ray(opts: dict, out: str, n_actors=None) -> tuple:
    """(result, the RayRun, times): what ``distval.evaluate(backend="ray")`` does, keeping
    the engine and when things happened (perf_counter): Ray up, the actors' first step, the
    last step, Ray shut down."""
    cfg = RunConfig(**opts)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream, output_dir=out, backend="ray")
    marks = {"start": time.perf_counter()}
    with ray_session():
        marks["ray up"] = time.perf_counter()
        engine = RayRun(cfg, stream, n_actors=n_actors)
        for step in engine.steps():
            run.feed(step)
            if step.where == "actors":
                marks.setdefault("actors' first step", time.perf_counter())
        marks["last step"] = time.perf_counter()
    marks["ray down"] = time.perf_counter()
    return run.close(), engine, marks


def ray_run(opts: dict, n_actors, out: str) -> dict:
    """One Ray-engine run: wall seconds, steady rows/s, peak RSS bytes, the result, the
    learner actors' CPU seconds and their cores in the middle of the run, the engine's
    balance looks and the run's timeline."""
    with PeakRSS() as mem, ProcessCPU("ray::LearnerAct") as cpu:
        t, (res, engine, marks) = timed(evaluate_on_ray, opts, out, n_actors)
    secs = res.snapshot_seconds
    first_pos = res.fold_rows[0]["position"]
    steady = (opts["n_rows"] - first_pos) / (secs[-1] - secs[0]) if len(secs) > 1 else None
    end = marks["last step"]
    begin = marks.get("actors' first step", end)  # a short stream: the driver did it all
    return {
        "wall": t,
        "steady": steady,
        "peak": mem.peak,
        "result": res,
        "actor_cpu": sorted(cpu.seconds.values()),
        "mid_cores": cpu.cores(begin + 0.2 * (end - begin), end - 0.1 * (end - begin)),
        "looks": engine.balance,
        "timeline": {k: v - marks["start"] for k, v in marks.items() if k != "start"},
        "driver_rows": res.evaluated_by.get("driver", 0),
    }


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


def calibrated_run(opts: dict, n_actors, out: str, folds: int, cores: int, n_cal: int) -> dict:
    """One Ray-engine run between two calibrations; efficiency against their mean."""
    before = calibrate(n_cal)
    r = ray_run(opts, n_actors, out)
    after = calibrate(n_cal)
    ideal = ideal_rate({k: (before[k] + after[k]) / 2 for k in LEARNERS}, folds, cores)
    rows = opts["n_rows"]
    summary = r["result"].summary()["learners"]
    t, steady, actor_cpu, looks = r["wall"], r["steady"], r["actor_cpu"], r["looks"]
    line = r["timeline"]
    return {
        "wall s": t,
        "rows/s": rows / t,
        "steady rows/s": steady,
        "ideal rows/s": ideal,
        "efficiency": rows / t / ideal,
        "steady efficiency": (steady or float("nan")) / ideal,
        "peak RSS GB": r["peak"] / 1e9,
        "ray up s": line["ray up"],
        "driver rows": r["driver_rows"],
        "actors from s": line.get("actors' first step"),
        "last step s": line["last step"],
        "ray down s": line["ray down"] - line["last step"],
        "actor cores mid-run": r["mid_cores"],
        "actor CPU s": " / ".join(f"{c:.1f}" for c in actor_cpu),
        "actor spread": max(actor_cpu) / float(np.mean(actor_cpu)) - 1 if actor_cpu else None,
        "looks": len(looks),
        "moves": sum(moved for *_, moved in looks),
        "work spread seen": float(np.median([now for now, *_ in looks])) if looks else None,
        "balance": looks,
        "ht acc": summary["ht"]["cumulative"]["accuracy"]["mean"],
        "nb acc": summary["nb"]["cumulative"]["accuracy"]["mean"],
        "rates": {"before": before, "after": after},
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=1000)
    p.add_argument("--actors", type=int, default=None)
    p.add_argument("--repeats", type=int, default=3, help="Ray runs, each calibrated")
    p.add_argument("--calibration-rows", type=int, default=20_000)
    p.add_argument("--scaling-rows", type=int, default=4_000)
    p.add_argument("--scaling-pairs", type=int, default=8)
    p.add_argument("--skip-inprocess", action="store_true")
    p.add_argument("--sweep", action="store_true", help="also try other layouts/batch sizes")
    p.add_argument("--sweep-rows", type=int, default=30_000)
    a = p.parse_args()
    cores = os.cpu_count() or 1
    scaling = hardware_scaling(a.scaling_rows, cores, a.scaling_pairs)
    scale = float(np.median(scaling))
    opts = dict(
        stream="sea",
        n_rows=a.rows,
        learners=LEARNERS,
        n_folds=a.folds,
        scheme="bootstrap",
        batch_size=a.batch_size,
        test_every=1000,
    )
    runs = []
    for rep in range(a.repeats):
        with tempfile.TemporaryDirectory() as out:
            r = calibrated_run(opts, a.actors, f"{out}/ray", a.folds, cores, a.calibration_rows)
        runs.append({"run": f"ray #{rep + 1}"} | r)
        print(f"ray run {rep + 1}: {r['rows/s']:.0f} rows/s, efficiency {r['efficiency']:.3f}")
    median = sorted(runs, key=lambda r: r["efficiency"])[len(runs) // 2]
    efficiency = median["efficiency"]
    ideal = median["ideal rows/s"]
    t_ray = median["wall s"]
    inproc = None
    if not a.skip_inprocess:
        before = calibrate(a.calibration_rows)
        with PeakRSS() as mem, tempfile.TemporaryDirectory() as out:
            t_in, _ = timed(distval.evaluate, **opts, output_dir=f"{out}/in")
        after = calibrate(a.calibration_rows)
        one_core = ideal_rate({k: (before[k] + after[k]) / 2 for k in LEARNERS}, a.folds, 1)
        inproc = {
            "run": "in-process (1 core)",
            "wall s": t_in,
            "rows/s": a.rows / t_in,
            "ideal rows/s": one_core,
            "efficiency": a.rows / t_in / one_core,
            "peak RSS GB": mem.peak / 1e9,
        }
    sweep = []
    if a.sweep:
        replicas = a.folds * len(LEARNERS)
        for n_act, bs in [(cores, 250), (cores, 1000), (cores, 4000), (replicas, 1000)]:
            o = opts | {"n_rows": a.sweep_rows, "batch_size": bs, "test_every": max(bs, 1000)}
            with tempfile.TemporaryDirectory() as out:
                r = calibrated_run(o, n_act, f"{out}/s", a.folds, cores, a.calibration_rows)
            sweep.append({"learner actors": n_act, "batch rows": bs} | r)
    jar = moa_jar()
    moa = {k: run_moa(jar, v, a.rows, a.folds) for k, v in MOA_LEARNERS.items()} if jar else {}
    run_cols = ["run", "wall s", "rows/s", "steady rows/s", "ideal rows/s", "efficiency"]
    run_cols += ["steady efficiency", "peak RSS GB", "ht acc", "nb acc"]
    time_cols = ["run", "wall s", "ray up s", "driver rows", "actors from s", "last step s"]
    time_cols += ["ray down s", "actor cores mid-run", "actor CPU s", "actor spread", "looks"]
    time_cols += ["moves", "work spread seen"]
    lines = [
        f"### Ray engine: HT + NB, {a.folds}-fold prequential bootstrap, SEA {a.rows:,} rows, "
        f"{cores} cores, batches of {a.batch_size}, {a.actors or cores} learner actors",
        "",
        table(runs + ([inproc] if inproc else []), run_cols),
        "",
        "Where the time of each Ray run went (seconds from the start of the run):",
        "",
        table(runs, time_cols),
        "",
        "- ideal rows/s: cores / (time per row of the 20 replicas one after the other), from "
        "single-replica rates calibrated just before and just after each run (mean); the "
        "in-process row uses one core",
        f"- parallel efficiency (median of {len(runs)} runs): **{efficiency:.3f}** overall, "
        f"**{median['steady efficiency']:.3f}** in steady state (goal >= 0.90); all runs: "
        + ", ".join(f"{r['efficiency']:.3f}" for r in runs),
        f"- hardware scaling: a bare river loop (HT then NB, {a.scaling_rows:,} rows) runs "
        f"alone in t and with all {cores} cores busy in t / s; s over {len(scaling)} "
        f"interleaved pairs: median **{scale:.3f}** (range {min(scaling):.3f}-"
        f"{max(scaling):.3f}). No layout can beat s with these learners here"
        + (", so 0.90 is out of reach on this machine" if scale < 0.90 else "")
        + f"; the engine delivers **{efficiency / scale:.2f}** of what the hardware allows "
        f"({median['steady efficiency'] / scale:.2f} in steady state)",
        "- ray up s: `ray.init` done; driver rows: rows the driver evaluated while the actors "
        "booted; actors from s: the actors' first step (after the hand-over); last step s: "
        "the end of the stream; ray down s: the actors' kill and `ray.shutdown` after it; "
        "actor cores mid-run: the learner actors' CPU seconds per second between 20 % and "
        "90 % of their part of the run (2.0: both cores busy with learners)",
        "- actor CPU s: each learner actor's CPU seconds (boot included); actor spread: the "
        "busiest one's excess over their mean; looks / moves: the engine's looks at the "
        "balance (every 20 s) and those that moved replicas; work spread seen: the median "
        "excess of the busiest actor's replica work between looks",
        f"- peak memory of all Ray processes: **{max(r['peak RSS GB'] for r in runs):.2f} GB** "
        "(goal <= 2.5 GB)",
    ]
    if moa and all(moa.values()):
        t_moa = sum(moa.values())
        per_core = ideal / cores  # rows/s one core gives with every replica on it
        lines += [
            f"- MOA wall time {t_moa:.1f} s (HT {moa['ht']:.1f} s + NB {moa['nb']:.1f} s, one "
            f"core) vs distval {t_ray:.1f} s: distval / MOA time = **{t_ray / t_moa:.1f}x**",
            f"- break-even: distval would match MOA's {a.rows / t_moa:,.0f} rows/s with about "
            f"**{(a.rows / t_moa) / (per_core * efficiency):,.0f} cores** at the measured "
            f"per-core rate ({per_core:,.0f} rows/s) and efficiency",
        ]
    else:
        lines.append(
            "- MOA not run: needs `pip install capymoa` (its wheel ships moa.jar) and `java`"
        )
    if sweep:
        cols = ["learner actors", "batch rows", "rows/s", "efficiency", "steady efficiency"]
        lines += [
            "",
            f"Layouts and batch sizes ({a.sweep_rows:,} rows, each run calibrated):",
            "",
            table(sweep, [*cols, "peak RSS GB"]),
        ]
    data = {
        "runs": runs,
        "inprocess": inproc,
        "efficiency": efficiency,
        "steady_efficiency": median["steady efficiency"],
        "hardware_scaling": scaling,
        "sweep": sweep,
        "moa_seconds": moa,
        "args": vars(a),
    }
    save("ray", "\n".join(lines), data)


if __name__ == "__main__":
    main()
