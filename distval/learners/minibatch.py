"""Mini-batch learners: scikit-learn's ``partial_fit`` and river's ``learn_many``.

Opt-in. A learner spec ``sklearn:NAME(...)`` (a scikit-learn classifier with ``partial_fit``,
e.g. ``sklearn:SGDClassifier(loss="log_loss")`` or ``sklearn:linear_model.Perceptron()``)
always learns in mini-batches; a river model with ``learn_many`` and ``predict_many``
(``river.linear_model:LogisticRegression``, a pipeline of such steps) does when its spec
gives the reserved parameter ``mini_batch=N``. ``mini_batch`` is the block size B in both
(default :data:`DEFAULT_MINI_BATCH` for ``sklearn:``); it is not passed to the estimator.

**Semantics: test-then-train per block.** The stream is cut into blocks of B consecutive
rows, rows ``m*B .. (m+1)*B - 1`` (by stream position, so blocks never depend on how the
engine cuts its batches). Each fold replica, for each block in turn:

1. predicts every row of the block its fold tests, all with the model as it was at the end
   of the previous block (scikit-learn's ``predict``, river's ``predict_many``);
2. then learns every row of the block its fold trains on, in stream order, in one call
   (``partial_fit`` / ``learn_many``), each with its training weight w: as ``sample_weight``
   (scikit-learn) or ``w`` (river) where the method takes one, else the row repeated w times.

With B = 1 this is the per-row prequential loop. The per-row default of every other learner
is unchanged.

**Classes** are announced to ``partial_fit`` at its first call, as class indices
``0 .. C - 1``, C the classes the stream's schema knows before the pass (or more, if the
first block shows more); a class index C or above met later is refused (scikit-learn fixes
its classes at the first call). Until its first ``partial_fit`` a replica predicts class 0
(as river replicas do before their first row) with uniform probabilities.

**Features** reach scikit-learn as the stream's numeric matrix (nominal features as their
codes); a missing value (NaN) becomes 0, as a feature river's dicts leave out adds nothing
to a linear model. River's ``learn_many`` gets the same matrix as a pandas DataFrame.

**Seeds**: each replica gets its own seed as ``random_state`` (scikit-learn) or ``seed``
(river), distinct per (learner, fold), as every other learner does.

Delayed labels are refused (a mini-batch learns its block when the block is complete).

>>> import numpy as np
>>> rep = sklearn_replica(sklearn_class("sklearn:SGDClassifier")(), size=2, seed=1)
>>> X, y = np.array([[0.0], [1.0], [0.0], [1.0]]), np.array([0, 1, 0, 1])
>>> rep.process(0, X, y, np.ones(4, np.int32), np.ones(4, bool), ["x"], 2)[0].tolist()
[0, 0, 0, 1]
"""

from __future__ import annotations

import importlib
import inspect
import time
from collections.abc import Iterable
from typing import Any

import numpy as np

from distval.errors import DistvalError

__all__ = [
    "DEFAULT_MINI_BATCH",
    "MINI_BATCH",
    "SKLEARN_PREFIX",
    "MiniBatchReplica",
    "check_river_minibatch",
    "is_sklearn_estimator",
    "mini_batch_size",
    "river_replica",
    "sklearn_class",
    "sklearn_replica",
    "sklearn_template",
]

#: The prefix of a scikit-learn learner spec: ``sklearn:SGDClassifier(loss="log_loss")``.
SKLEARN_PREFIX = "sklearn:"
#: The reserved spec parameter that gives the block size (and opts a river model in).
MINI_BATCH = "mini_batch"
#: The block size of a ``sklearn:`` spec that gives none.
DEFAULT_MINI_BATCH = 256

#: Where a bare class name after ``sklearn:`` is looked for first (then all of scikit-learn).
_MODULES = ("linear_model", "naive_bayes", "neural_network")


def mini_batch_size(params: dict[str, Any], sklearn: bool) -> int | None:
    """The block size a spec's parameters give; None for a per-row learner.

    >>> mini_batch_size({"mini_batch": 64}, sklearn=False), mini_batch_size({}, sklearn=True)
    (64, 256)
    >>> mini_batch_size({}, sklearn=False) is None
    True
    """
    if MINI_BATCH not in params:
        return DEFAULT_MINI_BATCH if sklearn else None
    size = params[MINI_BATCH]
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise DistvalError(f"`{MINI_BATCH}` must be a positive integer (rows), got {size!r}")
    return size


