"""MOA learners in distval against MOA's own EvaluatePrequentialCV, on the same rows.

The job of every column: 10-fold prequential bootstrap on SEA rows written once by MOA
(``SEAGenerator -p 0``) to an ARFF file, read by both MOA and distval. Columns:

* ``moa cli``: ``java -cp moa.jar moa.DoTask "EvaluatePrequentialCV ... -a Bootstrap-Validation
  -w 10"``, JVM start included, as a user runs it;
* ``distval``: ``distval.evaluate`` in-process with the ``moa:`` learner (defaults: ADWIN
  windows, measures and snapshots every 1000 rows), timed from before distval is imported:
  imports and JVM start included (the Python process's own start and exit are not);
* ``distval ray``: the same on Ray, on all cores (Ray start included);
* ``bare host``: the Java batch host alone over the same in-memory batches and bootstrap
  weights, no stream reading and no evaluator.

Run: ``python benchmarks/bench_moa.py [--quick]`` from the repository root;
``--verdict-cost ROWS [--rounds R]`` times HT + NB in-process with and without the paired
trackers of the verdict (``results/moa_verdict_cost.md``).

``--headline N`` measures only the two jobs of the project's goal (HT + NB on 1M rows, ARF(10)
on 100k): MOA, distval in-process and the whole ``distval run`` command, alternated N times,
with each round's ratios and their medians (``results/moa_headline.md``): this VM's speed
drifts within minutes, so one round can land anywhere in a range that the median narrows.
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

import numpy as np

from distval import RunConfig
from distval.engine.loop import iter_batches, open_config_stream
from distval.learners.moa import moa_cli
from distval.learners.moa.jvm import moa_jar
from distval.learners.moa.replicas import MoaReplicas
from distval.learners.replicas import replica_seed
from distval.learners.schema import Schema

from common import in_fresh_process, save, table

LEARNERS = {
    "HT": "trees.HoeffdingTree",
    "NB": "bayes.NaiveBayes",
    "ARF(10)": "meta.AdaptiveRandomForest -s 10",
}
#: A comparison, distval's own job: both learners in one distval run (with the tests between
#: them), against MOA run once per learner (MOA evaluates one learner per task).
PAIRS = {"HT + NB": ("HT", "NB")}


def names(job: str) -> tuple[str, ...]:
    """The learners of a grid entry: one, or both of a pair."""
    return PAIRS.get(job, (job,))


def write_sea(path: Path, n: int) -> None:
    raw = path.with_suffix(".raw")
    task = f"WriteStreamToARFFFile -s (generators.SEAGenerator -p 0) -f {raw} -m {n}"
    subprocess.run(
        ["java", "-cp", str(moa_jar()), "moa.DoTask", task], check=True, capture_output=True
    )
    with raw.open() as src, path.open("w") as out:  # MOA ends data lines with a stray comma
        for line in src:
            out.write(line.rstrip().rstrip(",") + "\n")
    raw.unlink()


def moa_cli_seconds(learner: str, arff: Path, n: int) -> tuple[float, float]:
    task = (
        f"EvaluatePrequentialCV -l ({learner}) -s (ArffFileStream -f {arff}) -i {n} -f {n} "
        "-a Bootstrap-Validation -w 10"
    )
    t0 = time.perf_counter()
    done = subprocess.run(
        ["java", "-Xmx4g", "-cp", str(moa_jar()), "moa.DoTask", task],
        check=True,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    last = done.stdout.strip().splitlines()[-1].split(",")
    header = done.stdout[done.stdout.index("learning evaluation") :].splitlines()[0].split(",")
    acc = float(last[header.index("[avg] classifications correct (percent)")]) / 100
    return seconds, acc


#: The distval columns' measurement, run as ``python -c``: the clock starts before anything of
#: distval (or numpy) is imported, so its imports and JVM start are timed, as MOA's are.
DISTVAL_TIMING = """
import time
t0 = time.perf_counter()
import json
import distval
{patch}
specs = {specs!r}
res = distval.evaluate(stream={arff!r}, learners=specs, n_folds=10, backend={backend!r})
seconds = time.perf_counter() - t0
print(json.dumps([seconds, res.summary()["learners"][specs[0]]["cumulative"]["accuracy"]["mean"]]))
"""


#: What ``--verdict-cost`` runs before ``distval.evaluate`` for the run without the paired
#: trackers: the aggregator then compares the folds' own windows, as before issue 26.
NO_PAIRED = "import distval.aggregator as _agg; _agg.Aggregator.PAIRED = False"


def distval_seconds(job: str, arff: Path, backend: str, patch: str = "") -> list[float]:
    """``distval.evaluate`` in a fresh process, imports included: [seconds, accuracy, CPU
    seconds of the whole process (user + sys of all its threads, ``os.wait4``)]."""
    specs = tuple(f"moa:{LEARNERS[name]}" for name in names(job))
    code = DISTVAL_TIMING.format(specs=specs, arff=str(arff), backend=backend, patch=patch)
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=out,
                                stderr=subprocess.DEVNULL, text=True, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"distval.evaluate failed for {job} ({backend})")
        out.seek(0)
        seconds, accuracy = json.loads(out.read().strip().splitlines()[-1])
    return [seconds, accuracy, usage.ru_utime + usage.ru_stime]


def bare_seconds(job: str, arff: Path, threads: int = 1) -> tuple[float, float]:
    """The Java host over the same batches, all in memory beforehand: no evaluator; its
    replicas (10 per learner) on ``threads`` Java threads."""
    specs = [f"moa:{LEARNERS[name]}" for name in names(job)]
    cfg = RunConfig(stream=str(arff), learners=tuple(specs), n_folds=10)
    stream = open_config_stream(cfg)
    batches = list(iter_batches(stream, cfg))
    reps = MoaReplicas(
        [moa_cli(spec) for spec in specs for _ in range(10)],
        [replica_seed(1, i, f) for i in range(len(specs)) for f in range(10)],
        Schema.of(stream),
    )
    reps.threads = threads
    k = len(specs)
    t0 = time.perf_counter()
    correct = 0
    for b in batches:
        w, t = np.tile(b.weights, k), np.tile(b.tested, k)
        correct += int((reps.process(b.X, b.y, w, t)[:10] == b.y).sum())
    return time.perf_counter() - t0, correct / (10 * stream.n_rows)


def fresh(kind: str, learner: str, arff: Path) -> list[float]:
    """One measurement in a fresh Python process (cold JVM, own Ray): [seconds, accuracy];
    ``kind`` is a distval backend or ``bare<threads>``."""
    if kind.startswith("bare"):
        return in_fresh_process(__file__, kind, learner, str(arff))
    return distval_seconds(learner, arff, kind)[:2]


def one(kind: str, learner: str, arff: Path) -> None:
    print(json.dumps(bare_seconds(learner, arff, int(kind[4:] or 1))))


def cli_seconds(job: str, arff: Path) -> float:
    """``distval run`` in-process as a user runs it: the whole process, start to exit, with
    its results written (a temporary directory) and its summary printed."""
    specs = [f"moa:{LEARNERS[name]}" for name in names(job)]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    with tempfile.TemporaryDirectory(prefix="bench-moa-run-") as out:
        cmd = [sys.executable, "-m", "distval.cli", "run", "--stream", str(arff), "--learners",
               *specs, "--folds", "10", "--backend", "inprocess", "--no-progress",
               "--output", str(Path(out) / "res")]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        return time.perf_counter() - t0


def headline(repeats: int) -> None:
    """The goal's two jobs, MOA and distval alternated ``repeats`` times (module docstring)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-moa-") as tmp:
        for job, n in (("HT + NB", 1_000_000), ("ARF(10)", 100_000)):
            arff = Path(tmp) / f"sea{n}.arff"
            write_sea(arff, n)
            runs = []
            for _ in range(repeats):
                moa_s = sum(moa_cli_seconds(LEARNERS[one], arff, n)[0] for one in names(job))
                ours = fresh("inprocess", job, arff)[0]
                cli = cli_seconds(job, arff)
                runs.append((moa_s, ours, cli))
                print(job, moa_s, ours, cli, file=sys.stderr, flush=True)
            ratios = [ours / moa_s for moa_s, ours, _ in runs]
            cli_ratios = [cli / moa_s for moa_s, _, cli in runs]

            def each(values: list[float], digits: int = 1) -> str:
                return " / ".join(f"{v:.{digits}f}" for v in values)

            rows.append(
                {
                    "job": job,
                    "rows": f"{n:,}",
                    "moa cli s": each([r[0] for r in runs]),
                    "distval s": each([r[1] for r in runs]),
                    "distval run s": each([r[2] for r in runs]),
                    "distval / moa": each(ratios, 2),
                    "median distval / moa": float(np.median(ratios)),
                    "distval run / moa": each(cli_ratios, 2),
                    "median distval run / moa": float(np.median(cli_ratios)),
                }
            )
    text = "\n".join(
        [
            "### MOA's EvaluatePrequentialCV against distval in-process: the goal's two jobs, "
            f"{repeats} alternated rounds, {os.cpu_count()} cores",
            "",
            table(rows),
            "",
            "- each round runs MOA, then distval, then distval's command, back to back; the"
            " cells list the rounds in order.",
            "- moa cli: `java moa.DoTask EvaluatePrequentialCV ...`, the whole process (JVM start"
            " and exit), both learners' runs for HT + NB; distval: `distval.evaluate` timed in a"
            " fresh process from before `import distval` (imports and JVM start included, the"
            " process's exit not);"
            " distval run: the whole `python -m distval.cli run ... --backend inprocess`"
            " process, start to exit, results written and the summary printed.",
            "- goal: distval / moa <= 0.6 (issue 13).",
        ]
    )
    save("moa_headline", text, {"rows": rows, "repeats": repeats})


