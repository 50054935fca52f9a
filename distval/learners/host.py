"""Learner hosts: a group of fold replicas that predict and learn one batch at a time.

A host owns the replicas of some *slots* (learner index, fold); parting and joining hosts
(Ray's moves of replicas between actors) is :mod:`distval.learners.moves`'s. For every
row of a batch, in stream order, each hosted replica whose fold tests the row predicts it
first; then, if its training weight is positive, it learns the row (see
:mod:`distval.learners.weights`);
then a replica that uses the label sequence observes the row's label if it tested or learned
the row (see :mod:`distval.learners.labels`).
The in-process engine runs one host with every slot; the Ray engine wraps the same class in
actors, each hosting a share of the slots. The ``moa:`` slots of a host run together in the
JVM, one call per batch (:class:`~distval.learners.moa.replicas.MoaReplicas`). Mini-batch
replicas (``sklearn:`` learners, river models with ``mini_batch``) predict and learn by
blocks of rows instead (:mod:`distval.learners.minibatch`).
"""

from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Any

import numpy as np

from distval.errors import DistvalError
from distval.learners.batch import Batch, to_dicts
from distval.learners.cost import CostBook, model_bytes
from distval.learners.hosted import unpicklable
from distval.learners.labels import observes_labels
from distval.learners.minibatch import MiniBatchReplica
from distval.learners.moves import HostedSlots
from distval.learners.nominal import accepts_nominal
from distval.learners.outputs import _described, _predictor, _probabilities, _values, _wide
from distval.learners.registry import LearnerSpec
from distval.learners.replicas import make_replicas, replica_seed
from distval.learners.schema import Schema
from distval.learners.weights import learns_with_weight
from distval.routing.delays import Release

if TYPE_CHECKING:
    from distval.learners.moa.replicas import MoaReplicaError

__all__ = ["LearnerHost", "unpicklable"]


