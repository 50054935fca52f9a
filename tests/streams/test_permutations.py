"""Controlled permutations (zliobaite-controlled-permutations, Sects. 3-4) and permuted streams."""

from __future__ import annotations

import numpy as np
import pyarrow.parquet as pq
import pytest
from scipy import stats

from distval.errors import DistvalError
from distval.streams import bundled_path, open_stream
from distval.streams.permutations import (
    average_neighbour_distance,
    copy_seed,
    expected_and,
    parse_permutation,
    random_permutation,
    shape_permutation,
    speed_permutation,
    time_permutation,
    total_neighbour_distance,
)
from distval.streams.permuted import PermutedStream, StreamData

GENERATORS = {
    "time": lambda n, s: time_permutation(n, 0.5, s),
    "speed": lambda n, s: speed_permutation(n, 0.5, s),
    "shape": lambda n, s: shape_permutation(n, n, s),
    "random": lambda n, s: random_permutation(n, s),
}


# -- each is a permutation ----------------------------------------------------------------------


@pytest.mark.parametrize("kind", list(GENERATORS))
@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 5000])
def test_every_index_appears_exactly_once(kind, n):
    for seed in range(3):
        order = GENERATORS[kind](n, seed)
        assert order.dtype == np.int64
        assert np.array_equal(np.sort(order), np.arange(n))


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_same_seed_same_permutation_other_seed_other(kind):
    a, b, c = GENERATORS[kind](500, 7), GENERATORS[kind](500, 7), GENERATORS[kind](500, 8)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_time_permutation_is_the_blocks_in_reverse_order():
    # Sect. 3.1: cutting the permuted order at its breaks (steps other than +1) gives blocks
    # of consecutive rows; putting them back in reverse order restores the identity.
    for seed in range(20):
        order = time_permutation(300, 0.1, seed)
        breaks = np.flatnonzero(np.diff(order) != 1) + 1
        blocks = np.split(order, breaks)
        assert np.array_equal(np.concatenate(blocks[::-1]), np.arange(300))


def test_speed_permutation_is_two_rising_runs_with_about_p_lifted():
    # Sect. 3.2: kept rows then lifted rows, both in their original order (two rising
    # sequences, Definition 6); the number lifted is Binomial(n, p).
    n, p = 4000, 0.3
    order = speed_permutation(n, p, 5)
    drops = np.flatnonzero(np.diff(order) < 0)
    assert len(drops) == 1
    lifted = order[drops[0] + 1 :]
    assert stats.binomtest(len(lifted), n, p).pvalue > 1e-3


@pytest.mark.parametrize(("n", "k"), [(3, 50), (10, 200), (1000, 1000), (5000, 12000)])
def test_shape_permutation_equals_the_swaps_applied_one_by_one(n, k):
    # Sect. 3.3: k adjacent transpositions applied in sequence, drawn from the same generator
    for seed in range(3):
        swaps = np.random.default_rng(seed).integers(0, n - 1, size=k)
        expected = list(range(n))
        for i in swaps.tolist():
            expected[i], expected[i + 1] = expected[i + 1], expected[i]
        assert shape_permutation(n, k, seed).tolist() == expected


# -- neighbour distances (Definitions 1-2) ------------------------------------------------------


def test_worked_example_tnd_5_and_5_over_3():
    # Sect. 4.1: D(1, 3, 2, 4) = |1-3| + |3-2| + |2-4| = 5 and d = 5/3
    assert total_neighbour_distance([1, 3, 2, 4]) == 5
    assert average_neighbour_distance([1, 3, 2, 4]) == pytest.approx(5 / 3)
    # the identity has d = 1 (Prop. 9); a reversal keeps every neighbour, d = 1 too;
    # swapping halves (5,6,7,8,1,2,3,4) costs one long jump: 3 + 7 + 3
    assert average_neighbour_distance(np.arange(8)) == 1.0
    assert average_neighbour_distance(np.arange(8)[::-1]) == 1.0
    assert total_neighbour_distance([5, 6, 7, 8, 1, 2, 3, 4]) == 13
    assert total_neighbour_distance([1, 8, 3, 6, 5, 4, 7, 2]) == 7 + 5 + 3 + 1 + 1 + 3 + 5


def _sample_and(make, n, seeds):
    d = np.array([average_neighbour_distance(make(n, s)) for s in range(seeds)])
    return d.mean(), d.std(ddof=1) / np.sqrt(seeds)


@pytest.mark.parametrize("p", [0.5, 0.2])
def test_time_mean_and_matches_proposition_3(p):
    n = 2000
    mean, se = _sample_and(lambda n, s: time_permutation(n, p, s), n, 400)
    paper = 1 + 2 * n * p * (n - n * p - 1) / ((n * p + 1) * (n - 1))
    # Prop. 3 plugs E(k) = np into Prop. 4; here k ~ Binomial(n - 1, p) over the n - 1 gaps,
    # and Prop. 4 averaged over that distribution is the exact expectation
    k = np.arange(n)
    pk = stats.binom.pmf(k, n - 1, p)
    exact = float(np.sum(pk * (3 * n - 1 - 2 * k - 2 * n / (k + 1)))) / (n - 1)
    assert abs(mean - exact) < 4 * se
    assert abs(mean - paper) < 4 * se + abs(exact - paper)
    assert abs(exact - paper) < 1.5 * se
    assert expected_and("time", n, p=p) == pytest.approx(paper)


