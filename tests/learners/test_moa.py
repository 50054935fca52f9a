"""MOA learners in distval's fold replicas, checked against MOA's own evaluators (real JVM)."""

from __future__ import annotations

import csv
import io
import os
import pickle
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from cli_errors import PROGRESS

import distval
from distval.config import RunConfig
from distval.engine.loop import iter_batches, open_config_stream
from distval.engine.run import Run
from distval.errors import DistvalError
from distval.learners import parse_learner
from distval.learners.batch import Batch
from distval.learners.host import LearnerHost
from distval.learners.moa import moa_cli
from distval.learners.moa.replicas import MoaReplicas
from distval.learners.schema import Schema

pytestmark = pytest.mark.moa

ROOT = Path(__file__).resolve().parents[2]


def jar() -> str:
    from distval.learners.moa.jvm import moa_jar

    return str(moa_jar())


def write_arff(path: Path, n: int = 3000, *, seed: int = 0, late_class: int | None = None):
    """Rows with 3 numeric features, one nominal, ~3 % missing values and a noisy concept.

    With ``late_class`` a third class C first appears at that row. The class values are
    declared in order of first appearance (A, B, C), as distval numbers them.
    """
    rng = np.random.default_rng(seed)
    X = rng.uniform(0, 10, size=(n, 3))
    colour = rng.integers(0, 3, size=n)
    score = X[:, 0] + X[:, 1] + 2 * (colour == 2)
    y = np.where(score > 10, 0, 1)
    y = np.where(rng.random(n) < 0.1, 1 - y, y)
    y[0] = 0
    if late_class is not None:
        y[late_class:] = np.where(X[late_class:, 2] > 7, 2, y[late_class:])
    lines = ["@relation rows", "@attribute x1 numeric", "@attribute x2 numeric"]
    lines += ["@attribute x3 numeric", "@attribute colour {red,green,blue}"]
    classes = ["A", "B", "C"] if late_class is not None else ["A", "B"]
    lines += ["@attribute class {" + ",".join(classes) + "}", "@data"]
    names = ["red", "green", "blue"]
    for i in range(n):
        x3 = "?" if rng.random() < 0.03 else f"{X[i, 2]:.6f}"
        c = "?" if rng.random() < 0.03 else names[colour[i]]
        lines.append(f"{X[i, 0]:.6f},{X[i, 1]:.6f},{x3},{c},{classes[y[i]]}")
    path.write_text("\n".join(lines) + "\n")
    return path


def moa_task(task: str) -> list[dict]:
    """Run a MOA task from the jar (as a user would) and parse its CSV learning curve."""
    done = subprocess.run(
        ["java", "-cp", jar(), "moa.DoTask", task], capture_output=True, text=True, check=True
    )
    text = done.stdout[done.stdout.index("learning evaluation instances") :]
    return list(csv.DictReader(io.StringIO(text)))


def moa_prequential_accuracy(learner: str, arff: Path, n: int) -> float:
    rows = moa_task(
        f"EvaluatePrequential -l ({learner}) -s (ArffFileStream -f {arff}) "
        f"-e BasicClassificationPerformanceEvaluator -i {n} -f {n}"
    )
    return float(rows[-1]["classifications correct (percent)"])


def host_accuracy(
    spec: str, arff: Path, *, schema: Schema | None = None, seed: int = 1, moa_seed=None
):
    """One MOA replica through distval's host, tested and trained (weight 1) on every row.

    ``moa_seed`` replaces the replica's seed (MOA's CLI cannot set a classifier's seed: its
    ``randomSeedOption`` is not a public field, so MOA runs classifiers with seed 1).
    """
    stream = open_config_stream(RunConfig(stream=str(arff)))
    schema = schema or Schema.of(stream)
    host = LearnerHost([parse_learner(spec)], [(0, 0)], stream.feature_names, seed, schema)
    if moa_seed is not None:
        host.moa = MoaReplicas([moa_cli(spec)], [moa_seed], schema)
    correct = total = 0
    for chunk in stream.chunks(700):
        ones = np.ones((len(chunk), 1))
        preds = host.process(Batch(chunk.start, chunk.X, chunk.y, ones, ones.astype(bool)))
        correct += int((preds[0] == chunk.y).sum())
        total += len(chunk)
    return 100.0 * correct / total, host


