"""The named benchmarks: what ``python -m benchmarks NAME`` runs, and which docs quote it.

>>> REGISTRY["aggregator"].script
'bench_aggregator.py'
>>> sorted(n for n, b in REGISTRY.items() if b.quick is not None)[:2]
['aggregator', 'drift_detection']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Benchmark:
    """One named benchmark: a script of ``benchmarks/`` and the arguments it runs with.

    ``quick`` holds the arguments of a small run (``--quick``), written under
    ``results/quick/`` so that it never replaces the full run the docs quote; ``None`` where
    the benchmark has no small size. ``result`` is False for the type I/II grids, which
    write their own folders (``results/type-errors-*``) rather than ``NAME.json``.
    """

    script: str
    what: str
    args: tuple[str, ...] = ()
    quick: tuple[str, ...] | None = None
    result: bool = True


B = Benchmark

#: Every named benchmark. A script that answers several questions appears once per question
#: (its mode's arguments), so that each name has one result file.
REGISTRY: dict[str, Benchmark] = {
    "overhead": B("bench_overhead.py", "in-process engine against a plain river loop",
                  quick=("--rows", "5000", "--repeats", "1")),
    "aggregator": B("bench_aggregator.py", "aggregator updates per second, each forgetting",
                    quick=("--rows", "20000")),
    "paired_scores": B("bench_paired_scores.py", "aggregator CPU per measure, paired windows"),
    "pipeline": B("bench_pipeline.py", "where a run's time goes, stage by stage"),
    "pickled": B("bench_pickled.py", "river learners after a pickle round trip"),
    "ray": B("bench_ray.py", "Ray engine throughput, efficiency and memory"),
    "suite_spread": B("bench_suite_spread.py", "a suite's copies spread over every core"),
    "auto": B("bench_auto.py", "--backend auto against the faster backend"),
    "scale": B("bench_scale.py", "one run on many actors, simulated (round-robin, placed)",
               args=("--quick",)),
    "scale_device": B("bench_scale.py", "the default job on the 16-core device machine",
                      args=("--device",)),
    "scale_check": B("bench_scale.py", "start-up and a cold first run on the device machine",
                     args=("--check",)),
    "startup": B("bench_startup.py", "where the seconds after ray.init go"),
    "ray_join": B("bench_ray_join.py", "start-up on a running Ray: the warm pool"),
    "moa": B("bench_moa.py", "MOA learners: distval against MOA's EvaluatePrequentialCV"),
    "moa_headline": B("bench_moa.py", "the goal's two MOA jobs, alternated rounds",
                      args=("--headline", "5")),
    "moa_verdict_cost": B("bench_moa.py", "the verdict's trackers' cost with MOA learners",
                          args=("--verdict-cost", "1000000")),
    "jvm": B("bench_jvm.py", "JVM options for MOA learners"),
    "moa_ray": B("bench_moa_ray.py", "MOA learners on Ray against in-process"),
    "moa_ray_handover": B("bench_moa_ray.py", "MOA learners on Ray: the hand-over timeline",
                          args=("--timeline", "500000")),
    "cpu": B("bench_cpu.py", "CPU-seconds, wall and memory against MOA's CLI",
             args=("--rounds", "3")),
    "cpu_profiles": B("bench_cpu.py", "the same job profiled, part by part",
                      args=("--compare-profiles", "--jobs", "HT + NB", "--rounds", "3")),
    "looks": B("bench_looks.py", "the evaluator alone: aggregator and tests, no learners"),
    "adwin": B("bench_adwin.py", "ADWIN windows: the compiled ring against river's"),
    "minibatch": B("bench_minibatch.py", "mini-batch against per-row learners"),
    "cost": B("bench_cost.py", "the cost columns on against off: CPU-seconds of the default "
              "job and of a MOA job"),
    "labels": B("bench_labels.py", "delayed labels and probabilistic measures: their cost"),
    "live": B("bench_live.py", "the live page's cost to a run"),
    "live_threads": B("bench_live.py", "the live page's threads", args=("--threads",)),
    "drift_detection": B("bench_drift_detection.py", "change detection on the fold losses",
                         quick=("--seeds", "1")),
    "temporal": B("bench_temporal.py", "temporal dependence of the streams"),
    "verdict": B("bench_verdict.py", "the verdict's rules: type I error and power"),
    "verdict_regression": B("bench_verdict_regression.py", "the verdict on regression",
                            quick=("--runs", "4", "--rows", "2000")),
    "checkpoint": B("bench_checkpoint.py", "checkpoints: size and seconds each"),
    "memory": B("bench_memory.py", "peak memory with MOA learners, small and large",
                args=("--cases", "moa")),
    "memory_river": B("bench_memory.py", "peak memory with river learners",
                      args=("--cases", "river", "--small", "20000", "--large", "200000",
                            "--moa-rows", "0")),
    "fuzz_readers": B("fuzz_readers.py", "the stream readers against random bytes"),
    "plan": B("bench_plan.py", "suite --plan: projected against real"),
    "plan_now": B("bench_plan_now.py", "suite --plan against the real suite, today's code"),
    "plan_shapes": B("bench_plan_shapes.py", "cost curves behind --plan's projection"),
    "forgetting_figure": B("bench_forgetting_figure.py", "the forgetting figure's example"),
    "permutations": B("bench_permutations.py", "permutation tests' speed"),
    "readme_times": B("bench_readme.py", "the README's commands as shown: wall and load"),
    "type_errors_studies": B("type_errors_studies.py", "type I/II studies of the paper",
                             result=False),
    "type_errors_goals": B("type_errors_goals.py", "the type I/II grid's goals", result=False),
    "type_errors_conclusions": B("type_errors_conclusions.py",
                                 "the type I/II grid's conclusions", result=False),
}