def notices(specs: Iterable[Any], n_rows: int | None) -> list[str]:
    """Warnings about mini-batch learners, before a run: a block as long as the stream or
    longer (the learner learns nothing before the end), and a scikit-learn
    ``random_state`` replaced by each fold replica's own seed (:func:`sklearn_replica`:
    replicas with one seed would draw alike, which the folds must not).

    >>> from distval.learners import parse_learner
    >>> spec = parse_learner("sklearn:SGDClassifier(random_state=3)")
    >>> [n.split(": ")[0] for n in notices([spec], 1000)]
    ["learner 'sklearn:SGDClassifier(random_state=3)'"]
    >>> len(notices([spec], 100))  # its blocks of 256 rows, too
    2
    """
    out = []
    for spec in specs:
        size = spec.mini_batch
        if size is not None and n_rows is not None and size >= n_rows:
            out.append(f"learner {spec.label!r} learns in blocks of {size} rows, as many as "
                       f"the stream's {n_rows} or more: it learns nothing before the end "
                       "(give it mini_batch=N, N smaller)")
        if spec.is_sklearn and "random_state" in spec.params:
            out.append(f"learner {spec.label!r}: random_state={spec.params['random_state']!r}"
                       " is replaced by each fold replica's own seed (from --seed), so that "
                       "the replicas differ as every learner's do; change --seed to change "
                       "them")
    return out


def is_sklearn_estimator(obj: object) -> bool:
    """Whether ``obj`` is a scikit-learn estimator (an instance of ``BaseEstimator``)."""
    try:
        from sklearn.base import BaseEstimator
    except ImportError:  # pragma: no cover - scikit-learn is a dependency
        return False
    return isinstance(obj, BaseEstimator)


def sklearn_class(name: str) -> type:
    """The scikit-learn classifier class that ``sklearn:NAME`` names, checked: it must
    learn incrementally (``partial_fit``) and be a classifier.

    >>> sklearn_class("sklearn:linear_model.Perceptron").__name__
    'Perceptron'
    >>> try:
    ...     sklearn_class("sklearn:RandomForestClassifier")
    ... except DistvalError as e:
    ...     print(str(e)[:59])
    learner 'sklearn:RandomForestClassifier' has no partial_fit
    """
    path = name[len(SKLEARN_PREFIX):] if name.startswith(SKLEARN_PREFIX) else name
    path = path.removeprefix("sklearn.")
    module_name, _, attr = path.rpartition(".")
    cls = None
    for module in [module_name] if module_name else _MODULES:
        try:
            cls = getattr(importlib.import_module(f"sklearn.{module}"), attr, None)
        except ImportError:
            cls = None
        if cls is not None:
            break
    if cls is None and not module_name:
        from sklearn.utils import all_estimators

        cls = dict(all_estimators()).get(attr)
    if not isinstance(cls, type):
        raise DistvalError(
            f"learner {name!r} names no scikit-learn estimator class; give "
            "sklearn:NAME or sklearn:module.NAME, e.g. sklearn:SGDClassifier or "
            "sklearn:naive_bayes.MultinomialNB"
        )
    _check_sklearn(name, cls)
    return cls


def _check_sklearn(name: str, cls: type) -> None:
    from sklearn.base import is_classifier

    if not callable(getattr(cls, "partial_fit", None)):
        raise DistvalError(
            f"learner {name!r} has no partial_fit: distval evaluates scikit-learn estimators "
            "that learn incrementally (SGDClassifier, Perceptron, MultinomialNB, GaussianNB, "
            "BernoulliNB, MLPClassifier, ...)"
        )
    try:
        classifier = is_classifier(cls())
    except Exception:
        classifier = False
    if not classifier:
        raise DistvalError(
            f"learner {name!r} is not a classifier (scikit-learn's is_classifier is False); "
            "distval evaluates classifiers"
        )


