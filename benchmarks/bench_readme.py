"""How long each command of the README takes, as shown there, with the load it ran under.

Runs, one after another in a fresh temporary directory, every ``distval`` command of the
README (the default job of the Quick start, the Command line block, the MOA block) at the
size the README gives, and its Python example, each as a fresh process (``python -m
distval.cli``, ``python -c``), and records for each its wall time and the machine's 1-minute
load average when it started and when it ended. ``data.csv`` (the first command's "your own
file") is 20,000 rows of river's SEA generator.

    python benchmarks/bench_readme.py                # writes results/readme_times.{json,md}
    python benchmarks/bench_readme.py --only suite   # again for the commands holding "suite"
    python benchmarks/bench_readme.py --table        # the Markdown tables from the saved rows

The README's Times table is the second table of results/readme_times.md (:func:`times`),
rendered into the README by ``python -m benchmarks.render``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import RESULTS, save

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "helpers"))

from readme_commands import python_example, sh_commands, write_data_csv  # noqa: E402

DATA_ROWS = 20_000


def commands() -> list[list[str]]:
    """Every distinct ``distval`` command of the README, in its order (the test command and
    the install are left out)."""
    out: list[list[str]] = []
    for _, argv in sh_commands():
        if argv[0] == "distval" and argv not in out:
            out.append(argv)
    return out


def one(argv: list[str], cwd: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    out = {"wall s": round(wall, 1), "load at start": round(load0, 1),
           "load at end": round(os.getloadavg()[0], 1), "status": done.returncode}
    if done.returncode:
        out["error"] = (done.stderr.strip().splitlines() or [""])[-1]
    return out


#: The README's Times table: each row's label and the commands it covers (the start of each
#: command as shown; "distval run" alone is the default job).
TIMES = [
    ("`distval run` (the default job)", ["distval run"]),
    ("`distval run --stream data.csv ... --output results/my-run`",
     ["distval run --stream data.csv"]),
    ('`distval run --stream "SEA(50)" ... --sequential spending`',
     ["distval run --stream 'SEA(50)'"]),
    ("`distval run --config results/my-run/config.json ...`", ["distval run --config"]),
    ("`distval report results/my-run`", ["distval report"]),
    ("`distval describe elec2 --lags 3`, `distval learners`",
     ["distval describe", "distval learners"]),
    ("`distval run --stream elec2 ... --measure auc` (late labels)",
     ["distval run --stream elec2"]),
    ('`distval run --stream sea ... "sklearn:SGDClassifier(...)" nb`',
     ["distval run --stream sea --n-rows 20000"]),
    ("`distval run --stream friedman ...` (regression)", ["distval run --stream friedman"]),
    ("`distval export ...`, `distval compare ...`", ["distval export", "distval compare"]),
    ("`distval suite --streams ...`", ["distval suite"]),
    ('`distval run --stream sea --learners "moa:..."` (100,000 rows)',
     ["distval run --stream sea --learners 'moa:"]),
    ("the Python example", ["the Python example"]),
]


def times(rows: list[dict]) -> list[str]:
    """The README's Times table of the measured rows: wall seconds, and the 1-minute load
    from the first command's start to the last one's end.

    >>> row = {"wall s": 0.8, "load at start": 1.8, "load at end": 1.8}
    >>> times([dict(row, command="distval export x"), dict(row, command="distval compare x")])[2]
    '| `distval export ...`, `distval compare ...` | 1 s each | 1.8 → 1.8 |'
    """
    out = ["| command | wall | load |", "|---|---|---|"]
    for label, starts in TIMES:
        mine = [next(r for r in rows if r["command"] == s or
                     (s != "distval run" and r["command"].startswith(s)))
                for s in starts if any(r["command"].startswith(s) for r in rows)]
        if not mine:
            continue
        walls = [f"{r['wall s']:.0f} s" for r in mine]
        wall = f"{walls[0]} each" if len(walls) > 1 and len(set(walls)) == 1 else ", ".join(walls)
        out.append(f"| {label} | {wall} | "
                   f"{mine[0]['load at start']:.1f} → {mine[-1]['load at end']:.1f} |")
    return out


def main() -> None:
    """Every command; with ``--only TEXT``, only the commands holding TEXT, run again (in a
    fresh directory) and replacing their rows of the saved results."""
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    saved = RESULTS / "readme_times.json"
    rows = json.loads(saved.read_text())["data"]["rows"] if only and saved.exists() else []
    if "--table" in sys.argv:  # only the Markdown table again, from the saved results
        rows, only = json.loads(saved.read_text())["data"]["rows"], "\0"
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        write_data_csv(cwd / "data.csv", DATA_ROWS)
        runs = [(" ".join(a if " " not in a and "(" not in a else repr(a) for a in argv),
                 [sys.executable, "-m", "distval.cli", *argv[1:]]) for argv in commands()]
        runs.append(("the Python example", [sys.executable, "-c", python_example()]))
        for shown, argv in runs:
            if only is not None and only not in shown:
                continue
            r = {"command": shown, "at": time.strftime("%Y-%m-%d %H:%M"), **one(argv, cwd)}
            at = [i for i, old in enumerate(rows) if old["command"] == shown]
            if at:
                rows[at[0]] = r
            else:
                rows.append(r)
            print(r, flush=True)
    date = time.strftime("%Y-%m-%d %H:%M")
    lines = [
        f"### The README's commands as shown (table written {date}, 2-core VM, shared)",
        "",
        "| command | started (UTC) | wall s | 1-min load average at its start / end | exit "
        "status |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| `{r['command']}` | {r['at']} | {r['wall s']:.0f} | "
                     f"{r['load at start']:.1f} / {r['load at end']:.1f} | {r['status']} "
                     f"{r.get('error', '')} |")
    lines += ["", f"`data.csv`: {DATA_ROWS:,} rows of river's SEA generator (noise 0.1).", "",
              "### The README's Times table", "", *times(rows)]
    save("readme_times", "\n".join(lines),
         {"machine_kind": "2-core VM, shared", "data_csv_rows": DATA_ROWS, "rows": rows})


if __name__ == "__main__":
    main()
