"""Where distval's CPU-seconds go with ``moa:`` learners, against MOA's own CLI (issue 31).

The goal's two jobs (10-fold prequential bootstrap on SEA rows written once by MOA,
``SEAGenerator -p 0``, to an ARFF file; tests every 1,000 rows): HT + NB in one distval run
against MOA's ``EvaluatePrequentialCV`` once per learner, and ARF(10). Every process runs on
its own and is measured by the operating system when it ends (``os.wait4``: user + system
CPU of all its threads, peak RSS), its wall time by this script:

* ``moa cli``: ``java -Xmx4g -cp moa.jar moa.DoTask "EvaluatePrequentialCV ..."`` (both
  learners' processes summed for HT + NB);
* ``distval``: ``python -c "distval.evaluate(...)"`` in-process, defaults (the whole process:
  interpreter, imports, JVM start, exit);
* ``bare host``: the Java batch host alone over the same batches held in memory, one Java
  thread (``bench_moa.py``'s ``bare_seconds``): the whole process, and its loop alone
  (``time.process_time`` of the process around the loop: the learners' own cost);
* ``profiled``: the distval run again, with a profile of every thread of the process: a
  sampler reads ``/proc/self/task/*/stat`` (user + system ticks of each thread, JVM threads
  named by the JVM: ``C2 CompilerThre``, ``GC Thread#0``, ``VM Thread``, ``distval-moa``...;
  Python threads by their ``threading`` name through their native id), and per-thread CPU
  clocks (``time.thread_time``) around distval's stages split the Python threads:
  the Java call, JPype conversions (arrays to and from Java, header checks), the
  aggregator's trackers, the tests (snapshots), reading, routing (fold weights), writing
  (the result kept and shown). Everything a thread spent before the first batch reached the
  learner host is start-up (imports, JVM start, MOA's classes, replicas); what the process
  spent that no sampled thread holds (its exit, threads that ended between two samples) is
  ``unaccounted``.

Run: ``python benchmarks/bench_cpu.py [--htnb-rows 1000000] [--arf-rows 100000]`` from the
repository root; it writes ``results/cpu.md`` and ``results/cpu.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from bench_moa import LEARNERS, names, write_sea

from common import load_span, save, table

HERE = Path(__file__).resolve()
REPO = HERE.parents[1]
TICK = os.sysconf("SC_CLK_TCK")


# -- measuring a whole process --------------------------------------------------------------


def measured(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``cmd`` to its end: wall seconds, CPU seconds (user + sys, all threads), peak RSS
    bytes (``os.wait4``'s resource usage of that child alone) and its stdout."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout = out.read()
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd[:3]} failed ({proc.returncode}): {err.read()[-2000:]}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "rss": usage.ru_maxrss * 1024,
        "stdout": stdout,
    }


def moa_cli(learner: str, arff: Path, n: int) -> dict[str, Any]:
    from distval.learners.moa.jvm import moa_jar

    task = (
        f"EvaluatePrequentialCV -l ({learner}) -s (ArffFileStream -f {arff}) -i {n} -f {n} "
        "-a Bootstrap-Validation -w 10"
    )
    return measured(["java", "-Xmx4g", "-cp", str(moa_jar()), "moa.DoTask", task])


def python_env(extra: dict[str, str] | None = None, tree: Path | None = None) -> dict[str, str]:
    """The environment of a measured Python process: this checkout's package (or ``tree``'s,
    another checkout) and the benchmarks' helpers importable."""
    return dict(os.environ, **(extra or {}), PYTHONPATH=f"{tree or REPO}:{HERE.parent}")


PLAIN = """
import json, distval
specs = {specs!r}
res = distval.evaluate(stream={arff!r}, learners=specs, n_folds=10, backend="inprocess")
acc = res.summary()["learners"][specs[0]]["cumulative"]["accuracy"]["mean"]
print(json.dumps({{"accuracy": acc}}))
"""


def specs_of(job: str) -> tuple[str, ...]:
    return tuple(f"moa:{LEARNERS[name]}" for name in names(job))


def distval_plain(job: str, arff: Path, env: dict[str, str] | None = None) -> dict[str, Any]:
    code = PLAIN.format(specs=specs_of(job), arff=str(arff))
    return measured([sys.executable, "-c", code], python_env(env))


