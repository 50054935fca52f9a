"""A suite on a simulated multi-node Ray cluster (``ray.cluster_utils.Cluster``: a head and
two worker nodes on this machine) loses a worker node mid-suite; the lost streams run again
on the other node and the tables equal those of an undisturbed in-process suite.

The cluster runs in a subprocess, so that it never meets the session's local Ray."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from distval.experiments.suite import suite

STREAMS = ["sea", "SEA(50)", "elec2", "HYP(10,0.001)", "RBF(10,0.001)", "agrawal"]
OPTIONS = {"learners": ["nb", "majority"], "n_rows": 3000, "n_folds": 2, "test_every": 1000}

SCRIPT = """
import json, sys, threading, time
from pathlib import Path
import ray
from ray.cluster_utils import Cluster
from distval.experiments.suite import suite

out, streams, options = Path(sys.argv[1]), json.loads(sys.argv[2]), json.loads(sys.argv[3])
options["learners"] = tuple(options["learners"])
cluster = Cluster(
    initialize_head=True,
    head_node_args={"num_cpus": 0, "include_dashboard": False,
                    "_system_config": {"health_check_period_ms": 500,
                                       "health_check_failure_threshold": 4}},
)
workers = [cluster.add_node(num_cpus=1) for _ in range(2)]
cluster.wait_for_nodes()
ray.init(address=cluster.address, log_to_driver=False)
state = {}

def lose_a_node():
    while not (out / "suite.json").exists():  # written when the first stream finishes
        time.sleep(0.05)
    done = sum(s["done"] for s in json.loads((out / "suite.json").read_text())["streams"])
    cluster.remove_node(workers[1], allow_graceful=False)
    state["removed_after"] = done

thread = threading.Thread(target=lose_a_node)
thread.start()
suite(streams, output_dir=out, backend="ray", figures=False, **options)
thread.join()
state["alive"] = sum(n["Alive"] for n in ray.nodes())
print("STATE " + json.dumps(state), flush=True)
ray.shutdown()
cluster.shutdown()
"""


@pytest.mark.slow  # about a minute; tests/experiments/test_study.py covers the retry fast
@pytest.mark.ray
def test_a_suite_survives_a_lost_worker_node(tmp_path):
    out = tmp_path / "cluster"
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(out), json.dumps(STREAMS), json.dumps(OPTIONS)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    line = [ln for ln in run.stdout.splitlines() if ln.startswith("STATE ")]
    assert line, run.stdout[-3000:] + run.stderr[-3000:]
    state = json.loads(line[-1][len("STATE ") :])
    assert state["removed_after"] < len(STREAMS)  # removed mid-suite
    assert state["alive"] == 2  # head + the remaining worker
    calm = tmp_path / "calm"
    suite(STREAMS, output_dir=calm, figures=False, **(OPTIONS | {"learners": ("nb", "majority")}))
    for name in ("suite.md", "suite.tex"):
        assert (out / name).read_text() == (calm / name).read_text()
    got = json.loads((out / "suite.json").read_text())
    want = json.loads((calm / "suite.json").read_text())
    assert got["comparison"] == want["comparison"]
    assert all(s["done"] for s in got["streams"])