@pytest.mark.parametrize(
    "moa_cli",
    ["trees.HoeffdingTree -g 50", "bayes.NaiveBayes", "meta.AdaptiveRandomForest -s 5"],
)
def test_prequential_accuracy_equals_moa_evaluate_prequential(tmp_path, moa_cli):
    arff = write_arff(tmp_path / "rows.arff")
    ours, _ = host_accuracy(f"moa:{moa_cli}", arff, moa_seed=1)
    theirs = moa_prequential_accuracy(moa_cli, arff, 3000)
    assert ours == pytest.approx(theirs, abs=1e-9)


def test_arf_replicas_get_distinct_seeds_but_reproducible_runs(tmp_path):
    arff = write_arff(tmp_path / "rows.arff", n=1500)
    a, _ = host_accuracy("moa:meta.AdaptiveRandomForest -s 3", arff, seed=1)
    b, _ = host_accuracy("moa:meta.AdaptiveRandomForest -s 3", arff, seed=1)
    c, _ = host_accuracy("moa:meta.AdaptiveRandomForest -s 3", arff, seed=2)
    assert a == b
    assert a != c


@pytest.mark.parametrize(
    ("scheme", "method"), [("cv", "Cross-Validation"), ("split", "Split-Validation")]
)
def test_evaluate_matches_moa_evaluate_prequential_cv(tmp_path, scheme, method):
    """End to end: distval's round-robin prequential cv/split equals MOA's
    EvaluatePrequentialCV (mean and standard deviation of the folds' accuracy)."""
    arff = write_arff(tmp_path / "rows.arff", n=2000)
    res = distval.evaluate(
        stream=str(arff),
        learners=("moa:trees.HoeffdingTree -g 50",),
        scheme=scheme,
        n_folds=4,
        fold_choice="round-robin",
        forgetting="cumulative",
        test_every=1000,
    )
    final = res.final_folds()
    acc = 100 * final[final["forgetting"] == "cumulative"]["accuracy"].to_numpy()
    rows = moa_task(
        f"EvaluatePrequentialCV -l (trees.HoeffdingTree -g 50) -s (ArffFileStream -f {arff}) "
        f"-e BasicClassificationPerformanceEvaluator -i 2000 -f 2000 -w 4 -a {method}"
    )
    assert acc.mean() == pytest.approx(float(rows[-1]["[avg] classifications correct (percent)"]))
    assert acc.std(ddof=1) == pytest.approx(
        float(rows[-1]["[err] classifications correct (percent)"])
    )


def test_kappa_m_differs_from_moas_only_by_its_majority_classifier(tmp_path):
    """κm = (p0 - p_maj) / (1 - p_maj) in both; the baseline differs. distval's p_maj is the
    share of the window's most frequent class (the majority classifier that knows the
    window's counts); MOA's BasicClassificationPerformanceEvaluator scores, at each row, the
    class with the largest count so far *including that row* (ties to the lowest index) and
    averages those hits. Both are rebuilt here from the file's class column: with the folds'
    accuracy, MOA's formula gives its EvaluatePrequentialCV κm to 1e-9, distval's gives
    distval's, and the two differ."""
    arff = write_arff(tmp_path / "rows.arff", n=2000)
    res = distval.evaluate(
        stream=str(arff), learners=("moa:trees.HoeffdingTree -g 50",), scheme="cv",
        n_folds=4, fold_choice="round-robin", forgetting="cumulative", test_every=2000,
    )
    final = res.final_folds()
    final = final[final["forgetting"] == "cumulative"]
    acc, kappa_m = final["accuracy"].to_numpy(), final["kappa_m"].to_numpy()
    rows = moa_task(
        f"EvaluatePrequentialCV -l (trees.HoeffdingTree -g 50) -s (ArffFileStream -f {arff}) "
        "-e BasicClassificationPerformanceEvaluator -i 2000 -f 2000 -w 4 -a Cross-Validation"
    )
    moa = float(rows[-1]["[avg] Kappa M Statistic (percent)"])
    y = np.array([line.rsplit(",", 1)[1] == "B" for line in
                  arff.read_text().split("@data")[1].split()], dtype=np.int64)
    counts = np.cumsum(np.eye(2, dtype=np.int64)[y], axis=0)  # including the row itself
    p_moa = float((counts.argmax(axis=1) == y).mean())
    p_ours = np.bincount(y).max() / len(y)
    assert p_moa != p_ours
    assert 100 * ((acc - p_moa) / (1 - p_moa)).mean() == pytest.approx(moa, abs=1e-9)
    assert kappa_m == pytest.approx((acc - p_ours) / (1 - p_ours), abs=1e-12)
    assert abs(100 * kappa_m.mean() - moa) > 0.01


