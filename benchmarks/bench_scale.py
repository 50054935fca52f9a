"""How one run scales with cores: placement, start-up, a cold first run.

(a) **Simulated actors.** Learners that sleep instead of computing (:mod:`sleepy`), at the
    per-row costs of river's Hoeffding tree (48 µs) and Gaussian naive Bayes (140 µs) on
    Electricity, 10-fold prequential bootstrap on SEA rows, at 4, 8, 16, 32 and 64 actors
    on a Ray told it has that many CPUs: sleeping actors do not compete for cores, so the
    engine's own costs are what is real. Each size twice in the same script run: the
    replicas dealt round-robin with the first balance look 20 s after the hand-over (as
    before placement by cost), and placed by the warm-up's costs (LPT) with the first look
    2 s after. The driver evaluates one batch, waits until every actor is up and hands
    over, so the actor phase is measured alone.

    - ideal rows/s = actors / (10 × (48 + 140) µs);
    - E = rows/s between the first and the last actor step / ideal (steady state);
    - P = the placement bound: total cost / (actors × the busiest actor's cost), for the
      round-robin layout and the LPT layout; at most one actor per replica, so 32 and 64
      actors make 20;
    - E / P(LPT) is the share of the best layout's bound reached (goal >= 0.9).

(b) **The real default job** (`distval run`: HT against NB, 10-fold bootstrap, Electricity)
    on every core of this machine, each run a fresh process: in-process, `--backend ray`
    and the default `auto`; with ``--old-tree`` the same with that checkout (alternated
    rounds, so its in-process time compares in the same script run).

(c) **Start-up timeline** of each Ray run of (b), from its ``summary.json``: ``ray.init``,
    the hand-over, the first and last actor steps, shutdown (seconds since the run's start).

(d) **Cold against warm**: the default job with numba's cache empty (``NUMBA_CACHE_DIR`` a
    fresh folder), then again with it filled; and the aggregator's first batch alone, cold and
    warm, fed writeable or read-only arrays (what the Ray actor gets from the object store).

    python benchmarks/bench_scale.py --quick        # a 2-core machine, about 5 minutes
    python benchmarks/bench_scale.py --device       # 16 cores, about 6 minutes
    python benchmarks/bench_scale.py --check --old-tree OLD   # (b)-(d) only, ~3 minutes

(c) also starts Ray alone and in a thread beside a driver evaluating river's Hoeffding tree
(fresh processes each), and (d) times the aggregator's first batch cold and warm.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(ROOT), str(HERE)]

from common import save, table  # noqa: E402

COSTS = {"ht": 48.0, "nb": 140.0}  # µs per row, river on Electricity (CPU time)
SPECS = tuple(f"sleepy:SleepClassifier(cost_us={c})" for c in COSTS.values())
K = 10
PHASES = ("ray_init_start", "ray_init_end", "actors_up", "hand_over", "first_actor_step",
          "last_actor_step", "shutdown_start", "shutdown_end")


def bound(groups: list[list[tuple[int, int]]], actors: int) -> float:
    """P: total cost / (actors x the busiest group's cost)."""
    cost = list(COSTS.values())
    loads = [sum(cost[i] for i, _ in g) for g in groups]
    return sum(loads) / (actors * max(loads))


def simulate(actors: int, placement: str, seconds: float) -> dict:
    """One simulated run on the Ray already started (module docstring, (a))."""
    from distval import RunConfig
    from distval.engine.loop import open_config_stream
    from distval.engine.run import Timeline
    from distval.ray_backend.engine import RayRun, balance_slots, deal_slots

    ideal = actors / (K * sum(COSTS.values()) * 1e-6)
    made = min(actors, 2 * K)
    rows = int(1000 + made / (K * sum(COSTS.values()) * 1e-6) * seconds) // 1000 * 1000
    cfg = RunConfig(stream="sea", n_rows=rows, learners=SPECS, n_folds=K, scheme="bootstrap",
                    test_every=1000, batch_size=1000)
    timeline = Timeline()
    run = RayRun(cfg, open_config_stream(cfg), n_actors=actors, warm_up_batches=1,
                 placement=placement, timeline=timeline,
                 first_look_seconds=2.0 if placement == "cost" else 20.0)
    while not run.ready():
        time.sleep(0.05)
    times = []
    for step in run.steps():
        if step.where == "actors" and step.rows:
            times.append((time.perf_counter(), step.rows))
    (t0, _), (t1, _) = times[0], times[-1]
    steady = sum(r for _, r in times[1:]) / (t1 - t0)
    slot_cost = {(i, f): list(COSTS.values())[i] for i in range(2) for f in range(K)}
    p_rr = bound(deal_slots(2, K, actors), actors)
    p_lpt = bound(balance_slots(slot_cost, made), actors)
    return {
        "actors": actors, "made": made, "placement": placement, "rows": rows,
        "P round-robin": p_rr, "P LPT": p_lpt,
        "rows/s": steady, "E": steady / ideal, "E / P(LPT)": steady / ideal / p_lpt,
        "moves": sum(m for *_, m in run.balance), "looks": len(run.balance),
        "actor phase s": t1 - t0,
    }


def part_a(sizes: list[int], seconds: float) -> list[dict]:
    import ray

    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(HERE), *filter(None, [os.environ.get("PYTHONPATH")])])
    ray.init(num_cpus=max(sizes), include_dashboard=False, logging_level=logging.WARNING)
    out = []
    try:
        for actors in sizes:
            for placement in ("round-robin", "cost"):
                r = simulate(actors, placement, seconds)
                print(json.dumps(r), flush=True)
                out.append(r)
    finally:
        ray.shutdown()
    return out


