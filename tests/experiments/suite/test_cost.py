"""The suite's Pareto front against a brute-force definition over every pair of points."""

from __future__ import annotations

import numpy as np

from distval.experiments.suite.cost import pareto_front


def test_front_is_the_points_no_other_point_dominates():
    rng = np.random.default_rng(4)
    cost, value = rng.random(40), rng.random(40)
    want = [not any(cost[j] <= cost[i] and value[j] >= value[i]
                    and (cost[j] < cost[i] or value[j] > value[i]) for j in range(40))
            for i in range(40)]
    assert pareto_front(cost, value).tolist() == want
    # an error (lower is better): the front of the negated values
    assert pareto_front(cost, value, higher=False).tolist() == pareto_front(cost, -value).tolist()