#: The JVM options and exit of distval before issue 31 (``$DISTVAL_JVM_ARGS`` for the first;
#: ``TieredStopAtLevel=4`` is the JVM's own default, all compilers).
BEFORE_JVM = "-Xmx4g -Xmn512m -XX:+UseParallelGC -XX:TieredStopAtLevel=4"


def distval_run(
    job: str, arff: Path, before: bool = False, tree: Path | None = None
) -> dict[str, Any]:
    """The ``distval run`` program in-process, results written (a temporary directory), as a
    user runs it. ``before``: with the JVM options and the exit of before issue 31 (the
    interpreter's ordinary teardown after :func:`distval.cli.command`). ``tree``: the
    package of another checkout (e.g. a git worktree of an earlier commit) instead of this
    one's."""
    with tempfile.TemporaryDirectory(prefix="bench-cpu-run-") as out:
        argv = ["distval", "run", "--stream", str(arff), "--learners", *specs_of(job),
                "--folds", "10", "--backend", "inprocess", "--no-progress",
                "--output", str(Path(out) / "res")]
        if before:
            code = (f"import sys\nfrom distval.cli import command\nsys.argv = {argv!r}\n"
                    "sys.exit(command())\n")
            return measured([sys.executable, "-c", code],
                            python_env({"DISTVAL_JVM_ARGS": BEFORE_JVM}))
        return measured([sys.executable, "-m", "distval.cli", *argv[1:]], python_env(tree=tree))


def revision(tree: Path) -> str:
    """The short commit of a checkout (and ``+changes`` when its files differ from it)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tree), *args], capture_output=True,
                              text=True, check=True).stdout.strip()

    return git("rev-parse", "--short", "HEAD") + (" +changes" if git("status", "--porcelain",
                                                                      "--untracked-files=no")
                                                  else "")


def bare(job: str, arff: Path) -> dict[str, Any]:
    r = measured([sys.executable, str(HERE), "--bare", job, str(arff)], python_env())
    r["loop_cpu"] = json.loads(r["stdout"].strip().splitlines()[-1])["loop_cpu"]
    return r


def profiled(
    job: str, arff: Path, env: dict[str, str] | None = None, tree: Path | None = None
) -> dict[str, Any]:
    r = measured([sys.executable, str(HERE), "--profile", job, str(arff)], python_env(env, tree))
    r["profile"] = json.loads(r["stdout"].strip().splitlines()[-1])
    return r


def profile_parts(r: dict[str, Any]) -> dict[str, float]:
    """A profiled run's CPU-seconds by part (the rows of the report's second table)."""
    p = r["profile"]
    parts = {"start-up (all threads, before the first batch)": p["startup"]}
    parts.update(p["after_startup"])
    parts["threads that ended between two samples (unnamed)"] = (
        p["process_cpu"] - p["sampled_total"]
    )
    parts["exit (after distval.evaluate returned: Python and JVM shutdown)"] = (
        r["cpu"] - p["process_cpu"]
    )
    parts["whole profiled process (os.wait4)"] = r["cpu"]
    return parts


def compare_profiles(
    job: str, n: int, arff: Path, tree: Path, rounds: int
) -> list[dict[str, Any]]:
    """The profiled run of ``tree``'s package and of this one's, alternated ``rounds``
    times: each part's median CPU-seconds, before and now."""
    got: dict[str, list[dict[str, float]]] = {"before": [], "now": []}
    for _ in range(rounds):
        got["before"].append(profile_parts(profiled(job, arff, tree=tree)))
        got["now"].append(profile_parts(profiled(job, arff)))
        print(job, {k: v[-1]["whole profiled process (os.wait4)"] for k, v in got.items()},
              file=sys.stderr, flush=True)
    names_ = list(dict.fromkeys(k for runs in got.values() for r in runs for k in r))
    rows = []
    for part in names_:
        before = float(np.median([r.get(part, 0.0) for r in got["before"]]))
        now = float(np.median([r.get(part, 0.0) for r in got["now"]]))
        rows.append({
            "job": job, "rows": f"{n:,}", "part": part,
            f"before ({revision(tree)}) cpu s": before, "now cpu s": now,
            "now - before": now - before,
            "each round, before": " / ".join(f"{r.get(part, 0.0):.2f}" for r in got["before"]),
            "each round, now": " / ".join(f"{r.get(part, 0.0):.2f}" for r in got["now"]),
        })
    return rows


