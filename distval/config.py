"""One frozen, validated description of an evaluation run."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from distval.errors import DistvalError, check_open_unit, check_positive_int
from distval.learners import parse_learner
from distval.metrics import FORGETTING, MEASURES
from distval.validation import Validation

__all__ = ["TESTS", "RunConfig"]

#: Across-fold tests run for every learner pair ("friedman" needs three learners or more).
TESTS = ("sign", "wilcoxon", "mcnemar", "friedman")


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines the results of a run (same config + seed = same numbers).

    >>> RunConfig(learners=("ht", "nb"), n_folds=5).validation
    Validation(scheme='bootstrap', n_folds=5, prequential=True, fold_choice='random')
    >>> RunConfig(alpha=1.5)
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: `alpha` must be in (0, 1), got 1.5
    """

    stream: str | None = None
    target: str | None = None
    n_rows: int | None = None
    learners: tuple[str, ...] = ("ht", "nb")
    scheme: str = "bootstrap"
    n_folds: int = 10
    prequential: bool = True
    fold_choice: str = "random"
    forgetting: str = "adwin"
    window: int = 1000
    fading: float = 0.999
    delta: float = 0.002
    alpha: float = 0.05
    measure: str = "accuracy"
    tests: tuple[str, ...] | None = None
    sign_method: str = "exact"
    test_every: int = 1000
    seed: int = 1
    batch_size: int = 1000
    mcnemar_alpha: float | None = None
    drift: bool = False
    ph_delta: float = 0.1
    ph_lambda: float = 100.0
    labels: tuple[str, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        learners = tuple(self.learners)
        if not learners:
            raise DistvalError("give at least one learner")
        object.__setattr__(self, "learners", learners)
        specs = [parse_learner(t) for t in learners]
        labels, seen = [], {}
        for spec in specs:
            seen[spec.label] = seen.get(spec.label, 0) + 1
            labels.append(
                spec.label if seen[spec.label] == 1 else f"{spec.label}#{seen[spec.label]}"
            )
        object.__setattr__(self, "labels", tuple(labels))
        self.validation  # noqa: B018 - validates scheme, folds and fold choice
        if self.forgetting not in FORGETTING:
            raise DistvalError(
                f"unknown forgetting {self.forgetting!r}; choose one of {', '.join(FORGETTING)}"
            )
        if self.measure not in MEASURES:
            raise DistvalError(
                f"unknown measure {self.measure!r}; choose one of {', '.join(MEASURES)}"
            )
        for name in ("window", "test_every", "batch_size"):
            check_positive_int(getattr(self, name), name)
        if self.n_rows is not None:
            check_positive_int(self.n_rows, "n_rows")
        for name in ("fading", "delta", "alpha"):
            check_open_unit(getattr(self, name), name)
        if self.mcnemar_alpha is not None:
            check_open_unit(self.mcnemar_alpha, "mcnemar_alpha")
        if not isinstance(self.ph_lambda, (int, float)) or self.ph_lambda <= 0:
            raise DistvalError(f"`ph_lambda` must be positive, got {self.ph_lambda!r}")
        if not isinstance(self.ph_delta, (int, float)) or self.ph_delta < 0:
            raise DistvalError(f"`ph_delta` must be >= 0, got {self.ph_delta!r}")
        if self.sign_method not in ("exact", "critical"):
            raise DistvalError(
                f"unknown sign-test method {self.sign_method!r}; choose exact or critical"
            )
        if self.tests is None:
            tests = TESTS if len(learners) >= 2 else ()
        else:
            tests = tuple(self.tests)
            unknown = [t for t in tests if t not in TESTS]
            if unknown:
                raise DistvalError(f"unknown test {unknown[0]!r}; choose among {', '.join(TESTS)}")
            if tests and len(learners) < 2:
                raise DistvalError(
                    f"the tests {', '.join(tests)} compare learners: give at least 2 learners, "
                    f"got {len(learners)}"
                )
        object.__setattr__(self, "tests", tests)

    @property
    def validation(self) -> Validation:
        return Validation(self.scheme, self.n_folds, self.prequential, self.fold_choice)

    @property
    def specs(self):
        return [
            dataclasses.replace(parse_learner(t), label=lab)
            for t, lab in zip(self.learners, self.labels)
        ]

    def to_dict(self) -> dict:
        out = dataclasses.asdict(self)
        out["learners"], out["labels"], out["tests"] = (
            list(self.learners),
            list(self.labels),
            list(self.tests),
        )
        return out
