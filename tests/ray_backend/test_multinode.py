"""Runs on a simulated cluster of four nodes with four CPUs each (``ray.cluster_utils.Cluster``
on this machine): the default job (Electricity, Hoeffding tree and naive Bayes, 10-fold
bootstrap) on 16 actors, and a suite of two streams whose replicas are spread over actors
(two streams on 16 cores: each stream's run gets its own actors, its driving task placed
SPREAD). The actors land on more than one node and every number equals the in-process run's.

The cluster runs in a subprocess, so that it never meets the session's local Ray. The same
scheduling on one node is covered fast by tests/experiments/test_study.py and
tests/experiments/suite/test_run.py, the Ray engine's numbers by tests/ray_backend/test_engine.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import distval
from distval.experiments.suite import suite

N_ROWS = 2000
STREAMS = ["sea", "elec2"]
OPTIONS = {"learners": ["nb", "majority"], "n_rows": 3000, "n_folds": 3, "test_every": 1000}

SCRIPT = """
import json, sys
from pathlib import Path
import ray
from ray._private import state
from ray.cluster_utils import Cluster
from distval.config import RunConfig
from distval.engine.run import Run
from distval.engine.loop import open_config_stream
from distval.experiments.suite import suite
from distval.ray_backend.engine import iter_ray

out, n_rows = Path(sys.argv[1]), int(sys.argv[2])
streams, options = json.loads(sys.argv[3]), json.loads(sys.argv[4])
options["learners"] = tuple(options["learners"])
cluster = Cluster(initialize_head=True,
                  head_node_args={"num_cpus": 4, "include_dashboard": False})
for _ in range(3):
    cluster.add_node(num_cpus=4)
cluster.wait_for_nodes()
ray.init(address=cluster.address, log_to_driver=False)

def learner_nodes(skip=()):
    return {a: v["Address"]["NodeID"] for a, v in state.actors().items()
            if v["ActorClassName"] == "LearnerActor" and a not in skip}

# the default job, every batch on the actors (no warm-up in the driver)
config = RunConfig(n_rows=n_rows)
stream = open_config_stream(config)
run = Run(config, stream, backend="ray")
for step in iter_ray(config, stream, warm_up_batches=0):
    run.feed(step)
summary = run.close().summary()
job = learner_nodes()
suite(streams, output_dir=out, backend="ray", figures=False, **options)
spread = learner_nodes(skip=job)
print("STATE " + json.dumps({
    "summary": summary, "nodes": len(ray.nodes()), "cpus": ray.cluster_resources()["CPU"],
    "job_actors": len(job), "job_nodes": len(set(job.values())),
    "suite_actors": len(spread), "suite_nodes": len(set(spread.values())),
}), flush=True)
ray.shutdown()
cluster.shutdown()
"""


def _learners(summary):
    return json.loads(json.dumps(summary["learners"])), summary["tests"]


@pytest.mark.slow  # 70-120 s on 2 cores (28 actors boot); tests/experiments cover it fast
@pytest.mark.ray
def test_the_default_job_and_a_suite_spread_over_four_nodes_give_in_process_numbers(tmp_path):
    out = tmp_path / "cluster"
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(out), str(N_ROWS), json.dumps(STREAMS),
         json.dumps(OPTIONS)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    line = [ln for ln in run.stdout.splitlines() if ln.startswith("STATE ")]
    assert line, run.stdout[-3000:] + run.stderr[-3000:]
    got = json.loads(line[-1][len("STATE ") :])
    assert got["nodes"] == 4 and got["cpus"] == 16
    # the default job: 20 replicas on one actor per CPU, on every node
    assert got["job_actors"] == 16
    assert got["job_nodes"] > 1
    assert got["summary"]["evaluated_by"] == {"actors": N_ROWS}
    alone = distval.evaluate(n_rows=N_ROWS).summary()
    assert _learners(got["summary"]) == _learners(json.loads(json.dumps(alone)))
    # the suite: two streams of 2 x 3 replicas on 16 cores, 6 actors each, over the nodes
    assert got["suite_actors"] == 12
    assert got["suite_nodes"] > 1
    calm = tmp_path / "calm"
    suite(STREAMS, output_dir=calm, figures=False, **(OPTIONS | {"learners": ("nb", "majority")}))
    for name in ("suite.md", "suite.tex"):
        assert (out / name).read_text() == (calm / name).read_text()
    for name in ("sea", "elec2"):
        ray_run = json.loads((out / name / "summary.json").read_text())
        in_process = json.loads((calm / name / "summary.json").read_text())
        assert ray_run["backend"] == "ray" and in_process["backend"] == "inprocess"
        assert _learners(ray_run) == _learners(in_process)
