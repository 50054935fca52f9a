"""Robustness of learners to controlled permutations of real streams.

Reproduces the protocol of zliobaite-controlled-permutations, Sect. 5.2: ten permutations of
each type (time and speed with p = 0.5, shape with k = n) of each data set, the learners
evaluated on the original and on every copy; reported are the spread of accuracy over the
copies, the average neighbour distance against Props. 3, 5 and 8, and how stable the learner
ranking is.

    python benchmarks/bench_permutations.py --data-dir DIR     # Electricity and DIR/weather.parquet
    python benchmarks/bench_permutations.py --repeats 2 --n-rows 3000 --datasets elec2  # quick

``elec2`` is the bundled Electricity file; any other data set is ``NAME.parquet`` in
``--data-dir`` or a path to a stream file.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from distval import RunConfig
from distval.experiments.robustness import run_robustness
from distval.streams.permutations import parse_permutation

from common import save, table

DATASETS = ["elec2", "weather"]


def stream_spec(name: str, data_dir: str | None) -> str:
    if name == "elec2":
        return "elec2"  # the bundled copy
    if Path(name).is_file():
        return name
    if data_dir is not None and (Path(data_dir) / f"{name}.parquet").is_file():
        return str(Path(data_dir) / f"{name}.parquet")
    sys.exit(f"data set {name!r} not found: give its path or --data-dir DIR holding {name}.parquet")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--data-dir", default=None, help="directory of NAME.parquet files")
    ap.add_argument("--kinds", nargs="+", default=["time:p=0.5", "speed:p=0.5", "shape:k=n"])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--learners", nargs="+", default=["ht", "majority", "persistent"])
    ap.add_argument("--folds", type=int, default=2)
    ap.add_argument("--n-rows", type=int, default=None)
    ap.add_argument("--backend", choices=["inprocess", "ray"], default="inprocess")
    ap.add_argument("--output", default="/tmp/distval-bench-permutations")
    ap.add_argument("--name", default="permutations", help="results file name")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)

    out = Path(args.output)
    rows, rank_rows, data = [], [], {"runs": [], "settings": vars(args)}
    t0 = time.perf_counter()
    for ds in args.datasets:
        config = RunConfig(
            stream=stream_spec(ds, args.data_dir),
            n_rows=args.n_rows,
            learners=tuple(args.learners),
            n_folds=args.folds,
            test_every=5000,
            batch_size=5000,
            seed=1,
        )
        first = None
        for kind in args.kinds:
            spec = parse_permutation(kind)
            target = out / ds / spec.kind
            if first is not None and not (target / "original").exists():
                # the original copy is the same for every kind: reuse it
                shutil.copytree(first / "original", target / "original")
            res = run_robustness(
                config,
                permute=kind,
                repeats=args.repeats,
                output_dir=target,
                progress=not args.no_progress,
                backend=args.backend,
            )
            first = first or target
            s = res.summary()
            data["runs"].append({"dataset": ds, **{k: v for k, v in s.items() if k != "config"}})
            for lab in config.labels:
                acc = s["learners"][lab]["accuracy"]
                rows.append(
                    {
                        "data": ds,
                        "permutation": res.permutation,
                        "learner": lab,
                        "original": acc["original"],
                        "mean": acc["mean"],
                        "sd": acc["std"],
                        "min": acc["min"],
                        "max": acc["max"],
                    }
                )
            eq = s["ranking_equal_to_original"]
            rank_rows.append(
                {
                    "data": ds,
                    "rows": s["rows"],
                    "permutation": res.permutation,
                    "AND mean": s["and"]["mean"],
                    "AND sd": s["and"]["std"],
                    "AND expected": s["and"]["expected"],
                    "same ranking": f"{eq['count']}/{eq['of']}",
                    "mean Kendall tau": s["kendall_tau"]["mean"],
                    "original ranking": " > ".join(s["rankings"][0]["ranking"]),
                    "seconds": res.elapsed,
                }
            )
    elapsed = time.perf_counter() - t0
    text = "\n".join(
        [
            "# Robustness to controlled permutations",
            "",
            f"{args.repeats} permuted copies per type and data set plus the original; "
            f"learners {', '.join(args.learners)}; {args.folds}-fold bootstrap prequential "
            f"validation; cumulative accuracy at the end of the stream, mean over folds; "
            f"backend {args.backend}; {elapsed:.0f} s in total.",
            "",
            "## Accuracy: original, and mean ± sd / min / max over the permuted copies",
            "",
            table(rows),
            "",
            "## Average neighbour distance and ranking stability",
            "",
            "AND expected: Prop. 3 (time), Prop. 5 (speed), Prop. 8 bound 1 + 2k/(n-1) (shape).",
            "",
            table(rank_rows),
        ]
    )
    data["elapsed_seconds"] = elapsed
    save(args.name, text, data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
