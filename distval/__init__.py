"""distval: distributed k-fold evaluation of stream classifiers with significance tests.

>>> import distval
>>> res = distval.evaluate(stream="sea", n_rows=1000, learners=("nb", "majority"), n_folds=2)
>>> res.final_tests()["test"].tolist()[:2]
['sign', 'wilcoxon']
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from distval.errors import DistvalError

if TYPE_CHECKING:  # the names __getattr__ gives, for type checkers
    from distval.config import RunConfig
    from distval.evaluation import evaluate
    from distval.experiments.suite import suite

__all__ = ["DistvalError", "RunConfig", "evaluate", "suite"]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # Lazy, so that `import distval` (and the CLI's --help) stays fast.
    if name == "evaluate":
        from distval.evaluation import evaluate

        return evaluate
    if name == "suite":
        from distval.experiments.suite import suite

        return suite
    if name == "RunConfig":
        from distval.config import RunConfig

        return RunConfig
    raise AttributeError(f"module 'distval' has no attribute {name!r}")
