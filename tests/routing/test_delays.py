"""Delayed and partial labels, checked against river's delayed progressive validation and
plain loops written here (the MOA and CapyMOA checks are in tests/learners/test_moa.py)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from river import evaluate, metrics, naive_bayes, tree

import distval
from distval.config import RunConfig
from distval.engine.loop import iter_batches, open_config_stream
from distval.errors import DistvalError, DistvalWarning
from distval.learners import parse_learner
from distval.learners.host import LearnerHost
from distval.routing.delays import LabelSchedule, delay_spec

N_ROWS = 1500


def rows_of(stream_spec: str = "sea(noise=0.1)", n: int = N_ROWS, seed: int = 1):
    """The stream's rows as distval reads them: features and class codes."""
    stream = open_config_stream(RunConfig(stream=stream_spec, n_rows=n, seed=seed))
    X = np.concatenate([c.X for c in stream.chunks(500)])
    y = np.concatenate([c.y for c in stream.chunks(500)])
    return stream, X, y


def host_predictions(spec: str, cfg: RunConfig) -> tuple[dict[int, int], list[int]]:
    """One replica that tests and trains on every row (weight 1), through distval's driver
    (the label schedule of ``cfg``) and host: each row's prediction, and the rows in the
    order the measures scored them."""
    stream = open_config_stream(cfg)
    host = LearnerHost([parse_learner(spec)], [(0, 0)], stream.feature_names, cfg.seed)
    preds: dict[int, int] = {}
    order: list[int] = []
    for batch in iter_batches(stream, cfg):
        ones = np.ones((len(batch), 1), np.int32)
        rel = batch.release
        if rel is not None:  # every row trains in the one replica: weight 1 where known
            rel = type(rel)(rel.after, rel.rows, rel.X, rel.y, rel.known[:, None].astype(np.int32),
                            np.ones((len(rel), 1), bool), rel.known)
        w = ones if batch.revealed is None else batch.revealed[:, None].astype(np.int32)
        b = type(batch)(batch.start, batch.X, batch.y, w, ones.astype(bool), rel,
                        batch.revealed)
        out = host.process(b)[0]
        rows = rel.rows if rel is not None else np.arange(batch.start, batch.start + len(batch))
        preds.update(zip(rows.tolist(), out.tolist()))
        order += rows.tolist()
    return preds, order


def river_loop(model, X, y, names, due):
    """A plain delayed test-then-train loop: row t's label is learnt just before row
    ``due[t]`` is predicted; rows due past the end are never learnt."""
    n = len(y)
    waiting: dict[int, list[int]] = {}
    for t in range(n):
        waiting.setdefault(int(due[t]), []).append(t)
    preds = {}
    for u in range(n):
        for t in waiting.pop(u, []):
            model.learn_one(dict(zip(names, X[t])), int(y[t]))
        p = model.predict_one(dict(zip(names, X[u])))
        preds[u] = 0 if p is None else p
    return preds


@pytest.mark.parametrize("spec", ["ht(grace_period=50)", "nb"])
@pytest.mark.parametrize("delay", [1, 37, 400])
def test_row_delays_equal_rivers_delayed_progressive_validation(spec, delay):
    """Row for row: the prediction of every row equals river's
    iter_progressive_val_score(delay=N) (river reveals row t before predicting row t + N)."""
    stream, X, y = rows_of()
    cfg = RunConfig(stream="sea(noise=0.1)", n_rows=N_ROWS, delay=delay, batch_size=113,
                    test_every=250)
    ours, order = host_predictions(spec, cfg)
    model = tree.HoeffdingTreeClassifier(grace_period=50) if spec != "nb" else (
        naive_bayes.GaussianNB())
    theirs = []
    dataset = (
        (dict(zip(stream.feature_names, x)), c) for x, c in zip(X.tolist(), y.tolist())
    )
    for step in evaluate.iter_progressive_val_score(
        dataset, model, metrics.Accuracy(), delay=delay, step=1, yield_predictions=True
    ):
        theirs.append(step["Prediction"])
    # river yields in reveal order, which for a constant delay is row order
    assert order == sorted(order) == list(range(N_ROWS))
    assert [ours[t] for t in range(N_ROWS)] == [0 if p is None else p for p in theirs]