def path_for(tree: Path) -> str:
    """PYTHONPATH for a fresh process of ``tree``: it and this folder first, then what this
    process was given (site folders), without this checkout."""
    mine = {str(ROOT), str(HERE), os.path.realpath(ROOT), os.path.realpath(HERE)}
    given = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
             if p and os.path.realpath(p) not in mine]
    return os.pathsep.join([str(tree), str(HERE), *given])


def cli_run(tree: Path, backend: str, n_rows: int | None, cache: str, label: str) -> dict:
    """One `distval run` of the default job in a fresh process of ``tree``."""
    out = Path(tempfile.mkdtemp(prefix="scale-"))
    env = dict(os.environ, PYTHONPATH=path_for(tree), NUMBA_CACHE_DIR=cache)
    env.pop("RAY_ADDRESS", None)
    cmd = [sys.executable, "-m", "distval.cli", "run", "--no-progress", "--output", str(out),
           "--overwrite", "--backend", backend]
    if n_rows:
        cmd += ["--n-rows", str(n_rows)]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        print(done.stderr[-2000:], flush=True)
        return {"run": label, "backend": backend, "wall s": wall, "error": done.returncode}
    summary = json.loads((out / "summary.json").read_text())
    r = {"run": label, "backend": backend, "rows": summary["rows"], "wall s": wall,
         "elapsed s": summary["elapsed_seconds"], "evaluated_by": summary["evaluated_by"],
         "timeline": summary.get("timeline", {})}
    print(json.dumps(r), flush=True)
    return r


AGG_PROBE = r"""
import json, sys, time
import numpy as np
from distval.aggregator.core import Aggregator
from distval import RunConfig
agg = Aggregator.from_config(RunConfig(learners=("ht", "nb"), n_folds=10), n_classes=2)
rng = np.random.default_rng(0)
y = rng.integers(0, 2, 1000); p = rng.integers(0, 2, (20, 1000)).astype(np.int32)
if sys.argv[1] == "ro":
    y.setflags(write=False); p.setflags(write=False)
t = time.perf_counter(); agg.update(0, y, [(np.arange(20), p)], arrived=1000)
print(json.dumps(time.perf_counter() - t))
"""


START_PROBE = r"""
import json, logging, sys, threading, time
t0 = time.perf_counter()
mode = sys.argv[1]
stop = threading.Event()
rows = [0]
from river import datasets, tree
def evaluate():  # the driver's own work meanwhile: river's Hoeffding tree on SEA rows
    model = tree.HoeffdingTreeClassifier()
    for x, y in datasets.synth.SEA(seed=1).take(10**7):
        model.predict_one(x); model.learn_one(x, y); rows[0] += 1
        if stop.is_set():
            return
import ray
def start():
    ray.init(address="local", include_dashboard=False, logging_level=logging.WARNING,
             _node_ip_address="127.0.0.1")
if mode == "blocking":
    start(); up = time.perf_counter() - t0
else:
    worker = threading.Thread(target=evaluate); worker.start()
    if mode == "threaded":
        sys.setswitchinterval(0.0005)
    start(); up = time.perf_counter() - t0
    stop.set(); worker.join()
ray.shutdown()
print(json.dumps({"mode": mode, "ray up s": up, "driver rows meanwhile": rows[0]}))
"""

