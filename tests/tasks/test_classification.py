"""The classification task's baseline line places every learner: with three, the one that
does not beat the no-change classifier and the two that do, each with its accuracy over all
rows (pandas' mean over folds of the saved cumulative fold table) in percent."""

from __future__ import annotations

import distval


def test_with_three_learners_the_baseline_line_names_each():
    res = distval.evaluate(stream="sea", n_rows=3000, n_folds=3, test_every=1000,
                           learners=("nb", "majority", "persistent"))
    folds = res.final_folds()
    cum = folds[folds["forgetting"] == "cumulative"].groupby("learner")
    acc, kper = cum["accuracy"].mean(), cum["kappa_per"].mean()
    p_per = cum["p_per"].mean().iloc[0]
    below = [k for k in res.config.labels if kper[k] <= 0]
    above = [k for k in res.config.labels if kper[k] > 0]
    assert below and len(above) >= 2  # the premise: one under Persistent, two above it
    line = res.summary()["baseline"]["line"]
    head, beating = line.split("; beating it: ")
    for k in below:
        assert f"baseline: {k} does not beat the no-change classifier" in head
        assert f"accuracy {100 * acc[k]:.1f} % against Persistent's {100 * p_per:.1f} %" in head
    assert beating == " and ".join(f"{k} {100 * acc[k]:.1f} %" for k in above)
