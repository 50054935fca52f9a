"""The grid's settings: the paper's numbers, profiles, user-given real streams
(distval.experiments.type_errors.profiles; bifet2015 §4.1; docs/experiments.md)."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from distval.errors import DistvalError
from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors import GridConfig, make_grid, open_real_stream


@pytest.mark.parametrize(
    "table, variant", [(paper.TABLE3, paper.TABLE3_VARIANT), (paper.TABLE4, paper.TABLE4_VARIANT)]
)
def test_paper_per_stream_tables_average_to_table2(table, variant):
    # bifet2015: the "Average" line of Tables 3 and 4 is a row of Table 2; the per-stream
    # values typed in here must average to it (both are rounded to two decimals: <= 0.01).
    assert list(table) == list(paper.PAPER_STREAMS)
    for key, expected in paper.TABLE2[variant].items():
        mean = np.mean([table[s][key] for s in paper.PAPER_STREAMS])
        assert abs(mean - expected) <= 0.01, (key, mean, expected)


def test_covtype_and_poker_files_are_read(tmp_path):
    rng = np.random.default_rng(0)
    # UCI covtype.data: no header, 54 integer features, class 1..7 last
    X = rng.integers(0, 100, size=(30, 54))
    y = rng.integers(1, 8, size=30)
    path = tmp_path / "covtype.data"
    np.savetxt(path, np.column_stack([X, y]), fmt="%d", delimiter=",")
    s = open_real_stream("CovType", path)
    got = np.vstack([c.X for c in s.chunks(7)])
    labels = np.concatenate([c.y for c in s.chunks(7)])
    assert len(s.feature_names) == 54
    np.testing.assert_array_equal(got, X.astype(float))
    first = list(dict.fromkeys(y.tolist()))  # class indices by first appearance
    np.testing.assert_array_equal(labels, [first.index(v) for v in y])
    # MOA poker-lsn.arff style: nominal suits/ranks, nominal class
    arff = tmp_path / "poker.arff"
    rows = rng.integers(1, 5, size=(12, 10))
    cls = rng.integers(0, 3, size=12)
    header = ["@relation poker"]
    header += [f"@attribute s{i} {{1,2,3,4}}" for i in range(10)]
    header += ["@attribute class {0,1,2}", "@data"]
    body = [",".join(map(str, [*r, c])) for r, c in zip(rows, cls)]
    arff.write_text("\n".join(header + body) + "\n")
    p = open_real_stream("Poker", arff, n_rows=10)
    labels = np.concatenate([c.y for c in p.chunks(4)])
    assert len(labels) == 10 and len(p.feature_names) == 10
    assert [p.classes[i] for i in labels] == [str(c) for c in cls[:10]]
    # in a grid, a given file is used; an explicit request without one is a clear error
    g = make_grid("quick", streams=["CovType", "SEA(50)"], covtype=path)
    assert [lb for lb, _ in g.streams] == ["CovType", "SEA(50)"]
    with pytest.raises(DistvalError, match="--poker PATH"):
        make_grid("quick", streams=["Poker"])
    with pytest.raises(DistvalError, match="no such file"):
        make_grid("quick", covtype=tmp_path / "absent.data")
    assert next(lb for lb, _ in make_grid("quick").streams) == "Electricity"


def test_standard_profile_round_trips(tmp_path):
    from distval.experiments.type_errors import ENSEMBLE, PROFILES

    g = make_grid("standard")
    # issue 15: between quick and paper, >= 10 runs of >= 50,000 rows, MOA tree ensemble
    assert g.runs >= 10 and g.n_rows is not None and g.n_rows >= 50_000
    assert PROFILES["quick"]["runs"] <= g.runs <= PROFILES["paper"]["runs"]
    assert g.learner == ENSEMBLE
    assert (g.n_folds, g.alpha, g.schemes) == (10, 0.05, paper.SCHEMES)
    assert len(g.streams) == 11  # 13 streams less CovType and Poker (no file given)
    again = GridConfig.from_dict(json.loads(json.dumps(g.to_dict())))
    assert again == g
    # a grid.json written before noise_on existed still reads, with the default
    old = g.to_dict()
    del old["noise_on"]
    assert GridConfig.from_dict(old) == g
    # ... and one written when noise_on named the filtered learner reads as noise on the
    # predictions of that learner
    older = old | {"noise_on": "same"}
    del older["noise_learner"]
    assert GridConfig.from_dict(older) == dataclasses.replace(g, noise_learner="same")
    with pytest.raises(DistvalError, match="unknown grid setting"):
        GridConfig.from_dict(g.to_dict() | {"colour": "red"})


def test_shape_and_paper_profiles_follow_the_paper_where_it_is_explicit():
    """bifet2015 §4.1: 10 folds, alpha 0.05, pnoise 0.05 and 0.10, 50 runs (paper profile),
    the wα = 8 sign rule (Table 1); both profiles put the noise on the training labels and
    the drifts at the positions of 1,000,000-row streams."""
    from distval.experiments.type_errors import ENSEMBLE, FAITHFUL_LEARNER

    shape, full = make_grid("shape"), make_grid("paper")
    for g in (shape, full):
        assert (g.n_folds, g.alpha, g.pnoise, g.schemes) == (10, 0.05, (0.05, 0.10),
                                                             paper.SCHEMES)
        assert (g.noise_on, g.sign_method, g.drift_length) == ("training", "critical",
                                                               1_000_000)
    assert full.runs == 50 and full.learner == FAITHFUL_LEARNER and full.n_rows is None
    assert shape.learner == ENSEMBLE and len(shape.streams) == 4
    # --streams still chooses: the profile's list is only the default
    assert [lb for lb, _ in make_grid("shape", streams=["SEA(50)"]).streams] == ["SEA(50)"]