def verdict_cost(n: int, rounds: int) -> None:
    """HT + NB in-process on ``n`` rows with and without the paired trackers (the verdict's
    paired windows and confidence sequences), alternated ``rounds`` times in one run."""
    import statistics

    with tempfile.TemporaryDirectory(prefix="bench-moa-cost-") as tmp:
        arff = Path(tmp) / f"sea{n}.arff"
        write_sea(arff, n)
        runs = []
        for r in range(rounds):
            without, _, without_cpu = distval_seconds("HT + NB", arff, "inprocess", NO_PAIRED)
            with_, _, with_cpu = distval_seconds("HT + NB", arff, "inprocess")
            runs.append({"round": r + 1, "without s": without, "with s": with_,
                         "with / without": with_ / without, "without cpu s": without_cpu,
                         "with cpu s": with_cpu, "cpu with / without": with_cpu / without_cpu})
            print(runs[-1], file=sys.stderr, flush=True)
    med = statistics.median(x["with / without"] for x in runs)
    med_cpu = statistics.median(x["cpu with / without"] for x in runs)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    text = "\n".join([
        f"### Cost of the paired trackers: MOA HT + NB, 10-fold bootstrap, {n:,} SEA rows, "
        f"in-process ({time.strftime('%Y-%m-%d %H:%M')} UTC, {os.cpu_count()} cores, load "
        f"average at the end {load})",
        "",
        table(runs),
        "",
        f"Median with / without: wall {med:.3f}, CPU-seconds {med_cpu:.3f} (goal: at most "
        "1.15). Each run is a fresh process timed from before `import distval` (imports and "
        "JVM start included; CPU: the whole process, os.wait4); `without` sets "
        "`Aggregator.PAIRED = False` (the tests compare the folds' own windows, no confidence "
        "sequences).",
    ])
    save("moa_verdict_cost", text, {"rows": n, "runs": runs, "median_ratio": med,
                                    "median_cpu_ratio": med_cpu})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="20k rows only, HT and NB")
    ap.add_argument("--headline", type=int, metavar="N", help="the goal's two jobs, N pairs")
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    ap.add_argument("--verdict-cost", type=int, metavar="ROWS",
                    help="HT + NB with and without the paired trackers on ROWS rows")
    ap.add_argument("--rounds", type=int, default=3, help="alternations of --verdict-cost")
    args = ap.parse_args()
    if args.verdict_cost:
        return verdict_cost(args.verdict_cost, args.rounds)
    if args.one:
        return one(args.one[0], args.one[1], Path(args.one[2]))
    if args.headline:
        return headline(args.headline)
    grid = [
        ("HT", 100_000),
        ("NB", 100_000),
        ("HT", 1_000_000),
        ("NB", 1_000_000),
        ("HT + NB", 1_000_000),
        ("ARF(10)", 100_000),
    ]
    if args.quick:
        grid = [("HT", 20_000), ("NB", 20_000)]
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-moa-") as tmp:
        files = {}
        for n in sorted({n for _, n in grid}):
            files[n] = Path(tmp) / f"sea{n}.arff"
            write_sea(files[n], n)
        for name, n in grid:
            arff = files[n]
            moa_runs = [moa_cli_seconds(LEARNERS[one], arff, n) for one in names(name)]
            moa_s, moa_acc = sum(r[0] for r in moa_runs), moa_runs[0][1]
            bare, _ = fresh("bare1", name, arff)
            bare_all, _ = fresh(f"bare{os.cpu_count()}", name, arff)
            ours, our_acc = fresh("inprocess", name, arff)
            ray_s, _ = fresh("ray", name, arff)
            row = {
                "learner": name,
                "rows": f"{n:,}",
                "moa cli s": moa_s,
                "distval s": ours,
                "distval ray s": ray_s,
                "bare host s": bare,
                "bare host all cores s": bare_all,
                "distval / moa": ours / moa_s,
                "ray / moa": ray_s / moa_s,
                "ray / distval": ray_s / ours,
                "distval / bare all cores": ours / bare_all,
                "distval / bare": ours / bare,
                "moa acc": moa_acc,
                "distval acc": our_acc,
            }
            rows.append(row)
            print(row, file=sys.stderr, flush=True)
    text = "\n".join(
        [
            "### MOA learners: 10-fold prequential bootstrap on MOA's SEA (-p 0) rows "
            f"(same ARFF for both), {os.cpu_count()} cores",
            "",
            table(rows),
            "",
            "- moa cli: EvaluatePrequentialCV -a Bootstrap-Validation -w 10, JVM start included;"
            " distval: distval.evaluate in-process (timed from before `import distval`: imports"
            " and JVM start included), defaults"
            " (ADWIN windows, a snapshot with all measures every 1000 rows);"
            " ray: the same on Ray with all cores, Ray start included;"
            " bare host: the Java batch host alone over in-memory batches (loop timed only), its"
            " replicas on one Java thread, and on every core (as distval's in-process loop runs"
            " them, beside its reader and aggregator threads).",
            "- every distval and bare-host measurement runs in a fresh process (cold JVM and JIT).",
            "- HT + NB: distval's job, both learners in one run (and the Sign, Wilcoxon and"
            " McNemar tests between them every 1000 rows) against the two MOA runs a MOA user"
            " needs (EvaluatePrequentialCV evaluates one learner); bare host: all 20 replicas.",
            "- accuracies: MOA's is its window evaluator's last 1000 rows (mean of folds),"
            " distval's is cumulative (mean of folds); they are shown as a sanity check only.",
        ]
    )
    save("moa", text, {"rows": rows})


if __name__ == "__main__":
    main()
