"""Temporal-dependence wrappers around any river classifier (zliobaite2015 §3).

:class:`TemporalCorrection` (eq. 3) and :class:`TemporallyAugmented` (previous labels as
features). Both train their base model with the run's training weight through
:func:`distval.learners.weights.learn_weighted`, and both follow the label-sequence protocol
of :mod:`distval.learners.labels`: their previous label is the last one given to
``observe_label``, which a distval run calls for every row of the stream (so it is
y_{t-1} in every fold), while ``learn_one`` only trains.
"""

from __future__ import annotations

from river import base

from distval.errors import DistvalError, check_positive_int
from distval.learners.weights import learn_weighted

__all__ = ["TemporalCorrection", "TemporallyAugmented"]

class _Wrapper(base.Wrapper, base.Classifier):
    """Common parts of the temporal wrappers: base model, seed, label history."""

    def __init__(self, base_model: base.Classifier, seed: int | None) -> None:
        if not isinstance(base_model, base.Classifier):
            raise DistvalError(
                f"a temporal wrapper needs a river classifier, got {type(base_model).__name__}"
            )
        self.seed = seed
        if seed is not None and "seed" in base_model._get_params():
            base_model = base_model.clone({"seed": seed})
        self.model = base_model

    @property
    def _wrapped_model(self):
        return self.model

    @property
    def _multiclass(self) -> bool:
        return True

    def _observe_base(self, y) -> None:
        # A base learner that itself uses the label sequence (e.g. 'persistent') sees it too.
        observe = getattr(self.model, "observe_label", None)
        if callable(observe):
            observe(y)


class TemporalCorrection(_Wrapper):
    """Temporal Correction classifier (zliobaite2015 §3.1, eq. 3) around a river classifier.

    The posterior of the base classifier is multiplied by P(y_t = i | y_{t-1}) / P(y_t = i),
    estimated online with add-one smoothing and renormalised. The counts come from the rows
    the wrapper learns, with their training weight: a learned row of class ``i`` whose
    previous stream label (the last one observed) is ``j`` adds ``w`` to the prior of ``i``
    and to the transition ``j -> i``. ``y_{t-1}`` at prediction time is the last observed
    label. With ``alpha`` the counts fade by ``(1 - alpha) ** w`` per learned row (the
    exponential moving averages of §6.3); without it they are cumulative.

    Parameters
    ----------
    model
        The base river classifier (it must give ``predict_proba_one``).
    alpha
        Optional decay in (0, 1) of the label statistics.
    seed
        If given and the base model has a ``seed`` parameter, the base model is re-seeded.

    Examples
    --------
    >>> from river import naive_bayes
    >>> tc = TemporalCorrection(naive_bayes.GaussianNB())
    >>> for x, y in [({"a": 0.0}, 0), ({"a": 0.1}, 0), ({"a": 1.0}, 1), ({"a": 0.9}, 1)]:
    ...     tc.learn_one(x, y)
    ...     tc.observe_label(y)
    >>> tc.predict_one({"a": 0.45}), tc.model.predict_one({"a": 0.45})
    (1, 0)
    """

    def __init__(
        self, model: base.Classifier, alpha: float | None = None, seed: int | None = None
    ) -> None:
        if alpha is not None and not 0.0 < alpha < 1.0:
            raise DistvalError(f"`decay alpha` must be in (0, 1), got {alpha!r}")
        super().__init__(model, seed)
        self.alpha = alpha
        self._prior: dict = {}
        self._trans: dict = {}
        self._prev = None

    def learn_one(self, x: dict, y, w: float = 1.0) -> None:
        learn_weighted(self.model, x, y, w)
        if self.alpha is not None:
            keep = (1.0 - self.alpha) ** w
            for c in self._prior:
                self._prior[c] *= keep
            if self._prev is not None and self._prev in self._trans:
                row = self._trans[self._prev]
                for c in row:
                    row[c] *= keep
        self._prior[y] = self._prior.get(y, 0.0) + w
        if self._prev is not None:
            row = self._trans.setdefault(self._prev, {})
            row[y] = row.get(y, 0.0) + w

    def observe_label(self, y) -> None:
        """The stream's next label: it becomes y_{t-1} (no training)."""
        self._prev = y
        self._observe_base(y)

    def correction(self) -> dict:
        """P(y_t = i | y_{t-1}) / P(y_t = i) for every known class (empty before learning)."""
        if self._prev is None:
            return {}
        classes = list(self._prior)
        k = len(classes)
        total = sum(self._prior.values())
        row = self._trans.get(self._prev, {})
        row_total = sum(row.values())
        return {
            c: ((row.get(c, 0.0) + 1.0) / (row_total + k)) / ((self._prior[c] + 1.0) / (total + k))
            for c in classes
        }

    def predict_proba_one(self, x: dict) -> dict:
        proba = self.model.predict_proba_one(x) or {}
        factor = self.correction()
        if not factor:
            return dict(proba)
        out = {c: p * factor.get(c, 1.0) for c, p in proba.items()}
        z = sum(out.values())
        if z <= 0.0:
            # No usable posterior: fall back on the transition probabilities alone.
            return {c: f * self._prior[c] for c, f in factor.items()}
        return {c: p / z for c, p in out.items()}


class TemporallyAugmented(_Wrapper):
    """Temporally Augmented classifier (zliobaite2015 §3.2, eq. 4) around a river classifier.

    The features of every row are extended with the previous ``lags`` labels of the stream
    (the last ones given to ``observe_label``), one-hot: feature ``"y-ℓ=c"`` is 1.0 when the
    ℓ-th previous label is ``c`` and 0.0 for the other classes observed so far (numeric, so
    any river classifier takes it).

    Parameters
    ----------
    model
        The base river classifier.
    lags
        ℓ, the number of previous labels added.
    seed
        If given and the base model has a ``seed`` parameter, the base model is re-seeded.

    Examples
    --------
    >>> from river import tree
    >>> ta = TemporallyAugmented(tree.HoeffdingTreeClassifier(), lags=2)
    >>> ta.observe_label(0); ta.observe_label(1)
    >>> ta.augment({"a": 3.0})
    {'a': 3.0, 'y-1=0': 0.0, 'y-1=1': 1.0, 'y-2=0': 1.0, 'y-2=1': 0.0}
    """

    def __init__(self, model: base.Classifier, lags: int = 1, seed: int | None = None) -> None:
        check_positive_int(lags, "lags")
        super().__init__(model, seed)
        self.lags = lags
        self._history: list = []
        self._classes: list = []

    def augment(self, x: dict) -> dict:
        """``x`` with the one-hot previous labels appended."""
        out = dict(x)
        for lag, label in enumerate(self._history, start=1):
            for c in self._classes:
                out[f"y-{lag}={c}"] = 1.0 if c == label else 0.0
        return out

    def learn_one(self, x: dict, y, w: float = 1.0) -> None:
        learn_weighted(self.model, self.augment(x), y, w)

    def observe_label(self, y) -> None:
        """The stream's next label: it joins the lagged labels (no training)."""
        if y not in self._classes:
            self._classes.append(y)
        self._history = [y, *self._history][: self.lags]
        self._observe_base(y)

    def predict_proba_one(self, x: dict) -> dict:
        return self.model.predict_proba_one(self.augment(x)) or {}

    def predict_one(self, x: dict):
        return self.model.predict_one(self.augment(x))
