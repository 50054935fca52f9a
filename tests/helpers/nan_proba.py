"""A scikit-learn classifier whose class probabilities turn NaN (as a diverged model's do)."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import SGDClassifier


class NanProba(SGDClassifier):
    """SGDClassifier(loss='log_loss') whose ``predict_proba`` is NaN once it has learned."""

    def __init__(self, loss="log_loss", random_state=None):
        super().__init__(loss=loss, random_state=random_state)

    def predict_proba(self, X):
        return np.full((len(X), len(self.classes_)), np.nan)
