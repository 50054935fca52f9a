"""Experiments built on the evaluator: studies of how trustworthy an evaluation is.

- :mod:`distval.experiments.type_errors`: the type I / type II error grid of Bifet et al.
  2015 (section 4.1), with decisions at every look (``distval reproduce``);
- :mod:`distval.experiments.bifet2015`: that paper's published numbers, kept as data;
- :mod:`distval.experiments.robustness`: how much a result moves when the stream is
  permuted (``distval run --permute``);
- :mod:`distval.experiments.diagnostics`: the temporal dependence of a label stream
  (``distval describe``);
- :mod:`distval.experiments.holdout`: a periodic holdout error beside the prequential ones;
- :mod:`distval.experiments.suite`: many streams by many learners, with cross-stream
  statistics (``distval suite``);
- :mod:`distval.experiments.study`: the resumable runner those studies share.

Each submodule is imported on its own (this package imports none of them).

>>> from distval.experiments import type_errors
>>> type_errors.run_cell.__module__
'distval.experiments.type_errors.cell'
"""
