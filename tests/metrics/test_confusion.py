"""The measures from confusion counts: the worked example of Bifet et al. 2015, Table 5."""

from __future__ import annotations

import numpy as np
import pytest

from distval.metrics import measures


def test_bifet2015_table5_worked_example():
    # Table 5: rows = true class (+, -), columns = predicted (+, -).
    m = measures(np.array([[40.0, 30.0], [5.0, 25.0]]), np.array(0.0))
    expect = {
        "accuracy": 0.65,
        "kappa": 0.3269,
        "kappa_m": -0.1667,
        "mcc": 0.3728,
        "recall_arith": 0.7024,
        "recall_geom": 0.6901,
        "recall_harm": 0.6780,
        "p_maj": 0.70,
    }
    for key, value in expect.items():
        assert float(m[key]) == pytest.approx(value, abs=5e-5), key
    assert m["recall"].tolist() == pytest.approx([40 / 70, 25 / 30])
    # p_ran of the paper: 0.48
    assert float(m["kappa"]) == pytest.approx((0.65 - 0.48) / (1 - 0.48))
