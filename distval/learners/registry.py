"""Learners: built-in names, ``module:Class`` import paths, seeded replicas, weighted training.

A learner is a river estimator or pipeline object (:func:`learner_spec`), or text,
``NAME`` or ``NAME(param=value, ...)``, where NAME is a built-in name (:data:`BUILTIN`) or an
import path ``package.module:Class``; parameters are Python literals passed to the
constructor. Each of the k fold replicas is a fresh ``clone()`` of the template (the object
itself, or what the text builds); every seeded part of it (its own ``seed`` parameter, the
steps of a pipeline, the estimators a wrapper such as bagging holds) gets the replica's
distinct seed per (learner, fold).

``sklearn:NAME(...)`` names a scikit-learn classifier with ``partial_fit``; it, and a river
model given the reserved parameter ``mini_batch=N``, learns in mini-batches
(:mod:`distval.learners.minibatch`).

How a replica learns a row of training weight w is :mod:`distval.learners.weights`; how
``persistent``, ``tc``, ``ta`` and any learner with an ``observe_label(y)`` method see the
labels of the stream without training on them is :mod:`distval.learners.labels`.

A replica that cannot predict yet (river returns ``None`` before the first ``learn_one``)
predicts class 0, the first class of the stream, as MOA does.

An import path is checked before anything is constructed: it must name a classifier class
(a subclass of river's ``base.Classifier``, or a class with ``predict_one``, ``learn_one``
and ``clone``) or a function declared a learner factory with :func:`learner_factory`.
Importing the module still runs its code: a learner spec, like a ``config.json`` that holds
one, is code-equivalent input.
"""

from __future__ import annotations

import ast
import importlib
import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from distval.errors import DistvalError
from distval.learners.factories import check_learner_class, learner_factory

__all__ = [
    "BUILTIN",
    "OBJECT_PREFIX",
    "REGRESSORS",
    "LearnerSpec",
    "check_learner_class",
    "is_regressor_spec",
    "learner_factory",
    "learner_spec",
    "parse_learner",
    "split_name",
]


#: Text of a learner given as a Python object that no import path and literal parameters
#: rebuild (a pipeline, a parameter that is itself an object): kept for the record only.
OBJECT_PREFIX = "python:"


def _ht(**kw: Any) -> Any:
    from river import tree

    return tree.HoeffdingTreeClassifier(**kw)


def _hat(**kw: Any) -> Any:
    from river import tree

    return tree.HoeffdingAdaptiveTreeClassifier(**kw)


def _nb(**kw: Any) -> Any:
    from river import naive_bayes

    return naive_bayes.GaussianNB(**kw)  # type: ignore[no-untyped-call]  # river: unannotated


def _arf(**kw: Any) -> Any:
    from river import forest

    return forest.ARFClassifier(**kw)


def _lb(**kw: Any) -> Any:
    from river import ensemble, tree

    kw.setdefault("model", tree.HoeffdingTreeClassifier())
    return ensemble.LeveragingBaggingClassifier(**kw)


def _logreg(**kw: Any) -> Any:
    from river import linear_model, multiclass, preprocessing

    return preprocessing.StandardScaler() | multiclass.OneVsRestClassifier(
        linear_model.LogisticRegression(**kw)
    )


def _majority(**kw: Any) -> Any:
    from river import dummy

    return dummy.PriorClassifier(**kw)


def _persistent(**kw: Any) -> Any:
    from distval.learners.baselines import Persistent

    return Persistent(**kw)


def _base(base: object, wrapper: str) -> Any:
    if not isinstance(base, str):
        raise DistvalError(f"{wrapper}: `base` must be a learner name such as 'nb', got {base!r}")
    return parse_learner(base).build()


def _tc(base: str = "nb", **kw: Any) -> Any:
    from distval.learners.temporal import TemporalCorrection

    return TemporalCorrection(_base(base, "tc"), **kw)


def _ta(base: str = "nb", **kw: Any) -> Any:
    from distval.learners.temporal import TemporallyAugmented

    return TemporallyAugmented(_base(base, "ta"), **kw)


def _htr(**kw: Any) -> Any:
    from river import tree

    return tree.HoeffdingTreeRegressor(**kw)


def _arfr(**kw: Any) -> Any:
    from river import forest

    return forest.ARFRegressor(**kw)


def _linreg(**kw: Any) -> Any:
    from river import linear_model, preprocessing

    return preprocessing.StandardScaler() | linear_model.LinearRegression(**kw)


