"""MOA learners on Ray against in-process, at growing stream lengths, in one script run.

Each case runs ``distval run --output DIR`` in a fresh process on SEA (noise 0.1, tests
every 1,000 rows, 10-fold bootstrap) with MOA's naive Bayes and Hoeffding tree, once with
``--backend inprocess`` and once with ``--backend ray`` (a local Ray, one actor per core);
the two backends of a size run back to back, in alternating order (the machine's speed
drifts), and the sizes go up. Per case: the wall time of the whole process (Python and Ray
start-up included), the run's own ``elapsed_seconds`` (from its summary), the rows the
driver and the actors evaluated, and the load average before it.

The ratio column is Ray's wall time over in-process's (goal: at most 1.3 on 2 cores).

With ``--timeline N`` it times the phases of Ray runs of N rows instead (a fresh process
each, ``--rounds`` alternated pairs): ``ray.init``, the learner actors up, the first step the
actors deliver, the last step, shutdown, and the rows the driver evaluated meanwhile; each
pair runs once with the learner actors starting their JVM while they boot (as shipped) and
once without (``cold``: the JVM starts when the replicas arrive, as before).

    python benchmarks/bench_moa_ray.py                          # 200k, 500k, 1M rows
    python benchmarks/bench_moa_ray.py --rows 200000 2000000    # other sizes
    python benchmarks/bench_moa_ray.py --timeline 500000 --rounds 3 --name moa_ray_handover

Writes benchmarks/results/moa_ray.md and .json (``--name``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_cpu import python_env

from common import machine, save, table

LEARNERS = ["moa:bayes.NaiveBayes", "moa:trees.HoeffdingTree"]


def run(backend: str, rows: int) -> dict[str, Any]:
    """One ``distval run`` in a fresh process: its wall seconds and summary."""
    with tempfile.TemporaryDirectory() as out:
        directory = Path(out) / "r"
        cmd = [sys.executable, "-m", "distval.cli", "run", "--stream", "sea(noise=0.1)",
               "--n-rows", str(rows), "--learners", *LEARNERS, "--backend", backend,
               "--no-progress", "--output", str(directory)]
        env = python_env({"RAY_TMPDIR": os.environ.get("RAY_TMPDIR", "/tmp/ray")})
        load = os.getloadavg()[0]
        t0 = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr[-2000:]}")
        summary = json.loads((directory / "summary.json").read_text())
    return {"wall": wall, "elapsed": float(summary["elapsed_seconds"]),
            "by": summary["evaluated_by"], "load": load}


def timeline(rows: int, cold: bool) -> dict[str, Any]:
    """The phases of one Ray run in this process (seconds from ``ray.init``'s call)."""
    from distval import RunConfig
    from distval.engine.loop import open_config_stream
    from distval.engine.run import Run
    from distval.ray_backend import engine
    from distval.ray_backend.actors import LearnerActor
    from distval.ray_backend.session import ray_session

    class ColdLearnerActor(LearnerActor):  # as before: learners' modules only, no JVM
        def __init__(self, specs: Any = ()) -> None:
            for spec in specs:
                spec.build()
            self.host = None

    if cold:
        engine.LearnerActor = ColdLearnerActor  # type: ignore[misc]
    cfg = RunConfig(stream="sea(noise=0.1)", n_rows=rows, learners=tuple(LEARNERS))
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as d:
        run = Run(cfg, open_config_stream(cfg), output_dir=Path(d) / "r", backend="ray")
        t0 = time.perf_counter()
        with ray_session():
            out["ray.init"] = time.perf_counter() - t0
            ray_run = engine.RayRun(cfg, open_config_stream(cfg))
            ready = ray_run.actors.ready

            def timed_ready() -> bool:
                up = ready()
                if up and "actors up" not in out:
                    out["actors up"] = time.perf_counter() - t0
                return up

            ray_run.actors.ready = timed_ready  # type: ignore[method-assign]
            driver = 0
            for step in ray_run.steps():
                if step.where == "driver":
                    driver += step.rows
                elif "first actor step" not in out:
                    out["first actor step"] = time.perf_counter() - t0
                run.feed(step)
            out["last step"] = time.perf_counter() - t0
        out["shut down"] = time.perf_counter() - t0
        run.close()
    out["driver rows"] = driver
    return out


def timelines(args: argparse.Namespace) -> None:
    rows_out: list[dict[str, Any]] = []
    for r in range(args.rounds):
        for cold in ((False, True) if r % 2 == 0 else (True, False)):
            cmd = [sys.executable, __file__, "--timeline", str(args.timeline), "--one"]
            load = os.getloadavg()[0]
            done = subprocess.run(cmd + (["--cold"] if cold else []), capture_output=True,
                                  text=True, env=python_env())
            if done.returncode != 0:
                raise SystemExit(done.stderr[-2000:])
            got = json.loads(done.stdout.strip().splitlines()[-1])
            rows_out.append({
                "round": r + 1,
                "JVM started": "at hand-over (before)" if cold else "at boot (now)",
                **{k: round(v, 1) if isinstance(v, float) else v for k, v in got.items()},
                "up to first actor step s": round(got["first actor step"] - got["actors up"], 1),
                "load before": round(load, 1),
            })
            print(rows_out[-1], flush=True)
    info = machine()
    text = "\n".join([
        f"# MOA learners on Ray: the phases of a run of {args.timeline:,d} rows",
        "",
        "SEA (noise 0.1), MOA naive Bayes + Hoeffding tree, 10-fold bootstrap, `--backend "
        f"ray` as `distval run --output` runs it; {info['cpus']} cores, {info['date']}. "
        "Seconds from the call to `ray.init`; `driver rows`: rows the driver evaluated "
        "while the actors started.",
        "",
        table(rows_out),
    ])
    save(args.name, text, {"rows": rows_out, "args": vars(args)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[200_000, 500_000, 1_000_000])
    parser.add_argument("--name", default="moa_ray")
    parser.add_argument("--timeline", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--cold", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.timeline is not None and args.one:
        print(json.dumps(timeline(args.timeline, args.cold)))
        return
    if args.timeline is not None:
        timelines(args)
        return
    rows_out: list[dict[str, Any]] = []
    for i, rows in enumerate(args.rows):
        order = ("inprocess", "ray") if i % 2 == 0 else ("ray", "inprocess")
        got = {b: run(b, rows) for b in order}
        inproc, ray = got["inprocess"], got["ray"]
        rows_out.append({
            "rows": f"{rows:,d}",
            "in-process wall s": round(inproc["wall"], 1),
            "Ray wall s": round(ray["wall"], 1),
            "Ray / in-process (wall)": round(ray["wall"] / inproc["wall"], 2),
            "in-process run s": round(inproc["elapsed"], 1),
            "Ray run s": round(ray["elapsed"], 1),
            "Ray / in-process (run)": round(ray["elapsed"] / inproc["elapsed"], 2),
            "rows by Ray's actors": f"{ray['by'].get('actors', 0):,d}",
            "load before (in-process, Ray)": f"{inproc['load']:.1f}, {ray['load']:.1f}",
            "first": order[0],
        })
        print(rows_out[-1], flush=True)
    info = machine()
    text = "\n".join([
        "# MOA learners on Ray against in-process",
        "",
        f"SEA (noise 0.1), MOA naive Bayes + Hoeffding tree, 10-fold bootstrap prequential, "
        f"tests every 1,000 rows, `distval run --output`; {info['cpus']} cores, "
        f"{info['date']}. Wall: the whole process (imports, Ray's start and shutdown); "
        "run: the run's `elapsed_seconds`. The two backends of a size ran back to back "
        "(`first` ran first).",
        "",
        table(rows_out),
        "",
        "Goal: Ray within 1.3 x in-process on 2 cores.",
    ])
    save(args.name, text, {"rows": rows_out, "args": vars(args)})


if __name__ == "__main__":
    main()