# MOA's EvaluatePrequentialDelayedCV keeps one training queue per fold and trains a fold on
# its oldest queued row when the queue holds more than -k rows, right after predicting the
# row just queued: a fold's delay counts the rows *it trains on*. Under cv with k folds,
# each run of k rows holds k - 1 training rows of a fold, so -k q(k-1) trains on row t just
# after row t + qk is predicted: distval's --delay qk + 1 (known before row t + qk + 1).
# Under split a fold trains on every k-th row: -k d is --delay dk + 1. MOA holds out fold
# (t + 1) mod k of 0-based row t, distval fold t mod k: the same folds under other names,
# so the mean and standard deviation over folds are compared.
@pytest.mark.parametrize("moa_cli", ["trees.HoeffdingTree -g 50", "bayes.NaiveBayes"])
@pytest.mark.parametrize(
    ("scheme", "method", "moa_delay", "delay"),
    [("cv", "Cross-Validation", 75, 101), ("split", "Split-Validation", 30, 121)],
)
def test_delayed_cv_matches_moa_evaluate_prequential_delayed_cv(
    tmp_path, moa_cli, scheme, method, moa_delay, delay
):
    """Every 50 rows, the folds' cumulative accuracy (mean, sample sd) equals MOA's at the
    rows whose labels distval has used by then (MOA scores on arrival: row P - delay + 1
    of its curve, printed at every row), and at the end every row is scored in both."""
    arff = write_arff(tmp_path / "rows.arff", n=2000)
    k = 4
    rows = moa_task(
        f"EvaluatePrequentialDelayedCV -l ({moa_cli}) -s (ArffFileStream -f {arff}) "
        f"-e BasicClassificationPerformanceEvaluator -i 2000 -f 1 -w {k} -a {method} "
        f"-k {moa_delay}"
    )
    moa = {
        int(float(r["learning evaluation instances"])): (
            float(r["[avg] classifications correct (percent)"]),
            float(r["[err] classifications correct (percent)"]),
        )
        for r in rows
    }
    opts = {"stream": str(arff), "learners": (f"moa:{moa_cli}",), "scheme": scheme,
            "n_folds": k, "fold_choice": "round-robin", "forgetting": "cumulative",
            "test_every": 50, "batch_size": 170}
    ours = distval.evaluate(**opts, delay=delay).folds()
    plain = distval.evaluate(**opts).folds()  # no delay: must differ from MOA's numbers
    compared = differs = 0
    for position, group in ours[ours["forgetting"] == "cumulative"].groupby("position"):
        scored = 2000 if position == 2000 else position - delay + 1
        if scored <= 0:
            continue
        acc = 100 * group["accuracy"].to_numpy()
        mean, sd = moa[scored]
        assert acc.mean() == pytest.approx(mean, abs=1e-9), position
        assert acc.std(ddof=1) == pytest.approx(sd, abs=1e-9), position
        same = plain[(plain["position"] == scored) & (plain["forgetting"] == "cumulative")]
        if len(same):
            differs += not np.isclose(100 * same["accuracy"].mean(), mean)
        compared += 1
    assert compared == 39 - (delay - 1) // 50 + 1
    assert differs > 0


@pytest.mark.parametrize(
    ("moa_cli", "capymoa_learner"),
    [("bayes.NaiveBayes", "NaiveBayes"), ("trees.HoeffdingTree -g 50", "HoeffdingTree")],
)
@pytest.mark.parametrize(("probability", "delay"), [(0.3, 0), (0.5, 40)])
def test_partial_labels_match_capymoa_prequential_ssl_evaluation(
    tmp_path, moa_cli, capymoa_learner, probability, delay
):
    """CapyMOA's prequential_ssl_evaluation (its Python loop: Mersenne Twister seeded by
    random_seed, a row labelled when its draw is below label_probability, the labelled rows
    trained on delay_length rows later) predicts every row as a distval MOA replica fed
    distval's label schedule with the same seed does; both score every row."""
    import capymoa.classifier as cc
    from capymoa.evaluation import prequential_ssl_evaluation
    from capymoa.stream import ARFFStream

    arff = write_arff(tmp_path / "rows.arff", n=1500)
    stream = ARFFStream(str(arff))
    kw = {"grace_period": 50} if capymoa_learner == "HoeffdingTree" else {}
    learner = getattr(cc, capymoa_learner)(schema=stream.get_schema(), **kw)
    theirs = prequential_ssl_evaluation(
        stream, learner, label_probability=probability, delay_length=delay, random_seed=7,
        store_predictions=True, optimise=False, window_size=500,
    )
    cfg = RunConfig(stream=str(arff), label_probability=probability,
                    delay=delay if delay else None, seed=7, batch_size=170)
    ours = delayed_host_predictions(f"moa:{moa_cli}", cfg)
    # CapyMOA abstains (None) where MOA's votes are all zero; its evaluator and MOA's
    # Utils.maxIndex (distval's replicas) count that as class 0
    predictions = [0 if p is None else int(p) for p in theirs.predictions()]
    assert len(predictions) == len(ours) == 1500
    assert ours == predictions
    assert theirs.cumulative.accuracy() == pytest.approx(
        100 * np.mean(np.array(ours) == open_labels(arff))
    )


