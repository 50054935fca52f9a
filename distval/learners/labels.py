"""The label-sequence rule: learners that condition on previous labels of the stream.

The Persistent classifier predicts the previous label of the *stream* (zliobaite2015
Definition 3, §4.4), and the Temporal Correction and Temporally Augmented classifiers
(§3.1-§3.2) condition on it too. A fold replica trains only on the rows its training weight
routes to it, so the last label it *trained* on is a stale "previous label". Learners that
use the label sequence therefore opt in to a second channel:

**Protocol.** A learner opts in by defining a method ``observe_label(y)``. The host
(:class:`distval.learners.host.LearnerHost`) then calls it once for every row the replica
tests or trains on, in stream order, after predicting that row and after training on it.
``observe_label`` must not train the learner: training stays ``learn_one`` with exactly the
weight the validation scheme gives (:mod:`distval.learners.weights`), and an opted-in learner
takes its previous label(s) from ``observe_label`` only, never from ``learn_one``.

**Which labels.** A replica observes the labels of the rows it tests (the label is revealed
once the prediction is made, the test-then-train order of prequential evaluation) and of the
rows it trains on. Prequential runs test every row in every fold, so every replica observes
the whole stream. Non-prequential runs test the rows a fold holds out; under cv, split and
bootstrap each row is held out of exactly the folds that do not train on it, so there too
every replica observes every label, as the paper's single Persistent classifier does: its
accuracy is P(T) of the rows it tests under every scheme, and its kappa-per is exactly 0
under ``cumulative``, ``window`` and ``adwin`` forgetting, where kappa-per's baseline is
Persistent's own accuracy over the same rows. Under ``--forgetting ewma`` it is close to 0
but not 0: there the baseline is Algorithm 1's (zliobaite2015) estimate of P(T) from the
faded class frequencies P(i) and transition shares P(i|i), not the faded accuracy of the
Persistent classifier (about -0.008 on the whole of Electricity, 0.06 after its first
10,000 rows, with 10 folds).

Outside distval (a plain test-then-train loop), call ``observe_label(y)`` after
``learn_one(x, y)`` on every row.

>>> from distval.learners.baselines import Persistent
>>> p = Persistent()
>>> p.predict_one({}) is None               # no label seen yet (the host predicts class 0)
True
>>> p.learn_one({}, "a")                    # training does not move the label sequence
>>> p.predict_one({}) is None
True
>>> p.observe_label("b"); p.predict_one({}), p.predict_proba_one({})
('b', {'b': 1.0})
>>> observes_labels(p), observes_labels(object())
(True, False)
"""

from __future__ import annotations

from typing import Any

__all__ = ["observes_labels"]


def observes_labels(model: Any) -> bool:
    """Whether ``model`` opts in to the label-sequence protocol (has ``observe_label``)."""
    return callable(getattr(model, "observe_label", None))
