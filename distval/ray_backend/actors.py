"""Bodies of the Ray actors: thin wrappers around the core's learner host and aggregator.

Every Ray worker imports this module to rebuild the actor classes, so it imports nothing of
its own but :mod:`~distval.ray_backend.keeper` (the standard library's alone): a learner
actor loads river's learners and an aggregator actor the statistics only when it needs
them, and neither pays for the driver's modules (files, reports, pandas).

Actors start empty and receive their state with ``load`` (the driver's state after warming
up, or a checkpoint) or build a fresh one with ``start`` (from the run's recipe), so their
processes can boot while the driver works.
Calls from the driver to one actor run in the order they were made.

In a running Ray that a run joined, the actors are kept warm between runs
(:mod:`distval.ray_backend.fleet`): ``release`` drops a run's state, :class:`WarmPool` holds
the idle actors, and every kept actor ends itself once no driver it serves is alive and no
call has come for the seconds it is kept: its constructor starts the watchdog
(:mod:`~distval.ray_backend.keeper`), so a driver killed at any instant, even while its
actors are being created, leaves nothing behind for long.

>>> from distval.learners import parse_learner
>>> actor = LearnerActor([parse_learner("nb")])   # the body alone, without Ray
>>> actor.host is None
True
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from distval.ray_backend.keeper import Kept

if TYPE_CHECKING:  # types only: nothing else of distval is imported at run time
    import numpy as np

    from distval.aggregator import AnyAggregator
    from distval.aggregator.snapshot import Snapshot
    from distval.config import RunConfig
    from distval.engine.loop import Fresh
    from distval.learners.batch import Batch
    from distval.learners.host import LearnerHost
    from distval.learners.registry import LearnerSpec

__all__ = ["AggregatorActor", "LearnerActor", "WarmPool", "warm_aggregator"]


class LearnerActor(Kept):
    """Hosts a :class:`~distval.learners.host.LearnerHost`: a share of the replicas."""

    def __init__(self, specs: Iterable[LearnerSpec] = (), keep: float = 0.0,
                 driver: str | None = None) -> None:
        self.watch(keep, driver)  # first: the driver may be gone before its first call
        self.prepare(specs)
        self.host: LearnerHost | None = None

    def prepare(self, specs: Iterable[LearnerSpec]) -> None:
        """Import each learner's module and start what its first replicas need (a JVM)
        now, while the driver is busy: not at the hand-over."""
        self.ping()
        for spec in specs:
            # LearnerSpec.build is unannotated (distval/learners/registry.py): typed here.
            build: Callable[[], Any] = spec.build
            build()
            spec.start()

    def load(self, host: LearnerHost) -> None:
        self.ping()
        # Arrays deserialised from the object store are read-only: keep a private copy.
        self.host = copy.deepcopy(host)
        self.host.set_threads(1)  # one actor per core

    def start(
        self, replicas: Callable[..., LearnerHost], slots: list[tuple[int, int]]
    ) -> str | None:
        """Fresh replicas of ``slots``, built here by ``replicas``
        (:meth:`~distval.engine.loop.Fresh.replicas`), in place of a :meth:`load`; returns
        why one cannot be pickled (Ray checkpoints and moves replicas by pickling them), or
        None."""
        self.ping()
        from distval.learners.host import unpicklable

        self.host = replicas(slots=slots)
        self.host.set_threads(1)
        return unpicklable([self.host])

    def release(self) -> None:
        """Drop the run's replicas (the actor goes back to the warm pool)."""
        self.idle()
        self.host = None

    def process(self, parcel: list[Batch]) -> list[Any]:
        """Each batch of a parcel (consecutive batches), in order: its predictions; then
        the cost rows the host recorded meanwhile (:data:`~distval.columns.COST_SCHEMA`)."""
        assert self.host is not None, "load() comes first"
        with self.busy_with():
            return [*(self.host.process(batch) for batch in parcel),
                    self.host.cost.drain()]

    def checkpoint(self) -> tuple[LearnerHost | None, bool]:
        """(state, True): the second value lets the driver confirm the copy without fetching it."""
        return self.host, True

    def busy(self) -> list[tuple[tuple[int, int], float]]:
        """(slot, seconds its replica has worked so far) of every hosted slot."""
        assert self.host is not None, "load() comes first"
        return list(zip(self.host.slots, self.host.busy))


