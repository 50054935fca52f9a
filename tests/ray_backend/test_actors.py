"""The learner actor's body: it starts the JVM while it boots when it will host MOA replicas
(and only then), so that the replicas handed over find the JVM and MOA's classes loaded; it
builds a fresh run's share itself from the run's recipe, which it unpickles with the
learners' modules alone."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import threading

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


def test_a_learner_actor_builds_its_fresh_share_and_names_a_learner_it_cannot_pickle():
    """``start`` in place of ``load``: the body hosts exactly the slots it is given, built
    from the run's recipe (``Fresh.replicas``), and returns None; with a replica holding a
    lock it names that learner with pickle's own words for a lock."""
    from distval.config import RunConfig
    from distval.engine.loop import Fresh, open_config_stream
    from distval.ray_backend.actors import LearnerActor

    cfg = RunConfig(stream="sea", n_rows=300, learners=("nb", "locked_learner:LockedNB"),
                    n_folds=2, test_every=100)
    replicas = Fresh.of(cfg, open_config_stream(cfg)).replicas()
    actor = LearnerActor()
    assert actor.start(replicas, [(0, 1)]) is None
    assert actor.host is not None and actor.host.slots == [(0, 1)]
    with pytest.raises(TypeError) as pickling:
        pickle.dumps(threading.Lock())
    why = actor.start(replicas, [(0, 0), (1, 1)])
    assert why == f"learner 'locked_learner:LockedNB': {pickling.value}"


RECIPE = """
import pickle, sys
build = pickle.loads(sys.stdin.buffer.read())
host = build(slots=[(1, 0)])
heavy = ("distval.config", "distval.aggregator", "distval.metrics", "distval.streams",
         "distval.results", "distval.engine", "numba")
print(host.slots, sorted(m for m in heavy if m in sys.modules))
"""


def test_the_recipe_a_learner_actor_gets_needs_only_the_learners_modules():
    """The driver's recipe for a learner actor unpickles, in a fresh interpreter, with
    distval's learner modules and the learners' own (river's) alone: none of distval's
    configuration, statistics, readers, tables or kernels (numba), which a learner actor
    never needs."""
    from distval.config import RunConfig
    from distval.engine.loop import Fresh, open_config_stream

    cfg = RunConfig(stream="sea", n_rows=300, learners=("nb", "ht"), n_folds=2)
    blob = pickle.dumps(Fresh.of(cfg, open_config_stream(cfg)).replicas())
    run = subprocess.run([sys.executable, "-c", RECIPE], input=blob, capture_output=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.decode().split() == ["[(1,", "0)]", "[]"]