def start_modes(tree: Path, rounds: int = 2) -> list[dict]:
    """``ray.init`` alone (blocking) against ``ray.init`` in a thread beside a driver that
    evaluates river's Hoeffding tree meanwhile (threaded), each in a fresh process."""
    env = dict(os.environ, PYTHONPATH=path_for(tree))
    env.pop("RAY_ADDRESS", None)
    rows = []
    for mode in ("blocking", "threaded") * rounds:
        done = subprocess.run([sys.executable, "-c", START_PROBE, mode], env=env,
                              capture_output=True, text=True)
        lines = done.stdout.strip().splitlines()
        rows.append(json.loads(lines[-1]) if done.returncode == 0 and lines
                    else {"mode": mode, "error": done.stderr[-300:]})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def agg_probe(tree: Path, cache: str, mode: str) -> float:
    env = dict(os.environ, PYTHONPATH=path_for(tree), NUMBA_CACHE_DIR=cache)
    done = subprocess.run([sys.executable, "-c", AGG_PROBE, mode], env=env, check=True,
                          capture_output=True, text=True)
    return float(done.stdout.strip().splitlines()[-1])


def part_d_probe(tree: Path) -> list[dict]:
    """The aggregator's first batch: cold, then warm, with writeable then read-only arrays."""
    cache = tempfile.mkdtemp(prefix="numba-")
    rows = []
    for what, mode in [("cold, writeable", "rw"), ("warm, writeable", "rw"),
                       ("then read-only (a Ray actor before)", "ro"),
                       ("read-only again", "ro")]:
        rows.append({"aggregator's first batch": what, "seconds": agg_probe(tree, cache, mode)})
        print(json.dumps(rows[-1]), flush=True)
    return rows


