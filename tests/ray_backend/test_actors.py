"""The learner actor's body: it starts the JVM while it boots when it will host MOA replicas
(and only then), so that the replicas handed over find the JVM and MOA's classes loaded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = """
import json, sys
import jpype
from distval.learners import parse_learner
from distval.ray_backend.actors import LearnerActor

actor = LearnerActor([parse_learner(s) for s in sys.argv[1:]])
print(json.dumps({"jvm": bool(jpype.isJVMStarted()), "host": actor.host is None}))
"""


def _boot(*specs):
    run = subprocess.run([sys.executable, "-c", SCRIPT, *specs], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


@pytest.mark.moa
def test_an_actor_for_moa_learners_starts_the_jvm_while_booting():
    assert _boot("moa:bayes.NaiveBayes", "nb") == {"jvm": True, "host": True}


def test_an_actor_for_river_learners_starts_no_jvm():
    pytest.importorskip("jpype")
    assert _boot("nb", "ht") == {"jvm": False, "host": True}
