"""Kept (detached) actors end themselves once their driver is gone: the rule, Ray's job
table as the watchdog reads it, and drivers SIGKILLed at several instants of a run's start
on a Ray of the test's own, after which every actor distval created is dead within its keep
(plus the time to boot and notice) — the pool within twice its keep."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from distval.ray_backend.keeper import IN_RUN_SECONDS, due


@pytest.mark.parametrize(
    ("idle_for", "keep", "working", "serving", "ends"),
    [
        (2.9, 3.0, False, False, False),  # its keep has not passed
        (3.0, 3.0, False, False, True),   # no driver alive, kept 3 s, idle 3 s
        (3.0, 3.0, True, False, False),   # never during a call
        (3.0, 3.0, False, True, False),   # its driver is alive: the run goes on
        (3.0, 3.0, False, None, False),   # Ray cannot tell: as if alive
        (IN_RUN_SECONDS, 3.0, False, True, True),  # a live driver silent that long
        (IN_RUN_SECONDS, 900.0, False, True, False),  # ... but never before its keep
    ],
)
def test_a_kept_actor_ends_after_its_keep_once_no_driver_it_serves_is_alive(
    idle_for, keep, working, serving, ends
):
    assert due(idle_for, keep, working, serving) is ends


@pytest.mark.ray
def test_the_watchdog_reads_which_drivers_are_alive_from_rays_job_table(ray_local):
    """This driver's job is alive; a job id Ray never gave is not; none asked: none."""
    from distval.ray_backend.keeper import alive_jobs, driver_job

    me = driver_job()
    assert me is not None and len(me) == len(ray_local.get_runtime_context().get_job_id())
    assert alive_jobs([me, "ffff0000"]) == {me}
    assert alive_jobs([]) == set()


@pytest.mark.ray
def test_an_actor_kept_for_a_driver_that_is_gone_ends_from_its_constructor_on(ray_local):
    """Two learner actors kept 1 s, never called after their constructor: the one made for
    a driver Ray does not hold alive (a job id it never gave) ends by itself; the one made
    for this live driver is still alive at that moment."""
    import time

    from distval.ray_backend.actors import LearnerActor
    from distval.ray_backend.keeper import driver_job

    ray = ray_local
    make = ray.remote(LearnerActor).options(num_cpus=0, max_restarts=0)
    gone, kept = make.remote((), 1.0, "ffff0000"), make.remote((), 1.0, driver_job())
    ray.get([gone.__ray_ready__.remote(), kept.__ray_ready__.remote()], timeout=60)

    def state(handle):
        return ray._private.state.actors(handle._actor_id.hex())["State"]

    end = time.monotonic() + 40
    while state(gone) != "DEAD" and time.monotonic() < end:
        time.sleep(0.2)
    try:
        assert state(gone) == "DEAD"
        assert state(kept) == "ALIVE"
    finally:
        ray.kill(kept)


DRIVER = """
import json, os, signal, sys, threading, time
import ray, ray.actor
from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.ray_backend.engine import RayRun

point = sys.argv[1]
ray.init(address=os.environ["RAY_ADDRESS"], log_to_driver=False)
print(json.dumps({"job": ray.get_runtime_context().get_job_id()}), flush=True)

def die():
    os.kill(os.getpid(), signal.SIGKILL)

if point.startswith("request"):  # "request:N[+S]": S seconds after the N-th actor is asked for
    n, _, later = point.split(":")[1].partition("+")
    asked, create = [0], ray.actor.ActorClass._remote
    def counted(self, *args, **kwargs):
        handle = create(self, *args, **kwargs)
        asked[0] += 1
        if asked[0] == int(n):
            threading.Timer(float(later), die).start() if later else die()
        return handle
    ray.actor.ActorClass._remote = counted
cfg = RunConfig(stream="sea(noise=0.1)", n_rows=60000, learners=("nb", "persistent"),
                n_folds=3, test_every=600, batch_size=300)
run = RayRun(cfg, open_config_stream(cfg), n_actors=2, warm_up_batches=0)
assert run.keep_actors > 0, "a joined one-machine Ray keeps its actors"
while not run.actors.ready():
    time.sleep(0.05)
if point == "ready":
    die()
for i, step in enumerate(run.steps()):
    if i == 3:
        die()
time.sleep(60)
"""