def test_a_delay_changes_the_predictions():
    """The check above could not pass by ignoring the delay: 400 rows late differs from
    ordinary test-then-train on this stream."""
    base = RunConfig(stream="sea(noise=0.1)", n_rows=N_ROWS, batch_size=113)
    now, _ = host_predictions("ht(grace_period=50)", base)
    late, _ = host_predictions("ht(grace_period=50)", RunConfig(**{**_kw(base), "delay": 400}))
    assert now != late


def _kw(cfg: RunConfig) -> dict:
    return {"stream": cfg.stream, "n_rows": cfg.n_rows, "batch_size": cfg.batch_size}


def test_a_delay_function_equals_rivers_callable_delay_and_a_plain_loop():
    """delay(x, y) -> rows, river's callable delay (rows when no moment is given): the same
    predictions, and the reveal order (by due row, then row) river uses."""
    stream, X, y = rows_of()
    names = stream.feature_names

    def delay(x, label):
        return int(x[names[0]] * 30) + (5 if label == "1" else 0)

    cfg = RunConfig(stream="sea(noise=0.1)", n_rows=N_ROWS, delay=delay, batch_size=200)
    ours, order = host_predictions("nb", cfg)
    classes = stream.classes
    due = [t + max(1, delay(dict(zip(names, X[t])), classes[y[t]])) for t in range(N_ROWS)]
    plain = river_loop(naive_bayes.GaussianNB(), X, y, names, due)
    assert ours == plain
    dataset = ((dict(zip(names, x)), classes[c]) for x, c in zip(X.tolist(), y.tolist()))
    revealed = []
    from river import stream as rstream

    for t, _, label in rstream.simulate_qa(dataset, None, delay):
        if label is not None:
            revealed.append(t)
    assert order == revealed
    assert order != sorted(order)  # the function does reorder the labels


def test_a_time_column_delay_equals_rivers_moment_and_delay():
    """--delay-column COL --delay D: river's simulate_qa(moment=COL, delay=D) reveals the same
    rows in the same order, and the predictions equal a plain loop with those due rows."""
    stream, X, y = rows_of()
    names = stream.feature_names
    # a column of increasing times with gaps: x1 of SEA (0-10) turned into steps
    cfg = RunConfig(stream="sea(noise=0.1)", n_rows=N_ROWS, delay=3.0, delay_column=names[0],
                    batch_size=160)
    col = X[:, 0]
    assert (np.diff(np.maximum.accumulate(col)) >= 0).all()
    ours, _ = host_predictions("nb", cfg)
    clock = np.maximum.accumulate(col)
    due = [int(np.searchsorted(clock[t + 1 :], col[t] + 3.0)) + t + 1 for t in range(N_ROWS)]
    plain = river_loop(naive_bayes.GaussianNB(), X, y, names, due)
    assert ours == plain


def test_a_monotone_time_column_reveals_in_rivers_order():
    """On a non-decreasing time column, distval's order of known labels is river's
    simulate_qa(moment=..., delay=...) order."""
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.exponential(1.0, 400))
    X = np.c_[times, rng.normal(size=400)]
    y = (X[:, 1] > 0).astype(np.int64)
    sched = LabelSchedule(delay_spec(4.5, column="time"), ["time", "v"], n_folds=1)
    order = []
    ones = np.ones((400, 1))
    for lo in range(0, 400, 64):
        hi = min(lo + 64, 400)
        nxt = X[hi] if hi < 400 else None
        order += sched.release(lo, X[lo:hi], y[lo:hi], ones[lo:hi], ones[lo:hi] > 0,
                               nxt).rows.tolist()
    from river import stream as rstream

    dataset = ({"time": float(a), "v": float(b), "_i": i} for i, (a, b) in enumerate(X))
    river_order = [
        x["_i"] for _, x, label in rstream.simulate_qa(
            ((x, 1) for x in dataset), "time", 4.5) if label is not None
    ]
    assert order == river_order
    assert sched.in_flight == 0


