"""Iterables of (x, y) as streams: river's generators and datasets, lists, one-shot iterators."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from river import datasets
from river.datasets import synth

from distval.errors import DistvalError
from distval.streams import IterableStream, open_stream


def test_a_river_generator_is_read_in_batches_with_the_same_rows_as_river():
    s = open_stream(synth.SEA(seed=3, noise=0.1), n_rows=1234)
    chunks = list(s.chunks(500))
    assert [len(c) for c in chunks] == [500, 500, 234] and s.n_rows == 1234
    X = np.concatenate([c.X for c in chunks])
    y = np.concatenate([c.y for c in chunks])
    rows = list(itertools.islice(synth.SEA(seed=3, noise=0.1), 1234))
    assert np.array_equal(X, np.array([[x[k] for k in x] for x, _ in rows]))
    assert [s.classes[i] for i in y] == [str(lab) for _, lab in rows]
    # a second pass starts again from row 0 and gives the same rows
    assert np.array_equal(next(s.chunks(500)).X, chunks[0].X)


def test_a_generator_without_end_needs_n_rows():
    with pytest.raises(DistvalError, match="has no end: give n_rows"):
        open_stream(synth.SEA())


def test_a_river_dataset_has_its_own_length():
    s = open_stream(datasets.Phishing())
    assert sum(len(c) for c in s.chunks(400)) == s.n_rows == datasets.Phishing().n_samples


def test_nominal_values_become_categories_in_order_of_first_appearance():
    rows = [({"c": "b", "v": 1}, "n"), ({"c": "a", "v": None}, "y"), ({"c": "b"}, "n")]
    s = IterableStream(rows)
    c = next(s.chunks(10))
    assert s.nominal == {"c": ["b", "a"]} and s.classes == ["n", "y"]
    np.testing.assert_array_equal(c.X, [[0, 1], [1, np.nan], [0, np.nan]])


def test_a_one_shot_iterator_is_read_once():
    s = IterableStream(({"a": float(i)}, i % 2) for i in range(10))
    assert sum(len(c) for c in s.chunks(3)) == 10
    with pytest.raises(DistvalError, match="one-shot iterator"):
        list(s.chunks(3))


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ([], "is empty"),
        ([(1, 2)], r"row 1 is not an \(x: dict, y\) pair"),
        ([({"a": 1}, 0), ({"a": "x"}, 1)], "numeric in the first row but row 2 holds 'x'"),
        ([({"a": 1}, 0), ({"a": 2}, None)], "label is missing in row 2"),
        (42, "iterable of"),
    ],
)
def test_bad_sources_get_one_clear_message(source, message):
    with pytest.raises(DistvalError, match=message):
        list(open_stream(source).chunks(10))