@pytest.mark.parametrize(
    ("moa_cli", "capymoa_learner"),
    [("bayes.NaiveBayes", "NaiveBayes"), ("trees.HoeffdingTree -g 50", "HoeffdingTree")],
)
def test_moa_probabilities_are_capymoas_predict_proba(tmp_path, moa_cli, capymoa_learner):
    """A distval MOA replica's class probabilities (votes over their sum) are CapyMOA's
    predict_proba in a plain test-then-train loop (uniform where CapyMOA has none), and
    log-loss, Brier and AUC of them equal scikit-learn's."""
    import capymoa.classifier as cc
    from capymoa.stream import ARFFStream
    from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

    arff = write_arff(tmp_path / "rows.arff", n=1200)
    stream = ARFFStream(str(arff))
    kw = {"grace_period": 50} if capymoa_learner == "HoeffdingTree" else {}
    learner = getattr(cc, capymoa_learner)(schema=stream.get_schema(), **kw)
    theirs = []
    while stream.has_more_instances():
        inst = stream.next_instance()
        p = learner.predict_proba(inst)
        theirs.append([0.5, 0.5] if p is None else list(p))
        learner.train(inst)
    ours_stream = open_config_stream(RunConfig(stream=str(arff)))
    schema = Schema.of(ours_stream)
    host = LearnerHost([parse_learner(f"moa:{moa_cli}")], [(0, 0)],
                       ours_stream.feature_names, 1, schema, proba=True)
    host.moa = MoaReplicas([moa_cli], [1], schema)
    ours, ys = [], []
    for chunk in ours_stream.chunks(300):
        ones = np.ones((len(chunk), 1))
        _, probs = host.process(Batch(chunk.start, chunk.X, chunk.y, ones, ones > 0))
        ours.append(probs[0])
        ys.append(chunk.y)
    p, y = np.concatenate(ours), np.concatenate(ys)
    np.testing.assert_allclose(p, np.array(theirs), rtol=1e-12, atol=0)
    from distval.metrics import proba_measures

    m = proba_measures(p, y)
    assert m["log_loss"] == pytest.approx(log_loss(y, p, labels=[0, 1]), rel=1e-12)
    assert m["brier"] == pytest.approx(brier_score_loss(y, p[:, 1]), rel=1e-12)
    assert m["auc"] == pytest.approx(roc_auc_score(y, p[:, 1]), rel=1e-12)


def open_labels(arff: Path) -> np.ndarray:
    stream = open_config_stream(RunConfig(stream=str(arff)))
    return np.concatenate([c.y for c in stream.chunks(1000)])


def delayed_host_predictions(spec: str, cfg: RunConfig) -> list[int]:
    """One replica testing every row and training (weight 1) on every row whose label
    distval's schedule makes known: its prediction of each row, in row order."""
    stream = open_config_stream(cfg)
    host = LearnerHost([parse_learner(spec)], [(0, 0)], stream.feature_names, cfg.seed,
                       Schema.of(stream))
    host.moa = MoaReplicas([moa_cli(spec)], [1], Schema.of(stream))
    preds: dict[int, int] = {}
    for batch in iter_batches(stream, cfg):
        ones = np.ones((len(batch), 1), np.int32)
        rel = batch.release
        if rel is not None:
            weights = rel.known[:, None].astype(np.int32)
            rel = type(rel)(rel.after, rel.rows, rel.X, rel.y, weights,
                            np.ones((len(rel), 1), bool), rel.known)
        w = ones if batch.revealed is None else batch.revealed[:, None].astype(np.int32)
        out = host.process(type(batch)(batch.start, batch.X, batch.y, w, ones > 0, rel,
                                       batch.revealed))[0]
        rows = rel.rows if rel is not None else np.arange(batch.start, batch.start + len(batch))
        preds.update(zip(rows.tolist(), out.tolist()))
    return [preds[t] for t in range(len(preds))]