def test_memory_holds_only_the_rows_in_flight():
    cfg = RunConfig(stream="sea", n_rows=5000, delay=300, batch_size=250)
    stream = open_config_stream(cfg)
    spec = cfg.label_delay
    assert spec is not None
    sched = LabelSchedule(spec, stream.feature_names, cfg.n_folds)
    host = LearnerHost(cfg.specs, [(0, 0), (1, 3)], stream.feature_names, 1)
    for batch in iter_batches(stream, cfg):
        sched.release(batch.start, batch.X, batch.y, batch.weights, batch.tested,
                      batch.X[0] if batch.start + len(batch) < 5000 else None)
        assert sched.in_flight <= 300
        host.process(batch)
        pending = len(host._pending_rows)
        assert pending <= 300 and host._pending.shape == (2, pending)


@pytest.mark.parametrize(
    "opts",
    [
        {"delay": 77},
        {"delay": 2.5, "delay_column": "0"},
        {"delay": 40, "label_probability": 0.3},
        {"label_probability": 0.5},
    ],
)
def test_batches_and_cuts_do_not_change_the_numbers(opts, assert_same_rows):
    """Labels are scheduled row by row: batches of 47 rows and of 600 give the same
    snapshots, measures and tests (the faded counts up to rounding, as without delays)."""
    base = {"stream": "sea(noise=0.1)", "n_rows": 2400, "learners": ("ht", "nb"),
            "n_folds": 4, "test_every": 600} | opts
    a = distval.evaluate(**base, batch_size=47)
    b = distval.evaluate(**base, batch_size=600)
    assert_same_rows(a.fold_rows, b.fold_rows)
    assert_same_rows(a.test_rows, b.test_rows, exact=False)  # faded McNemar counts: rounding


def test_a_snapshot_scores_the_labels_known_by_then_and_the_end_scores_all():
    """With a delay of N rows, the snapshot at row P has scored rows 0 .. P - N; the last
    one every row (those still waiting scored with their arrival predictions)."""
    res = distval.evaluate(stream="sea", n_rows=2500, learners=("nb",), n_folds=2, delay=130,
                           test_every=500, forgetting="cumulative")
    f = res.folds()
    n = f[f.forgetting == "cumulative"].groupby("position")["n"].max()
    assert n.to_dict() == {500: 371, 1000: 871, 1500: 1371, 2000: 1871, 2500: 2500}


def test_partial_labels_train_on_revealed_rows_and_score_every_row():
    """label_probability: a plain loop that learns only the rows CapyMOA's draws reveal
    (numpy's Mersenne Twister with legacy seeding, uniform < p) predicts as distval does;
    the measures count every row."""
    stream, X, y = rows_of(seed=5)
    names = stream.feature_names
    cfg = RunConfig(stream="sea(noise=0.1)", n_rows=N_ROWS, label_probability=0.2, seed=5,
                    batch_size=170)
    ours, _ = host_predictions("nb", cfg)
    revealed = np.random.RandomState(5).random_sample(N_ROWS) < 0.2
    model = naive_bayes.GaussianNB()
    plain = {}
    for t in range(N_ROWS):
        p = model.predict_one(dict(zip(names, X[t])))
        plain[t] = 0 if p is None else p
        if revealed[t]:
            model.learn_one(dict(zip(names, X[t])), int(y[t]))
    assert ours == plain
    res = distval.evaluate(stream="sea", n_rows=2000, learners=("nb", "ht"), n_folds=2,
                           label_probability=0.2, test_every=1000, forgetting="cumulative")
    final = res.final_folds()
    assert (final["n"] == 2000).all()  # both learners of the pair: every row