class AggregatorActor(Kept):
    """Hosts an :class:`~distval.aggregator.core.Aggregator`, fed whole batches and every
    learner actor's predictions (``slot_ids[i]`` are the slots of learner actor ``i``).

    :meth:`warm`, called while the learner actors boot, feeds a throw-away aggregator of
    the run's configuration two small batches, so that the statistics (scipy.stats) are
    imported and the compiled kernels loaded (or compiled) before the first parcel.
    """

    def __init__(self, slot_ids: list[list[int]], keep: float = 0.0,
                 driver: str | None = None) -> None:
        self.watch(keep, driver)  # first: the driver may be gone before its first call
        import distval.aggregator  # noqa: F401  (the statistics, imported while booting)

        self.slot_ids = slot_ids
        self.aggregator: AnyAggregator | None = None

    def warm(self, config: RunConfig, n_classes: int | None) -> None:
        """:func:`warm_aggregator`; a failure here is left to the run itself to report."""
        import contextlib

        with contextlib.suppress(Exception):
            warm_aggregator(config, n_classes)

    def load(self, aggregator: AnyAggregator) -> None:
        self.ping()
        self.aggregator = copy.deepcopy(aggregator)

    def start(self, fresh: Fresh) -> None:
        """A fresh aggregator of the run, built here, in place of a :meth:`load`."""
        self.ping()
        self.aggregator = fresh.aggregator()

    def release(self) -> None:
        """Drop the run's aggregator (the actor goes back to the warm pool)."""
        self.idle()
        self.aggregator = None

    def regroup(self, slot_ids: list[list[int]]) -> None:
        """The learner actors host these slots from the next batch on."""
        self.ping()
        self.slot_ids = slot_ids

    def consume(self, parcel: list[Batch], *parts: list[np.ndarray]) -> list[Snapshot | None]:
        """Each batch of a parcel with every learner actor's predictions for it: the
        aggregator's answer per batch."""
        agg = self.aggregator
        assert agg is not None, "load() comes first"
        # Arrays from the object store are read-only: private copies (a few kB) let the
        # compiled kernels use the specializations the driver's in-process run compiled
        # and cached, instead of compiling read-only ones (seconds on a cold cache).
        with self.busy_with():
            snaps = [
                agg.update(
                    batch.start, batch.scored_y.copy(),
                    [(ids, _own(p)) for ids, p in zip(self.slot_ids, preds)],
                    arrived=len(batch), release=batch.release,
                )
                for batch, *preds in zip(parcel, *(p[:-1] for p in parts))
            ]
        return self._costed(snaps, [p[-1] for p in parts])

    def _costed(self, snaps: list[Snapshot | None], cost: list[Any]) -> list[Snapshot | None]:
        """The learner actors' cost rows on the parcel's last snapshot (kept for the next
        parcel's when it has none), in the in-process run's order: by position, learner
        and fold (each actor's rows come whole, one actor after the other)."""
        import numpy as np

        from distval.columns import COST_SCHEMA, concat

        pending = getattr(self, "_cost", []) + [c for c in cost if len(c["position"])]
        last = next((s for s in reversed(snaps) if s is not None), None)
        if last is not None and pending:
            rows = concat(pending, COST_SCHEMA)
            assert self.aggregator is not None
            learner = {k: i for i, k in enumerate(self.aggregator.labels)}
            rank = np.array([learner.get(k, len(learner)) for k in rows["learner"]], np.int64)
            order = np.lexsort((rows["fold"], rank, rows["position"]))
            last.cost = {k: np.asarray(v)[order] for k, v in rows.items()}
            pending = []
        self._cost = pending
        return snaps

    def finish(self) -> Snapshot | None:
        assert self.aggregator is not None, "load() comes first"
        return self.aggregator.finish()

    def checkpoint(self) -> tuple[AnyAggregator | None, bool]:
        return self.aggregator, True


