"""``--backend auto`` against the faster of in-process and Ray, on the README's default job.

The job of ``distval run`` with no options (Hoeffding tree vs Gaussian naive Bayes, 10-fold
prequential bootstrap, bundled Electricity) on its first 5,000 rows and on the whole stream
(45,312 rows), through ``distval.evaluate`` with each backend in a fresh process (Ray start
included, as a user runs it). Goal (issue 14): auto never more than 10 % slower than the
faster of the other two. Backends run in a rotating order, ``--repeats`` times, and the
table shows the median wall time of each.

    python benchmarks/bench_auto.py [--repeats 2] [--sizes 5000,full]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from common import in_fresh_process, save, table

BACKENDS = ("inprocess", "ray", "auto")


def one(backend: str, n_rows: int | None) -> dict:
    """The default job on one backend, timed in this (fresh) process."""
    import distval

    t0 = time.perf_counter()
    res = distval.evaluate(backend=backend, n_rows=n_rows, progress=False)
    seconds = time.perf_counter() - t0
    return {"seconds": seconds, "evaluated_by": dict(res.evaluated_by)}


def fresh(backend: str, n_rows: int | None) -> dict:
    return in_fresh_process(__file__, backend, str(n_rows or 0))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--sizes", default="5000,full")
    ap.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.one:
        print(json.dumps(one(a.one[0], int(a.one[1]) or None)))
        return
    rows = []
    for size in a.sizes.split(","):
        n_rows = None if size == "full" else int(size)
        times: dict[str, list[float]] = {b: [] for b in BACKENDS}
        where: dict[str, dict] = {}
        for r in range(a.repeats):
            order = BACKENDS[r % 3 :] + BACKENDS[: r % 3]
            for backend in order:
                got = fresh(backend, n_rows)
                times[backend].append(got["seconds"])
                where[backend] = got["evaluated_by"]
                print(size, backend, got, file=sys.stderr, flush=True)
        med = {b: statistics.median(v) for b, v in times.items()}
        best = min(med["inprocess"], med["ray"])
        rows.append(
            {
                "rows": "45,312 (whole)" if n_rows is None else f"{n_rows:,}",
                "in-process s": med["inprocess"],
                "ray s": med["ray"],
                "auto s": med["auto"],
                "auto / best": med["auto"] / best,
                "auto evaluated by": ", ".join(f"{k}: {v:,}" for k, v in where["auto"].items()),
                "runs": a.repeats,
            }
        )
    worst = max(r["auto / best"] for r in rows)
    text = "\n".join(
        [
            "### `--backend auto` on the README's default job (ht vs nb, 10-fold prequential"
            f" bootstrap, Electricity), {os.cpu_count()} cores, median of each backend's runs",
            "",
            table(rows),
            "",
            f"- worst auto / best: **{worst:.3f}** (goal <= 1.10); each run in a fresh process,"
            " Ray start included; backends in rotating order.",
            "- auto evaluated by: rows evaluated in the driver and on Ray in auto's last run.",
        ]
    )
    save("auto", text, {"rows": rows, "args": vars(a)})


if __name__ == "__main__":
    main()
