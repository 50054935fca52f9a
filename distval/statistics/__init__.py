"""Statistics: the tests across folds, sequential and anytime-valid decisions, corrections for
several pairs, one pair's comparison and its verdict.

- :mod:`~distval.statistics.base`: the result types and the shared checks;
- :mod:`~distval.statistics.sign`, :mod:`~distval.statistics.wilcoxon`,
  :mod:`~distval.statistics.mcnemar`, :mod:`~distval.statistics.friedman`: one test family each
  (scipy underneath), with :mod:`~distval.statistics.ranks` shared and
  :mod:`~distval.statistics.power` (folds a test needs);
- :mod:`~distval.statistics.sequential`: alpha spending and e-processes;
- :mod:`~distval.statistics.anytime`: confidence sequences of a pair's per-row difference;
- :mod:`~distval.statistics.multiplicity`: Holm and e-BH;
- :mod:`~distval.statistics.comparison`: one learner pair's tests and decision;
- :mod:`~distval.statistics.verdict` and :mod:`~distval.statistics.pair_verdicts`: the verdict
  line and its live state.
"""
