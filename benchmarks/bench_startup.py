"""Where the start-up of a Ray run goes: from ``ray.init`` to the hand-over and the first
actor step, phase by phase.

The job is the default one (river's Hoeffding tree against Gaussian naive Bayes, 10-fold
prequential bootstrap) on a generated stream (SEA, ``--rows`` rows; 11-25 s in-process on
the shared 2-core VM at 10,000 rows), ``--backend ray``
(:func:`distval.ray_backend.engine.iter_ray`), each run a fresh Python process. Besides
the run's own timeline (``summary.json``'s: ``ray.init``, every actor up as the driver
sees it, hand-over, first actor step), the probe watches from a thread of its own, every
10 ms:

- each learner actor and the aggregator actor up (its ``__init__`` done: river and the
  statistics imported), and the aggregator's warm-up call done;
- the hand-over's state in the actors (their ``load`` calls done);

so that "the driver noticed" (between two of its own batches) and "it happened" part.

Variants, alternated in every round (``--rounds``), so that they compare in the same
script run on a machine whose speed drifts:

- ``before``: Ray's default niceness for its worker processes (``RAY_worker_niceness=15``
  set explicitly) and the learner actors asked for before the aggregator actor (the
  engine's order before, copied into the probe), as every local run had;
- ``nice 0, learners first``: only the niceness changed;
- ``now``: the workers at the driver's priority (what distval now sets for the Ray it
  starts, :func:`distval.ray_backend.session._private_env`) and the aggregator actor asked
  for first (:class:`distval.ray_backend.engine._Actors`);
- ``before`` and ``now`` with the driver waiting (it evaluates one batch, then waits for
  the actors instead of evaluating beside their boot): the start-up of a machine with a
  free core for every process;
- ``in-process``, the reference.

    python benchmarks/bench_startup.py                  # 3 rounds, about 10 minutes
    python benchmarks/bench_startup.py --rounds 1 --rows 6000
    python benchmarks/bench_startup.py --only now --prestart --name startup_prestart
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from common import load_span, save, table  # noqa: E402

PROBE = r"""
import json, sys, threading, time
t0 = time.perf_counter()
rows, backend, wait = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "wait"
learners_first = sys.argv[4] == "learners-first"
from distval import RunConfig
from distval.engine.loop import iter_inprocess, open_config_stream
from distval.engine.run import Timeline

cfg = RunConfig(stream="sea", n_rows=rows)
seen = {}  # what the watching thread saw, seconds since t0

def now():
    return round(time.perf_counter() - t0, 3)

if backend == "inprocess":
    steps = iter_inprocess(cfg, open_config_stream(cfg))
    tl = Timeline()
else:
    import distval.ray_backend.engine as eng

    def watch(actors):
        import ray
        names = ["learner %d" % i for i in range(len(actors.learners))] + ["aggregator"]
        refs = {a.__ray_ready__.remote(): n + " up" for n, a in zip(names, actors.learners)}
        # calls to one actor run in order: this one ends after the warm-up call
        refs[actors.aggregator.__ray_ready__.remote()] = "aggregator warm"
        pending = list(refs)
        while True:
            if loads and "loads asked" not in seen:
                seen["loads asked"] = now()
                refs.update({ref: n + " loaded" for ref, n in zip(loads, names)})
                pending += loads
            if pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=0.01)
                for d in done:
                    seen[refs[d]] = now()
            elif "loads asked" in seen:
                return
            else:
                time.sleep(0.01)

    def learners_first_init(self, specs, slot_ids, cpus_per_actor, warm=None):
        # the engine's order before: the learner actors asked for first, the aggregator last
        import ray
        learner = ray.remote(max_restarts=0)(eng.LearnerActor).options(num_cpus=cpus_per_actor)
        aggregator = ray.remote(max_restarts=0)(eng.AggregatorActor).options(num_cpus=0)
        self.learners = [learner.remote(specs) for _ in slot_ids]
        self.aggregator = aggregator.remote(slot_ids)
        self._booting = [a.__ray_ready__.remote() for a in self.all]
        if warm is not None:
            self.aggregator.warm.remote(*warm)

    loads = []
    init = learners_first_init if learners_first else eng._Actors.__init__
    def watched_init(self, *a, **k):
        seen.setdefault("actors asked", now())
        init(self, *a, **k)
        threading.Thread(target=watch, args=(self,), daemon=True).start()
    def watched_load(self, states):
        loads.extend(actor.load.remote(state) for actor, state in zip(self.all, states))
    eng._Actors.__init__ = watched_init
    eng._Actors.load = watched_load
    tl = Timeline()
    steps = eng.iter_ray(cfg, open_config_stream(cfg), timeline=tl,
                         **({"warm_up_batches": 1} if wait else {}))
by = {}
for step in steps:
    if step.rows:
        seen.setdefault("first driver step" if step.where == "driver" else "first actor step*",
                        now())
    by[step.where] = by.get(step.where, 0) + step.rows
