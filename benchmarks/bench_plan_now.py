"""``distval suite --plan``'s wall time "on this machine now" against the suite's real wall
time, run just after it on the same machine (whatever its load).

For each repetition: the plan (``python -m distval.cli suite ... --plan``, its own wall time
measured too), then the same suite into a fresh directory; the 1-minute load average before
each. The ratio real / projected is the goal's number (within 1.5x either way). Optional
busy-loop counts add that many busy processes (at this script's niceness) for the plan and
the suite of a repetition, a known load on top of the machine's own.

    python benchmarks/bench_plan_now.py [repetitions] [busy ...]   # results/plan_now.{json,md}
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import save

ROOT = Path(__file__).resolve().parents[1]
SUITE = ["suite", "--streams", "SEA(50)", "HYP(10,0.001)", "RBF(10,0.001)", "elec2",
         "--learners", "ht", "nb", "--n-rows", "5000"]


def seconds(text: str) -> float:
    """The seconds of :func:`distval.experiments.study.duration`'s text."""
    m = re.fullmatch(r"([\d.]+) s", text) or re.fullmatch(r"([\d.]+) min", text)
    if m:
        return float(m.group(1)) * (60 if text.endswith("min") else 1)
    h, mins = re.fullmatch(r"(\d+) h (\d+) min", text).groups()
    return 3600 * float(h) + 60 * float(mins)


def timed(argv: list[str], cwd: Path) -> tuple[float, float, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "distval.cli", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, check=True)
    return time.perf_counter() - t0, load, done.stdout


def busy(n: int) -> list[subprocess.Popen[bytes]]:
    """``n`` busy loops, each a process of its own."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    loads = [int(x) for x in sys.argv[2:]] or [0]
    rows = []
    for extra in loads:
        for _ in range(reps):
            loops = busy(extra)
            try:
                with tempfile.TemporaryDirectory() as tmp:
                    plan_wall, plan_load, text = timed([*SUITE, "--plan"], Path(tmp))
                    projected = seconds(re.search(
                        r"On this machine now: about (.+?) on its", text).group(1))
                    real, load, _ = timed([*SUITE, "--output", "s"], Path(tmp))
            finally:
                for p in loops:
                    p.kill()
                    p.wait()
            rows.append({"busy loops added": extra, "plan wall s": round(plan_wall, 1),
                         "load at plan": round(plan_load, 1),
                         "projected s": round(projected, 1), "suite wall s": round(real, 1),
                         "load at suite": round(load, 1),
                         "real / projected": round(real / projected, 2)})
            print(rows[-1], flush=True)
    head = "| " + " | ".join(rows[0]) + " |"
    lines = [f"### suite --plan 'on this machine now' vs the suite run just after "
             f"({time.strftime('%Y-%m-%d %H:%M')}, 2-core VM, shared)", "",
             f"`distval {' '.join(SUITE)}`", "", head, "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(str(v) for v in r.values()) + " |" for r in rows]
    save("plan_now", "\n".join(lines), {"suite": SUITE, "rows": rows})


if __name__ == "__main__":
    main()