# -- inside the profiled process ----------------------------------------------------------


def read_tasks() -> dict[int, tuple[str, float]]:
    """tid -> (comm, CPU seconds) of every thread of this process."""
    out = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        comm, rest = stat.split("(", 1)[1].rsplit(")", 1)
        fields = rest.split()
        out[int(task.name)] = (comm, (int(fields[11]) + int(fields[12])) / TICK)
    return out


class Sampler:
    """Keeps each thread's last CPU reading (threads that end keep theirs) and its name."""

    def __init__(self, every: float = 0.1) -> None:
        self.every = every
        self.cpu: dict[int, float] = {}
        self.name: dict[int, str] = {}
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="profiler-sampler", daemon=True)

    def sample(self) -> dict[int, float]:
        py = {t.native_id: t.name for t in threading.enumerate() if t.native_id is not None}
        with self.lock:
            for tid, (comm, cpu) in read_tasks().items():
                self.cpu[tid] = cpu
                if tid in py:
                    self.name[tid] = py[tid]
                else:
                    self.name.setdefault(tid, comm)
            return dict(self.cpu)

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self.sample()

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> dict[int, float]:
        self._stop.set()
        self.thread.join()
        return self.sample()


#: CPU seconds of the timed stages, by (stage, thread name).
STAGE_CPU: dict[tuple[str, str], float] = defaultdict(float)


def clocked(stage: str, fn: Any) -> Any:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            STAGE_CPU[(stage, threading.current_thread().name)] += time.thread_time() - t0

    return wrapper