def test_unrevealed_labels_are_not_shown_to_label_sequence_learners():
    """The Persistent baseline predicts the last label it was shown: with partial labels,
    the last revealed one (a plain loop with the same draws)."""
    _, _, y = rows_of(n=600, seed=2)
    cfg = RunConfig(stream="sea(noise=0.1)", n_rows=600, label_probability=0.3, seed=2,
                    batch_size=100)
    ours, _ = host_predictions("persistent", cfg)
    revealed = np.random.RandomState(2).random_sample(600) < 0.3
    last, plain = 0, {}
    for t in range(600):
        plain[t] = last
        if revealed[t]:
            last = int(y[t])
    assert ours == plain


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"delay": "30min"}, "give --delay-column"),
        ({"delay": "-3"}, ">= 0 rows"),
        ({"delay": "soon"}, "number of rows"),
        ({"delay": "x", "delay_column": "t"}, "duration such as 30min"),
        ({"delay_column": "t"}, "needs --delay"),
        ({"label_probability": 1.5}, "[0, 1]"),
    ],
)
def test_bad_delays_are_one_clear_error(kw, says):
    with pytest.raises(DistvalError, match=None) as err:
        RunConfig(**kw)
    assert says in str(err.value)


def test_durations_are_seconds():
    assert delay_spec("30min", column="t").amount == 1800.0
    assert delay_spec("1.5d", column="t").amount == 129600.0
    assert delay_spec("12", column="t").amount == 12.0
    assert delay_spec(0).rows == 1  # 0 rows: ordinary test-then-train, as river's delay=0


def test_a_saved_config_keeps_the_delay_but_not_a_function():
    cfg = RunConfig(delay="30min", delay_column="t", label_probability=0.4)
    assert RunConfig.from_dict(cfg.to_dict()) == cfg
    with pytest.raises(DistvalError, match="Python function"):
        RunConfig.from_dict(RunConfig(delay=lambda x, y: 3).to_dict())


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    script = f"import sys\nfrom distval.cli import main\nsys.exit(main({['run', *args]!r}))"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)


def test_cli_unknown_delay_column_is_one_line_and_status_2():
    done = run_cli("--stream", "sea", "--n-rows", "500", "--learners", "nb",
                   "--delay-column", "nope", "--delay", "3", "--backend", "inprocess")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "distval: error: --delay-column 'nope' is not a feature column of the stream "
        "(its columns: 0, 1, 2)"
    ]


def test_drift_events_name_the_stream_rows_of_the_labels():
    """A delay function of one row is ordinary test-then-train through the release path
    (each batch scores the rows before it): the drift events equal the plain run's."""
    opts = {"stream": "SEA(50)", "n_rows": 6000, "learners": ("nb",), "n_folds": 2,
            "drift": True, "batch_size": 250}
    plain = distval.evaluate(**opts)
    late = distval.evaluate(**opts, delay=lambda x, y: 1)
    events = plain.events()
    assert len(events) > 0
    assert events.equals(late.events())


def test_an_out_of_order_time_column_follows_the_documented_watermark_rule():
    """On a decreasing time column (each row 60 s before the last, --delay 600 s) a row is
    due when the watermark (the largest time so far: the first row's) reaches its time plus
    600: rows 10 and on at the next row, rows 0-9 (and the last) never before the end. The
    release order equals a plain loop over that rule."""
    n = 60
    times = 10_000.0 - 60.0 * np.arange(n)
    X = np.c_[times, np.arange(n, dtype=float)]
    y = np.arange(n) % 2
    sched = LabelSchedule(delay_spec("10min", column="t"), ["t", "v"], n_folds=1)
    ones = np.ones((n, 1))
    known_before: dict[int, int] = {}
    for lo in range(0, n, 16):
        hi = min(lo + 16, n)
        rel = sched.release(lo, X[lo:hi], y[lo:hi], ones[lo:hi], ones[lo:hi] > 0,
                            X[hi] if hi < n else None)
        for row, after, known in zip(rel.rows, rel.after, rel.known):
            known_before[int(row)] = lo + int(after) if known else -1
    # the rule, row by row: the first u > t whose watermark reached times[t] + 600
    want = {}
    for t in range(n):
        u = next((u for u in range(t + 1, n) if times[: u + 1].max() >= times[t] + 600), None)
        want[t] = -1 if u is None else u
    assert known_before == want
    assert [t for t, u in want.items() if u == -1] == [*range(10), n - 1]  # the last: no next
    assert all(want[t] == t + 1 for t in range(10, n - 1))