@pytest.mark.parametrize("p", [0.5, 0.3])
def test_speed_mean_and_matches_proposition_5(p):
    n = 2000
    mean, se = _sample_and(lambda n, s: speed_permutation(n, p, s), n, 400)
    paper = 3 * (n + 1) / (n - 1) - 3 / (p * (1 - p) * (n - 1))
    assert abs(mean - paper) < 4 * se
    assert expected_and("speed", n, p=p) == pytest.approx(paper)


def test_shape_mean_and_matches_proposition_8():
    n = 2000
    # one transposition: +2 in D inside the sequence, +1 at either end (proof of Prop. 8)
    mean, se = _sample_and(lambda n, s: shape_permutation(n, 1, s), n, 2000)
    exact = 1 + (2 * (n - 3) + 1 * 2) / (n - 1) ** 2
    assert abs(mean - exact) < 4 * se
    # a few transpositions: close to 1 + 2k/(n - 1) and below it
    k = 20
    mean, se = _sample_and(lambda n, s: shape_permutation(n, k, s), n, 400)
    bound = 1 + 2 * k / (n - 1)
    assert mean < bound + 4 * se
    assert (mean - 1) / (bound - 1) > 0.97
    assert expected_and("shape", n, k=k) == pytest.approx(bound)
    # k = n stays below 3 (k < 2n)
    mean, se = _sample_and(lambda n, s: shape_permutation(n, n, s), n, 50)
    assert mean + 4 * se < 3


def test_random_mean_and_matches_proposition_10():
    n = 500
    mean, se = _sample_and(lambda n, s: random_permutation(n, s), n, 400)
    assert abs(mean - (n + 1) / 3) < 4 * se
    assert expected_and("random", n) == pytest.approx((n + 1) / 3)


# -- spec grammar -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "p", "k"),
    [
        ("time:p=0.5", "time", 0.5, None),
        ("speed:p=0.25", "speed", 0.25, None),
        ("shape:k=1000", "shape", None, 1000),
        ("shape:k=n", "shape", None, None),
        ("shape", "shape", None, None),
        ("time", "time", 0.5, None),
        (" Random ", "random", None, None),
    ],
)
def test_spec_grammar(text, kind, p, k):
    spec = parse_permutation(text)
    assert (spec.kind, spec.p, spec.k) == (kind, p, k)


@pytest.mark.parametrize(
    "text",
    ["sideways", "time:p=1.5", "time:p=0", "time:q=0.5", "shape:k=-3", "shape:k=x",
     "speed:p=", "random:p=0.5", "time:", "time:p=abc", "", "3"],
)  # fmt: skip
def test_bad_spec_is_an_error_naming_it(text):
    with pytest.raises(DistvalError, match="bad permutation spec") as exc:
        parse_permutation(text)
    assert repr(text) in str(exc.value)


def test_copy_seeds_differ_between_copies_and_runs():
    seeds = {copy_seed(s, i) for s in (1, 2) for i in range(1, 11)}
    assert len(seeds) == 20


# -- the permuted stream ------------------------------------------------------------------------


def test_permuted_stream_yields_the_file_rows_in_permuted_order():
    n = 3000
    table = pq.read_table(bundled_path()).slice(0, n).to_pandas()
    order = time_permutation(n, 0.01, 3)
    stream = PermutedStream(open_stream("elec2", n_rows=n), order)
    chunks = list(stream.chunks(700))
    assert [c.start for c in chunks] == list(range(0, n, 700))
    X = np.concatenate([c.X for c in chunks])
    y = np.concatenate([c.y for c in chunks])
    expected = table.iloc[order]
    numeric = [f for f in stream.feature_names if f != "day"]
    cols = [stream.feature_names.index(f) for f in numeric]
    np.testing.assert_array_equal(X[:, cols], expected[numeric].to_numpy(float))
    day = np.array(stream.nominal["day"])[X[:, stream.feature_names.index("day")].astype(int)]
    assert (day == expected["day"].astype(str).to_numpy()).all()
    # class indices by first appearance in the permuted order
    labels = expected["class"].astype(str).to_numpy()
    assert stream.classes == list(dict.fromkeys(labels))
    assert (np.array(stream.classes)[y] == labels).all()
    # a second pass is identical
    assert np.array_equal(np.concatenate([c.y for c in stream.chunks(1000)]), y)


def test_permuted_stream_from_a_spec_and_bad_orders():
    data = StreamData.read(open_stream("sea", n_rows=200))
    s = PermutedStream(data, "speed:p=0.5", seed=4)
    assert np.array_equal(s.order, speed_permutation(200, 0.5, 4))
    assert s.name == "sea [speed:p=0.5, seed 4]"
    for bad in ([0, 1], np.zeros(200, dtype=int), np.arange(200) + 1, np.arange(200.0)):
        with pytest.raises(DistvalError, match="200"):
            PermutedStream(data, bad)