seen["end"] = now()
print(json.dumps({"timeline": tl.since(t0), "seen": seen, "by": by}))
"""

#: (label, backend, RAY_worker_niceness or None, driver waits, aggregator asked for first)
VARIANTS = [
    ("in-process", "inprocess", None, False, True),
    ("before: nice 15, learners first", "ray", "15", False, False),
    ("nice 0, learners first", "ray", "0", False, False),
    ("now: nice 0, aggregator first", "ray", "0", False, True),
    ("before, driver waits", "ray", "15", True, False),
    ("now, driver waits", "ray", "0", True, True),
]


#: ``--prestart``: the same as ``now`` with Ray told to start this many Python workers
#: when its node starts (``RAY_num_prestart_python_workers``; by default it starts one per
#: CPU once the driver has connected), so that every actor, the aggregator's included,
#: finds a worker process already booting.
PRESTART = "3"


def one(rows: int, backend: str, nice: str | None, wait: bool, first: bool = True,
        prestart: str | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for key in ("RAY_ADDRESS", "RAY_worker_niceness", "RAY_num_prestart_python_workers"):
        env.pop(key, None)
    if nice is not None:
        env["RAY_worker_niceness"] = nice
    if prestart is not None:
        env["RAY_num_prestart_python_workers"] = prestart
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PROBE, str(rows), backend,
                           "wait" if wait else "go",
                           "aggregator-first" if first else "learners-first"],
                          env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    if done.returncode != 0:
        print(done.stderr[-3000:], flush=True)
        return {"error": done.returncode, "wall s": wall}
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["wall s"] = round(wall, 3)
    return out


def phases(label: str, r: dict, n_round: int) -> dict:
    """One table row: seconds since the probe process started, and the spans that matter."""
    tl, s = r.get("timeline", {}), r.get("seen", {})
    row: dict = {"round": n_round, "variant": label, "end s": s.get("end")}
    if "ray_init_end" in tl:
        init_end = tl["ray_init_end"]
        learners = [v for k, v in s.items() if k.startswith("learner") and k.endswith(" up")]
        loaded = [v for k, v in s.items() if k.endswith(" loaded")]
        hand = tl.get("hand_over")
        row.update({
            "ray.init": f"{tl['ray_init_start']:.1f} → {init_end:.1f}",
            "ray.init s": round(init_end - tl["ray_init_start"], 2),
            "learners up s": f"{min(learners) - init_end:.1f} / {max(learners) - init_end:.1f}"
            if learners else "",
            "aggregator warm s": round(s["aggregator warm"] - init_end, 2)
            if "aggregator warm" in s else None,
            "driver saw all up s": round(tl["actors_up"] - init_end, 2)
            if "actors_up" in tl else None,
            "hand-over s": round(hand - init_end, 2) if hand else None,
            "states loaded s": round(max(loaded) - hand, 2) if loaded and hand else None,
            "first actor step s": round(tl["first_actor_step"] - hand, 2)
            if hand and "first_actor_step" in tl else None,
        })
    row["driver rows"] = r.get("by", {}).get("driver", 0)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--name", default="startup", help="results/<name>.md and .json")
    ap.add_argument("--only", default="", help="only the variants whose label has this")
    ap.add_argument("--prestart", action="store_true",
                    help=f"add `now` with {PRESTART} Python workers prestarted (PRESTART)")
    args = ap.parse_args()
    variants = [(*v, None) for v in VARIANTS]
    if args.prestart:
        variants += [(f"now, prestart {PRESTART}", "ray", "0", False, True, PRESTART),
                     (f"now, prestart {PRESTART}, driver waits", "ray", "0", True, True,
                      PRESTART)]
    variants = [v for v in variants if args.only in v[0]]
    start, began = os.getloadavg(), time.strftime("%H:%M", time.gmtime())
    runs, rows = [], []
    for n in range(1, args.rounds + 1):
        for label, backend, nice, wait, first, prestart in variants:
            load = os.getloadavg()[0]
            r = one(args.rows, backend, nice, wait, first, prestart)
            r.update(variant=label, round=n, load=load)
            runs.append(r)
            row = phases(label, r, n) | {"load": load}
            rows.append(row)
            print(json.dumps(row, ensure_ascii=False), flush=True)
    text = [
        "# bench_startup", "",
        f"{time.strftime('%Y-%m-%d', time.gmtime())} {began}–"
        f"{time.strftime('%H:%M UTC', time.gmtime())}; {os.cpu_count()} cores; "
        f"{args.rows:,} SEA rows, HT + NB, 10-fold bootstrap; {load_span(start)}", "",
        "Seconds since the probe process started (`ray.init`), else since `ray.init` ended "
        "(`... s` columns up to `hand-over s`), then since the hand-over (`states loaded s`, "
        "`first actor step s`). `learners up s`: first / last learner actor up; `aggregator "
        "warm s`: the aggregator actor booted and its warm-up call done; `driver saw all up "
        "s`: when the driver, between two of its batches, found every actor up. Empty "
        "hand-over: the driver evaluated every row before the actors were up.", "",
        table(rows, ["round", "variant", "load", "end s", "ray.init", "ray.init s",
                     "learners up s", "aggregator warm s", "driver saw all up s",
                     "hand-over s", "states loaded s", "first actor step s", "driver rows"]),
    ]
    save(args.name, "\n".join(text), {"rows": args.rows, "runs": runs, "table": rows})


if __name__ == "__main__":
    main()