class TimedHost:
    """The Java host object with its batch call clocked (everything else passed through)."""

    def __init__(self, host: Any) -> None:
        self._h = host
        for name in ("process", "processVotes"):  # the batch call, by its Java name
            if hasattr(host, name):
                setattr(self, name, clocked("java call", getattr(host, name)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._h, name)


def jvm_kind(name: str) -> str:
    if "Compiler" in name:
        return "JVM JIT compilers"
    if "GC" in name or name.startswith("G1") or name == "VM Thread":
        return "JVM GC + safepoints (VM Thread)"
    if name.startswith("distval-moa"):
        return "learner host work (Java workers)"
    return "JVM other threads"


def profile(job: str, arff: Path) -> dict[str, Any]:
    """One distval run with every thread's CPU attributed (module docstring)."""
    sampler = Sampler()
    sampler.start()
    import distval
    from distval.aggregator.core import Aggregator
    from distval.engine.run import Run
    from distval.learners.host import LearnerHost
    from distval.learners.moa.replicas import MoaReplicas
    from distval.routing.validation import Assignment, FoldAssigner

    at_start: dict[str, Any] = {}
    first = LearnerHost.process

    def process(self: LearnerHost, batch: Any) -> Any:
        if not at_start:
            at_start["cpu"] = sampler.sample()
            at_start["stages"] = dict(STAGE_CPU)
            at_start["wall"] = time.perf_counter() - t0
        return first(self, batch)

    LearnerHost.process = clocked("host glue", process)  # type: ignore[method-assign]
    MoaReplicas._process = clocked("jpype conversions", MoaReplicas._process)  # type: ignore
    attach = MoaReplicas._attach

    def timed_attach(self: MoaReplicas, header: Any) -> None:
        attach(self, header)
        self._host = TimedHost(self._host)

    MoaReplicas._attach = timed_attach  # type: ignore[method-assign]
    Aggregator.update = clocked("aggregator", Aggregator.update)  # type: ignore
    Aggregator.snapshot = clocked("tests", Aggregator.snapshot)  # type: ignore
    FoldAssigner.assign = clocked("route", FoldAssigner.assign)  # type: ignore
    Assignment.tested = clocked("route", Assignment.tested)  # type: ignore
    Run.feed = clocked("write", Run.feed)  # type: ignore[method-assign]
    Run.close = clocked("write", Run.close)  # type: ignore[method-assign]
    t0 = time.perf_counter()
    distval.evaluate(stream=str(arff), learners=specs_of(job), n_folds=10, backend="inprocess")
    wall = time.perf_counter() - t0
    end = sampler.stop()
    times = os.times()
    process_cpu = times.user + times.system  # every thread's, those that ended included
    start = at_start["cpu"]
    startup = sum(start.values())
    # nested clocks: each stage's own time is its clock minus the clocks inside it
    stages: dict[tuple[str, str], float] = defaultdict(float)
    for key, v in STAGE_CPU.items():
        stages[key] += v - at_start["stages"].get(key, 0.0)
    for outer, inner in (
        ("host glue", "jpype conversions"),
        ("jpype conversions", "java call"),
        ("aggregator", "tests"),
    ):
        for (stage, thread), v in list(stages.items()):
            if stage == inner:
                stages[(outer, thread)] -= v
    parts: dict[str, float] = defaultdict(float)
    threads: dict[str, float] = defaultdict(float)
    for tid, cpu in end.items():
        name = sampler.name.get(tid, "?")
        delta = cpu - start.get(tid, 0.0)
        threads[name] += delta
        if name == "profiler-sampler":
            parts["profiler's own sampler"] += delta
            continue
        is_python = name in ("MainThread", "distval-reader", "distval-aggregator")
        if not is_python:
            parts[jvm_kind(name)] += delta
            continue
        known = 0.0
        for (stage, thread), v in stages.items():
            if thread == name:
                label = {
                    "java call": "learner host work (calling thread: instances, hand-off)",
                    "jpype conversions": "JPype conversions (arrays, header checks)",
                    "host glue": "host glue (Python)",
                }.get(stage, stage)
                parts[label] += v
                known += v
        rest = {
            "MainThread": "main thread: loop and queue hand-offs",
            "distval-reader": "read (parse ARFF, batches, queue)",
            "distval-aggregator": "aggregator thread: queue hand-offs",
        }[name]
        parts[rest] += delta - known
    return {
        "wall": wall,
        "startup_wall": at_start["wall"],
        "startup": startup,
        "after_startup": dict(parts),
        "threads": dict(threads),
        "sampled_total": sum(end.values()),
        "process_cpu": process_cpu,
    }


def bare_loop(job: str, arff: Path) -> dict[str, float]:
    """The Java host alone over in-memory batches, one Java thread (as ``bench_moa.py``'s
    ``bare_seconds``): the loop's process CPU, everything before it left out."""
    import numpy as np

    from distval import RunConfig
    from distval.engine.loop import iter_batches, open_config_stream
    from distval.learners.moa import moa_cli as cli_of
    from distval.learners.moa.replicas import MoaReplicas
    from distval.learners.replicas import replica_seed
    from distval.learners.schema import Schema

    specs = specs_of(job)
    cfg = RunConfig(stream=str(arff), learners=specs, n_folds=10)
    stream = open_config_stream(cfg)
    batches = list(iter_batches(stream, cfg))
    reps = MoaReplicas(
        [cli_of(spec) for spec in specs for _ in range(10)],
        [replica_seed(1, i, f) for i in range(len(specs)) for f in range(10)],
        Schema.of(stream),
    )
    reps.threads = 1
    k = len(specs)
    t0 = time.process_time()
    for b in batches:
        reps.process(b.X, b.y, np.tile(b.weights, k), np.tile(b.tested, k))
    return {"loop_cpu": time.process_time() - t0}


# -- the report ---------------------------------------------------------------------------


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The round with the median CPU-seconds (the first of the two middle ones), and every
    round's CPU-seconds."""
    chosen = sorted(runs, key=lambda r: r["cpu"])[(len(runs) - 1) // 2]
    return dict(chosen, rounds=[r["cpu"] for r in runs])


def each_round(run: dict[str, Any]) -> str:
    """The CPU-seconds of every round of an alternated run (empty for a single run)."""
    return " / ".join(f"{c:.2f}" for c in run.get("rounds", []))


def run_job(
    job: str, n: int, arff: Path, before_tree: Path | None = None, rounds: int = 1
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:

    def moa_run() -> dict[str, Any]:  # one process per learner, summed (RSS: the larger)
        got = [moa_cli(LEARNERS[one], arff, n) for one in names(job)]
        return {"cpu": sum(r["cpu"] for r in got), "wall": sum(r["wall"] for r in got),
                "rss": max(r["rss"] for r in got)}

    if before_tree is None:
        moa = moa_run()
        runs = {
            "distval run, before (old JVM options and exit)": distval_run(job, arff, before=True),
            "distval run, now": distval_run(job, arff),
        }
    else:  # MOA and the two checkouts alternated, round after round: they meet the same load
        then, now = f"distval run, before ({revision(before_tree)})", "distval run, now"
        alternated: dict[str, list[dict[str, Any]]] = {"moa": [], then: [], now: []}
        for _ in range(rounds):
            alternated["moa"].append(moa_run())
            alternated[then].append(distval_run(job, arff, tree=before_tree))
            alternated[now].append(distval_run(job, arff))
        moa = median_run(alternated.pop("moa"))
        runs = {what: median_run(rs) for what, rs in alternated.items()}
    moa_cpu, moa_wall, moa_rss = moa["cpu"], moa["wall"], moa["rss"]
    runs["distval.evaluate in `python -c`, now"] = distval_plain(job, arff)
    host = bare(job, arff)
    prof = profiled(job, arff)
    p = prof["profile"]
    rows = [
        {
            "job": job,
            "rows": f"{n:,}",
            "process": "MOA CLI" + (" (HT, then NB)" if len(names(job)) > 1 else ""),
            "cpu s": moa_cpu,
            "wall s": moa_wall,
            "peak RSS MB": moa_rss / 2**20,
            "cpu s, each round": each_round(moa),
        },
        {
            "job": job,
            "rows": f"{n:,}",
            "process": "bare Java host, one thread (loop only)",
            "cpu s": host["loop_cpu"],
        },
    ]
    for what, r in runs.items():
        rows.append(
            {
                "job": job,
                "rows": f"{n:,}",
                "process": what,
                "cpu s": r["cpu"],
                "wall s": r["wall"],
                "peak RSS MB": r["rss"] / 2**20,
                "cpu / moa": r["cpu"] / moa_cpu,
                "wall / moa": r["wall"] / moa_wall,
                "RSS - moa MB": (r["rss"] - moa_rss) / 2**20,
                "cpu / bare loop": r["cpu"] / host["loop_cpu"],
                "cpu s, each round": each_round(r),
            }
        )
    total = prof["cpu"]
    breakdown = [{"job": job, "part": "start-up (all threads, before the first batch)",
                  "cpu s": p["startup"]}]
    for part, v in sorted(p["after_startup"].items(), key=lambda kv: -kv[1]):
        breakdown.append({"job": job, "part": part, "cpu s": v})
    breakdown.append(
        {"job": job, "part": "threads that ended between two samples (unnamed)",
         "cpu s": p["process_cpu"] - p["sampled_total"]}
    )
    breakdown.append(
        {"job": job, "part": "exit (after distval.evaluate returned: Python and JVM shutdown)",
         "cpu s": total - p["process_cpu"]}
    )
    for b in breakdown:
        b["share %"] = 100 * b["cpu s"] / total
    breakdown.append({"job": job, "part": "whole profiled process (os.wait4)", "cpu s": total,
                      "share %": 100.0})
    return rows, breakdown


#: JVM option sets tried by ``--flags`` ($DISTVAL_JVM_ARGS; distval adds its GC_ARGS that a
#: set does not choose). The first is the reference of the ratios.
FLAG_SETS = {
    "default": None,
    "before issue 31": "-Xmx4g -Xmn512m -XX:+UseParallelGC",
    "ParallelGC -Xmn128m": "-Xmx4g -Xmn128m -XX:+UseParallelGC",
    "-Xmn128m": "-Xmx4g -Xmn128m",
    "-Xmn64m": "-Xmx4g -Xmn64m",
    "SerialGC -Xmn64m": "-Xmx4g -Xmn64m -XX:+UseSerialGC",
    "SerialGC -Xmn128m": "-Xmx4g -Xmn128m -XX:+UseSerialGC",
    "SerialGC -Xmn128m C1 only": "-Xmx4g -Xmn128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1",
    "SerialGC -Xmn128m C2 later": "-Xmx4g -Xmn128m -XX:+UseSerialGC"
    " -XX:Tier4InvocationThreshold=50000 -XX:Tier4MinInvocationThreshold=6000"
    " -XX:Tier4CompileThreshold=150000 -XX:Tier4BackEdgeThreshold=400000",
    "ParallelGCThreads=1": "-Xmx4g -XX:ParallelGCThreads=1",
    "TieredStopAtLevel=1": "-Xmx4g -XX:TieredStopAtLevel=1",
    "-TieredCompilation": "-Xmx4g -XX:-TieredCompilation",
}


def flags(job: str, n: int, arff: Path, rounds: int, sets: list[str]) -> list[dict[str, Any]]:
    """``distval.evaluate`` under each JVM option set, alternated ``rounds`` times."""
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in sets}
    for _ in range(rounds):
        for name in sets:
            extra = {} if FLAG_SETS[name] is None else {"DISTVAL_JVM_ARGS": FLAG_SETS[name]}
            runs[name].append(distval_plain(job, arff, extra))
            print(job, name, {k: runs[name][-1][k] for k in ("cpu", "wall", "rss")},
                  file=sys.stderr, flush=True)
    med = {
        name: {k: float(np.median([r[k] for r in rs])) for k in ("cpu", "wall", "rss")}
        for name, rs in runs.items()
    }
    ref = med[sets[0]]
    return [
        {
            "job": job,
            "rows": f"{n:,}",
            "JVM options": name,
            "cpu s (each round)": " / ".join(f"{r['cpu']:.2f}" for r in runs[name]),
            "cpu / first": med[name]["cpu"] / ref["cpu"],
            "wall / first": med[name]["wall"] / ref["wall"],
            "peak RSS MB": med[name]["rss"] / 2**20,
            "accuracy": json.loads(runs[name][0]["stdout"].strip().splitlines()[-1])["accuracy"],
        }
        for name in sets
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--htnb-rows", type=int, default=1_000_000)
    ap.add_argument("--arf-rows", type=int, default=100_000)
    ap.add_argument("--jobs", default="HT + NB,ARF(10)")
    ap.add_argument("--name", default="cpu")
    ap.add_argument("--flags", help="compare JVM option sets (comma-separated FLAG_SETS names)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument(
        "--before-tree",
        type=Path,
        help="a checkout of an earlier commit (e.g. a git worktree): its `distval run` is the"
        " 'before' row, alternated with this one's --rounds times (medians shown)",
    )
    ap.add_argument(
        "--compare-profiles",
        action="store_true",
        help="only the profiled run, of --before-tree's package and of this one, alternated"
        " --rounds times: each part's CPU-seconds before and now",
    )
    ap.add_argument("--profile", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--bare", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.profile:
        print(json.dumps(profile(a.profile[0], Path(a.profile[1]))))
        return
    if a.bare:
        print(json.dumps(bare_loop(a.bare[0], Path(a.bare[1]))))
        return
    sizes = {"HT + NB": a.htnb_rows, "ARF(10)": a.arf_rows}
    if a.compare_profiles:
        if a.before_tree is None:
            ap.error("--compare-profiles needs --before-tree")
        out, start_load = [], os.getloadavg()
        with tempfile.TemporaryDirectory(prefix="bench-cpu-") as tmp:
            for job in a.jobs.split(","):
                arff = Path(tmp) / f"sea{sizes[job]}.arff"
                write_sea(arff, sizes[job])
                out += compare_profiles(job, sizes[job], arff, a.before_tree, a.rounds)
        text = "\n".join(
            [
                "### Where the CPU-seconds go, before and now: the profiled run (every thread)"
                f" of `{a.before_tree}`'s package and of this one, alternated {a.rounds} times,"
                f" medians; {os.cpu_count()} cores, {load_span(start_load)}",
                "",
                table(out),
                "",
                "- parts as in `cpu.md`'s second table; each part's median over the rounds"
                " (the medians of the parts need not add up to the median of the whole).",
            ]
        )
        args = {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()}
        save(a.name, text, {"rows": out, "args": args})
        return
    if a.flags:
        sets = list(FLAG_SETS) if a.flags == "all" else a.flags.split(",")
        out = []
        with tempfile.TemporaryDirectory(prefix="bench-cpu-") as tmp:
            for job in a.jobs.split(","):
                arff = Path(tmp) / f"sea{sizes[job]}.arff"
                write_sea(arff, sizes[job])
                out += flags(job, sizes[job], arff, a.rounds, sets)
        text = "\n".join(
            [
                "### distval in-process under JVM option sets ($DISTVAL_JVM_ARGS), "
                f"{a.rounds} alternated rounds, {os.cpu_count()} cores, load average at the"
                " end {:.1f} / {:.1f} / {:.1f}".format(*os.getloadavg()),
                "",
                table(out),
                "",
                "- whole process (os.wait4), medians over the rounds; ratios to the first set"
                " of the same job and run. Sets: " + "; ".join(
                    f"{k}: `{FLAG_SETS[k] or 'distval default'}`" for k in sets
                ),
            ]
        )
        save(a.name, text, {"rows": out, "args": vars(a)})
        return
    rows, parts = [], []
    start_load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="bench-cpu-") as tmp:
        for job in a.jobs.split(","):
            n = sizes[job]
            arff = Path(tmp) / f"sea{n}.arff"
            if not arff.exists():
                write_sea(arff, n)
            got, breakdown = run_job(job, n, arff, a.before_tree, a.rounds)
            rows += got
            parts += breakdown
            print(got, file=sys.stderr, flush=True)
    text = "\n".join(
        [
            "### distval's CPU-seconds against MOA's CLI, the goal's jobs (issue 31): 10-fold"
            f" prequential bootstrap on MOA's SEA rows, {os.cpu_count()} cores,"
            f" {load_span(start_load)}",
            "",
            table(rows, ["job", "rows", "process", "cpu s", "cpu / moa", "wall s", "wall / moa",
                         "peak RSS MB", "RSS - moa MB", "cpu / bare loop",
                         *(["cpu s, each round"] if a.before_tree else [])]),
            "",
            "- every number from one process each, measured by the OS at its end (os.wait4:"
            " user + sys CPU of all its threads, peak RSS); the ratios are of this run."
            " moa: EvaluatePrequentialCV, JVM start included (HT + NB: two processes summed,"
            " peak RSS the larger); distval: `distval.evaluate` in-process, defaults, the"
            " whole Python process; distval run: `python -m distval.cli run ... --backend inprocess"
            " --output DIR`, results written; before: "
            + (
                f"the same program from the checkout `{a.before_tree}` (its commit named in"
                f" the row), alternated with MOA's CLI and now {a.rounds} times (MOA, before,"
                " now in each round), the round of median CPU shown for each;"
                if a.before_tree
                else f"the same with the JVM options (`{BEFORE_JVM}`) and the exit of before"
                " issue 31;"
            )
            +
            " bare host loop: the Java host alone over in-memory"
            " batches on one thread, the loop's process CPU (the learners' own cost).",
            "- goals: distval / moa cpu <= 0.5, distval / moa wall <= 0.4, RSS - moa <= 300 MB.",
            "",
            "### Where the profiled run's CPU-seconds go (every thread of the process)",
            "",
            table(parts, ["job", "part", "cpu s", "share %"]),
            "",
            "- start-up: every thread's CPU before the first batch reached the learner host"
            " (interpreter, imports, JVM start, MOA classes, replicas; the reader's first"
            " batches). After it: JVM threads by the JVM's own names, Python threads split by"
            " per-thread CPU clocks around distval's stages; a thread's remainder is named by"
            " its thread. Threads that ended between two 0.1 s samples: the process's own CPU"
            " count (os.times) less every sampled thread's; exit: the OS's count at the"
            " process's end (os.wait4) less the process's own when distval.evaluate"
            " returned.",
        ]
    )
    args = {k: str(v) if isinstance(v, Path) else v for k, v in vars(a).items()}
    data = {"rows": rows, "breakdown": parts, "args": args}
    save(a.name, text, data)


if __name__ == "__main__":
    main()
