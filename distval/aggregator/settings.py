"""The aggregator's own settings: how the trackers forget, and how each learner pair is compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from distval.statistics.comparison import PairComparison, Plan

__all__ = ["ComparisonSettings", "TrackerSettings"]


@dataclass(frozen=True)
class TrackerSettings:
    """What the per-fold measures forget: the mechanism of :data:`~distval.metrics.FORGETTING`
    and its parameters (McNemar's windowed and faded counts use ``window`` and ``fading``)."""

    forgetting: str = "adwin"
    window: int = 1000
    fading: float = 0.999
    adwin_delta: float = 0.002


@dataclass(frozen=True)
class ComparisonSettings:
    """The tests of every learner pair: which (:data:`~distval.config.TESTS`), at which
    alpha, on which fold ``measure``, and the ``sequential`` rule that keeps decisions valid
    under peeking: "none", "spending" (alpha spending with ``spending_function``), "evalue"
    (the settled-sign e-process beside fixed-alpha tests) or "both" (spending decisions and
    the e-process, as the type I/II error grid records them).

    >>> cmp = ComparisonSettings(tests=("sign",), sequential="both").comparison(5, 1000)
    >>> cmp.plan, cmp.eprocess is not None
    (Plan(n_rows=1000, kind='obrien-fleming'), True)
    """

    tests: Sequence[str] = ("sign", "wilcoxon", "mcnemar")
    alpha: float = 0.05
    measure: str = "accuracy"
    mcnemar_alpha: float | None = None
    sign_method: str = "exact"
    sequential: str = "none"
    spending_function: str = "obrien-fleming"
    margin: float = 0.0

    def plan(self, planned_rows: int | None) -> Plan | None:
        """The alpha-spending plan over ``planned_rows`` (None without spending)."""
        if self.sequential not in ("spending", "both"):
            return None
        return Plan(planned_rows, self.spending_function)

    def comparison(
        self,
        n_folds: int,
        planned_rows: int | None = None,
        fold_forgetting: str = "cumulative",
    ) -> PairComparison:
        """The comparison of one learner pair under these settings."""
        return PairComparison(
            tests=tuple(self.tests),
            alpha=self.alpha,
            n_folds=n_folds,
            mcnemar_alpha=self.mcnemar_alpha,
            sign_method=self.sign_method,
            fold_forgetting=fold_forgetting,
            spending=self.plan(planned_rows),
            evalue=self.sequential in ("evalue", "both"),
        )