ORCHESTRA = """
import json, os, subprocess, sys, time
import ray
from ray.cluster_utils import Cluster

keep, points, driver = float(sys.argv[1]), sys.argv[2].split(","), sys.argv[3]
cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2,
                                                        "include_dashboard": False})
drivers = []
try:
    env = os.environ | {"RAY_ADDRESS": cluster.address, "DISTVAL_KEEP_ACTORS": str(keep)}
    drivers = [subprocess.Popen([sys.executable, "-c", driver, p], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for p in points]
    ends, start = {}, time.time()
    while len(ends) < len(drivers) and time.time() < start + 240:
        ends.update({i: time.time() for i, d in enumerate(drivers)
                     if i not in ends and d.poll() is not None})
        time.sleep(0.05)
    killed = {}
    for i, (point, proc) in enumerate(zip(points, drivers)):
        out, err = proc.communicate(timeout=5)
        assert proc.returncode == -9, (point, proc.returncode, err[-2000:])
        killed[json.loads(out.splitlines()[0])["job"]] = ends[i]
    ray.init(address=cluster.address, log_to_driver=False)
    ours = ("LearnerActor", "AggregatorActor", "WarmPool")
    deadline = max(killed.values()) + 2 * keep + 35
    while True:
        actors = [a for a in ray._private.state.actors().values()
                  if a["ActorClassName"].split(".")[-1] in ours]
        if all(a["State"] == "DEAD" for a in actors) or time.time() > deadline:
            break
        time.sleep(0.5)
    print(json.dumps({"killed": killed, "last_kill": max(killed.values()), "actors": [
        {"cls": a["ActorClassName"].split(".")[-1], "state": a["State"], "job": a["JobID"],
         "end": a["EndTime"] / 1000} for a in actors]}))
finally:
    for proc in drivers:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    ray.shutdown()
    cluster.shutdown()
"""

#: Seconds an actor may take past its keep: its process's boot (on a loaded machine) and
#: constructor, the watchdog's look every 2 s, Ray's kill. Without the watchdog an actor
#: whose driver died before its first call never ends, and one in a run lives 600 s.
MARGIN = 30.0


@pytest.mark.slow
@pytest.mark.ray
def test_every_actor_of_a_driver_killed_during_its_start_ends_within_its_keep():
    """On a one-machine Ray of the test's own that six drivers join (their actors kept
    3 s), each driver SIGKILLs itself at another instant: right after the first actor is
    asked for (the pool), after the second (the aggregator), right after the last learner
    is asked for (before any call reaches them), one second after it (the actors booting),
    once all are ready, and three parcels into the run. A second driver then reads Ray's
    actor table: every learner and aggregator actor is dead within keep + MARGIN of its
    driver's death, the pool within twice its keep + MARGIN of the last driver's. (Slow:
    50 s at load 2, 90 s at load 17 on two cores; the fast test above covers the rule
    and the watchdog started by the constructor.)"""
    import shutil
    import tempfile

    keep = 3.0
    points = ["request:1", "request:2", "request:4", "request:4+1.0", "ready", "run"]
    # Ray's files and its recorded address in a folder of the test's own (short: AF_UNIX
    # paths), so that no other run on the machine finds this Ray.
    ray_dir = tempfile.mkdtemp(prefix="dvk-", dir="/tmp")
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(ORCHESTRA), str(keep), ",".join(points),
             textwrap.dedent(DRIVER)],
            capture_output=True, text=True, timeout=400,
            env=_env() | {"RAY_TMPDIR": ray_dir})
    finally:
        shutil.rmtree(ray_dir, ignore_errors=True)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    actors = seen["actors"]
    assert {a["cls"] for a in actors} == {"LearnerActor", "AggregatorActor", "WarmPool"}
    alive = [a for a in actors if a["state"] != "DEAD"]
    assert alive == []
    for a in actors:
        if a["cls"] == "WarmPool":
            assert a["end"] <= seen["last_kill"] + 2 * keep + MARGIN, a
        else:
            assert a["end"] <= seen["killed"][a["job"]] + keep + MARGIN, a


def _env() -> dict[str, str]:
    import os

    return os.environ | {"RAY_AUTH_MODE": "disabled"}
