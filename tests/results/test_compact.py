"""The default end-of-run print fits 100 columns: four learners with MOA-length names."""

from __future__ import annotations

from river import linear_model, naive_bayes, tree

import distval
from distval.results.answer import Answer, learners_table
from distval.results.compact import wrap
from distval.statistics.verdict import short_names


def test_four_learners_with_moa_names_fit_100_columns_and_verbose_shows_every_test():
    learners = {
        "moa:trees.HoeffdingAdaptiveTree -g 50": tree.HoeffdingAdaptiveTreeClassifier(seed=1),
        "moa:bayes.NaiveBayes": naive_bayes.GaussianNB(),
        "moa:trees.HoeffdingTree -g 100 -c 0.001": tree.HoeffdingTreeClassifier(),
        "moa:functions.SGD -l 0.01": linear_model.LogisticRegression(),
    }
    res = distval.evaluate(stream="sea", n_rows=3000, learners=learners, n_folds=3,
                           test_every=1000)
    text = res.to_text()
    assert max(len(line) for line in text.splitlines()) <= 100
    names = short_names(list(learners))
    assert all(len(name) <= 24 for name in names.values())
    verdicts = res.summary()["verdicts"]
    assert len(verdicts) == 6  # every pair has its line, each printed in full (wrapped)
    flat = " ".join(text.split())
    for v in verdicts:
        assert " ".join(v["line"].split()) in flat
    assert "Bonferroni" in text and "Holm" in text
    wide = res.to_text(verbose=True)
    assert all(t["test"] in wide for t in res.summary()["tests"])
    assert len(wide.splitlines()) > len(text.splitlines())


def test_learners_table_in_percent_and_wrapping():
    m = {"accuracy": {"mean": 0.5, "std": 0.25}}
    summary = {"config": {"forgetting": "adwin"}, "learners": {"a": {"adwin": m}}}
    _, cols, rows, _ = learners_table(Answer.build(summary, None, {"a": "A"}), short=True)
    assert rows[0][0] == "A" and rows[0][cols.index("accuracy (own)")] == "50.0 ±25.0"
    assert all(len(x) <= 30 for x in wrap("word " * 40, width=30))