#: Built-in learner names and what they build (river classes).
BUILTIN: dict[str, tuple[Callable[..., Any], str]] = {
    "ht": (_ht, "tree.HoeffdingTreeClassifier"),
    "hat": (_hat, "tree.HoeffdingAdaptiveTreeClassifier"),
    "nb": (_nb, "naive_bayes.GaussianNB"),
    "arf": (_arf, "forest.ARFClassifier"),
    "lb": (_lb, "ensemble.LeveragingBaggingClassifier(HoeffdingTreeClassifier)"),
    "logreg": (_logreg, "StandardScaler | OneVsRestClassifier(LogisticRegression)"),
    "majority": (_majority, "dummy.PriorClassifier (majority class so far)"),
    "persistent": (_persistent, "Persistent: the previous label of the stream (observed)"),
    "tc": (_tc, "Temporal Correction of a base learner: tc(base='nb', decay=None)"),
    "ta": (
        _ta,
        "Temporally Augmented base learner, previous labels as features: ta(base='nb', lags=1)",
    ),
    "htr": (_htr, "tree.HoeffdingTreeRegressor (regression)"),
    "arfr": (_arfr, "forest.ARFRegressor (regression)"),
    "linreg": (_linreg, "StandardScaler | LinearRegression (regression)"),
}


#: The built-in names of regressors (:mod:`distval.aggregator.numeric`).
REGRESSORS = frozenset({"htr", "arfr", "linreg"})


_ALIASES = {
    "hoeffding_tree": "ht",
    "hoeffding_adaptive_tree": "hat",
    "gaussian_nb": "nb",
    "naive_bayes": "nb",
    "adaptive_random_forest": "arf",
    "leveraging_bagging": "lb",
    "logistic_regression": "logreg",
    "no_change": "persistent",
    "temporal_correction": "tc",
    "temporally_augmented": "ta",
    "hoeffding_tree_regressor": "htr",
    "arf_regressor": "arfr",
    "linear_regression": "linreg",
}


@dataclass(frozen=True)
class LearnerSpec:
    """A parsed learner description; cheap to pickle, builds the river model on demand.

    >>> spec = parse_learner("ht(grace_period=50)")
    >>> spec.name, spec.params
    ('ht', {'grace_period': 50})
    >>> type(spec.build()).__name__
    'HoeffdingTreeClassifier'
    """

    name: str
    params: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    #: The river object a spec was made from (:func:`learner_spec`); replicas clone it.
    template: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", self.text)

    @property
    def text(self) -> str:
        """The learner as text: ``parse_learner(spec.text)`` rebuilds it unless the text starts
        with :data:`OBJECT_PREFIX` (a Python object no text describes)."""
        if not self.params:
            return self.name
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name}({args})"

    @property
    def is_moa(self) -> bool:
        """Whether this is a ``moa:`` learner, hosted in the JVM (:mod:`distval.learners.moa`)."""
        return self.name.startswith("moa:")

    @property
    def is_sklearn(self) -> bool:
        """Whether this is a ``sklearn:`` learner (:mod:`distval.learners.minibatch`)."""
        return self.name.removeprefix(OBJECT_PREFIX).startswith("sklearn:")

    @property
    def mini_batch(self) -> int | None:
        """The block size of a mini-batch learner (:mod:`distval.learners.minibatch`);
        None for a per-row learner."""
        from distval.learners.minibatch import mini_batch_size

        return mini_batch_size(self.params, self.is_sklearn)

    @property
    def movable(self) -> bool:
        """Whether its replicas may move between hosts mid-run
        (:attr:`~distval.learners.host.LearnerHost.movable`): JVM replicas stay."""
        return not self.is_moa

    def start(self) -> None:
        """Load now what this learner's first replicas will need (a MOA learner's: the JVM,
        the batch host and its class), so that a Ray learner actor does it while it boots
        rather than when the driver hands it replicas and waits."""
        if self.is_moa:
            from distval.learners import moa

            moa.start([moa.moa_cli(self.name)])

    def factory(self) -> Callable[..., Any]:
        if self.is_moa:
            from distval.learners import moa

            return lambda: moa.template(moa.moa_cli(self.name))
        if self.is_sklearn:
            from distval.learners.minibatch import sklearn_class

            return sklearn_class(self.name)
        if self.name in BUILTIN:
            return BUILTIN[self.name][0]
        module_name, _, attr = self.name.partition(":")
        try:
            module = importlib.import_module(module_name)
            factory: Callable[..., Any] = getattr(module, attr)
        except (ImportError, AttributeError) as exc:
            raise DistvalError(f"learner {self.name!r} does not import: {exc}") from None
        check_learner_class(self.name, factory)
        return factory

    def build(self) -> Any:
        """A fresh, untrained template of this learner."""
        if self.template is not None:
            if self.is_sklearn:
                from sklearn.base import clone

                return clone(self.template)
            return self.template.clone()
        from distval.learners.minibatch import MINI_BATCH

        factory = self.factory()
        params = {k: v for k, v in self.params.items() if k != MINI_BATCH}
        try:
            return factory(**params)
        except TypeError as exc:
            raise DistvalError(f"learner {self.text!r}: bad parameter: {exc}") from None


