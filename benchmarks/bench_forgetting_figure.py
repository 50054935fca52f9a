"""Forgetting mechanisms compared on one stream: ADWIN against sliding windows (bifet2015 Fig 3).

The same learner (default: Hoeffding tree) runs on the bundled Electricity stream once per
mechanism: ADWIN and sliding windows of 100, 1,000 and 10,000 rows (identical predictions:
same seed, same replicas; only the window over which accuracy is measured differs). The
figure plots the mean accuracy over folds of each; the table gives, per window, the mean
absolute gap to the ADWIN curve and the curve's roughness (standard deviation of its
changes between checks), bifet2015 §6 observing that the 1,000-row window is the one closest
to ADWIN. The ADWIN run also evaluates the Majority and Persistent baselines; its report
is the example under ``results/report-example/``: ``report.html`` (every figure embedded)
and ``accuracy.png`` are kept, the other generated files are removed to keep it small.

    python benchmarks/bench_forgetting_figure.py [--rows N] [--folds 3] [--test-every 100]
        [--windows 100 1000 10000] [--learner ht] [--no-example]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

import distval
from distval.report import make_report
from distval.report.figures import plot_forgetting_comparison, png_bytes

from common import RESULTS, save, table, timed

EXAMPLE = RESULTS / "report-example"


def mean_curve(result, label: str, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """(positions, mean accuracy over folds) of one learner under one mechanism."""
    f = result.folds()
    f = f[(f["learner"] == label) & (f["forgetting"] == kind)]
    g = f.groupby("position")["accuracy"].mean()
    return g.index.to_numpy(), g.to_numpy()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--stream", default="elec2")
    p.add_argument("--rows", type=int, default=None, help="stop after N rows (default: all)")
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--learner", default="ht")
    p.add_argument("--test-every", type=int, default=100)
    p.add_argument("--windows", type=int, nargs="+", default=[100, 1000, 10000])
    p.add_argument("--no-example", action="store_true", help="do not write the report example")
    a = p.parse_args()

    common = {
        "stream": a.stream,
        "n_rows": a.rows,
        "n_folds": a.folds,
        "test_every": a.test_every,
        "tests": ("sign", "wilcoxon", "mcnemar"),
    }
    runs = [("adwin", None)] + [("window", w) for w in a.windows]
    curves, seconds = {}, {}
    tmp = Path(tempfile.mkdtemp(prefix="distval-forgetting-"))
    for kind, size in tqdm(runs, desc="runs", unit="run"):
        name = "ADWIN" if kind == "adwin" else f"sliding window {size:,}"
        learners = (a.learner, "majority", "persistent") if kind == "adwin" else (a.learner,)
        out = tmp / ("adwin" if kind == "adwin" else f"window{size}")
        t, res = timed(
            distval.evaluate,
            learners=learners,
            forgetting=kind,
            window=size or 1000,
            output_dir=out,
            **(common if len(learners) > 1 else common | {"tests": ()}),
        )
        seconds[name] = t
        curves[name] = mean_curve(res, res.config.labels[0], kind)
        n_rows = res.n_rows

    x_ad, v_ad = curves["ADWIN"]
    rows = []
    for name, (x, v) in curves.items():
        assert np.array_equal(x, x_ad)
        rows.append(
            {
                "mechanism": name,
                "final accuracy (%)": 100 * float(v[-1]),
                "mean accuracy (%)": 100 * float(np.mean(v)),
                "mean abs. gap to ADWIN (pp)": 100 * float(np.mean(np.abs(v - v_ad))),
                "roughness (pp)": 100 * float(np.std(np.diff(v))),
                "run (s)": seconds[name],
            }
        )
    fig = plot_forgetting_comparison(
        curves,
        title=f"{a.learner} on {a.stream}: accuracy, mean of {a.folds} folds, "
        "under ADWIN and sliding windows",
    )
    EXAMPLE.mkdir(parents=True, exist_ok=True)
    png = EXAMPLE / f"forgetting_{a.stream}.png"
    png.write_bytes(png_bytes(fig))
    if not a.no_example:
        for old in EXAMPLE.glob("*"):
            if old != png:
                old.unlink()
        html = make_report(tmp / "adwin", EXAMPLE)
        # the page embeds every figure: keep it, one figure and the comparison (small files)
        for extra in EXAMPLE.glob("*"):
            if extra not in (html, png, EXAMPLE / "accuracy.png"):
                extra.unlink()
        print(f"report example: {html}")
    shutil.rmtree(tmp, ignore_errors=True)
    text = "\n".join(
        [
            f"## Forgetting mechanisms on {a.stream} (bifet2015 Fig 3)",
            "",
            f"{a.learner}, {a.folds}-fold prequential bootstrap, {n_rows:,} rows, accuracy "
            f"checked every {a.test_every} rows; gap and roughness in percentage points.",
            "",
            table(rows),
            "",
            f"Figure: `report-example/{png.name}`.",
        ]
    )
    save(
        "forgetting_figure",
        text,
        {"args": vars(a), "rows": rows, "n_rows": n_rows, "figure": str(png.relative_to(RESULTS))},
    )


if __name__ == "__main__":
    main()
