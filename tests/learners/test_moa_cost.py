"""MOA replicas' cost against MOA itself: ``measureByteSize()`` in a plain JVM and the
RAM-hours of MOA's own ``EvaluatePrequentialCV`` on the same ARFF (real JVMs)."""

from __future__ import annotations

import csv
import io
import subprocess
from pathlib import Path

import numpy as np
import pytest

from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.evaluation import evaluate
from distval.learners import Batch, LearnerHost, parse_learner
from distval.learners.schema import Schema
from distval.results.cost import cost_summary

pytestmark = pytest.mark.moa


def _moa(task: str) -> dict[str, float]:
    """A MOA task run from the jar in a plain JVM with the sizeof agent; its last row."""
    from distval.learners.moa.jvm import moa_jar, sizeof_agent

    jar = moa_jar()
    done = subprocess.run(
        ["java", "-Xmx4g", f"-javaagent:{sizeof_agent(jar)}", "-cp", str(jar), "moa.DoTask",
         task], capture_output=True, text=True, check=True)
    last = list(csv.DictReader(io.StringIO(done.stdout)))[-1]
    return {k: float(v) for k, v in last.items() if v not in ("", "?")}


@pytest.fixture(scope="module")
def sea(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20,000 rows of MOA's SEA generator (seed 1, 10 % noise), written by MOA."""
    from distval.learners.moa.jvm import moa_jar

    path = tmp_path_factory.mktemp("sea") / "sea.arff"
    subprocess.run(["java", "-cp", str(moa_jar()), "moa.DoTask",
                    f"WriteStreamToARFFFile -s generators.SEAGenerator -f {path} -m 20000"],
                   capture_output=True, check=True)
    return path


def test_moa_bytes_equal_measurebytesize_in_a_plain_jvm_on_the_same_rows(sea):
    # MOA's EvaluatePrequential tests then trains one HoeffdingTree on every row with
    # weight 1; its "model serialized size (bytes)" column is measureByteSize()
    moa = _moa(f"EvaluatePrequential -l trees.HoeffdingTree -s (ArffFileStream -f {sea}) "
               "-i 20000 -f 20000")
    cfg = RunConfig(stream=str(sea), learners=("moa:trees.HoeffdingTree",))
    stream = open_config_stream(cfg)
    host = LearnerHost([parse_learner("moa:trees.HoeffdingTree")], [(0, 0)],
                       list(stream.feature_names), seed=1, schema=Schema.of(stream),
                       cost_every=20000)
    for chunk in stream.chunks(5000):
        n = len(chunk.y)
        host.process(Batch(chunk.start, chunk.X, chunk.y, np.ones((n, 1), np.int32),
                           np.ones((n, 1), bool)))
    cols = host.cost.drain()
    assert cols["position"].tolist() == [20000]
    assert moa["model serialized size (bytes)"] > 0
    assert cols["bytes"].tolist() == [moa["model serialized size (bytes)"]]


def test_moa_ram_hours_against_evaluateprequentialcv(sea):
    moa = _moa(f"EvaluatePrequentialCV -l trees.HoeffdingTree -s (ArffFileStream -f {sea}) "
               "-i 20000 -f 5000 -w 10 -a Bootstrap-Validation")
    cfg = RunConfig(stream=str(sea), learners=("moa:trees.HoeffdingTree",), n_folds=10,
                    test_every=5000)
    result = evaluate(cfg)
    cost = cost_summary(result.series.table("cost"))
    assert cost is not None
    ours = cost["moa:trees.HoeffdingTree"]
    moa_ram, moa_cpu = moa["model cost (RAM-Hours)"], moa["evaluation time (cpu seconds)"]
    # The memory factor (GB held per CPU-hour) is MOA's within 25 %: same trees, same
    # measure, same positions. The CPU differs by design (MOA's counts its whole loop:
    # reading the ARFF, copying instances, the evaluators; ours only the learners' calls),
    # and RAM-hours scale with it, so the raw figures are compared more loosely.
    assert ours["ram_hours"] / ours["cpu_s"] == pytest.approx(moa_ram / moa_cpu, rel=0.25)
    # the raw RAM-hours scale with CPU seconds, which the machine's load moves (a timed
    # assertion in effect): only the memory part, RAM-hours per CPU second, is compared
    assert ours["cpu_s"] < moa_cpu
