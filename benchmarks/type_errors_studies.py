"""Small studies behind the standard type I / type II grid (issue 15; bifet2015 §4.1).

Each study answers one "why" question about a difference between our Tables 2-4 and the
paper's, with the standard profile's learner (MOA OzaBag of 10 Hoeffding trees), k = 10,
alpha = 0.05. Cells are stored as they finish (``cells.jsonl`` in the output directory), so
an interrupted study resumes; ``--report`` only rebuilds ``studies.md`` from stored cells.

* ``length``: McNemar's (and the fold tests') type I error against the number of rows seen,
  3k / 10k / 30k / 100k, on HYP(10,0.001) and RBF(10,0.001) -- one 100k pass per run with
  checkpoints (those generators do not depend on the stream length, so the decision after
  n rows equals the decision of an n-row stream). Does over-rejection grow with n, as the
  paper argues, and at which length do we meet the paper's rates?
* ``noise``: which learner the noise filter wraps -- A' (``other``: the default) or A
  itself (``same``) -- on SEA(50), SEA(50000) and RBF(50,0.001), the streams where the
  paper's power is lowest; with the expected accuracy penalty of the filter against the
  spread of the fold accuracy differences, at 10k and 50k rows.

Run from the repository root::

    PYTHONPATH=. python benchmarks/type_errors_studies.py --study length --runs 8
    PYTHONPATH=. python benchmarks/type_errors_studies.py --study noise --runs 8
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors import ENSEMBLE, GridConfig, run_cell

OUT = Path(__file__).parent / "results" / "type-errors-studies"

STUDIES: dict[str, dict[str, Any]] = {
    "length": {
        "streams": ("HYP(10,0.001)", "RBF(10,0.001)"),
        "n_rows": 100_000,
        "checkpoints": (3_000, 10_000, 30_000, 100_000),
        "noise_on": ("other",),
        "schemes": ("cv",),
    },
    "noise": {
        "streams": ("SEA(50)", "SEA(50000)", "RBF(50,0.001)"),
        "n_rows": 50_000,
        "checkpoints": (10_000, 50_000),
        "noise_on": ("other", "same"),
        "schemes": ("cv",),
    },
}


def config(stream: str, n_rows: int, noise_on: str, schemes: tuple[str, ...]) -> GridConfig:
    # seed 1 as the standard grid: run r of a stream sees the same rows and the same A, A'
    return GridConfig(
        streams=((stream, stream),),
        runs=1,
        n_rows=n_rows,
        learner=ENSEMBLE,
        schemes=schemes,
        # the studies filter the predictions; their "noise_on" names the filtered learner
        noise_on="predictions",
        noise_learner=noise_on,
    )


def run(study: str, runs: int, out: Path) -> None:
    spec = STUDIES[study]
    out.mkdir(parents=True, exist_ok=True)
    path = out / "cells.jsonl"
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                c = json.loads(line)
            except json.JSONDecodeError:
                continue
            done.add(c["id"])
    todo = [
        (stream, r, scheme, noise_on)
        for r in range(runs)
        for stream in spec["streams"]
        for noise_on in spec["noise_on"]
        for scheme in spec["schemes"]
    ]
    for stream, r, scheme, noise_on in todo:
        cid = f"{study}|{stream}|{r}|{scheme}|{noise_on}"
        if cid in done:
            continue
        cfg = config(stream, spec["n_rows"], noise_on, spec["schemes"])
        t0 = time.time()
        cell = run_cell(cfg, stream, stream, r, scheme, checkpoints=spec["checkpoints"])
        cell |= {"id": cid, "study": study, "noise_on": noise_on}
        with path.open("a") as fh:
            fh.write(json.dumps(cell) + "\n")
        print(f"{cid}: {cell['cpu_seconds']:.1f} CPU-s, {time.time() - t0:.0f} s wall", flush=True)


def frame(out: Path) -> pd.DataFrame:
    rows = []
    path = out / "cells.jsonl"
    if not path.exists():
        return pd.DataFrame()
    for line in path.read_text().splitlines():
        try:
            c = json.loads(line)
        except json.JSONDecodeError:
            continue
        for n, results in c["at"].items():
            for r in results:
                rows.append(
                    {
                        "study": c["study"],
                        "stream": c["stream"],
                        "run": c["run"],
                        "scheme": c["scheme"],
                        "noise_on": c["noise_on"],
                        "n_classes": c["n_classes"],
                        "rows": int(n),
                        "cpu_seconds": c["cpu_seconds"],
                    }
                    | r
                )
    return pd.DataFrame(rows)


def _md(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for row in df.itertuples(index=False):
        cells = [f"{v:.2f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(out: Path) -> str:
    df = frame(out)
    parts = ["# Type I / type II studies (issue 15)", ""]
    if df.empty:
        return "\n".join([*parts, "No cells yet."])
    cpu = df.drop_duplicates(["study", "stream", "run", "scheme", "noise_on"])
    parts += [
        "Learner `" + ENSEMBLE + "`, k = 10, alpha = 0.05, cv, seed 1 (run r sees the same "
        "rows and the same A, A' as run r of the standard grid). Each entry is the fraction "
        "of runs rejecting H0; `runs` says how many runs a row holds. CPU: "
        f"{cpu.cpu_seconds.sum():.0f} CPU-s in {len(cpu)} passes.",
        "",
    ]
    length = df[df.study == "length"]
    if len(length):
        t1 = length[(length.pnoise == 0)]
        piv = (
            t1.groupby(["stream", "rows", "test", "prequential"])["reject"]
            .agg(["mean", "size"])
            .reset_index()
        )
        piv["variant"] = np.where(piv.prequential, "preq", "non-preq")
        wide = piv.pivot_table(
            index=["stream", "rows"], columns=["test", "variant"], values="mean"
        ).reset_index()
        wide.columns = [" ".join(c).strip() if isinstance(c, tuple) else c for c in wide.columns]
        runs = piv.groupby(["stream", "rows"])["size"].max().reset_index(drop=True)
        wide.insert(2, "runs", runs.to_numpy())
        disc = t1[(t1.test == "mcnemar") & (~t1.prequential)]
        d = disc.groupby(["stream", "rows"])["n"].mean().reset_index(drop=True)
        wide.insert(3, "McNemar n01+n10 (mean)", d.to_numpy())
        # under H0 (equal accuracy) McNemar's statistic is ~chi2(1) whatever n: mean ~1. A
        # mean growing with n means A and A' differ in accuracy by a fixed amount per run
        # that more rows make detectable.
        chi = disc.groupby(["stream", "rows"])["statistic"].mean().reset_index(drop=True)
        wide.insert(4, "chi2 non-preq (mean)", chi.to_numpy())
        pre = t1[(t1.test == "mcnemar") & t1.prequential]
        chi_p = pre.groupby(["stream", "rows"])["statistic"].mean().reset_index(drop=True)
        wide.insert(5, "chi2 preq (mean)", chi_p.to_numpy())
        gap = disc.assign(gap=(disc.mean_a - disc.mean_b).abs())
        g = gap.groupby(["stream", "rows"])["gap"].mean().reset_index(drop=True)
        wide.insert(6, "|acc A - acc A'| (mean)", [f"{v:.4f}" for v in g.to_numpy()])
        ref = {
            s: (paper.TABLE3[s][(0.0, "cv")], paper.TABLE4[s][(0.0, "cv")])
            for s in set(wide.stream)
        }
        parts += [
            "## McNemar type I against rows seen (no change: A vs A')",
            "",
            _md(wide),
            "",
            "Paper, cv, no change: "
            + "; ".join(
                f"{s}: McNemar non-preq {a:.2f}, Wilcoxon preq {b:.2f}"
                for s, (a, b) in sorted(ref.items())
            ),
            "",
        ]
    noise = df[(df.study == "noise") & (df.pnoise > 0) & df.prequential]
    if len(noise):
        g = noise.groupby(["stream", "rows", "noise_on", "pnoise", "test"])
        power = g["reject"].mean().unstack("test").reset_index()
        extra = g.agg(
            mean_a=("mean_a", "mean"),
            mean_b=("mean_b", "mean"),
            sd_diff=("sd_diff", "mean"),
            runs=("run", "nunique"),
        ).reset_index()
        extra = extra.drop_duplicates(["stream", "rows", "noise_on", "pnoise"])
        merged = power.merge(extra, on=["stream", "rows", "noise_on", "pnoise"])
        c = noise.groupby("stream")["n_classes"].first()
        p0 = merged.mean_a
        cls = merged.stream.map(c).clip(lower=2)
        merged["expected penalty"] = merged.pnoise * (p0 - (1 - p0) / (cls - 1))
        merged["observed A-B"] = merged.mean_a - merged.mean_b
        # the Wilcoxon/Sign statistic sees mean difference against its fold-to-fold spread
        merged["effect (A-B)/sd"] = merged["observed A-B"] / merged.sd_diff
        keep = [
            "stream",
            "rows",
            "noise_on",
            "pnoise",
            "runs",
            "mean_a",
            "expected penalty",
            "observed A-B",
            "sd_diff",
            "effect (A-B)/sd",
            "mcnemar",
            "sign",
            "wilcoxon",
        ]
        ref = ", ".join(
            f"{s} {paper.TABLE4[s][(p, 'cv')]:.2f}"
            for s in sorted(set(merged.stream))
            for p in (0.05, 0.10)
        )
        parts += [
            "## Power (prequential, cv) by the learner the noise filter wraps",
            "",
            "`other`: A vs noise(A') (default of the grids); `same`: A vs noise(A). Expected "
            "penalty: pnoise (p0 - (1 - p0)/(c - 1)) with p0 = A's mean fold accuracy; "
            "sd_diff: standard deviation over the 10 folds of A's minus B's accuracy "
            "(mean over runs).",
            "",
            _md(merged[keep]),
            "",
            f"Paper's Wilcoxon prequential cv power (pnoise 0.05, 0.10): {ref}.",
            "",
        ]
    return "\n".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--study", choices=sorted(STUDIES), action="append")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--output", type=Path, default=OUT)
    ap.add_argument("--report", action="store_true", help="only rebuild studies.md")
    args = ap.parse_args()
    if not args.report:
        for study in args.study or sorted(STUDIES):
            run(study, args.runs, args.output)
    text = report(args.output)
    (args.output / "studies.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
