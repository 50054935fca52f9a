"""What a run tells whoever watches it: :class:`RunObserver`, called by
:class:`~distval.engine.run.Run` when it starts, at every snapshot and when it closes, and
:class:`Progress`, where the run stands (read when wanted, so that it is current between
snapshots too). The live page (:mod:`distval.live`) is one observer; the engine knows none.

>>> class Count:
...     def __init__(self): self.seen = []
...     def started(self, run): pass
...     def snapshot(self, run, snap): self.seen.append(snap.position)
...     def closed(self, run): self.seen.append(run.progress().state)
>>> import distval
>>> watch = Count()
>>> _ = distval.evaluate(stream="sea", n_rows=400, learners=("nb", "majority"), n_folds=2,
...                      test_every=200, observer=watch)
>>> watch.seen
[200, 400, 'finished']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from distval.aggregator.snapshot import Snapshot
    from distval.config import RunConfig
    from distval.streams import Stream

__all__ = ["Observed", "Progress", "RunObserver"]


@dataclass(frozen=True)
class Progress:
    """Where a run stands: ``rows`` evaluated of ``total`` (None: unknown), ``seconds``
    since it started (a resumed run's included), its ``phase`` (``""``: evaluating where it
    began; ``"starting Ray"``, ``"actors"``, ...: :class:`~distval.engine.run.Timeline`),
    the rows each place evaluated (``evaluated_by``: ``driver``, ``actors``), the backend
    asked for and ``state``: ``"running"``, ``"finished"`` or ``"interrupted"``.

    >>> p = Progress(rows=1000, total=4000, seconds=2.0, phase="", backend="inprocess")
    >>> p.rate, p.eta
    (500.0, 6.0)
    """

    rows: int
    total: int | None
    seconds: float
    phase: str
    backend: str
    evaluated_by: dict[str, int] = field(default_factory=dict)
    state: str = "running"

    @property
    def rate(self) -> float | None:
        """Rows per second so far (None before a row or a second)."""
        return self.rows / self.seconds if self.rows and self.seconds > 0 else None

    @property
    def eta(self) -> float | None:
        """Seconds still to go at :attr:`rate` (None: unknown total or rate, or not running)."""
        rate = self.rate
        if self.state != "running" or rate is None or not self.total:
            return None
        return max(0.0, (self.total - self.rows) / rate)


class Observed(Protocol):
    """What an observer sees of the run (:class:`~distval.engine.run.Run`)."""

    config: RunConfig
    stream: Stream

    def progress(self) -> Progress:
        """Where the run stands now."""


class RunObserver(Protocol):
    """Called by :class:`~distval.engine.run.Run` in the thread that drives it; each call
    should return at once (keep what is needed, do the rest elsewhere)."""

    def started(self, run: Observed) -> None:
        """The run is set up (no row yet; a resumed run's rows are counted)."""

    def snapshot(self, run: Observed, snap: Snapshot) -> None:
        """``snap``, the measures and tests at a check, was just added to the result."""

    def closed(self, run: Observed) -> None:
        """The run ended: ``run.progress().state`` says whether it finished."""