@pytest.mark.parametrize("moa_cli", ["trees.HoeffdingTree -g 50", "bayes.NaiveBayes"])
def test_a_class_first_seen_mid_stream_grows_the_header(tmp_path, moa_cli):
    """The host declares 2 classes; C appears at row 1500 and the header grows. MOA itself,
    reading the ARFF that declares all three classes, gives the same accuracy."""
    arff = write_arff(tmp_path / "rows.arff", late_class=1500)
    stream = open_config_stream(RunConfig(stream=str(arff)))
    narrow = Schema(tuple(stream.feature_names), {"colour": ("red",)}, (), n_classes=2)
    ours, host = host_accuracy(f"moa:{moa_cli}", arff, schema=narrow)
    assert host.moa.schema.n_classes >= 3
    assert len(host.moa.schema.nominal["colour"]) >= 3
    assert ours == pytest.approx(moa_prequential_accuracy(moa_cli, arff, 3000), abs=1e-9)


def _moa_and_river_host(tmp_path, slots):
    """A host of MOA's Hoeffding tree (learner 0) and river's naive Bayes (learner 1) at
    ``slots``, trained on the first of two 600-row chunks: (host, batch of a chunk, chunks)."""
    arff = write_arff(tmp_path / "rows.arff", n=1200)
    stream = open_config_stream(RunConfig(stream=str(arff)))
    specs = [parse_learner("moa:trees.HoeffdingTree -g 20"), parse_learner("nb")]
    host = LearnerHost(specs, slots, stream.feature_names, 1, Schema.of(stream))
    chunks = list(stream.chunks(600))

    def batch(c):
        w = np.ones((len(c), 2), dtype=np.int32)
        return Batch(c.start, c.X, c.y, w, w.astype(bool))

    host.process(batch(chunks[0]))
    return host, batch, chunks


def test_pickled_replicas_continue_exactly_and_part_shares_them(tmp_path):
    host, batch, chunks = _moa_and_river_host(tmp_path, [(0, 0), (1, 0), (0, 1)])
    copy = pickle.loads(pickle.dumps(host))
    part = host.part([(0, 1), (1, 0)])
    assert part._moa_at == [0]
    expected = host.process(batch(chunks[1]))
    assert (copy.process(batch(chunks[1])) == expected).all()
    # the part shares the trained replicas: fold 1 has now seen both chunks
    assert part.moa._learners[0].trainingWeightSeenByModel() == 1200


def test_river_and_moa_learners_in_one_run(tmp_path):
    res = distval.evaluate(
        stream="sea",
        n_rows=3000,
        learners=("nb", "moa:bayes.NaiveBayes"),
        n_folds=3,
        test_every=1000,
    )
    summary = res.summary()["learners"]
    assert set(summary) == {"nb", "moa:bayes.NaiveBayes"}
    assert summary["moa:bayes.NaiveBayes"]["cumulative"]["accuracy"]["mean"] > 0.8


# -- Ray ----------------------------------------------------------------------------------

RAY_OPTS = {
    "stream": "sea(noise=0.1)",
    "n_rows": 4800,
    "n_folds": 4,
    "test_every": 600,
    "batch_size": 300,
}


@pytest.mark.ray
@pytest.mark.parametrize(
    ("learners", "labels"),
    [
        (("moa:meta.AdaptiveRandomForest -s 3",), {}),
        (("ht", "moa:trees.HoeffdingTree -g 50"), {}),
        (("nb", "moa:trees.HoeffdingTree -g 50"),
         {"delay": 500, "label_probability": 0.6, "measure": "auc"}),
    ],
)
def test_ray_gives_the_in_process_numbers(ray_local, assert_same_rows, learners, labels):
    local = distval.evaluate(**RAY_OPTS, **labels, learners=learners)
    remote = distval.evaluate(**RAY_OPTS, **labels, learners=learners, backend="ray",
                              n_actors=2)
    assert_same_rows(local.fold_rows, remote.fold_rows)
    assert_same_rows(local.test_rows, remote.test_rows)


