"""Suites: many streams x many learners in one command, with cross-stream statistics.

:func:`suite` runs one evaluation per stream (in this process or as Ray tasks), resumes
from disk, and compares the learners across streams (:mod:`.statistics`); :mod:`.tables`
and :mod:`.figures` draw the results table, the critical-difference diagram and the rank
plot; :func:`plan_suite` projects the cost (``distval suite --plan``).
"""

from __future__ import annotations

from distval.experiments.suite.plan import SuitePlan, plan_suite
from distval.experiments.suite.run import (
    SuiteConfig,
    SuiteResult,
    load_suite,
    make_suite,
    suite,
)
from distval.experiments.suite.statistics import CrossStream, compare

__all__ = [
    "CrossStream",
    "SuiteConfig",
    "SuitePlan",
    "SuiteResult",
    "compare",
    "load_suite",
    "make_suite",
    "plan_suite",
    "suite",
]
