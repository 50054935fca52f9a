"""The type-errors grid on a simulated 3-node Ray cluster (``ray.cluster_utils.Cluster``):
the synthetic stream is generated on the workers, the CovType file reaches them through
Ray's object store (the driver deletes its copy before the grid starts), and the decisions
equal those of the same grid in this process.

The cluster runs in a subprocess, so that it never meets the session's local Ray."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from type_error_grids import tiny

from distval.experiments.type_errors import run_grid

SCRIPT = """
import json, os, sys
from pathlib import Path
import ray
from ray.cluster_utils import Cluster
from distval.experiments.type_errors import GridConfig, run_grid
from distval.experiments.type_errors.grid import ship_files

config = GridConfig.from_dict(json.loads(sys.argv[1]))
shipped = Path(sys.argv[2])
cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
for _ in range(2):
    cluster.add_node(num_cpus=1)
cluster.wait_for_nodes()
ray.init(address=cluster.address, log_to_driver=False)
nodes = sum(n["Alive"] for n in ray.nodes())
files = ship_files(config)  # read before the driver's copy goes
import distval.experiments.type_errors.grid as grid
grid.ship_files = lambda config: files
os.rename(shipped, shipped.with_suffix(".gone"))  # no node can read it at this path
result = run_grid(config, backend="ray", address=cluster.address, progress=False)
d = result.decisions.sort_values(["stream", "run", "scheme", "prequential", "pnoise", "test"])
rows = d[["stream", "run", "scheme", "prequential", "pnoise", "test", "reject", "pvalue"]]
print("NODES", nodes)
print("PIDS " + json.dumps(sorted({int(p) for p in result.cells["pid"]})))
print("ROWS " + rows.to_json(orient="records"))
ray.shutdown()
cluster.shutdown()
"""


def _covtype(path):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(150, 3))
    y = (x[:, 0] + 0.5 * rng.normal(size=150) > 0).astype(int) + 1
    lines = ["a,b,c,class"] + [f"{a:.4f},{b:.4f},{c:.4f},{k}" for (a, b, c), k in zip(x, y)]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.slow  # 45-70 s on the shared 2-core machine, mostly starting the cluster;
@pytest.mark.ray  # test_grid.py checks the shipping and Ray's decisions on the local Ray fast
def test_cells_on_three_nodes_equal_in_process(tmp_path):
    data = tmp_path / "covtype.csv"
    _covtype(data)
    config = tiny(streams=(("CovType", str(data)), ("SEA(50)", "SEA(50)")), runs=1,
                  noise_on="training", drift_length=100_000, looks=2)
    here = run_grid(config, progress=False).decisions
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(config.to_dict()), str(data)],
        capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = {ln.split(" ", 1)[0]: ln.split(" ", 1)[1] for ln in run.stdout.splitlines()
           if ln.startswith(("NODES ", "ROWS ", "PIDS "))}
    assert int(out["NODES"]) == 3
    # one cell per core: the four cells ran in more than one worker of the three nodes
    assert len(json.loads(out["PIDS"])) >= 2
    there = json.loads(out["ROWS"])
    here = here.sort_values(["stream", "run", "scheme", "prequential", "pnoise", "test"])
    mine = here[["stream", "run", "scheme", "prequential", "pnoise", "test", "reject",
                 "pvalue"]].to_dict("records")
    assert len(there) == len(mine) == 2 * 2 * 3 * 6 * 2  # streams schemes changes tests variants
    for a, b in zip(there, mine):
        assert (a["stream"], a["scheme"], a["test"], a["reject"]) == (
            b["stream"], b["scheme"], b["test"], b["reject"])
        assert a["pvalue"] == pytest.approx(b["pvalue"], rel=1e-6, abs=1e-9)  # JSON: 10 digits
    assert not data.exists()  # the cluster read its shipped copy