def short_check(old: Path | None, name: str, n_rows: int | None = None) -> None:
    """One short before/after run (about 3 minutes on 16 cores): cold then warm under
    ``auto`` for this tree and ``old``, ``--backend ray`` warm, the two ways to start Ray,
    the aggregator's first batch cold and warm (``--check``)."""
    data: dict = {}
    text = [f"# bench_scale ({name})", "",
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
            f"load average at the start {os.getloadavg()[0]:.1f}", ""]
    trees = [("new", ROOT, tempfile.mkdtemp(prefix="numba-"))]
    if old is not None:
        trees.append(("old", old, tempfile.mkdtemp(prefix="numba-old-")))
    runs = [cli_run(t, "auto", n_rows, c, f"{label}, cold") for label, t, c in trees]
    runs += [cli_run(t, "auto", n_rows, c, f"{label}, warm") for label, t, c in trees]
    runs.append(cli_run(ROOT, "ray", n_rows, trees[0][2], "new, warm"))
    text += ["## (b), (d) The default job: cold and warm", "",
             table([{k: v for k, v in r.items() if k != "timeline"} for r in runs]), "",
             "## (c) Start-up timelines (seconds since the run's start)", ""]
    lines = []
    for r in runs:
        tl = r.get("timeline") or {}
        init = tl.get("ray_init_end", 0) - tl.get("ray_init_start", 0)
        lines.append({"run": r["run"], "backend": r["backend"],
                      **{k: tl.get(k, "") for k in PHASES}, "ray.init s": init,
                      "elapsed s": r.get("elapsed s", "")})
    text += [table(lines, ["run", "backend", *PHASES, "ray.init s", "elapsed s"]), "",
             "## (c) Starting Ray: alone, or in a thread beside an evaluating driver", ""]
    modes = start_modes(ROOT, rounds=1)
    text += [table(modes), "", "## (d) The aggregator's first batch (new tree)", ""]
    cache = tempfile.mkdtemp(prefix="numba-")
    probe = [{"aggregator's first batch": w, "seconds": agg_probe(ROOT, cache, "rw")}
             for w in ("cold", "warm")]
    text += [table(probe), "", f"load average at the end {os.getloadavg()[0]:.1f}"]
    data.update(runs=runs, timelines=lines, start_modes=modes, probe=probe)
    save(name, "\n".join(text), data)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="2-core size")
    size.add_argument("--device", action="store_true", help="16-core size, ~6 minutes")
    ap.add_argument("--old-tree", type=Path, help="a checkout to compare with (before)")
    ap.add_argument("--parts", default="abcd")
    ap.add_argument("--name", default=None, help="results/<name>.md (default scale_quick, "
                    "scale_device or scale)")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--rows", type=int, default=None, help="rows of the default job's runs")
    ap.add_argument("--check", action="store_true",
                    help="only the short before/after check of start-up and a cold run")
    args = ap.parse_args()
    if args.check:
        short_check(args.old_tree, args.name or "scale_check", args.rows)
        return
    quick = args.quick
    sizes = [4, 8, 16] if quick else [4, 8, 16, 32, 64]
    seconds = 3.0 if quick else 4.0
    n_rows = args.rows or (6000 if quick else None)
    rounds = args.rounds or (2 if quick else 1)
    name = args.name or ("scale_quick" if quick else "scale_device" if args.device else "scale")
    load0 = os.getloadavg()
    data: dict = {"args": {k: str(v) for k, v in vars(args).items()}}
    text = [f"# bench_scale ({name})", "",
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
            f"load average at the start {load0[0]:.1f}", ""]
    tree = ROOT
    backend = "ray" if quick else "auto"  # 6,000 rows stay in-process under auto
    cache = tempfile.mkdtemp(prefix="numba-")  # cold until (d)'s first run
    runs: list[dict] = []
    if "d" in args.parts:
        probe = [] if args.device else part_d_probe(tree)
        cold = cli_run(tree, backend, n_rows, cache, "new, cold")
        warm = cli_run(tree, backend, n_rows, cache, "new, warm")
        runs += [cold, warm]
        data["d"] = {"probe": probe, "runs": [cold, warm]}
        text += ["## (d) Cold against warm", ""]
        if probe:
            text += [table(probe), ""]
        text += [table([{k: v for k, v in r.items() if k != "timeline"} for r in (cold, warm)]),
                 ""]
    if "b" in args.parts or "c" in args.parts:
        old_cache = tempfile.mkdtemp(prefix="numba-old-")
        trees = [("new", tree, cache)]
        if args.old_tree:
            trees.append(("old", args.old_tree, old_cache))
        for label, t, c in trees:  # fill each tree's cache (its actors' kernels included)
            cli_run(t, "ray", 3000, c, f"{label}, cache warm-up")
        # on 16 cores: in-process once (100 s), the old tree on Ray only
        plan = [("inprocess", "new"), ("ray", "new"), ("ray", "old"), ("auto", "old")]
        if "d" not in args.parts:
            plan.append(("auto", "new"))
        if quick:
            plan = [("inprocess", "new"), ("inprocess", "old"), ("ray", "new"), ("ray", "old")]
        for _ in range(rounds):
            for b, label in plan:
                for name_, t, c in trees:
                    if name_ == label:
                        runs.append(cli_run(t, b, n_rows, c, label))
        data["b"] = runs
        text += ["## (b) The default job, every core", "",
                 table([{k: v for k, v in r.items() if k != "timeline"} for r in runs]), ""]
        text += ["## (c) Start-up timelines (seconds since the run's start)", ""]
        lines = []
        for r in runs:
            tl = r.get("timeline") or {}
            if not tl:
                continue
            init = tl.get("ray_init_end", 0) - tl.get("ray_init_start", 0)
            marks = {k: tl.get(k, "") for k in PHASES}
            lines.append({"run": r["run"], "backend": r["backend"], **marks,
                          "ray.init s": init,
                          "hand-over - ray.init s": tl.get("hand_over", float("nan")) - init,
                          "elapsed s": r["elapsed s"]})
        if lines:
            text += [table(lines, ["run", "backend", *PHASES, "ray.init s",
                                   "hand-over - ray.init s", "elapsed s"]), ""]
        data["c"] = lines
    if "a" in args.parts:
        sim = part_a(sizes, seconds)
        data["a"] = sim
        text += ["## (a) Simulated actors (sleeping learners, HT 48 µs, NB 140 µs a row)", "",
                 table(sim, ["actors", "made", "placement", "rows", "P round-robin", "P LPT",
                             "rows/s", "E", "E / P(LPT)", "looks", "moves", "actor phase s"]),
                 ""]
    load1 = os.getloadavg()
    text += [f"load average at the end {load1[0]:.1f}"]
    save(name, "\n".join(text), data)


if __name__ == "__main__":
    main()