@pytest.mark.ray
def test_a_killed_learner_actor_with_moa_replicas_recovers_exactly(ray_local, assert_same_rows):
    import ray

    from distval.ray_backend.engine import RayRun

    cfg = RunConfig(**RAY_OPTS, learners=("moa:meta.AdaptiveRandomForest -s 3", "nb"),
                    delay=500, measure="brier")
    stream = open_config_stream(cfg)
    run = Run(cfg, stream)
    killed = []
    ray_run = RayRun(
        cfg, stream, n_actors=2, checkpoint_every=3, warm_up_batches=1, largest_parcel=2
    )
    for index, step in enumerate(ray_run.steps()):
        run.feed(step)
        if not killed and index >= 4:
            ray.kill(ray_run.actors.learners[1], no_restart=True)
            killed.append(index)
    result = run.close()
    assert killed
    clean = distval.evaluate(cfg)
    assert_same_rows(clean.fold_rows, result.fold_rows)
    assert_same_rows(clean.test_rows, result.test_rows)


# -- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("moa:trees.NoSuchTree", "Class not found: trees.NoSuchTree"),
        ("moa:trees.HoeffdingTree -z 3", "MOA says"),
        ("moa:trees.HoeffdingTree -g notanumber", "MOA says"),
        ("moa:", "names no MOA class"),
    ],
)
def test_bad_moa_specs_give_moas_message_on_one_line(text, says):
    with pytest.raises(DistvalError, match=says) as info:
        parse_learner(text)
    assert "\n" not in str(info.value)


def run_cli(args: list[str], *, env: dict | None = None, patch: str = "", timeout=None):
    """``distval`` in a fresh process (``patch``: Python run first, e.g. to hide the jar)."""
    script = textwrap.dedent(
        f"""
        import sys
        {patch}
        from distval.cli import main
        sys.exit(main({args!r}))
        """
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=timeout,
    )


def assert_one_error_line(done, says: str):
    assert done.returncode == 2, done.stderr
    lines = [x for x in done.stderr.strip().splitlines() if not PROGRESS.match(x)]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("distval: error: ")
    assert says in lines[0]


RUN = ["run", "--stream", "sea", "--n-rows", "100", "--learners", "nb"]


def test_cli_bad_moa_class(tmp_path):
    done = run_cli([*RUN, "moa:trees.NoSuchTree", "--output", str(tmp_path / "o")])
    assert_one_error_line(done, "Class not found")


def test_cli_without_the_extra_names_it(tmp_path):
    patch = "import distval.learners.moa.jvm as j; j._capymoa_jar = lambda: None"
    env = {k: v for k, v in os.environ.items() if k != "DISTVAL_MOA_JAR"}
    done = run_cli(
        [*RUN, "moa:bayes.NaiveBayes", "--output", str(tmp_path / "o")], env=env, patch=patch
    )
    assert_one_error_line(done, 'pip install "distval[moa]"')


