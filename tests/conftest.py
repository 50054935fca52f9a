"""Shared fixtures: a real local Ray (2 CPUs), row comparison; tests marked ``moa`` skip
with one line naming what is missing where MOA learners cannot run (no Java, no moa extra)."""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from functools import cache

import pandas as pd
import pytest


@cache
def moa_missing() -> str | None:
    """Why MOA learners cannot run here (a JDK and the ``moa`` extra are needed), or None."""
    from distval.learners.moa import jvm

    return jvm.missing()


def pytest_configure(config):
    """Commands the tests start get Ctrl-C as from an interactive shell: SIGINT unblocked
    and not ignored here, since a child inherits both. A test run started in the background
    by a shell without job control (``(pytest &)``, a script's ``pytest &``) begins with
    SIGINT ignored, and every SIGINT a test sends its command would then be lost (the
    command ran to its end, or the test waited out its time-out)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # Ray's temporary root, of this test process alone (and the commands it starts): the
    # cluster a test's ``cluster_utils.Cluster`` records there, as ``ray start`` does, is
    # found by those commands only, not by another test process running beside this one
    # (``-n 2``) nor by a Ray the machine's user runs. Short: Ray's socket paths live in it.
    if "RAY_TMPDIR" not in os.environ:
        os.environ["RAY_TMPDIR"] = tempfile.mkdtemp(prefix="dvt-", dir="/tmp")
        config.add_cleanup(lambda: shutil.rmtree(os.environ.pop("RAY_TMPDIR"), True))


def pytest_collection_modifyitems(config, items):
    """Skip the tests marked ``moa`` with one reason where MOA learners cannot run."""
    moa = [item for item in items if item.get_closest_marker("moa") is not None]
    reason = moa_missing() if moa else None
    if reason is not None:
        for item in moa:
            item.add_marker(pytest.mark.skip(reason=f"needs MOA: {reason}"))


@pytest.fixture(scope="session", autouse=True)
def moa_host():
    """The MOA batch host compiled before any test, where MOA learners can run: the default
    job runs MOA's learners, and a machine's first MOA run says it compiles the host (one
    line on stderr) in whichever test comes first. The first run itself is tested with a
    fresh cache (``test_options_are_refused_before_a_moa_learner_starts_the_jvm`` in
    tests/cli/test_run.py)."""
    if moa_missing() is None:
        from distval.learners.moa import jvm

        jvm.compile_host(jvm.moa_jar(), jvm.find_javac(jvm.find_java_home()))


def same_rows(a: list[dict], b: list[dict], exact: bool = True) -> None:
    """Assert two lists of result rows are identical (NaN equals NaN).

    ``exact=False`` allows floating-point rounding differences (relative 1e-9), e.g. between
    fading sums accumulated over differently sized batches.
    """
    pd.testing.assert_frame_equal(
        pd.DataFrame(a), pd.DataFrame(b), check_exact=exact, rtol=1e-9, atol=1e-12
    )


@pytest.fixture
def assert_same_rows():
    return same_rows


@pytest.fixture(scope="session")
def ray_local():
    """A real local Ray with 2 CPUs for the whole session, shut down at the end."""
    ray = pytest.importorskip("ray")
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    from distval.learners.moa.jvm import keep_jvm_signals

    keep_jvm_signals()  # JVMs in workers
    if not ray.is_initialized():
        ray.init(
            address="local",  # a Ray of the tests' own, never a `ray start` cluster's
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=200 * 2**20,
        )
    yield ray
    ray.shutdown()
