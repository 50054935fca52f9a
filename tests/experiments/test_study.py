"""The study runner: parts complete on disk are skipped; a part whose Ray worker dies is run
again (Ray's task retries) and the study ends with every part's result."""

from __future__ import annotations

import io

import pytest

from distval.errors import DistvalError
from distval.experiments.study import Part, StudyProgress, longest_first, run_study, share_cores


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
    from distval.experiments.suite.run import _evaluate_part

    parts = [Part("sea", 900.0, RunConfig(stream="sea", n_rows=900, learners=("nb",),
                                          n_folds=2, test_every=300, batch_size=300)),
             Part("b", 900.0, None)]
    out = io.StringIO()
    bar = StudyProgress("suite", parts, unit="streams", stream=out, every=0)
    seen = []
    bar.rows = lambda name, done: seen.append((name, done))  # type: ignore[method-assign]
    run_study(parts[:1], _evaluate_part, finished=lambda p: None, store=lambda p, r: r,
              progress=bar, reports_rows=True)
    assert seen == [("sea", 300), ("sea", 600), ("sea", 900)]
    del bar.rows
    bar.done.clear()
    bar.start("sea")
    bar.rows("sea", 450)
    line = out.getvalue().splitlines()[-1]
    assert line.startswith("suite: 0/2 streams (0%), ") and " elapsed" in line
    assert "sea (450/900 rows, " in line and " left" in line


class _Recording(StudyProgress):
    """A progress line that also keeps every call, in order."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.calls = []

    def rows(self, name, done):
        self.calls.append(("rows", name, done))
        super().rows(name, done)

    def finish(self, name):
        self.calls.append(("finish", name, None))
        super().finish(name)


@pytest.mark.ray
def test_the_time_left_is_measured_from_the_first_progress_not_the_start_up(monkeypatch):
    """60 s of start-up (Ray, imports), then 100 rows reported, then 600 at 70 s: 500 rows
    in 10 s, so the 1,400 rows left take 28 s (counting from the start it said 163 s)."""
    import io

    from distval.experiments import study

    now = [0.0]
    monkeypatch.setattr(study.time, "monotonic", lambda: now[0])
    progress = StudyProgress("suite", [Part("a", 1000), Part("b", 1000)], stream=io.StringIO())
    now[0] = 60.0
    progress.rows("a", 100)
    now[0] = 70.0
    progress.rows("a", 600)
    assert "about 28 s left" in progress.line()


def test_streams_on_ray_report_their_rows_done_before_they_finish(ray_local):
    """Two streams as Ray tasks (one CPU each): the line hears rows done within each stream
    from its task while it runs (a count strictly between 0 and its rows, before the
    stream's end) and shows them; the results are those of the same parts in this process."""
    from distval.config import RunConfig
    from distval.experiments.suite.run import _evaluate_part

    n = 8000
    parts = [Part(s, float(n), RunConfig(stream=s, n_rows=n, learners=("nb", "majority"),
                                         n_folds=2, test_every=5000, batch_size=1000))
             for s in ("sea", "agrawal")]
    out = io.StringIO()
    bar = _Recording("suite", parts, unit="streams", stream=out, every=0)
    got = run_study(parts, _evaluate_part, finished=lambda p: None, backend="ray",
                    store=lambda p, r: r[0].summary(), progress=bar, reports_rows=True)
    for part in parts:
        mine = [(kind, done) for kind, name, done in bar.calls if name == part.name]
        end = mine.index(("finish", None))
        during = [done for kind, done in mine[:end] if kind == "rows"]
        assert any(0 < d < n for d in during), mine
        assert f"{part.name} ({during[0]:,}/{n:,} rows, " in out.getvalue()
    here = run_study(parts, _evaluate_part, finished=lambda p: None,
                     store=lambda p, r: r[0].summary())
    for name in here:
        for key in ("rows", "learners", "tests", "verdicts"):
            assert got[name][key] == here[name][key], (name, key)


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


def _best_largest_share(weights, replicas, cores):
    """The least possible largest weight per core, by trying every split of the cores."""
    import itertools

    best = float("inf")
    ranges = [range(1, r + 1) for r in replicas]
    for shares in itertools.product(*ranges):
        if sum(shares) <= cores:
            best = min(best, max(w / s for w, s in zip(weights, shares)))
    return best


@pytest.mark.parametrize(
    ("weights", "replicas", "cores"),
    [
        ([3.0, 1.0], [20, 20], 8),
        ([5.0, 4.0, 1.0], [4, 4, 4], 9),
        ([7.0, 2.0, 2.0, 1.0], [6, 3, 6, 2], 16),
        ([1.0, 1.0], [20, 20], 16),
    ],
)
def test_shared_cores_minimise_the_largest_cost_per_core(weights, replicas, cores):
    shares = share_cores(weights, replicas, cores)
    assert all(1 <= s <= r for s, r in zip(shares, replicas))
    assert sum(shares) <= cores
    # every core is used unless every part has one actor per replica
    assert sum(shares) == min(cores, sum(replicas))
    got = max(w / s for w, s in zip(weights, shares))
    assert got == pytest.approx(_best_largest_share(weights, replicas, cores))


def test_longest_first_is_the_lpt_order_of_graham():
    parts = [Part(n, w) for n, w in [("a", 2.0), ("b", 5.0), ("c", 2.0), ("d", 9.0)]]
    assert [p.name for p in longest_first(parts)] == ["d", "b", "a", "c"]


@pytest.mark.ray
def test_on_ray_fewer_parts_than_cores_get_actors_and_start_longest_first(ray_local):
    """On the session's 2-CPU Ray: one part alone gets both cores as actors; two parts get
    one each (one task of one CPU each), the costlier submitted first."""

    def seen(part):
        import time

        return part.actors, time.time()

    one = run_study(
        [Part("only", 1.0, None, replicas=4)], seen, finished=lambda p: None,
        store=lambda p, r: r, backend="ray",
    )
    assert one["only"][0] == 2
    few = run_study(
        [Part("x", 1.0, None, replicas=1)], seen, finished=lambda p: None,
        store=lambda p, r: r, backend="ray",
    )
    assert few["x"][0] == 1  # a part that cannot use actors keeps one core
    parts = [Part("cheap", 1.0, None, replicas=4), Part("dear", 9.0, None, replicas=4)]
    two = run_study(
        parts, seen, finished=lambda p: None, store=lambda p, r: r, backend="ray", limit=1
    )
    assert two["cheap"][0] == two["dear"][0] == 1
    assert two["dear"][1] < two["cheap"][1]  # one at a time: the costlier ran first
