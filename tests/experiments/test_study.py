"""The study runner: parts complete on disk are skipped; a part whose Ray worker dies is run
again (Ray's task retries) and the study ends with every part's result."""

from __future__ import annotations

import io

import pytest

from distval.errors import DistvalError
from distval.experiments.study import Part, StudyProgress, run_study


def test_finished_parts_are_not_computed_and_records_keep_part_order():
    calls = []

    def compute(part):
        calls.append(part.name)
        return part.payload * 10

    parts = [Part("a", 1, 1), Part("b", 1, 2), Part("c", 1, 3)]
    seen = []
    out = io.StringIO()
    got = run_study(
        parts,
        compute,
        finished=lambda p: "stored" if p.name == "b" else None,
        store=lambda p, r: r + 1,
        on_record=lambda records: seen.append(list(records)),
        progress=StudyProgress("t", parts, stream=out, every=0),
    )
    assert calls == ["a", "c"]
    assert got == {"a": 11, "b": "stored", "c": 31}
    assert list(got) == ["a", "b", "c"]
    assert seen == [["a", "b"], ["a", "b", "c"]]  # refreshed as each part finishes
    assert out.getvalue().splitlines()[-1].startswith("t: 3/3 parts (100%)")


def test_a_running_stream_shows_its_rows_done_and_the_time_left_from_its_first_batch():
    """Before any stream has finished, the rows a running in-process run has done give the
    line its elapsed time, its rows done / rows and a time left; a real suite run feeds
    them batch by batch."""
    from distval.config import RunConfig
    from distval.experiments.suite.run import _evaluate_reporting

    parts = [Part("sea", 900.0, RunConfig(stream="sea", n_rows=900, learners=("nb",),
                                          n_folds=2, test_every=300, batch_size=300)),
             Part("b", 900.0, None)]
    out = io.StringIO()
    bar = StudyProgress("suite", parts, unit="streams", stream=out, every=0)
    bar.start("sea")
    seen = []
    bar.rows = lambda name, done: seen.append((name, done))  # type: ignore[method-assign]
    _evaluate_reporting(bar, parts[0])
    assert seen == [("sea", 300), ("sea", 600), ("sea", 900)]
    del bar.rows
    bar.rows("sea", 450)
    line = out.getvalue().splitlines()[-1]
    assert line.startswith("suite: 0/2 streams (0%), ") and " elapsed" in line
    assert "sea (450/900 rows, " in line and " left" in line


def test_parts_need_distinct_names():
    with pytest.raises(DistvalError, match="distinct"):
        run_study(
            [Part("a"), Part("a")], lambda p: 0, finished=lambda p: None, store=lambda p, r: r
        )


@pytest.mark.ray
def test_a_part_whose_worker_dies_runs_again_on_ray(tmp_path, ray_local):
    def dies_once(directory, part):
        import os
        from pathlib import Path

        marker = Path(directory) / part.name
        if not marker.exists():
            marker.write_text("first attempt")
            os._exit(1)  # the worker process dies, as on a lost node
        return part.payload**2

    parts = [Part(f"p{i}", 1.0, i) for i in range(3)]
    got = run_study(
        parts,
        dies_once,
        shared=(str(tmp_path),),
        finished=lambda p: None,
        store=lambda p, r: r,
        backend="ray",
    )
    assert got == {"p0": 0, "p1": 1, "p2": 4}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p0", "p1", "p2"]  # each died once
