"""distval: distributed k-fold evaluation of stream classifiers with significance tests.

>>> import distval
>>> res = distval.evaluate(stream="sea", n_rows=1000, learners=("nb", "majority"), n_folds=2)
>>> res.final_tests()["test"].tolist()[:2]
['sign', 'wilcoxon']

A run saved with ``output_dir`` loads back as the same kind of result:
``distval.load_results(directory)`` (docs/saved-runs.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from distval.errors import DistvalError

if TYPE_CHECKING:  # the names __getattr__ gives, for type checkers
    from distval.config import RunConfig
    from distval.evaluation import evaluate
    from distval.experiments.suite import suite
    from distval.results.saved import load_evaluation as load_results

__all__ = ["DistvalError", "RunConfig", "evaluate", "load_results", "suite"]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Lazy, so that `import distval` (and the CLI's --help) stays fast.
    if name == "evaluate":
        from distval.evaluation import evaluate

        return evaluate
    if name == "load_results":
        from distval.results.saved import load_evaluation

        return load_evaluation
    if name == "suite":
        from distval.experiments.suite import suite

        return suite
    if name == "RunConfig":
        from distval.config import RunConfig

        return RunConfig
    raise AttributeError(f"module 'distval' has no attribute {name!r}")