def split_name(text: str) -> tuple[str | None, str]:
    """``NAME=SPEC`` as (NAME, SPEC); a spec without a name as (None, SPEC). The name is
    what every table, line and figure calls the learner; an ``=`` inside the spec's
    parentheses is its parameter's, not a name.

    >>> split_name("sgd=sklearn:SGDClassifier(loss='log_loss')")
    ('sgd', "sklearn:SGDClassifier(loss='log_loss')")
    >>> split_name("ht(delta=1e-5)"), split_name("moa:trees.HoeffdingTree -g 50")
    ((None, 'ht(delta=1e-5)'), (None, 'moa:trees.HoeffdingTree -g 50'))
    """
    head, sep, spec = text.partition("=")
    name = head.strip()
    if not sep or not name or any(c in name for c in "(): ,'\"") or not spec.strip():
        return None, text
    return name, spec.strip()


def parse_learner(text: str) -> LearnerSpec:
    """Parse ``NAME`` or ``NAME(key=literal, ...)`` into a :class:`LearnerSpec`.

    >>> parse_learner("river.tree:HoeffdingTreeClassifier(delta=1e-5)").params
    {'delta': 1e-05}
    >>> try:
    ...     parse_learner("j48")
    ... except DistvalError as e:
    ...     print(str(e)[:40])
    unknown learner 'j48'; built-in names ar
    """
    if not isinstance(text, str):
        raise DistvalError(f"a learner spec must be text, got {text!r}")
    text = text.strip()
    if text.startswith(OBJECT_PREFIX):
        raise DistvalError(
            f"learner {text!r} was a Python object in the saved run: no text rebuilds it; "
            "run it from Python with the object"
        )
    from distval.learners import moa

    if moa.is_moa(text):
        cli = moa.moa_cli(text)
        moa.validate(cli)
        return LearnerSpec(f"{moa.PREFIX}{cli}")
    name = text
    params: dict[str, Any] = {}
    if "(" in text:
        if not text.endswith(")"):
            raise DistvalError(f"learner {text!r}: expected NAME(key=value, ...)")
        name, args = text[: text.index("(")].strip(), text[text.index("(") + 1 : -1]
        try:
            call = ast.parse(f"f({args})", mode="eval").body
            if not isinstance(call, ast.Call):  # "nb(a=1), ht(b=2)" parses as a tuple
                raise ValueError
            if call.args or any(kw.arg is None for kw in call.keywords):
                raise DistvalError(f"learner {text!r}: parameters must be given as key=value")
            params = {str(kw.arg): ast.literal_eval(kw.value) for kw in call.keywords}
        except (SyntaxError, ValueError):
            raise DistvalError(
                f"learner {text!r}: parameters must be key=value with Python literal values"
            ) from None
    key = name.lower()
    key = _ALIASES.get(key, key)
    if key in BUILTIN:
        spec = LearnerSpec(key, params)
        if spec.mini_batch is not None:
            _check_mini_batch(spec)
        return spec
    if ":" not in name:
        raise DistvalError(
            f"unknown learner {name!r}; built-in names are {', '.join(BUILTIN)}, "
            "or give an import path package.module:Class"
        )
    spec = LearnerSpec(name, params)
    if spec.mini_batch is not None:  # build now: refuse a bad estimator before the run
        _check_mini_batch(spec)
    else:
        spec.factory()  # fail now, with a clear message, if it does not import
    return spec


def _check_mini_batch(spec: LearnerSpec) -> None:
    if not spec.is_sklearn:
        from distval.learners.minibatch import check_river_minibatch

        check_river_minibatch(spec.text, spec.build())
    else:
        spec.build()


def _is_literal(value: Any) -> bool:
    try:
        return bool(ast.literal_eval(repr(value)) == value)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False


def _public_path(cls: type) -> str:
    """``package.module:Class`` through the shortest module that exports the class."""
    parts = cls.__module__.split(".")
    for i in range(1, len(parts) + 1):
        module = ".".join(parts[:i])
        try:
            if getattr(importlib.import_module(module), cls.__name__, None) is cls:
                return f"{module}:{cls.__name__}"
        except ImportError:  # pragma: no cover - the class's own module imports
            continue
    return f"{cls.__module__}:{cls.__name__}"


