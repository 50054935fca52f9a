"""Accuracy and cost of ``distval suite --plan``: the projection against the real suite.

For each suite below, in one script run: ``distval suite ... --plan`` in a fresh process
(cold imports and JIT, as a user runs it), then the real suite in another fresh process
(Ray tasks on the local cores, the default backend). Per stream the table gives the
projected CPU-s, the real CPU-s the suite records in ``suite.json`` (the stream's task, the
figure ``--plan`` projects), their ratio, and the plan's own CPU-s (its whole process) as a
share of the smallest stream's real run.

    python benchmarks/bench_plan.py                      # the suites below
    python benchmarks/bench_plan.py --suites ht-nb       # one of them
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from common import load_span, save, table

ROOT = Path(__file__).resolve().parents[1]

#: name -> (streams, learners, rows, folds)
SUITES: dict[str, tuple[list[str], list[str], int, int]] = {
    "ht-nb": (["SEA(50)", "agrawal", "RBF(10,0.001)", "HYP(10,0.001)"], ["ht", "nb"], 20_000, 10),
    "hat-arf": (["SEA(50)", "agrawal", "RBF(10,0.001)"], ["hat", "arf(n_models=3)"], 15_000, 5),
    "ht-nb-arf": (["SEA(50)", "agrawal"], ["ht", "nb", "arf(n_models=3)"], 30_000, 5),
}


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _distval(*args: str) -> tuple[float, float, str]:
    """(CPU-s of the process and its children, wall s, stdout) of one ``distval`` command."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before, t0 = _cpu_children(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "distval.cli", *args],
        check=True, capture_output=True, text=True, env=env, cwd=ROOT,
    )
    return _cpu_children() - before, time.perf_counter() - t0, done.stdout


def _projected(text: str) -> dict[str, float]:
    """Each stream's projected CPU-s from the plan's text (its first table)."""
    out: dict[str, float] = {}
    for line in text.splitlines()[1:]:
        if not line.strip():
            break
        parts = line.split()
        out[parts[0]] = float(parts[3].replace(",", ""))
    return out


def _probes(text: str) -> float:
    """The probes' CPU-s the plan prints."""
    for line in text.splitlines():
        if line.startswith("The probes took "):
            return float(line.split()[3])
    return 0.0


def one(name: str, root: Path) -> tuple[list[dict], dict, str]:
    streams, learners, rows, folds = SUITES[name]
    out = root / name
    shutil.rmtree(out, ignore_errors=True)
    common = ["suite", "--streams", *streams, "--learners", *learners, "--n-rows", str(rows),
              "--folds", str(folds), "--output", str(out), "--no-progress"]
    start = os.getloadavg()
    plan_cpu, plan_wall, text = _distval(*common, "--plan")
    print(text, flush=True)
    _, suite_wall, _ = _distval(*common)
    stored = json.loads((out / "suite.json").read_text())
    real = {s["name"]: float(s["cpu_seconds"]) for s in stored["streams"]}
    projected = _projected(text)
    sources = {
        line.split()[0]: line.split("  ")[-1].strip()
        for line in text.splitlines()[1:1 + len(streams)]
    }
    smallest = min(real.values())
    rows_out = [
        {
            "suite": name,
            "stream": s,
            "projected CPU-s": projected[s],
            "real CPU-s": real[s],
            "real / projected": real[s] / projected[s],
            "cost from": sources[s],
        }
        for s in real
    ]
    summary = {
        "suite": name,
        "streams": len(streams),
        "learners": " ".join(learners),
        "rows": rows,
        "folds": folds,
        "probes CPU-s": _probes(text),
        "probes / smallest stream": _probes(text) / smallest,
        "plan CPU-s": plan_cpu,
        "plan wall s": plan_wall,
        "plan / smallest stream": plan_cpu / smallest,
        "suite wall s": suite_wall,
        "load": load_span(start),
    }
    print(table(rows_out), "\n", summary, flush=True)
    return rows_out, summary, text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suites", nargs="+", default=list(SUITES), choices=list(SUITES))
    ap.add_argument("--output", default="/tmp/distval-bench-plan")
    ap.add_argument("--name", default="plan", help="results file name")
    args = ap.parse_args(argv)
    streams, summaries, plans = [], [], {}
    for name in args.suites:
        rows, summary, plans[name] = one(name, Path(args.output))
        streams += rows
        summaries.append(summary)
    ratios = [r["real / projected"] for r in streams]
    worst = max(s["plan / smallest stream"] for s in summaries)
    probes = max(s["probes / smallest stream"] for s in summaries)
    text = "\n\n".join([
        "# distval suite --plan against the real suite",
        "Per stream: the CPU-s `--plan` projects, the CPU-s the real suite records "
        "(`suite.json`), and their ratio.",
        table(streams),
        "Per suite: the probes' CPU-s (as the plan prints them) and the plan's own CPU-s "
        "(its whole process, cold: Python, imports and probes), each as a share of the "
        "smallest stream's real CPU-s; the real suite's wall s.",
        table(summaries),
        f"Ratios real / projected from {min(ratios):.2f} to {max(ratios):.2f}; the probes "
        f"cost at most {100 * probes:.1f} % of the smallest stream's run, the whole plan "
        f"command at most {100 * worst:.1f} %.",
    ])
    save(args.name, text, {"streams": streams, "suites": summaries, "plans": plans})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
