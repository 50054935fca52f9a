"""Shared fixtures: a real local Ray (2 CPUs), paths to the shared data, row comparison."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


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
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=200 * 2**20,
        )
    yield ray
    ray.shutdown()