def sklearn_template(obj: Any) -> tuple[str, dict[str, Any] | None]:
    """The ``sklearn:`` name of a scikit-learn estimator object and its parameters that differ
    from the defaults (None unless they are all Python literals), after checking it.

    >>> from sklearn.linear_model import SGDClassifier
    >>> sklearn_template(SGDClassifier(loss="log_loss"))
    ('sklearn:SGDClassifier', {'loss': 'log_loss'})
    """
    import ast

    cls = type(obj)
    name = f"{SKLEARN_PREFIX}{cls.__name__}"
    _check_sklearn(name, cls)
    default = cls().get_params(deep=False)
    changed = {
        k: v for k, v in obj.get_params(deep=False).items() if repr(default.get(k)) != repr(v)
    }
    try:
        literal = all(ast.literal_eval(repr(v)) == v for v in changed.values())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        literal = False
    return name, changed if literal else None


def check_river_minibatch(name: str, model: Any) -> None:
    """Refuse ``mini_batch`` on a river model that cannot learn in mini-batches.

    >>> from river import linear_model, tree
    >>> check_river_minibatch("lr", linear_model.LogisticRegression())
    >>> try:
    ...     check_river_minibatch("ht", tree.HoeffdingTreeClassifier())
    ... except DistvalError as e:
    ...     print(str(e)[:60])
    learner 'ht' has no learn_many and predict_many: `mini_batch
    """
    if not all(callable(getattr(model, m, None)) for m in ("learn_many", "predict_many")):
        raise DistvalError(
            f"learner {name!r} has no learn_many and predict_many: `{MINI_BATCH}` needs a "
            "river model that learns in mini-batches (linear_model.LogisticRegression, "
            "linear_model.Perceptron, naive_bayes.MultinomialNB, a pipeline of such steps)"
        )


def _takes(method: Any, name: str) -> bool:
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):
        return False


def sklearn_replica(template: Any, size: int, seed: int) -> MiniBatchReplica:
    """A fresh, unfitted copy of a scikit-learn estimator as a fold replica: its own
    ``random_state`` (where it has one) is ``seed``."""
    from sklearn.base import clone

    model = clone(template)
    if "random_state" in model.get_params(deep=False):
        model.set_params(random_state=seed)
    return MiniBatchReplica(model, size, sklearn=True)


def river_replica(model: Any, size: int) -> MiniBatchReplica:
    """A (seeded) river replica with ``learn_many`` as a mini-batch fold replica."""
    return MiniBatchReplica(model, size, sklearn=False)