class LearnerHost(HostedSlots):
    """Replicas of the given slots, with per-batch ``process``.

    >>> from distval.learners import parse_learner
    >>> host = LearnerHost([parse_learner("majority")], slots=[(0, 0), (0, 1)],
    ...                    feature_names=["a"], seed=1)
    >>> b = Batch(0, np.zeros((3, 1)), np.array([1, 1, 0]),
    ...           weights=np.array([[1, 0], [1, 0], [1, 0]]), tested=np.ones((3, 2), bool))
    >>> host.process(b).tolist()   # fold 1 never trains: it predicts class 0 throughout
    [[0, 1, 1], [0, 0, 0]]
    """

    def __init__(
        self,
        learners: list[LearnerSpec],
        slots: list[tuple[int, int]],
        feature_names: list[str],
        seed: int | None,
        schema: Schema | None = None,
        proba: bool = False,
        regression: bool = False,
        cost_every: int | None = None,
    ) -> None:
        self.slots = [(int(i), int(f)) for i, f in slots]
        #: What each slot's replica has cost so far, measured every ``cost_every`` rows
        #: (None: not measured) (:mod:`distval.learners.cost`).
        self.cost = CostBook(len(self.slots), cost_every)
        self._predict_wall = 0.0
        #: Whether the replicas are regressors: :meth:`process` then returns float
        #: predictions, NaN where a slot did not test a row (:mod:`distval.aggregator.numeric`).
        self.regression = regression
        #: Whether :meth:`process` also returns class probabilities (a probabilistic measure
        #: was asked for): river's ``predict_proba_one``, MOA's votes over their sum.
        self.proba = proba
        self._n_classes = schema.n_classes if schema is not None else 2
        self.feature_names = list(feature_names)
        by_slot = {}
        moa_slots = []
        for learner, spec in enumerate(learners):
            folds = [f for i, f in self.slots if i == learner]
            if folds and spec.is_moa:
                moa_slots += [(learner, f) for f in folds]
            elif folds:
                replicas = make_replicas(spec, learner, folds, seed, regression=regression)
                by_slot.update({(learner, f): m for f, m in zip(folds, replicas)})
        #: River models by slot position; None at the positions of MOA replicas.
        self.models: list[Any] = [by_slot.get(s) for s in self.slots]
        self.labels = [spec.label for spec in learners]
        for m, (i, _) in zip(self.models, self.slots):
            if proba and isinstance(m, MiniBatchReplica) and not m.has_proba:
                raise DistvalError(
                    f"learner {self.labels[i]!r} gives no class probabilities (no "
                    "predict_proba), which the measure needs: choose a probabilistic model "
                    "(e.g. SGDClassifier(loss='log_loss')) or a measure of predicted classes"
                )
        self._weighted = [m is not None and learns_with_weight(m) for m in self.models]
        #: Replicas that get nominal features as category names (the others: codes; every
        #: regressor: river's regression trees fit linear models in their leaves).
        self._categorical = [
            m is not None and not regression and accepts_nominal(m) for m in self.models
        ]
        known = schema.nominal if schema is not None else {}
        self._nominal = {
            j: list(known[f]) for j, f in enumerate(self.feature_names) if f in known
        }
        self._observing = [m is not None and observes_labels(m) for m in self.models]
        #: Seconds each slot's replica has spent in :meth:`process` so far (a batch's MOA
        #: call is shared evenly by its replicas); the Ray engine balances actors by them.
        self.busy = [0.0] * len(self.slots)
        #: Rows predicted whose labels are not due yet (delayed labels) and every slot's
        #: predictions of them: (slots, rows in flight).
        self._pending_rows = np.empty(0, np.int64)
        self._pending = np.empty((len(self.slots), 0), np.int32)
        self._pending_proba = np.empty((len(self.slots), 0, self._n_classes))
        self.moa = None
        self._top = -1  # the largest class index of the rows seen so far
        self._moa_at: list[int] = []  # slot positions of the MOA replicas, in their order
        if moa_slots:
            from distval.learners.moa import moa_cli
            from distval.learners.moa.replicas import MoaReplicas

            self._moa_at = [j for j, s in enumerate(self.slots) if self.models[j] is None]
            self.moa = MoaReplicas(
                [moa_cli(learners[self.slots[j][0]].name) for j in self._moa_at],
                [replica_seed(seed, *self.slots[j]) for j in self._moa_at],
                dataclasses.replace(schema or Schema(tuple(self.feature_names)),
                                    numeric_target=regression),
            )

    # -- capabilities: what the engines may do with this host ------------------------------

    @property
    def releases_gil(self) -> bool:
        """Whether :meth:`process` leaves Python's GIL free most of the time (its replicas
        run in the JVM), so reading and aggregating in other threads gains; river replicas
        hold it.

        >>> from distval.learners import parse_learner
        >>> LearnerHost([parse_learner("nb")], [(0, 0)], ["x"], seed=1).releases_gil
        False
        """
        return self.moa is not None

    @property
    def movable(self) -> bool:
        """Whether its slots may move between hosts mid-run (Ray's rebalancing): river
        replicas are cheap to copy; JVM replicas stay where they are."""
        return self.moa is None

    def set_threads(self, threads: int) -> None:
        """The threads one :meth:`process` call may use (the JVM replicas' worker threads;
        river replicas run on the calling thread). Never changes a result."""
        if self.moa is not None:
            self.moa.threads = threads

    def process(self, batch: Batch) -> Any:
        """Predict-then-learn every row; returns (slots, rows) predictions, -1 = not tested.

        With a ``batch.release`` the replicas predict the arrivals, learn the released rows
        at their places between them, and the predictions returned are those of the
        released rows (made when they arrived; the host keeps them meanwhile), in release
        order. With :attr:`proba`, a pair: the predictions and their (slots, rows, classes)
        class probabilities.
        """
        out, proba = self._process(batch)
        rel = batch.release
        if rel is None:
            return out if proba is None else (out, proba)
        rows = np.r_[self._pending_rows, np.arange(batch.start, batch.start + len(batch))]
        kept = np.concatenate([self._pending, out], axis=1)
        at = np.searchsorted(rows, rel.rows)
        keep = np.ones(len(rows), bool)
        keep[at] = False
        self._pending_rows, self._pending = rows[keep], kept[:, keep]
        if proba is None:
            return kept[:, at]
        c = max(proba.shape[2], self._pending_proba.shape[2])
        probs = np.concatenate([_wide(self._pending_proba, c), _wide(proba, c)], axis=1)
        self._pending_proba = probs[:, keep]
        return kept[:, at], probs[:, at]

    def _process(self, batch: Batch) -> tuple[np.ndarray, np.ndarray | None]:
        got = self._run(batch)
        cost = self.cost
        if cost.due(batch.start + len(batch)):
            sizes = [model_bytes(m) for m in self.models]
            if self.moa is not None:
                for j, size in zip(self._moa_at, self.moa.sizes()):
                    sizes[j] = size
            cost.record(batch.start + len(batch), self.slots, self.labels, sizes)
        return got

    def _run(self, batch: Batch) -> tuple[np.ndarray, np.ndarray | None]:
        n = len(batch.y)
        timed = self.cost.on
        out = np.full((len(self.slots), n), -1, dtype=np.int32)
        if self.regression:
            out = np.full((len(self.slots), n), np.nan)
        proba = None
        if self.proba:
            top = max(int(batch.y.max(initial=-1)), int(batch.scored_y.max(initial=-1))) + 1
            self._n_classes = max(self._n_classes, top)
            if self.moa is not None:
                self._n_classes = max(self._n_classes, self.moa.schema.n_classes)
            proba = np.zeros((len(self.slots), n, self._n_classes))
        busy = self.busy
        if self.moa is not None:
            t0 = time.perf_counter()
            self._process_moa(batch, out, proba)
            share = (time.perf_counter() - t0) / len(self._moa_at)
            for j in self._moa_at:
                busy[j] += share
            if timed:
                for j, cpu in zip(self._moa_at, self.moa.take_cpu().tolist()):
                    self.cost.add(j, cpu, None, 0.0, n)
            if len(self._moa_at) == len(self.slots):
                return out, proba  # no river replica: no dicts to build
        nominal, categorical = self._nominal, self._categorical
        codes = named = None
        rel = batch.release
        rel_codes = rel_named = None
        ys = batch.y.tolist()
        if len(ys) and not self.regression:
            self._top = max(getattr(self, "_top", -1), int(batch.y.max()))
        top = getattr(self, "_top", -1)
        for j, (learner, fold) in enumerate(self.slots):
            if self.models[j] is None:
                continue
            if isinstance(self.models[j], MiniBatchReplica):
                pw0 = getattr(self.models[j], "predict_wall", 0.0)
                c0, t0 = time.thread_time(), time.perf_counter()
                out[j] = self._minibatch(j, batch, proba, top)
                wall = time.perf_counter() - t0
                busy[j] += wall
                if timed:
                    pw = getattr(self.models[j], "predict_wall", 0.0) - pw0
                    self.cost.add(j, time.thread_time() - c0, pw, wall, n)
                continue
            if nominal and categorical[j]:
                if named is None:
                    named = to_dicts(batch.X, self.feature_names, nominal)
                xs = named
                if rel is not None and rel_named is None:
                    rel_named = to_dicts(rel.X, self.feature_names, nominal)
                rxs = rel_named
            else:
                if codes is None:
                    codes = to_dicts(batch.X, self.feature_names)
                xs = codes
                if rel is not None and rel_codes is None:
                    rel_codes = to_dicts(rel.X, self.feature_names)
                rxs = rel_codes
            dicts: list[Any] | None = [] if proba is not None else None
            self._predict_wall = 0.0
            c0, t0 = time.thread_time() if timed else 0.0, time.perf_counter()
            try:
                if rel is None:
                    preds = self._replica(j, fold, batch, xs, ys, dicts)
                else:
                    assert rxs is not None
                    preds = self._replica_delayed(j, fold, batch, xs, rel, rxs, dicts)
                if timed:
                    self.cost.add(j, time.thread_time() - c0, self._predict_wall,
                                  time.perf_counter() - t0, n)
                if proba is not None and dicts is not None:
                    tested = np.flatnonzero(batch.tested[:, fold])
                    proba[j, tested] = _probabilities(dicts, self._n_classes)
            except Exception as exc:
                raise self._failed(learner, fold, batch.start, _described(exc)) from exc
            if self.regression:
                out[j] = _values(preds, batch.tested[:, fold], self.labels[learner], fold,
                                 batch.start)
            else:
                out[j] = self._checked(preds, batch, learner, fold, top)
            busy[j] += time.perf_counter() - t0
        return out, proba

    def _minibatch(self, j: int, batch: Batch, proba: np.ndarray | None, top: int) -> np.ndarray:
        """Slot ``j``'s mini-batch replica through the batch; its probabilities into
        ``proba``. It may predict any class announced to it, seen yet or not."""
        learner, fold = self.slots[j]
        model: MiniBatchReplica = self.models[j]
        if batch.release is not None:
            raise DistvalError(
                f"learner {self.labels[learner]!r} learns in mini-batches, which delayed "
                "labels do not support: run it without --delay"
            )
        n_classes = max(self._n_classes, top + 1)
        preds: np.ndarray
        try:
            preds, probs = model.process(
                batch.start, batch.X, batch.y, batch.weights[:, fold], batch.tested[:, fold],
                self.feature_names, n_classes, proba is not None,
            )
        except Exception as exc:
            why = f"{type(exc).__name__}: {exc}"
            raise self._failed(learner, fold, batch.start, why) from exc
        if proba is not None and probs is not None:
            bad = batch.tested[:, fold] & ~np.isfinite(probs).all(axis=1)
            if bad.any():  # scored as NaN before: refused, naming the row
                i = int(np.argmax(bad))
                raise DistvalError(
                    f"learner {self.labels[learner]!r} (fold {fold}) gave the class "
                    f"probabilities {probs[i].tolist()} for row {batch.start + i}: a "
                    "probabilistic measure needs finite probabilities")
            c = min(proba.shape[2], probs.shape[1])
            proba[j, :, :c] = probs[:, :c]
        known = max(top, len(model.classes) - 1 if model.classes is not None else 0)
        if (batch.tested[:, fold] & ((preds < 0) | (preds > known))).any():
            self._checked(list(preds), batch, learner, fold, known)  # raises, naming the row
        return preds

    def _checked(
        self, preds: list[Any], batch: Batch, learner: int, fold: int, top: int
    ) -> np.ndarray:
        """A replica's predictions of a batch, refused unless every tested row's is a class
        index seen so far (0..``top``; river replicas learn class indices, so they predict
        them). -1 marks the rows the fold did not test: a learner's -1 must not pass for it.
        """
        tested = batch.tested[:, fold]
        try:
            values = np.asarray(preds, dtype=np.int64)
            exact = (np.asarray(preds, dtype=object) == values).astype(bool)
            bad = tested & ~((values >= 0) & (values <= top) & exact)
        except (TypeError, ValueError, OverflowError):  # not all numbers: find which
            values = np.zeros(0, dtype=np.int64)
            ok = [isinstance(v, (int, np.integer)) and 0 <= v <= top for v in preds]
            bad = tested & ~np.array(ok, dtype=bool)
        if not bad.any():
            return values
        i = int(np.argmax(bad))
        raise DistvalError(
            f"learner {self.labels[learner]!r} (fold {fold}) predicted {preds[i]!r} for row "
            f"{batch.start + i}, which is none of the {top + 1} classes seen so far "
            f"(class indices 0..{top}): a learner must predict one of the labels it learned"
        )

    def _failed(self, learner: int, fold: int, start: int, why: str) -> DistvalError:
        """The error for a learner's replica that raised on the batch starting at ``start``."""
        return DistvalError(
            f"learner {self.labels[learner]!r} (fold {fold}) failed on a batch starting "
            f"at row {start}: {why}"
        )

    def _moa_failed(self, exc: MoaReplicaError, start: int) -> DistvalError:
        """:meth:`_failed` for the MOA replica the JVM names in ``exc``."""
        learner, fold = self.slots[self._moa_at[exc.index]]
        return self._failed(learner, fold, start, str(exc))

    def _process_moa(self, batch: Batch, out: np.ndarray, proba: np.ndarray | None) -> None:
        """All MOA replicas of the batch in one JVM call; rows of ``out`` filled in place."""
        from distval.learners.moa.replicas import MoaReplicaError

        folds = [self.slots[j][1] for j in self._moa_at]
        assert self.moa is not None  # called only when the host has MOA replicas
        rel = batch.release
        released = None
        if self.regression:  # no delayed labels in a regression run (refused by its config)
            try:
                out[self._moa_at] = self.moa.process_regression(
                    batch.X, batch.y, batch.weights[:, folds], batch.tested[:, folds]
                )
            except MoaReplicaError as exc:
                raise self._moa_failed(exc, batch.start) from None
            return
        if rel is not None:
            from distval.learners.moa.replicas import Released

            released = Released(rel.X, rel.y, rel.weights[:, folds], rel.after)
        try:
            got = self.moa.process(
                batch.X, batch.y, batch.weights[:, folds], batch.tested[:, folds], released,
                votes=proba is not None,
            )
        except MoaReplicaError as exc:
            raise self._moa_failed(exc, batch.start) from None
        if isinstance(got, tuple):
            out[self._moa_at], votes = got
            assert proba is not None
            c = min(votes.shape[2], proba.shape[2])
            proba[self._moa_at, :, :c] = votes[:, :, :c]
        else:
            out[self._moa_at] = got

    def _replica(
        self, j: int, fold: int, batch: Batch, xs: list[dict[str, Any]], ys: list[Any],
        dicts: list[Any] | None = None,
    ) -> list[Any]:
        """Predict-then-learn the batch with replica ``j``; with ``dicts``, each row's
        ``predict_proba_one`` of the rows it tests is appended to it."""
        n = len(ys)
        model = self.models[j]
        predict, learn = _predictor(model, dicts), model.learn_one
        tested = batch.tested[:, fold].tolist()
        weights = batch.weights[:, fold].tolist()
        preds: list[Any] = [-1] * n
        weighted = self._weighted[j]
        observe = model.observe_label if self._observing[j] else None
        revealed = [True] * n if batch.revealed is None else batch.revealed.tolist()
        blank = None if self.regression else 0  # a classifier's "no idea yet" is class 0
        clock = time.perf_counter if self.cost.on else None
        spent = 0.0
        for i in range(n):
            x = xs[i]
            if tested[i]:
                if clock is None:
                    p = predict(x)
                else:  # the wall seconds predicting split the batch's CPU (cost)
                    t = clock()
                    p = predict(x)
                    spent += clock() - t
                preds[i] = blank if p is None else p
            w = weights[i]
            if w:
                if weighted:
                    learn(x, ys[i], w=w)
                else:
                    for _ in range(w):
                        learn(x, ys[i])
            if observe is not None and (w or tested[i]) and revealed[i]:
                observe(ys[i])
        self._predict_wall = spent
        return preds

    def _replica_delayed(
        self, j: int, fold: int, batch: Batch, xs: list[dict[str, Any]], rel: Release,
        rxs: list[dict[str, Any]], dicts: list[Any] | None = None,
    ) -> list[Any]:
        """Replica ``j`` through a batch with delayed labels: predict each arrival, then
        learn the released rows known after it (``rel.after``), in their order."""
        n = len(batch)
        model = self.models[j]
        predict, learn = _predictor(model, dicts), model.learn_one
        tested = batch.tested[:, fold].tolist()
        preds = [-1] * n
        weighted = self._weighted[j]
        observe = model.observe_label if self._observing[j] else None
        after = rel.after.tolist()
        weights = rel.weights[:, fold].tolist()
        seen = (rel.known & ((rel.weights[:, fold] > 0) | rel.tested[:, fold])).tolist()
        ys = rel.y.tolist()
        r, m = 0, len(after)
        clock = time.perf_counter if self.cost.on else None
        spent = 0.0
        for i in range(n):
            if tested[i]:
                t = clock() if clock is not None else 0.0
                p = predict(xs[i])
                if clock is not None:
                    spent += clock() - t
                preds[i] = 0 if p is None else p
            while r < m and after[r] == i + 1:
                w = weights[r]
                if w:
                    if weighted:
                        learn(rxs[r], ys[r], w=w)
                    else:
                        for _ in range(w):
                            learn(rxs[r], ys[r])
                if observe is not None and seen[r]:
                    observe(ys[r])
                r += 1
        self._predict_wall = spent
        return preds