def test_a_text_time_column_is_refused_in_one_line(tmp_path):
    """Before: ISO times as text were read as categories whose codes were taken as seconds
    (a 600-row delay for --delay 10min; exit 0)."""
    path = tmp_path / "iso.csv"
    lines = ["time,x,class"] + [
        f"2024-01-01T{h:02d}:{m:02d}:00,{(h * 60 + m) % 7},{'ab'[(h + m) % 2]}"
        for h in range(10) for m in range(60)
    ]
    path.write_text("\n".join(lines) + "\n")
    done = run_cli("--stream", str(path), "--learners", "nb", "majority", "--delay-column",
                   "time", "--delay", "10min", "--backend", "inprocess", "--no-progress",
                   "--output", str(tmp_path / "out"))
    assert done.returncode == 2, done.stderr
    err = [x for x in done.stderr.strip().splitlines() if not x.startswith("distval: warning")]
    assert err == ["distval: error: --delay-column 'time' holds text, not numbers: give a "
                   "column of numbers (such as Unix seconds) or, in a Parquet file, a "
                   "timestamp column"]


def test_a_parquet_timestamp_column_is_a_time_in_seconds(tmp_path):
    """A timestamp[ns] column (epoch nanoseconds beyond 2^53) is read as Unix seconds: the
    same run as an float column of those seconds."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    n = 1200
    rng = np.random.default_rng(5)
    ns = 1_700_000_000_000_000_000 + np.cumsum(rng.integers(1, 90, n)) * 1_000_000_000
    x, cls = rng.normal(size=n), np.where(rng.random(n) < 0.5, "a", "b")
    pq.write_table(pa.table({"t": pa.array(ns.astype("datetime64[ns]")), "x": x,
                             "class": cls}), tmp_path / "ts.parquet")
    pq.write_table(pa.table({"t": (ns // 1_000_000_000).astype(float), "x": x, "class": cls}),
                   tmp_path / "s.parquet")
    runs = [distval.evaluate(stream=str(tmp_path / f), learners=("nb", "majority"),
                             n_folds=2, test_every=400, delay="10min", delay_column="t")
            for f in ("ts.parquet", "s.parquet")]
    assert runs[0].folds().equals(runs[1].folds())
    assert len(runs[0].folds()) > 0


@pytest.mark.parametrize(("opts", "says"), [
    ({"label_probability": 0.0}, "label_probability is 0"),
    ({"delay": 600}, "--delay 600 rows is as long as the stream (500 rows)"),
])
def test_a_run_that_trains_nothing_warns(opts, says):
    with pytest.warns(DistvalWarning, match=says.replace("(", r"\(").replace(")", r"\)")):
        distval.evaluate(stream="sea", n_rows=500, learners=("nb", "majority"), n_folds=2,
                         **opts)


@pytest.mark.parametrize(("delay", "probability"), [(130, 1.0), (40, 0.3)])
def test_the_persistent_baseline_uses_only_labels_known_when_a_row_arrives(delay, probability):
    """With labels ``delay`` rows late (some never revealed), the no-change baseline behind
    p_per, κper and the baseline line guesses row t with the last revealed label of a row s
    with s + delay <= t (class 0 before any), a plain loop here, over every row of the
    stream; the previous row's label, which no learner knows yet, would give other numbers."""
    n, k = 2000, 2
    _, _, y = rows_of(n=n, seed=3)
    revealed = np.random.RandomState(3).random_sample(n) < probability
    guess = np.zeros(n, np.int64)
    last = 0
    for t in range(n):
        s = t - delay
        if s >= 0 and revealed[s]:
            last = int(y[s])
        guess[t] = last
    res = distval.evaluate(stream="sea(noise=0.1)", n_rows=n, seed=3, learners=("nb",),
                           n_folds=k, scheme="cv", fold_choice="round-robin", delay=delay,
                           label_probability=probability, forgetting="cumulative",
                           batch_size=170, test_every=1000)
    final = res.final_folds()
    final = final[final["forgetting"] == "cumulative"]
    want = float((y == guess).mean())
    assert final["p_per"].tolist() == pytest.approx([want] * k, abs=1e-12)
    assert abs(want - float((y == np.r_[0, y[:-1]]).mean())) > 1e-3