class WarmPool(Kept):
    """The idle actors of a running Ray's warm pool, by kind (``"learner:1.0"``: learner
    actors of one CPU each; ``"aggregator"``). A run takes what it needs with :meth:`lease`
    and gives its actors back with :meth:`give_back` when it ends.

    >>> pool = WarmPool()   # the body alone, without Ray
    >>> pool.give_back("aggregator", [])
    >>> pool.lease("aggregator", 1)
    []
    """

    def __init__(self, keep: float = 0.0, driver: str | None = None) -> None:
        self.watch(keep, driver)
        self.waiting: dict[str, list[Any]] = {}

    def lease(self, kind: str, n: int, driver: str | None = None) -> list[Any]:
        """At most ``n`` idle actors of ``kind``, each alive (it answered a ping: an actor
        that ended itself meanwhile is dropped); the pool lasts while ``driver`` (a Ray job
        id) is alive, as it may give them back."""
        self.keep(self._keep_for, driver)
        import ray

        idle, out = self.waiting.get(kind, []), list[Any]()
        while idle and len(out) < n:
            handle = idle.pop()
            try:
                ray.get(handle.ping.remote(), timeout=2.0)
            except Exception:  # ended (kept too long) or lost: not leased
                continue
            out.append(handle)
        return out

    def give_back(self, kind: str, handles: list[Any]) -> None:
        """Idle again: ``handles`` (released actors of ``kind``)."""
        self.ping()
        self.waiting.setdefault(kind, []).extend(handles)


def _own(preds: Any) -> Any:
    """A writeable copy of a learner actor's predictions (an array, or with class
    probabilities a pair of arrays)."""
    return tuple(p.copy() for p in preds) if isinstance(preds, tuple) else preds.copy()


def warm_aggregator(config: RunConfig, n_classes: int | None, rows: int = 100) -> None:
    """Feed a throw-away aggregator of ``config`` (its task's; tests every ``rows`` rows)
    two batches of ``rows`` random rows (writeable arrays, as :meth:`AggregatorActor.consume`
    passes on), so that the first real batch finds the statistics imported and the compiled
    kernels loaded.

    >>> from distval.config import RunConfig
    >>> warm_aggregator(RunConfig(learners=("nb", "majority"), n_folds=3), 2)
    >>> warm_aggregator(RunConfig(learners=("linreg", "htr"), n_folds=3), None)
    """
    import dataclasses

    import numpy as np

    from distval.aggregator import aggregator_for
    from distval.tasks import task_named

    config = dataclasses.replace(config, test_every=rows)
    aggregator = aggregator_for(config, n_classes=n_classes)
    k = max(2, n_classes or 2)
    n_slots = len(config.learners) * config.n_folds
    rng = np.random.default_rng(0)
    ids = np.arange(n_slots)
    numeric = task_named(config.task).numeric_target
    for start in (0, rows):
        if numeric:
            y: Any = rng.normal(size=rows)
            preds: Any = rng.normal(size=(n_slots, rows))
        else:
            y = rng.integers(0, k, rows)
            preds = rng.integers(-1, k, (n_slots, rows)).astype(np.int32)
        if config.measure in _proba_measures():
            preds = (preds, rng.dirichlet(np.ones(k), (n_slots, rows)))
        aggregator.update(start, y, [(ids, preds)], arrived=rows)


def _proba_measures() -> frozenset[str]:
    from distval.metrics import PROBA_MEASURES

    return frozenset(PROBA_MEASURES)