def test_cli_without_java(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(bin_dir)
    done = run_cli([*RUN, "moa:bayes.NaiveBayes", "--output", str(tmp_path / "o")], env=env)
    assert_one_error_line(done, "need Java")


def test_cli_with_a_jre_only_asks_for_a_jdk(tmp_path):
    """A JRE-only machine (a JAVA_HOME with ``java`` but no ``javac``, nothing on PATH): MOA
    learners are refused with one line naming the missing JDK."""
    java = Path(os.path.realpath(shutil.which("java")))
    jre = tmp_path / "jre"
    (jre / "bin").mkdir(parents=True)
    (jre / "bin" / "java").symlink_to(java)
    (jre / "lib").symlink_to(java.parent.parent / "lib")
    env = dict(os.environ, JAVA_HOME=str(jre), PATH=str(jre / "bin"))
    done = run_cli([*RUN, "moa:bayes.NaiveBayes", "--output", str(tmp_path / "o")], env=env)
    assert_one_error_line(done, "need a JDK (javac)")


def test_a_host_with_jvm_replicas_states_its_capabilities():
    """The engines ask the host, not the learner's name: JVM replicas release the GIL, stay
    in their host, and take a thread count; a river-only host does none of that."""
    specs = [parse_learner("moa:bayes.NaiveBayes"), parse_learner("nb")]
    both = LearnerHost(specs, [(0, 0), (1, 0)], ["a", "b"], seed=1)
    river = both.part([(1, 0)])
    assert (both.releases_gil, both.movable) == (True, False)
    assert (river.releases_gil, river.movable) == (False, True)
    assert [s.movable for s in specs] == [False, True]
    both.set_threads(1)
    assert both.moa.threads == 1


def test_threads_and_overlapped_stages_give_the_same_numbers(monkeypatch, assert_same_rows):
    # Default in-process run: MOA replicas on every core (Java threads), reading and the
    # aggregator in Python threads. Against one Java thread and the plain sequential loop.
    from distval.engine.loop import LocalEvaluation

    opts = {
        "stream": "sea(noise=0.1)",
        "n_rows": 3000,
        "learners": ("moa:trees.HoeffdingTree", "moa:bayes.NaiveBayes", "nb"),
        "n_folds": 3,
        "test_every": 500,
        "batch_size": 250,
    }
    monkeypatch.setenv("DISTVAL_MOA_THREADS", "2")
    fast = distval.evaluate(**opts)
    monkeypatch.setenv("DISTVAL_MOA_THREADS", "1")
    monkeypatch.setattr(LocalEvaluation, "overlaps", property(lambda self: False))
    plain = distval.evaluate(**opts)
    assert_same_rows(plain.fold_rows, fast.fold_rows)
    assert_same_rows(plain.test_rows, fast.test_rows)


def test_the_jvm_runs_with_distvals_gc_options():
    """The JVM of this process got :func:`jvm_args`: the young generation and the no-op
    ``System.gc()`` (read back from Java's own RuntimeMXBean), and, unless the environment
    chose a collector, runs the throughput collector (its MXBeans are "PS Scavenge" and "PS
    MarkSweep")."""
    import jpype

    from distval.learners.moa import jvm

    jvm.start_jvm()
    management = jpype.JClass("java.lang.management.ManagementFactory")
    running = [str(a) for a in management.getRuntimeMXBean().getInputArguments()]
    assert set(jvm.jvm_args()) <= set(running)
    assert "-XX:+DisableExplicitGC" in running or "-XX:-DisableExplicitGC" in running
    if not any(a in running for a in jvm.COLLECTORS if a != "-XX:+UseParallelGC"):
        beans = management.getGarbageCollectorMXBeans()
        assert {str(b.getName()) for b in beans} == {"PS Scavenge", "PS MarkSweep"}


def test_the_java_batch_call_runs_with_a_frozen_python_heap(tmp_path):
    """JPype runs a full Python collection after Java collections; during the Java host's
    batch call the objects that existed before the batch are frozen (those collections scan
    only the batch's objects), and after it nothing is frozen. A spy around the real Java
    host records the freeze count at each call."""
    import gc

    arff = write_arff(tmp_path / "rows.arff", n=1500)
    stream = open_config_stream(RunConfig(stream=str(arff)))
    reps = MoaReplicas([moa_cli("moa:bayes.NaiveBayes")] * 2, [1, 2], Schema.of(stream))
    java_host, frozen = reps._host, []

    class Spy:  # BatchHost.processVotes: the one batch call (process, delays, votes)
        def processVotes(self, *args):
            frozen.append(gc.get_freeze_count())
            return java_host.processVotes(*args)

    reps._host = Spy()
    for chunk in stream.chunks(500):
        ones = np.ones((len(chunk), 2))
        preds = reps.process(chunk.X, chunk.y, ones, ones.astype(np.int8))
        assert gc.get_freeze_count() == 0
        assert preds.shape == (2, len(chunk))
    assert len(frozen) == 3 and min(frozen) > len(gc.get_objects()) // 2


# -- ARFF written by MOA itself (issue 30, items 1, 2 and 10) -----------------------------


def moa_written_sea(tmp_path: Path, n: int) -> Path:
    """``n`` rows of MOA's SEA generator (seed 1, 10 % noise) written by MOA's own
    WriteStreamToARFFFile: the header declares ``{groupA,groupB}``, the first row is groupB
    and every data row ends with a comma."""
    path = tmp_path / "sea_raw.arff"
    subprocess.run(
        [
            "java", "-cp", jar(), "moa.DoTask",
            f"WriteStreamToARFFFile -s (generators.SEAGenerator) -f {path} -m {n}",
        ],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return path


def without_trailing_commas(raw: Path) -> Path:
    lines = raw.read_text().splitlines()
    out = raw.with_name("sea.arff")
    out.write_text("\n".join(x.rstrip(",") if x and x[0].isdigit() else x for x in lines) + "\n")
    return out


@pytest.mark.parametrize(
    ("scheme", "method"), [("cv", "Cross-Validation"), ("split", "Split-Validation")]
)
def test_declared_class_order_matches_moa_when_the_first_row_is_not_the_first_class(
    tmp_path, scheme, method
):
    """Class indices follow the header's declared order, as MOA's do: MOA breaks vote ties
    with the lowest index and an untrained replica predicts class 0, so numbering by first
    appearance (groupB = 0 here) gives other predictions than MOA's EvaluatePrequentialCV."""
    arff = without_trailing_commas(moa_written_sea(tmp_path, 3000))
    assert arff.read_text().split("@data")[1].split()[0].endswith("groupB")
    res = distval.evaluate(
        stream=str(arff),
        learners=("moa:trees.HoeffdingTree",),
        scheme=scheme,
        n_folds=10,
        fold_choice="round-robin",
        forgetting="cumulative",
        test_every=3000,
    )
    final = res.final_folds()
    acc = 100 * final[final["forgetting"] == "cumulative"]["accuracy"].to_numpy()
    rows = moa_task(
        f"EvaluatePrequentialCV -l trees.HoeffdingTree -s (ArffFileStream -f {arff}) "
        f"-e BasicClassificationPerformanceEvaluator -i 3000 -f 3000 -w 10 -a {method}"
    )
    assert acc.mean() == pytest.approx(float(rows[-1]["[avg] classifications correct (percent)"]))
    assert acc.std(ddof=1) == pytest.approx(
        float(rows[-1]["[err] classifications correct (percent)"])
    )


@pytest.mark.parametrize("moa_cli", ["bayes.NaiveBayes", "trees.HoeffdingTree"])
def test_moas_own_arff_with_trailing_commas_reads_as_moa_reads_it(tmp_path, moa_cli):
    """WriteStreamToARFFFile ends every data row with a comma; MOA (like Weka) reads the
    empty field after it as nothing. distval reads the same rows: prequential accuracy on the
    raw file equals MOA's EvaluatePrequential on it."""
    raw = moa_written_sea(tmp_path, 2000)
    assert raw.read_text().rstrip().endswith(",")
    ours, _ = host_accuracy(f"moa:{moa_cli}", raw, moa_seed=1)
    assert ours == pytest.approx(moa_prequential_accuracy(moa_cli, raw, 2000), abs=1e-9)


@pytest.mark.parametrize("bad_row", [1, 2500])
def test_a_data_error_while_the_jvm_is_up_is_one_line_and_the_process_exits(tmp_path, bad_row):
    """A reader error in the first batch (nothing yet sent to the aggregator thread) or
    mid-stream, with MOA replicas running: one ``distval: error:`` line naming the file row,
    exit status 2, and the process ends (a hang is caught by the timeout)."""
    arff = write_arff(tmp_path / "rows.arff", n=3000)
    lines = arff.read_text().splitlines()
    at = lines.index("@data") + bad_row
    lines[at] += ",A"
    arff.write_text("\n".join(lines) + "\n")
    done = run_cli(
        [
            "run", "--stream", str(arff), "--learners", "moa:trees.HoeffdingTree",
            "--backend", "inprocess", "--output", str(tmp_path / "o"),
        ],
        timeout=120,
    )  # fmt: skip
    assert_one_error_line(done, f"(data row {bad_row}): 6 values, expected 5")


def test_parts_with_moa_replicas_pickled_and_joined_continue_exactly(tmp_path):
    """What ``--resume`` does with the checkpoint of Ray actors: their hosts (MOA and
    river replicas), pickled, joined into one host that predicts as the host never split."""
    host, batch, chunks = _moa_and_river_host(tmp_path, [(0, 0), (0, 1), (1, 0), (1, 1)])
    parts = [pickle.loads(pickle.dumps(host.part(g))) for g in ([(0, 1), (1, 0)],
                                                                 [(0, 0), (1, 1)])]
    joined = LearnerHost.join(parts)
    assert joined.slots == [(0, 1), (1, 0), (0, 0), (1, 1)] and joined._moa_at == [0, 2]
    expected = host.process(batch(chunks[1]))
    got = joined.process(batch(chunks[1]))
    assert (got == expected[[1, 2, 0, 3]]).all()