class MiniBatchReplica:
    """A fold replica that predicts and learns block by block (the module's semantics).

    It keeps the training rows of the block in progress until the block is complete, so
    an engine batch may end anywhere; it pickles, and so travels to Ray actors and into
    checkpoints with them.
    """

    def __init__(self, model: Any, size: int, sklearn: bool) -> None:
        self.model = model
        self.size = int(size)
        self.sklearn = sklearn
        learn = model.partial_fit if sklearn else model.learn_many
        #: Whether the learning method takes the training weights (else rows are repeated).
        self.weighted = _takes(learn, "sample_weight" if sklearn else "w")
        #: The classes announced to ``partial_fit`` (its first call); None before it.
        self.classes: np.ndarray | None = None
        self._fitted = not sklearn  # river models predict before they learn
        self._buffer: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []

    @property
    def has_proba(self) -> bool:
        """Whether it gives class probabilities (``predict_proba``, ``predict_proba_many``)."""
        return hasattr(self.model, "predict_proba" if self.sklearn else "predict_proba_many")

    def __repr__(self) -> str:
        return f"MiniBatchReplica({self.model!r}, size={self.size})"

    # Repeat kept: a batch's arrays, as routing/delays.py's release takes them: alike in signature
    # only.
    def process(
        self,
        start: int,
        X: np.ndarray,
        y: np.ndarray,
        weights: np.ndarray,
        tested: np.ndarray,
        names: list[str],
        n_classes: int,
        proba: bool = False,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Rows ``start ..`` of the stream: (rows,) predictions, -1 where not ``tested``,
        and, with ``proba``, their (rows, classes) probabilities (zero rows where not
        tested). ``weights`` and ``tested`` are this replica's fold's columns."""
        n = len(y)
        preds = np.full(n, -1, dtype=np.int64)
        probs = np.zeros((n, n_classes)) if proba else None
        if np.isnan(X).any():
            X = np.where(np.isnan(X), 0.0, X)
        lo = 0
        while lo < n:
            end = (start + lo) // self.size * self.size + self.size  # this block's end row
            hi = min(n, end - start)
            test = np.flatnonzero(tested[lo:hi]) + lo
            if len(test):
                t = time.perf_counter()
                preds[test] = self._predict(X[test], names, probs, test)
                # wall seconds predicting: the host splits its CPU by them (cost)
                self.predict_wall = getattr(self, "predict_wall", 0.0) + (
                    time.perf_counter() - t)
            w = weights[lo:hi]
            if w.any():
                train = np.flatnonzero(w > 0) + lo
                self._buffer.append((X[train], y[train], weights[train]))
            if hi == end - start:
                self._learn(names, n_classes, start + hi)
            lo = hi
        return preds, probs

    def _predict(
        self, X: np.ndarray, names: list[str], probs: np.ndarray | None, rows: np.ndarray
    ) -> np.ndarray:
        model = self.model
        if not self._fitted:
            if probs is not None:
                probs[rows] = 1.0 / probs.shape[1]
            return np.zeros(len(X), dtype=np.int64)
        if self.sklearn:
            if probs is not None:
                p = model.predict_proba(X)
                c = min(p.shape[1], probs.shape[1])
                probs[rows, :c] = p[:, :c]
                best: np.ndarray = np.asarray(model.classes_)[np.argmax(p, axis=1)]
                return best.astype(np.int64)
            predicted: np.ndarray = np.asarray(model.predict(X))
            return predicted.astype(np.int64)
        import pandas as pd

        frame = pd.DataFrame(X, columns=names)
        if probs is not None:
            p = model.predict_proba_many(frame)
            for column in p.columns:
                k = int(column)
                if 0 <= k < probs.shape[1]:
                    probs[rows, k] = p[column].to_numpy(dtype=float)
            total = probs[rows].sum(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                probs[rows] = np.where(total > 0, probs[rows] / total, 1.0 / probs.shape[1])
        got = model.predict_many(frame)
        values = got.to_numpy() if hasattr(got, "to_numpy") else np.asarray(got)
        if values.ndim != 1:  # river's naive Bayes: an empty frame before its first class
            return np.zeros(len(X), dtype=np.int64)
        if values.dtype == object:  # river predicts None before it has learned a class
            values = np.array([0 if v is None else v for v in values])
        return values.astype(np.int64)

    def _learn(self, names: list[str], n_classes: int, end: int) -> None:
        """Learn the completed block's training rows (if any) in one call."""
        if not self._buffer:
            return
        parts, self._buffer = self._buffer, []
        X = np.concatenate([p[0] for p in parts])
        y = np.concatenate([p[1] for p in parts])
        w = np.concatenate([p[2] for p in parts])
        if not self.weighted and (w != 1).any():
            X, y = np.repeat(X, w, axis=0), np.repeat(y, w)
        if not self.sklearn:
            import pandas as pd

            frame, target = pd.DataFrame(X, columns=names), pd.Series(y)
            if self.weighted:
                self.model.learn_many(frame, target, w=pd.Series(w.astype(float)))
            else:
                self.model.learn_many(frame, target)
            return
        kw: dict[str, Any] = {}
        if self.weighted:
            kw["sample_weight"] = w.astype(float)
        if self.classes is None:
            self.classes = np.arange(max(n_classes, int(y.max()) + 1))
            kw["classes"] = self.classes
        elif int(y.max()) >= len(self.classes):
            raise DistvalError(
                f"class index {int(y.max())} appeared in the block ending at row {end} after "
                f"the classes 0..{len(self.classes) - 1} were announced to partial_fit "
                "(scikit-learn fixes them at its first call): give the stream its classes "
                "before the pass (a generator, an ARFF header, a declared label domain)"
            )
        self.model.partial_fit(X, y, **kw)
        self._fitted = True
