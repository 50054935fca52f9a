"""MOA replicas of one learner host, driven by the Java ``BatchHost`` one batch per call.

:class:`MoaReplicas` is the Python side: it builds the ``InstancesHeader`` from the
:class:`~distval.learners.schema.Schema`, grows it when a class or nominal value beyond it
appears, and pickles its replicas with Java serialization, so Ray checkpoints and
``LearnerHost.part`` work as with river models. The batch host is compiled with the JDK's
``javac`` on first use (:mod:`.jvm`); a JRE alone is refused.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, NamedTuple

import numpy as np

from distval.learners.moa import jvm
from distval.learners.nominal import category_names
from distval.learners.schema import Schema

__all__ = ["MoaReplicaError", "MoaReplicas", "Released", "default_threads", "start_host"]


class Released(NamedTuple):
    """Delayed labels for :meth:`MoaReplicas.process`: the released rows' features ``X``,
    classes ``y``, (released, replicas) ``weights``, and ``after``: how many of the batch's
    arrivals are predicted before each is trained on."""

    X: np.ndarray
    y: np.ndarray
    weights: np.ndarray
    after: np.ndarray

class MoaReplicaError(Exception):
    """Replica ``index`` failed; ``str`` is MOA's message."""

    def __init__(self, index: int, message: str) -> None:
        super().__init__(message)
        self.index = index


def _java() -> tuple[Any, Any]:
    """The JPype names used here; starts the JVM on first use."""
    host = jvm.host_class()
    jvm.guard_signals()
    import jpype

    return host, jpype


def start_host() -> None:
    """Start the JVM and load the batch host (what the first replicas would do)."""
    _java()


def default_threads() -> int:
    """Java threads a host's MOA replicas use: ``DISTVAL_MOA_THREADS``, else every core.

    The replicas of a batch are independent, so they run in parallel without changing any
    result (``BatchHost.process``); a Ray learner actor uses one (one actor per core). The
    in-process engine's reader and aggregator threads share the cores with them
    (``benchmarks/bench_jvm.py``; measurements in ``docs/performance.md``).

    >>> default_threads() >= 1
    True
    """
    value = os.environ.get("DISTVAL_MOA_THREADS", "")
    if value.strip().isdigit():
        return max(1, int(value))
    return max(1, os.cpu_count() or 1)


def _grown(known: int, needed: int) -> int:
    return max(needed, 2 * known)


