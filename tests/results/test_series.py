"""The time series of a run: in memory as Arrow batches, or read back from its directory; the
result itself keeps one snapshot whatever the number of checks."""

from __future__ import annotations

import gc

import pandas as pd
import pytest

import distval
from distval.aggregator.snapshot import Snapshot
from distval.results.schema import TABLES
from distval.results.series import BATCH_CHECKS

OPTS = {
    "stream": "sea(noise=0.1)",
    "learners": ("nb", "hat"),
    "null_twin": "hat",  # the twin's rules are running aggregates of every check
    "n_folds": 2,
    "drift": True,
    "ph_lambda": 2.0,  # drift detections, so events too
    "sequential": "evalue",
}


def snapshots_held(obj: object) -> int:
    """Snapshot objects reachable from ``obj`` (a plain walk of the object graph)."""
    seen, todo, found = set(), [obj], 0
    while todo:
        o = todo.pop()
        if id(o) in seen or isinstance(o, type):
            continue
        seen.add(id(o))
        found += isinstance(o, Snapshot)
        todo.extend(gc.get_referents(o))
    return found


@pytest.mark.parametrize("output", [False, True])
def test_the_result_keeps_one_snapshot_however_many_checks(tmp_path, output):
    held = []
    for n_rows in (500, 5000):  # 10 and 100 checks
        out = tmp_path / str(n_rows) if output else None
        res = distval.evaluate(n_rows=n_rows, test_every=50, output_dir=out, **OPTS)
        assert res.checks == n_rows // 50 and len(res.folds()["position"].unique()) == res.checks
        held.append(snapshots_held(res))
    assert held == [1, 1]  # the final snapshot only (one per check before)


def test_in_memory_and_written_time_series_are_the_same(tmp_path):
    n_checks = 2 * BATCH_CHECKS + 5  # packed batches and pending checks
    kept = distval.evaluate(n_rows=50 * n_checks, test_every=50, **OPTS)
    written = distval.evaluate(n_rows=50 * n_checks, test_every=50, output_dir=tmp_path, **OPTS)
    for name in (t for t in TABLES if t != "cost"):  # CPU seconds differ run to run
        pd.testing.assert_frame_equal(getattr(kept, name)(), getattr(written, name)())
    assert len(kept.events()) > 0 and len(kept.verdicts()) == 3 * n_checks  # 3 pairs
    a, b = kept.summary(), written.summary()
    for key in ("null_twin", "detections", "tests", "verdicts"):
        assert a[key] == b[key], key
    # the detections counted as they came equal a count over the whole events table
    counts = kept.events().groupby(["learner", "detector"]).size()
    assert {(k, d): n for k, per in a["detections"].items() for d, n in per.items()} == (
        counts.to_dict()
    )
