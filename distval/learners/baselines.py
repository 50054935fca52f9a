"""Baseline classifiers of zliobaite2015 that river does not have in the form needed here.

:class:`Persistent` follows the label-sequence protocol of :mod:`distval.learners.labels`.
"""

from __future__ import annotations

from typing import Any

from river import base
from river.base.typing import ClfTarget, FeatureName

__all__ = ["Persistent"]


class Persistent(base.Classifier):
    """The Persistent classifier (zliobaite2015 Definition 3): the previous label of the
    stream, as given by ``observe_label``; ``None`` before the first one.

    It learns nothing from ``learn_one``. In a distval run its kappa-per is 0 by
    construction (eq. 13) and its accuracy is P(T) (Table 3, Table 5).
    """

    def __init__(self) -> None:
        self._last: ClfTarget | None = None

    @property
    def _multiclass(self) -> bool:
        return True

    def learn_one(self, x: dict[FeatureName, Any], y: ClfTarget, w: float = 1.0) -> None:
        """No training: the previous label comes from :meth:`observe_label`."""

    def observe_label(self, y: ClfTarget) -> None:
        self._last = y

    def predict_proba_one(self, x: dict[FeatureName, Any], **kwargs: Any) -> dict[ClfTarget, float]:
        return {} if self._last is None else {self._last: 1.0}

    def predict_one(self, x: dict[FeatureName, Any], **kwargs: Any) -> ClfTarget | None:
        return self._last