class MoaReplicas:
    """Untrained MOA replicas, one per ``(cli, seed)``; ``process`` runs a batch.

    ``cli`` is MOA's own syntax (``"trees.HoeffdingTree -g 50"``); ``labels`` name the replicas
    in error messages. ``threads`` is the number of Java threads a batch may use (None:
    :func:`default_threads`); it never changes the results.
    """

    threads: int | None = None

    def __init__(self, cli: list[str], seeds: list[int], schema: Schema) -> None:
        self.cli = list(cli)
        self.seeds = [int(s) for s in seeds]
        self.schema = schema
        host, jpype = _java()
        header = self._header()
        make = host.makeRegressor if schema.numeric_target else host.make
        self._learners = [make(c, s, header) for c, s in zip(self.cli, self.seeds)]
        if schema.numeric_target:
            regressor = jpype.JClass("moa.classifiers.Regressor")
            for c, learner in zip(self.cli, self._learners):
                if not isinstance(learner, regressor):
                    from distval.errors import DistvalError

                    raise DistvalError(
                        f"learner 'moa:{c}' is not a MOA regressor; a regression run needs "
                        "regressors (e.g. moa:trees.FIMTDD, moa:rules.AMRulesRegressor)"
                    )
        self._attach(header)

    # -- header -------------------------------------------------------------------------

    def _header(self) -> Any:  # a JPype InstancesHeader
        _, jpype = _java()
        attribute = jpype.JClass("com.yahoo.labs.samoa.instances.Attribute")
        array_list = jpype.JClass("java.util.ArrayList")
        s = self.schema
        attrs = array_list()
        for name in s.feature_names:
            if name in s.nominal:
                values = array_list()
                for v in category_names(s.nominal[name], 1):
                    values.add(v)
                attrs.add(attribute(name, values))
            else:
                attrs.add(attribute(name))
        class_name = "class"
        while class_name in s.feature_names:
            class_name += "_"
        if s.numeric_target:  # a regression run's target
            attrs.add(attribute(class_name))
        else:
            classes = array_list()
            for v in category_names(s.classes, s.n_classes):
                classes.add(v)
            attrs.add(attribute(class_name, classes))
        instances = jpype.JClass("com.yahoo.labs.samoa.instances.Instances")("distval", attrs, 0)
        instances.setClassIndex(len(s.feature_names))
        return jpype.JClass("com.yahoo.labs.samoa.instances.InstancesHeader")(instances)

    def _attach(self, header: Any) -> None:
        host, jpype = _java()
        self._header_obj = header
        classifier = jpype.JClass("moa.classifiers.Classifier")
        self._host = host(header, jpype.JArray(classifier)(self._learners))
        self._nominal_cols = np.array(sorted(self.schema.nominal_index), dtype=np.intp)

    def _grow(self, X: np.ndarray, y: np.ndarray) -> None:
        """Declare more classes / nominal values when this batch has codes beyond them."""
        s = self.schema
        n_classes = s.n_classes
        top = int(y.max()) + 1 if len(y) and not s.numeric_target else 0
        if top > n_classes:
            n_classes = _grown(n_classes, top)
        nominal = s.nominal
        if len(self._nominal_cols) and len(y):
            tops = np.fmax.reduce(X[:, self._nominal_cols], axis=0)
            for j, t in zip(self._nominal_cols.tolist(), tops.tolist()):
                name = s.feature_names[j]
                have = max(1, len(nominal[name]))
                if t == t and int(t) + 1 > have:
                    if nominal is s.nominal:
                        nominal = dict(nominal)
                    extra = _grown(have, int(t) + 1)
                    nominal[name] = tuple(category_names(nominal[name], extra))
        if n_classes != s.n_classes or nominal is not s.nominal:
            classes = tuple(category_names(s.classes, n_classes))
            self.schema = replace(s, nominal=nominal, n_classes=n_classes, classes=classes)
            header = self._header()
            self._header_obj = header
            self._host.setHeader(header)

    # -- the batch ------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._learners)

    def process(
        self,
        X: np.ndarray,
        y: np.ndarray,
        weights: np.ndarray,
        tested: np.ndarray,
        release: Released | None = None,
        votes: bool = False,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Predict-then-train ``rows`` rows; ``weights``/``tested`` are (rows, replicas).

        With ``release`` (delayed labels: the released rows' features, classes, (released,
        replicas) weights and the arrivals each follows, :class:`Released`), the replicas
        train on those rows instead, between the arrivals' predictions.

        Returns (replicas, rows) int32 predictions, -1 where not tested; with ``votes`` also
        (replicas, rows, classes) class probabilities (MOA's votes over their sum; uniform
        where a replica gives none). Python's heap is frozen meanwhile
        (:func:`~distval.learners.moa.jvm.frozen_python_heap`): the full Python collections
        that Java's collections set off scan only the batch's objects.
        """
        with jvm.frozen_python_heap():
            return self._process(X, y, weights, tested, release, votes)

    def _process(
        self,
        X: np.ndarray,
        y: np.ndarray,
        weights: np.ndarray,
        tested: np.ndarray,
        rel: Released | None,
        votes: bool,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        self._grow(X, y)
        _, jpype = _java()
        rows, d = X.shape
        m = len(self._learners)

        def doubles(a: np.ndarray) -> Any:
            return jpype.JArray(jpype.JDouble)(np.ascontiguousarray(a, np.float64).reshape(-1))

        def ints(a: np.ndarray) -> Any:
            return jpype.JArray(jpype.JInt)(np.ascontiguousarray(a, dtype=np.int32))

        t = jpype.JArray(jpype.JByte)(np.ascontiguousarray(tested, dtype=np.int8).reshape(-1))
        if rel is None:
            rel = Released(np.empty((0, d)), np.empty(0, np.int32), np.empty((0, m)),
                           np.empty(0, np.int32))
            w = weights
        else:
            w = np.zeros_like(weights)  # delayed: the arrivals are trained on when released
        c = self.schema.n_classes
        room = None
        if votes:  # one Java array reused while the batch shape stays (allocating is slow)
            room = getattr(self, "_room", None)
            if room is None or len(room) != m * rows * c:
                room = self._room = jpype.JArray(jpype.JDouble)(m * rows * c)
        try:
            threads = self.threads or default_threads()
            out = self._host.processVotes(
                doubles(X), d, ints(y), doubles(w), t, doubles(rel.X), ints(rel.y),
                doubles(rel.weights), ints(rel.after), jpype.JInt(threads), room,
            )
        except jpype.JException as exc:
            if hasattr(exc, "getReplica"):
                raise MoaReplicaError(int(exc.getReplica()), str(exc.getMessage())) from None
            raise MoaReplicaError(0, str(exc)) from None
        preds = np.array(out, dtype=np.int32).reshape(m, rows)
        if room is None:
            return preds
        probs = np.asarray(room).reshape(m, rows, c).copy()
        probs[preds < 0] = 0.0  # rows not tested: no votes (the reused array holds old ones)
        return preds, probs

    def process_regression(
        self, X: np.ndarray, y: np.ndarray, weights: np.ndarray, tested: np.ndarray
    ) -> np.ndarray:
        """Regressors (``schema.numeric_target``): predict-then-train ``rows`` rows;
        ``weights``/``tested`` are (rows, replicas). Returns (replicas, rows) float
        predictions, NaN where not tested."""
        with jvm.frozen_python_heap():
            self._grow(X, y)
            _, jpype = _java()
            rows, d = X.shape
            m = len(self._learners)

            def doubles(a: np.ndarray) -> Any:
                return jpype.JArray(jpype.JDouble)(
                    np.ascontiguousarray(a, np.float64).reshape(-1)
                )

            t = jpype.JArray(jpype.JByte)(
                np.ascontiguousarray(tested, dtype=np.int8).reshape(-1)
            )
            try:
                out = self._host.processRegression(doubles(X), d, doubles(y), doubles(weights), t)
            except jpype.JException as exc:
                if hasattr(exc, "getReplica"):
                    raise MoaReplicaError(int(exc.getReplica()), str(exc.getMessage())) from None
                raise MoaReplicaError(0, str(exc)) from None
            return np.array(out, dtype=np.float64).reshape(m, rows)

    # -- sharing and pickling -----------------------------------------------------------------

    def take_cpu(self) -> np.ndarray:
        """Each replica's thread CPU seconds in its own calls since the last take (the
        JVM host times each replica's share of a batch on the thread that ran it)."""
        return np.asarray(list(self._host.takeCpu()), dtype=np.float64) / 1e9

    def sizes(self) -> list[tuple[int | None, str, str]]:
        """Each replica's bytes by MOA's ``measureByteSize()``; None with the reason where
        it gives 0 (the JVM was started without the sizeof agent) or fails."""
        out: list[tuple[int | None, str, str]] = []
        for learner in self._learners:
            measure = "MOA measureByteSize()"
            try:
                n = int(learner.measureByteSize())
            except Exception as exc:  # a learner whose walk fails
                out.append((None, measure, f"{type(exc).__name__}: {exc}"))
                continue
            if n <= 0:
                out.append((None, measure, "MOA gives 0 bytes: the JVM was started "
                            "without the sizeof agent (by another library first)"))
            else:
                out.append((n, measure, ""))
        return out

    def part(self, which: list[int]) -> MoaReplicas:
        """Replicas ``which`` of these, shared (not copied), as trained so far."""
        new = MoaReplicas.__new__(MoaReplicas)
        new.cli = [self.cli[j] for j in which]
        new.seeds = [self.seeds[j] for j in which]
        new.schema = self.schema
        new._learners = [self._learners[j] for j in which]
        new._attach(self._header_obj)
        return new

    @classmethod
    def join(cls, parts: list[MoaReplicas]) -> MoaReplicas:
        """The replicas of ``parts`` (of one run, at the same row) in one, in order, shared."""
        new = MoaReplicas.__new__(MoaReplicas)
        new.cli = [c for p in parts for c in p.cli]
        new.seeds = [s for p in parts for s in p.seeds]
        new.schema = parts[0].schema
        new._learners = [j for p in parts for j in p._learners]
        new._attach(new._header())
        return new

    def __getstate__(self) -> dict[str, Any]:
        return {
            "cli": self.cli,
            "seeds": self.seeds,
            "schema": self.schema,
            "replicas": [_save(c) for c in self._learners],
        }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.cli, self.seeds, self.schema = state["cli"], state["seeds"], state["schema"]
        self._learners = [_load(b) for b in state["replicas"]]
        self._attach(self._header())


def _save(obj: Any) -> bytes:
    host, _ = _java()
    return bytes(memoryview(host.save(obj)))


def _load(data: bytes) -> Any:
    host, jpype = _java()
    classifier = jpype.JClass("moa.classifiers.Classifier")
    return jpype.JObject(host.load(jpype.JArray(jpype.JByte)(data)), classifier)