def _changed_params(obj: Any) -> dict[str, Any] | None:
    """The constructor parameters that differ from a default instance's; None unless they
    are Python literals that rebuild the same parameters (then no text rebuilds the object)."""
    cls = type(obj)
    try:
        params = obj._get_params()
        default = cls()._get_params()
    except Exception:
        return None
    out = {k: v for k, v in params.items() if k not in default or repr(default[k]) != repr(v)}
    if not all(_is_literal(v) for v in out.values()):
        return None
    try:
        same = repr(cls(**out)._get_params()) == repr(params)
    except Exception:
        return None
    return out if same else None


def _short_name(obj: Any) -> str:
    steps = getattr(obj, "steps", None)
    if isinstance(steps, dict) and steps:  # a river pipeline
        return " | ".join(_short_name(step) for step in steps.values())
    return type(obj).__name__


def learner_spec(learner: Any) -> LearnerSpec:
    """A :class:`LearnerSpec` from text (:func:`parse_learner`) or from a river classifier or
    pipeline object, which becomes the template its fold replicas clone.

    An object whose parameters are Python literals gets the text of its import path, so
    ``config.json`` can rebuild it; others (pipelines) get a ``python:`` text for the record.

    >>> from river import naive_bayes, preprocessing, tree
    >>> spec = learner_spec(tree.HoeffdingTreeClassifier(grace_period=50))
    >>> spec.text
    'river.tree:HoeffdingTreeClassifier(grace_period=50)'
    >>> spec.label
    'HoeffdingTreeClassifier(grace_period=50)'
    >>> learner_spec(preprocessing.StandardScaler() | naive_bayes.GaussianNB()).text
    'python:StandardScaler | GaussianNB'
    >>> try:
    ...     learner_spec(42)
    ... except DistvalError as e:
    ...     print(e)
    learner 42 is not a river classifier: it needs clone(), predict_one and learn_one
    """
    if isinstance(learner, LearnerSpec):
        return learner
    if isinstance(learner, str):
        return parse_learner(learner)
    from distval.learners.minibatch import is_sklearn_estimator, sklearn_template

    if is_sklearn_estimator(learner):
        name, changed = sklearn_template(learner)
        if changed is None:
            label = type(learner).__name__
            return LearnerSpec(OBJECT_PREFIX + name, label=label, template=learner)
        return LearnerSpec(name, changed, template=learner)
    if not all(callable(getattr(learner, m, None)) for m in ("clone", "predict_one", "learn_one")):
        raise DistvalError(
            f"learner {learner!r} is not a river classifier: "
            "it needs clone(), predict_one and learn_one"
        )
    try:
        pickle.dumps(learner)
    except Exception as exc:
        raise DistvalError(
            f"learner {_short_name(learner)} cannot be pickled ({type(exc).__name__}: {exc}); "
            "fold replicas travel to other processes"
        ) from None
    params = _changed_params(learner)
    if params is None or getattr(learner, "steps", None):
        return LearnerSpec(
            OBJECT_PREFIX + _short_name(learner), label=_short_name(learner), template=learner
        )
    args = ", ".join(f"{k}={v!r}" for k, v in params.items())
    label = f"{type(learner).__name__}({args})" if args else type(learner).__name__
    return LearnerSpec(_public_path(type(learner)), params, label=label, template=learner)


def is_regressor_spec(spec: LearnerSpec) -> bool:
    """Whether a learner is a river regressor (or a pipeline ending in one); MOA learners
    and learners that do not build count as classifiers (their errors come later, as before).

    >>> is_regressor_spec(parse_learner("htr")), is_regressor_spec(parse_learner("ht"))
    (True, False)
    >>> is_regressor_spec(parse_learner("river.linear_model:LinearRegression"))
    True
    """
    if spec.is_moa:
        return False
    if spec.template is not None:
        return _is_regressor(spec.template)
    if spec.name in BUILTIN:
        return spec.name in REGRESSORS
    try:
        return _is_regressor(spec.build())
    except Exception:  # refused later, where it always was
        return False


def _is_regressor(estimator: Any) -> bool:
    """Whether a river estimator (or the last step of a pipeline) is a regressor.

    >>> from river import linear_model, preprocessing, tree
    >>> _is_regressor(preprocessing.StandardScaler() | linear_model.LinearRegression())
    True
    >>> _is_regressor(tree.HoeffdingTreeClassifier()), _is_regressor(object())
    (False, False)
    """
    from river import base

    while isinstance(getattr(estimator, "steps", None), dict) and estimator.steps:
        estimator = list(estimator.steps.values())[-1]
    return isinstance(estimator, base.Regressor) and not isinstance(estimator, base.Classifier)
