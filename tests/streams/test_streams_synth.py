"""Synthetic streams: lengths, determinism, concept changes checked from the features."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from river.datasets import synth

from distval.streams import Chunk, GeneratorStream, open_stream
from distval.streams.catalogue import _RandomRBFDrift

SPECS = [
    "sea",
    "SEA(50)",
    "LED(1000)",
    "HYP(10, 0.001)",
    "RBF(50, 0.001)",
    "RBF(0,0)",
    "stagger",
    "agrawal",
    "led_drift(irrelevant_features=True, n_drift_features=3)",
    "hyperplane(n_features=4)",
    "rbf_drift",
    "sine",
    "waveform",
    "mixed",
    "random_tree",
]


def read_all(stream, size=500):
    chunks = list(stream.chunks(size))
    return (
        chunks,
        np.concatenate([c.X for c in chunks]),
        np.concatenate([c.y for c in chunks]),
    )


@pytest.mark.parametrize("spec", SPECS)
def test_generator_length_determinism_and_seed(spec):
    n = 1_234
    stream = open_stream(spec, n_rows=n, seed=3)
    assert stream.n_rows == n
    chunks, X, y = read_all(stream, 500)
    assert [len(c) for c in chunks] == [500, 500, 234]
    assert [c.start for c in chunks] == [0, 500, 1000]
    assert X.shape == (n, len(stream.feature_names)) and X.dtype == np.float64
    assert y.dtype == np.int64 and y.min() == 0 and y.max() == len(stream.classes) - 1
    assert all(isinstance(f, str) for f in stream.feature_names)
    _, X2, y2 = read_all(stream, 300)
    np.testing.assert_array_equal(X2, X)
    np.testing.assert_array_equal(y2, y)
    _, X3, y3 = read_all(open_stream(spec, n_rows=n, seed=3), 1000)
    np.testing.assert_array_equal(X3, X)
    np.testing.assert_array_equal(y3, y)
    _, X4, _ = read_all(open_stream(spec, n_rows=n, seed=4), 500)
    assert not np.array_equal(X4, X)


def test_labels_by_first_appearance_and_classes_grow():
    stream = open_stream("waveform", n_rows=600, seed=2)
    seen: list[int] = []
    for chunk in stream.chunks(50):
        for v in chunk.y.tolist():
            if v not in seen:
                assert v == len(seen)
                seen.append(v)
        assert len(stream.classes) == len(seen)
    assert sorted(stream.classes) == ["0", "1", "2"]


def test_keyword_arguments_pass_through_to_river():
    stream = open_stream("sea(variant=2, noise=0.0)", n_rows=3000, seed=9)
    _, X, y = read_all(stream)
    truth = X[:, 0] + X[:, 1] > 7
    labels = np.array([stream.classes[k] == "True" for k in y])
    np.testing.assert_array_equal(labels, truth)


def sea_segments(n, w, seed):
    stream = open_stream(f"SEA({w})", n_rows=n, seed=seed)
    _, X, y = read_all(stream, 1000)
    positive = np.array([c == "True" for c in stream.classes])[y]
    s = X[:, 0] + X[:, 1]
    return s, positive


def test_sea_paper_concepts_switch_at_quarters_with_ten_percent_noise():
    n = 40_000
    s, positive = sea_segments(n, 50, seed=1)
    thresholds = [8.0, 9.0, 7.0, 9.5]
    q = n // 4
    for k in range(4):
        # stay 500 rows away from the drift centres
        lo, hi = k * q + (500 if k else 0), (k + 1) * q - 500
        agree = [float(np.mean((s[lo:hi] > t) == positive[lo:hi])) for t in thresholds]
        assert int(np.argmax(agree)) == k, agree
        assert abs(1 - agree[k] - 0.10) < 0.015, agree
    # the agreement with concept 0 drops after n/4
    before = np.mean((s[: q - 500] > 8) == positive[: q - 500])
    after = np.mean((s[q + 500 : 2 * q] > 8) == positive[q + 500 : 2 * q])
    assert before - after > 0.05


def test_sea_drift_width_spreads_the_switch():
    q = 10_000
    window = slice(q - 2_500, q - 500)

    def share_of_new_concept(w):
        s, positive = sea_segments(4 * q, w, seed=2)
        differ = (s[window] > 9) != (s[window] > 8)
        return np.mean(positive[window][differ] == (s[window][differ] > 9))

    # Before the centre of a narrow drift only label noise (10 %) follows the next concept;
    # a drift of width 4000 already draws ~20 % of these rows from the next concept.
    narrow, wide = share_of_new_concept(50), share_of_new_concept(4_000)
    assert narrow < 0.16
    assert wide - narrow > 0.08


LED_DIGITS = np.array(
    [
        [1, 1, 1, 0, 1, 1, 1],
        [0, 0, 1, 0, 0, 1, 0],
        [1, 0, 1, 1, 1, 0, 1],
        [1, 0, 1, 1, 0, 1, 1],
        [0, 1, 1, 1, 0, 1, 0],
        [1, 1, 0, 1, 0, 1, 1],
        [1, 1, 0, 1, 1, 1, 1],
        [1, 0, 1, 0, 0, 1, 0],
        [1, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 0, 1, 1],
    ]
)


def test_led_paper_concept_changes_at_half():
    n = 8_000
    stream = open_stream("LED(200)", n_rows=n, seed=5)
    assert len(stream.feature_names) == 24
    assert stream.nominal["0"] == ["0", "1"]
    _, X, y = read_all(stream, 1000)
    digits = np.array([int(stream.classes[k]) for k in y])
    shown = np.array([stream.nominal[str(j)] for j in range(7)], dtype=object)
    segments = np.array([[int(shown[j][int(v)]) for j, v in enumerate(row)] for row in X[:, :7]])
    exact = np.all(segments == LED_DIGITS[digits], axis=1)
    before = exact[: n // 2 - 1000].mean()
    after = exact[n // 2 + 1000 :].mean()
    # 7 segments each flipped with probability 0.09: (0.91) ** 7 = 0.52 before the drift
    assert abs(before - 0.91**7) < 0.04
    assert after < 0.15


def test_hyperplane_noise_without_drift():
    stream = open_stream("hyp(n_drift_features=0, mag_change=0.0, noise_percentage=0.0)")
    assert stream.n_rows == 100_000
    small = open_stream("hyp(n_drift_features=0, noise_percentage=0.0)", n_rows=4000)
    _, X, y = read_all(small, 1000)
    labels = np.array([int(c) for c in small.classes])[y]
    # a fixed hyperplane through the centre separates the classes exactly: a linear fit finds it
    A = np.c_[X, np.ones(len(X))]
    w, *_ = np.linalg.lstsq(A, labels * 2.0 - 1, rcond=None)
    assert np.mean((A @ w > 0) == labels) > 0.97


def test_rbf_paper_configurations():
    still = open_stream("RBF(0, 0)", n_rows=3000, seed=1)
    plain = open_stream("rbf", n_rows=3000, seed=1)
    moving = open_stream("RBF(50, 0.001)", n_rows=3000, seed=1)
    _, Xs, ys = read_all(still)
    _, Xp, yp = read_all(plain)
    _, Xm, _ = read_all(moving)
    np.testing.assert_array_equal(Xs, Xp)
    np.testing.assert_array_equal(ys, yp)
    assert Xs.shape == (3000, 10) and len(still.classes) == 2
    assert not np.array_equal(Xs, Xm)


@pytest.mark.parametrize(
    "params",
    [
        dict(change_speed=0.05, n_drift_centroids=20),
        dict(change_speed=0.3, n_drift_centroids=3, n_features=4, n_centroids=5),
    ],
)
def test_fast_rbf_drift_yields_rivers_rows(params):
    ours = list(itertools.islice(_RandomRBFDrift(seed_model=3, seed_sample=4, **params), 2000))
    river = list(
        itertools.islice(synth.RandomRBFDrift(seed_model=3, seed_sample=4, **params), 2000)
    )
    assert ours == river


def test_nominal_generator_features():
    stagger = open_stream("stagger", n_rows=500)
    assert set(stagger.nominal) == {"size", "color", "shape"}
    assert stagger.nominal["size"] == ["small", "medium", "large"]
    _, X, _ = read_all(stagger)
    assert set(np.unique(X).tolist()) == {0.0, 1.0, 2.0}
    agrawal = open_stream("agrawal", n_rows=2000)
    _, X, _ = read_all(agrawal)
    car = X[:, agrawal.feature_names.index("car")]
    assert agrawal.nominal["car"] == [str(v) for v in range(1, 21)]
    assert car.min() == 0 and car.max() == 19


def test_limit_on_generator():
    stream = GeneratorStream("SEA(50)", n=10_000, seed=1, limit=1_500)
    assert stream.n_rows == 1_500
    _, X, _ = read_all(stream, 1000)
    full = GeneratorStream("SEA(50)", n=10_000, seed=1)
    first = next(full.chunks(1_500))
    np.testing.assert_array_equal(X, first.X)


@pytest.mark.parametrize("spec", ["sea", "SEA(50)", "LED(100)", "RBF(50, 0.001)", "stagger"])
def test_generator_streams_survive_pickle(spec):
    stream = open_stream(spec, n_rows=700, seed=2)
    fresh = pickle.loads(pickle.dumps(stream))
    it = stream.chunks(200)
    first = next(it)
    during = pickle.loads(pickle.dumps(stream))
    _, X, y = read_all(stream, 200)
    for other in (fresh, during):
        assert other.name == stream.name and other.feature_names == stream.feature_names
        _, X2, y2 = read_all(other, 200)
        np.testing.assert_array_equal(X2, X)
        np.testing.assert_array_equal(y2, y)
    chunk = pickle.loads(pickle.dumps(first))
    assert isinstance(chunk, Chunk) and chunk.start == 0
    np.testing.assert_array_equal(chunk.X, X[:200])
    it.close()


def test_generator_names_are_the_catalogue():
    from distval.streams.catalogue import GENERATORS
    from distval.streams.synth import GENERATOR_NAMES

    assert list(GENERATOR_NAMES) == sorted(GENERATORS)


@pytest.mark.moa
def test_a_file_run_skips_the_heavy_imports(tmp_path):
    """river.datasets (with scikit-learn behind it), scipy.signal and scipy.stats cost about
    two seconds of start-up: a one-learner MOA run on a file loads none of them (it computes
    no test); building a generator loads river.datasets."""
    import subprocess
    import sys

    path = tmp_path / "s.csv"
    path.write_text("a,b,class\n" + "".join(f"{i},{i % 3},{i % 2}\n" for i in range(50)))
    heavy = ("river.datasets", "scipy.signal", "scipy.stats")
    code = (
        "import sys, distval\n"
        f"distval.evaluate(stream={str(path)!r}, learners=('moa:bayes.NaiveBayes',), "
        "n_folds=2, backend='inprocess', test_every=25)\n"
        f"print([m for m in {heavy!r} if m in sys.modules])\n"
        "distval.streams.open_stream('sea', n_rows=10)\n"
        "print('river.datasets' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["[]", "True"]
