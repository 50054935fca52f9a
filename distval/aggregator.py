"""The aggregator: per-fold measures and across-fold tests from prediction batches.

It receives, batch by batch and in stream order, the true classes and every slot's
predictions (-1 where a slot did not test a row). It keeps the per-(learner, fold) state of
the chosen forgetting mechanism and of the cumulative one, the Persistent baseline's hits on
the global stream, and McNemar's discordant counts for every learner pair (cumulative,
sliding window and fading, gama2013 §4). Every ``test_every`` rows it emits a
:class:`Snapshot`: the fold measures and, for each learner pair, the Sign, Wilcoxon and
McNemar tests (plus Friedman/Nemenyi for three learners or more; DESIGN.md §4).
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from distval import stats
from distval.config import RunConfig
from distval.metrics import MEASURES, make_tracker

__all__ = ["Aggregator", "Discordance", "Snapshot"]


@dataclass
class Snapshot:
    """Measures and test results at one stream position (rows as plain dicts)."""

    position: int
    folds: list[dict]
    tests: list[dict]
    friedman: dict | None = None
    detections: list[int] = field(default_factory=list)


class Discordance:
    """McNemar's discordant counts per learner pair: cumulative, windowed and faded.

    ``update(d01, d10)`` takes (pairs, rows) counts of folds where A was wrong and B right
    (``d01``) and the reverse, row by row; the window covers the last ``window`` stream rows,
    the fading factor weighs a row j rows old by ``factor ** j``.

    >>> d = Discordance(n_pairs=1, window=2, factor=0.5)
    >>> d.update(np.array([[1, 0, 2]]), np.array([[0, 1, 0]]))
    >>> d.counts()["window"], d.counts()["fading"], d.counts()["cumulative"]
    ((array([2.]), array([1.])), (array([2.25]), array([0.5])), (array([3.]), array([1.])))
    """

    def __init__(self, n_pairs: int, window: int, factor: float) -> None:
        self.window, self.factor = window, factor
        self.cum = np.zeros((2, n_pairs))
        self.win = np.zeros((2, n_pairs))
        self.fade = np.zeros((2, n_pairs))
        self._recent: deque[np.ndarray] = deque()
        self._recent_rows = 0

    def update(self, d01: np.ndarray, d10: np.ndarray) -> None:
        d = np.stack([d01, d10]).astype(np.float64)  # (2, pairs, rows)
        n = d.shape[2]
        self.cum += d.sum(axis=2)
        decay = self.factor ** np.arange(n - 1, -1, -1, dtype=np.float64)
        self.fade = self.fade * self.factor**n + d @ decay
        self._recent.append(d)
        self.win += d.sum(axis=2)
        self._recent_rows += n
        while self._recent_rows > self.window:
            extra = self._recent_rows - self.window
            head = self._recent[0]
            if head.shape[2] <= extra:
                self._recent.popleft()
                self.win -= head.sum(axis=2)
                self._recent_rows -= head.shape[2]
            else:
                self.win -= head[:, :, :extra].sum(axis=2)
                self._recent[0] = head[:, :, extra:]
                self._recent_rows -= extra

    def counts(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        return {
            "cumulative": (self.cum[0], self.cum[1]),
            "window": (self.win[0], self.win[1]),
            "fading": (self.fade[0], self.fade[1]),
        }


class Aggregator:
    """Consumes prediction batches of every slot; emits :class:`Snapshot` on schedule.

    Slot ``s`` is learner ``s // n_folds``, fold ``s % n_folds``.
    """

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.labels = list(config.labels)
        self.n_folds = config.n_folds
        self.n_slots = len(self.labels) * self.n_folds
        kw = {"window": config.window, "fading": config.fading, "delta": config.delta}
        self.trackers = [make_tracker(config.forgetting, self.n_slots, **kw)]
        if config.forgetting != "cumulative":
            self.trackers.append(make_tracker("cumulative", self.n_slots, **kw))
        self.pairs = list(itertools.combinations(range(len(self.labels)), 2))
        self.discordance = Discordance(len(self.pairs), config.window, config.fading)
        self.position = 0
        self._last_label = 0  # the Persistent classifier's guess for row 0 is class 0 (MOA)
        self.last: Snapshot | None = None

    @property
    def primary(self):
        return self.trackers[0]

    def update(self, start: int, y: np.ndarray, parts) -> Snapshot | None:
        """Take one batch: ``parts`` is a list of (slot ids, (slots, rows) predictions)."""
        if start != self.position:
            raise RuntimeError(f"batch starting at row {start} arrived at row {self.position}")
        n = len(y)
        pred = np.full((self.n_slots, n), -1, dtype=np.int64)
        for ids, p in parts:
            pred[np.asarray(ids)] = p
        prev = np.empty(n, dtype=np.int64)
        prev[0] = self._last_label
        prev[1:] = y[:-1]
        per_ok = y == prev
        for tracker in self.trackers:
            tracker.update(y, pred, per_ok)
        if self.pairs:
            by_learner = pred.reshape(len(self.labels), self.n_folds, n)
            a, b = (np.array(side) for side in zip(*self.pairs))
            tested = (by_learner[a] >= 0) & (by_learner[b] >= 0)
            right_a, right_b = by_learner[a] == y, by_learner[b] == y
            d01 = (tested & ~right_a & right_b).sum(axis=1)
            d10 = (tested & right_a & ~right_b).sum(axis=1)
            self.discordance.update(d01, d10)
        self._last_label = int(y[-1])
        self.position += n
        if self.position % self.config.test_every == 0:
            return self.snapshot()
        return None

    def finish(self) -> Snapshot | None:
        """The snapshot at the end of the stream, unless the schedule just took it."""
        if self.last is not None and self.last.position == self.position:
            return None
        return self.snapshot()

    def fold_values(self, measure: str | None = None) -> np.ndarray:
        """(learners, folds) values of a measure under the chosen forgetting mechanism."""
        m = self.primary.get()[measure or self.config.measure]
        return m.reshape(len(self.labels), self.n_folds)

    def snapshot(self) -> Snapshot:
        cfg, k = self.config, self.n_folds
        folds = []
        for tracker in self.trackers:
            m = tracker.get()
            widths = tracker.widths
            for s in range(self.n_slots):
                row = {
                    "position": self.position,
                    "learner": self.labels[s // k],
                    "fold": s % k,
                    "forgetting": tracker.name,
                    "n": float(m["n"][s]),
                    "width": float(widths[s]),
                }
                row.update({name: float(m[name][s]) for name in MEASURES})
                row["recall_by_class"] = [float(r) for r in m["recall"][s]]
                folds.append(row)
        tests = []
        values = self.fold_values()
        counts = self.discordance.counts()
        for p, (ia, ib) in enumerate(self.pairs):
            va, vb = values[ia], values[ib]
            ok = np.isfinite(va) & np.isfinite(vb)
            base = {
                "position": self.position,
                "learner_a": self.labels[ia],
                "learner_b": self.labels[ib],
                "mean_a": float(np.mean(va[ok])) if ok.any() else float("nan"),
                "mean_b": float(np.mean(vb[ok])) if ok.any() else float("nan"),
            }
            results = []
            if "sign" in cfg.tests and ok.any():
                results.append(
                    stats.sign_test(va[ok], vb[ok], alpha=cfg.alpha, method=cfg.sign_method)
                )
            if "wilcoxon" in cfg.tests and ok.any():
                results.append(stats.wilcoxon(va[ok], vb[ok], alpha=cfg.alpha))
            if "mcnemar" in cfg.tests:
                for kind, (n01, n10) in counts.items():
                    r = stats.mcnemar(n01[p], n10[p], alpha=cfg.alpha)
                    name = "mcnemar" if kind == "cumulative" else f"mcnemar_{kind}"
                    results.append(r.to_dict() | {"test": name})
            for r in results:
                d = r if isinstance(r, dict) else r.to_dict()
                tests.append(
                    base
                    | {
                        "test": d["test"],
                        "statistic": float(d["statistic"]),
                        "pvalue": float(d["pvalue"]),
                        "reject": bool(d["reject"]),
                        "n": int(d["n"]),
                    }
                )
        friedman = None
        if "friedman" in cfg.tests and len(self.labels) >= 3:
            ok = np.isfinite(values).all(axis=0)
            if ok.sum() >= 2:
                r = stats.friedman(values[:, ok].T, alpha=cfg.alpha)
                friedman = r.to_dict() | {"position": self.position}
                tests.append(
                    {
                        "position": self.position,
                        "learner_a": "*",
                        "learner_b": "*",
                        "mean_a": float("nan"),
                        "mean_b": float("nan"),
                        "test": "friedman",
                        "statistic": float(r.statistic),
                        "pvalue": float(r.pvalue),
                        "reject": bool(r.reject),
                        "n": int(ok.sum()),
                    }
                )
        detections = []
        if hasattr(self.primary, "n_detections"):
            detections = self.primary.n_detections.tolist()
        self.last = Snapshot(self.position, folds, tests, friedman, detections)
        return self.last
