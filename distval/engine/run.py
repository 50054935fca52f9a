"""A run's books: the result kept in memory, appended to disk, and the live status line while the
steps come in.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from distval.aggregator.snapshot import Snapshot
from distval.columns import rows_of
from distval.config import RunConfig
from distval.engine.loop import Checkpoint, Step
from distval.engine.observer import Progress, RunObserver
from distval.engine.standing import standing, value_text
from distval.errors import DistvalWarning
from distval.learners.host import unpicklable
from distval.metrics.trackers import MIN_SCORED
from distval.results import EvaluationResult, ResultWriter
from distval.results.lock import DirectoryLock
from distval.results.saved import load_evaluation
from distval.results.schema import schemas_of
from distval.results.writer import Unpicklable
from distval.statistics.verdict import p_text, short_names, status_verdict
from distval.streams import Stream
from distval.streams.fingerprint import stream_fingerprint
from distval.tasks import task_named
from distval.tasks.base import CLOSER

__all__ = ["Run", "Timeline"]


class Timeline:
    """When a run's phases began, as :func:`time.perf_counter` readings: ``ray_init_start``,
    ``ray_init_end``, ``actors_up``, ``hand_over``, ``first_actor_step``,
    ``last_actor_step``, ``shutdown_start``, ``shutdown_end`` (the Ray backends mark them;
    an in-process run marks none). ``summary.json`` keeps them as seconds since the run's
    start (:meth:`since`).

    >>> t = Timeline()
    >>> t.mark("hand_over"); t.phase()
    'handing over'
    >>> t.mark("first_actor_step"); t.phase(), sorted(t.since(0.0))
    ('actors', ['first_actor_step', 'hand_over'])
    """

    #: The phase each mark begins, the latest mark made naming the current one.
    PHASES: ClassVar[dict[str, str]] = {
        "ray_init_start": "starting Ray",
        "ray_init_end": "actors starting",
        "actors_up": "handing over",
        "hand_over": "handing over",
        "first_actor_step": "actors",
        "last_actor_step": "actors",
        "shutdown_start": "stopping Ray",
        "shutdown_end": "",
    }

    def __init__(self) -> None:
        self.marks: dict[str, float] = {}

    def mark(self, event: str, again: bool = False) -> None:
        """Mark ``event`` now; a mark already made stays unless ``again``."""
        if again or event not in self.marks:
            self.marks[event] = time.perf_counter()

    def phase(self) -> str:
        """The phase of the latest mark ("" before any, and after Ray has stopped)."""
        if not self.marks:
            return ""
        return self.PHASES.get(max(self.marks, key=self.marks.__getitem__), "")

    def since(self, start: float) -> dict[str, float]:
        """Every mark as seconds since ``start``, in time order."""
        return {
            k: round(v - start, 3) for k, v in sorted(self.marks.items(), key=lambda kv: kv[1])
        }


class Run:
    """Bookkeeping of one run: result, output files, progress.

    ``progress``: ``True`` or ``"bar"`` for a progress bar whose status fits the terminal
    (with the phase of a Ray run, :meth:`Timeline.phase`, such as ``"starting Ray"``),
    ``"lines"`` for a plain-text progress line on stderr every ``line_seconds`` (logs, job
    runners), ``False`` for none. The backend marks its phases on :attr:`timeline`; the
    summary keeps them.

    A step's :class:`Checkpoint` goes to the output directory with what the run has
    recorded so far (:meth:`ResultWriter.checkpoint`). ``resume``: what
    :func:`~distval.results.writer.read_checkpoint` read from ``output_dir``, whose tables
    are cut back to the checkpoint and appended to; the result so far is read back from them
    (``run_id``: the checkpoint's, ``lock``: the directory's, already taken).
    """

    def __init__(
        self,
        config: RunConfig,
        stream: Stream,
        *,
        output_dir: str | os.PathLike[str] | None = None,
        overwrite: bool = False,
        progress: bool | str | Callable[[int], None] = False,
        backend: str = "inprocess",
        line_seconds: float = 10.0,
        resume: tuple[dict[str, Any], dict[str, int]] | None = None,
        run_id: str | None = None,
        lock: DirectoryLock | None = None,
        observer: RunObserver | None = None,
    ):
        self.config = config
        self.stream = stream
        out = Path(output_dir) if output_dir else None
        self.result = EvaluationResult(config, output_dir=out, stream_name=stream.name)
        task = self.result.task
        schemas = schemas_of(task)
        optional = task.optional_tables
        self._before = 0.0  # seconds of the run before its checkpoint
        self._unsaved = False  # its state could not be pickled: no more checkpoints
        #: What the run reads (kept in every checkpoint; ``--resume`` checks it).
        self.fingerprint = stream_fingerprint(stream, config.stream, config.seed)
        if resume is not None:
            if out is None:
                raise ValueError("resume needs the output_dir of the checkpoint")
            state, written = resume
            #: The checkpoint this run goes on from.
            self.resumed_from: Checkpoint | None = state["checkpoint"]
            self.writer: ResultWriter | None = ResultWriter(out, resume=written, run_id=run_id,
                                                            lock=lock, schemas=schemas,
                                                            optional=optional)
            if written.get("folds"):
                self.result = load_evaluation(out)
                self.result.stream_name = stream.name
            self.result.n_rows = state["checkpoint"].rows
            self.result.evaluated_by = dict(state["evaluated_by"])
            self.result.interrupted = False
            self._before = state["elapsed"]
        else:
            self.resumed_from = None
            self.writer = ResultWriter(output_dir, overwrite=overwrite, schemas=schemas,
                                       optional=optional) if output_dir else None
            if self.writer:
                extra = {"backend": backend, "stream_name": stream.name}
                self.writer.write_config(config, extra)
        if self.writer:  # the time series goes to the directory, and is read back from it
            self.result.series = self.writer
        self.result.backend = backend
        self._bar = None
        self._ticker: _Ticker | None = None
        self._lines = progress == "lines"
        self._rows_done = progress if callable(progress) else None
        self._line_seconds = line_seconds
        self._status = ""
        self.timeline = Timeline()
        self._phase = "starting Ray" if backend == "ray" else ""
        self._starting = backend == "ray"
        if progress is True or progress == "bar":
            from tqdm.auto import tqdm

            desc = f"{stream.name} ({self._phase})" if self._phase else stream.name
            self._bar = tqdm(
                total=stream.n_rows, unit="rows", desc=desc, leave=True, dynamic_ncols=True,
                bar_format=_BAR_FORMAT, initial=self.result.n_rows,
            )
            self._ticker = _Ticker(self._bar)
        self._rows_at_start = self.result.n_rows
        self._start = time.perf_counter()
        self._last_line = self._start
        self._lines_printed = False  # the plain-text lines: none yet
        self._closed: str | None = None
        self.observer = observer  # told of the start, every snapshot and the end
        if observer is not None:
            observer.started(self)

    def _print(self, text: str) -> None:
        print(f"distval: {text}", file=sys.stderr, flush=True)

    def feed(self, step: Step) -> None:
        """Record one step of a backend."""
        phase = self.timeline.phase() if self.timeline.marks else self._phase
        if step.where == "actors" and step.rows and phase in ("starting Ray", "actors starting"):
            phase = "actors"  # a resumed run's actors evaluate (no start marks to say so)
        if phase != self._phase:
            self._phase = phase
            if self._bar is not None:
                desc = f"{self.stream.name} ({phase})" if phase else self.stream.name
                self._bar.set_description_str(desc, refresh=False)
        self.snapshot(step.snapshot)
        self.advance(step.rows, step.where)
        if step.checkpoint is not None:
            self.save(step.checkpoint)

    def save(self, checkpoint: Checkpoint) -> None:
        """Write ``checkpoint`` (the state after every step so far) to the output directory."""
        if self.writer is None:
            return
        if checkpoint.rows != self.result.n_rows:
            raise RuntimeError(
                f"checkpoint at row {checkpoint.rows} after {self.result.n_rows} rows"
            )
        if self._unsaved:
            return
        try:
            self.writer.checkpoint(
                {
                    "checkpoint": checkpoint,
                    "config": self.config.to_dict(),
                    "evaluated_by": dict(self.result.evaluated_by),
                    "elapsed": self._before + time.perf_counter() - self._start,
                    "stream": self.fingerprint,
                }
            )
        except Unpicklable as exc:
            self._unsaved = True
            warnings.warn(
                f"this run's state cannot be saved for --resume: "
                f"{unpicklable(checkpoint.hosts) or exc}; the run goes on without "
                "checkpoints and cannot be resumed if interrupted (--checkpoint-seconds -1: "
                "none from the start)",
                DistvalWarning, stacklevel=2)

    def advance(self, n_rows: int, where: str = "driver") -> None:
        self.result.n_rows += n_rows
        if n_rows:
            counts = self.result.evaluated_by
            counts[where] = counts.get(where, 0) + n_rows
        if self._rows_done is not None and n_rows:
            self._rows_done(self.result.n_rows)
        if self._bar is not None:
            self._bar.update(n_rows)
        elif self._lines and n_rows:
            # the first line once the first rows are evaluated (their total, speed and the
            # time left; an error found at the start stays the only line), then one a period
            now = time.perf_counter()
            if not self._lines_printed or now - self._last_line >= self._line_seconds:
                self._last_line = now
                self._lines_printed = True
                self._print(self.progress_line(now - self._start))

    def _total(self) -> int | None:
        """The rows the run will evaluate, where known (the stream's, else ``--n-rows``)."""
        return self.stream.n_rows or self.config.n_rows

    def progress_line(self, seconds: float) -> str:
        """One plain-text progress line: rows, share, speed, the time left at this run's
        speed so far (rows evaluated since it started or resumed) and the live status."""
        done, total = self.result.n_rows, self._total()
        share = f" ({100 * done / total:.0f} %)" if total else ""
        of = f"/{total}" if total else ""
        speed = (done - self._rows_at_start) / seconds if seconds > 0 else 0.0
        left = ""
        if total and speed > 0 and done < total:
            left = f", about {_duration((total - done) / speed)} left"
        status = f"; {self._status}" if self._status else ""
        phase = f" ({self._phase})" if self._phase else ""
        return f"{done}{of} rows{share}, {speed:.0f} rows/s{left}{phase}{status}"

    def snapshot(self, snap: Snapshot | None) -> None:
        if snap is None:
            return
        self.result.add(snap)
        self.result.snapshot_seconds.append(time.perf_counter() - self._start)
        if self._bar is not None or self._lines:
            width = None
            if self._bar is not None:  # what the (short) bar leaves of the terminal
                columns = shutil.get_terminal_size((100, 24)).columns
                width = status_width(columns, self.stream.name, self.stream.n_rows)
            self._status = live_status(snap, self.config, width=width)
            if self._bar is not None:
                self._bar.set_postfix_str(self._status, refresh=False)
        if self.observer is not None:
            self.observer.snapshot(self, snap)

    def progress(self) -> Progress:
        """Where the run stands now (:class:`~distval.engine.observer.Progress`)."""
        elapsed = self.result.elapsed if self._closed else \
            self._before + time.perf_counter() - self._start
        phase = self.timeline.phase() if self.timeline.marks else self._phase
        return Progress(self.result.n_rows, self.stream.n_rows, elapsed, phase,
                        str(self.result.backend), dict(self.result.evaluated_by),
                        self._closed or "running")

    def close(self, *, interrupted: bool = False) -> EvaluationResult:
        self.result.elapsed = self._before + time.perf_counter() - self._start
        self.result.timeline = self.timeline.since(self._start)
        self.result.interrupted = interrupted
        self.result.classes = list(getattr(self.stream, "classes", None) or [])
        if self._ticker is not None:
            self._ticker.stop()
        if self._bar is not None:
            self._bar.close()
        if self.writer:
            self.writer.close(self.result, finished=not interrupted)
        self._closed = "interrupted" if interrupted else "finished"
        if self.observer is not None:
            self.observer.closed(self)
        return self.result


#: The progress line: the share and count of rows, the time elapsed and the time left (no
#: bar graphic), so that the status (the learners and the verdict) keeps most of an
#: 80-column terminal.
_BAR_FORMAT = "{desc}: {percentage:3.0f}% {n_fmt}/{total_fmt} [{elapsed}<{remaining}]{postfix}"


class _Ticker:
    """Redraws a tqdm bar every ``seconds`` from a daemon thread, so that its elapsed time
    and ETA move from the first second, also while no row has been evaluated yet (learners
    loading, a JVM or Ray starting) or a batch is slow."""

    def __init__(self, bar: Any, seconds: float = 1.0) -> None:
        self._bar, self._seconds = bar, seconds
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="distval-bar", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._done.wait(self._seconds):
            self._bar.refresh()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def _duration(seconds: float) -> str:
    """A time left in words: seconds under two minutes, minutes under two hours, else hours.

    >>> _duration(42.4), _duration(300), _duration(9000)
    ('42 s', '5.0 min', '2.5 h')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def status_width(columns: int, desc: str, total: int | None) -> int:
    """What :data:`_BAR_FORMAT` leaves for the status on a terminal ``columns`` wide.

    >>> status_width(80, "elec2", 45312)  # "elec2:  44% 20000/45312 [01:02<02:10], " is 39
    41
    """
    digits = len(str(total)) if total else 9
    return max(20, columns - len(desc) - (2 + 4 + 1 + 2 * digits + 1 + 14 + 2))


def live_status(snap: Snapshot, config: RunConfig, width: int | None = None) -> str:
    """A short status: the leader and its measure, the clearest verdict (its confidence
    sequence, valid under peeking; :func:`~distval.statistics.verdict.status_verdict`), the
    other learners and, for the most clearly different pair, the Wilcoxon (else sign) p-value
    and whom it favours; with ``--sequential``, the decision that stays valid when this line
    is watched. With a ``width`` it is too long for, every learner in short and the verdict
    without its sequence; then parts are dropped from the end until it fits.

    The numbers are those the verdict and the tests compare (:mod:`distval.engine.standing`):
    with two learners, each one's measure over the rows both were tested on (mean over folds
    of the paired windows); with more, the leader's over the rows it shares with the learner
    its verdict names and every other learner's *difference* to the leader over the rows
    those two share (``nb 91.2 % | ... | ht -3.1 pts vs nb``), each number with its unit
    (percent and points for a share or a κ, as the end-of-run tables). The leader is the
    learner the verdict shown puts ahead (without one, the learner ahead in most pairs).
    Each learner's mean over its own windows is shown only while no pair has paired values
    yet. Where the verdict and its pair's numbers disagree (the sequence covers every row,
    the paired windows the recent ones), the verdict comes first and the pair's numbers
    follow as ``recent paired windows favour nb: ...``: one leader, the verdict's, and the
    other side said in words.

    Without paired values (own windows):

    >>> import numpy as np
    >>> from distval.aggregator.snapshot import Snapshot
    >>> cfg = RunConfig(learners=("ht", "nb"), n_folds=2)
    >>> folds = {"learner": np.array(["ht", "ht", "nb", "nb"], dtype=object),
    ...          "forgetting": np.array(["adwin"] * 4, dtype=object),
    ...          "accuracy": np.array([0.9, 0.8, 0.7, 0.7])}
    >>> tests = {"test": np.array(["wilcoxon"], dtype=object),
    ...          "learner_a": np.array(["ht"], dtype=object),
    ...          "learner_b": np.array(["nb"], dtype=object), "pvalue": np.array([0.03]),
    ...          "favours": np.array(["ht"], dtype=object), "reject": np.array([False]),
    ...          "boundary": np.array([0.0012]), "anytime_valid": np.array([True])}
    >>> live_status(Snapshot(100, folds, tests), cfg)
    'own windows: ht 85.0 % nb 70.0 % | wilcoxon p 0.03 (ht)'
    >>> live_status(Snapshot(100, folds, tests), cfg, width=20)
    'own: ht 85% nb 70%'

    The same folds with paired windows, where nb is ahead over the rows both were tested on
    (ht's own windows covered other rows), and a verdict for nb:

    >>> from distval.columns import PAIRED_SCHEMA, VERDICT_SCHEMA, to_columns
    >>> paired = to_columns([{f: None for f in PAIRED_SCHEMA.names} | {"position": 100,
    ...     "learner_a": "ht", "learner_b": "nb", "fold": f, "value_a": 0.70, "value_b": 0.76}
    ...     for f in (0, 1)],
    ...     PAIRED_SCHEMA)
    >>> v = {f: None for f in VERDICT_SCHEMA.names} | {"position": 100, "learner_a": "ht",
    ...      "learner_b": "nb", "rows": 100, "mean": -0.06, "lower": -0.09, "upper": -0.03,
    ...      "decision": "B", "folds": 2, "folds_favouring": 2}
    >>> verdicts = to_columns([v], VERDICT_SCHEMA)
    >>> live_status(Snapshot(100, folds, {}, paired=paired, verdicts=verdicts), cfg)
    'nb>ht +6.0 pts over all rows (CS 3.0..9.0) | recent windows: nb 76.0 % ht 70.0 %'
    >>> live_status(Snapshot(100, folds, {}, paired=paired, verdicts=verdicts), cfg, width=30)
    'nb>ht +6.0 | nb 76% ht 70%'

    A verdict for ht over every row while the recent paired windows favour nb:

    >>> ht = to_columns([v | {"mean": 0.02, "lower": 0.01, "upper": 0.03, "decision": "A"}],
    ...                 VERDICT_SCHEMA)
    >>> live_status(Snapshot(100, folds, {}, paired=paired, verdicts=ht), cfg)
    'ht>nb +2.0 pts over all rows (CS 1.0..3.0) | recent windows favour nb: nb 76.0 % ht 70.0 %'

    >>> spend = RunConfig(learners=("ht", "nb"), n_folds=2, sequential="spending")
    >>> live_status(Snapshot(100, folds, tests), spend).split(" | ")[-1]
    'spending test: not yet (needs p <= 0.0012)'

    Until every fold has scored :data:`~distval.metrics.trackers.MIN_SCORED` rows (the first
    looks of a run whose labels come late), no number:

    >>> early = folds | {"forgetting": np.array(["cumulative"] * 4, dtype=object),
    ...                  "n": np.array([3, 1, 3, 1])}
    >>> live_status(Snapshot(100, early, tests), cfg)
    'waiting for labels: 1/30 rows scored in the sparsest fold'
    """
    scored = _fewest_scored(snap)
    if scored is not None and scored < MIN_SCORED:  # delayed labels: too few rows to show
        return f"waiting for labels: {scored}/{MIN_SCORED} rows scored in the sparsest fold"
    names = short_names(config.labels)
    verdicts = rows_of(snap.verdicts) if len(snap.verdicts) else []
    st = standing(snap.folds, snap.paired, verdicts, measure=config.measure,
                  forgetting=config.forgetting, task=config.task)
    values = st.values if st is not None else {}
    relative = st is not None and st.kind == "relative"
    disputed = st is not None and st.kind == "disputed"
    lead = next(iter(values), "")

    def number(k: str, v: float, short: bool = False) -> str:
        """The leader's value, the others' (or, relative, their difference to it), each with
        its unit (:func:`~distval.engine.standing.value_text`)."""
        difference = relative and k != lead
        text = value_text(v, config.measure, config.task, difference=difference, short=short)
        return f"{text} vs {names.get(lead, lead)}" if difference and not short else text

    shown = {names.get(k, k): number(k, v) for k, v in values.items()}
    closer = task_named(config.task).tested_measure(config.measure) == CLOSER
    verdict = status_verdict(verdicts, names, config.measure, closer) if verdicts else ""
    # every number with its basis: the verdict's all rows, then the windows' numbers, said
    recent = next(iter(values), "")
    same_rows = st is not None and st.same_rows
    label = ("own windows: " if not same_rows else
             f"recent windows favour {names.get(recent, recent)}: " if disputed else
             "recent windows: ")
    parts = [*([verdict] if verdict else []),
             label + " ".join(f"{n} {x}" for n, x in shown.items())] if shown else (
        [verdict] if verdict else [])
    tests = rows_of(snap.tests)
    best = None
    for name in ("wilcoxon", "sign"):
        rows = [t for t in tests if t["test"] == name and t["pvalue"] == t["pvalue"]]
        if rows:
            best = min(rows, key=lambda t: t["pvalue"])
            who = f" ({names.get(best['favours'], best['favours'])})" if best.get("favours") else ""
            pair = "" if len(rows) == 1 else f" {best['learner_a']}/{best['learner_b']}"
            parts.append(f"{name}{pair} p {p_text(best['pvalue'])}{who}")
            break
    valid = _valid_status(snap, config, best)
    if valid:
        parts.append(valid)
    out = " | ".join(parts)
    if width is not None and len(out) > width and len(values) > 1:
        # too long for the bar: every learner in short (leader first) and the verdict
        # without its sequence, before anything is dropped
        learners = " ".join(f"{names.get(k, k)} {number(k, v, short=True)}"
                            for k, v in values.items())
        brief = verdict.split(" (CS")[0].removesuffix(" over all rows").removesuffix(" pts")
        short_label = label if disputed else label.split(" ")[0] + ": "
        compact = [brief, short_label + learners] if verdict else [short_label + learners]
        if len(" | ".join(compact)) > width and not disputed:  # a narrow bar: the numbers
            compact = [brief, learners] if verdict else [learners]  # before their label
        if len(" | ".join(compact)) <= width or len(learners) <= width:
            parts = compact
            out = " | ".join(parts)
    while width is not None and len(out) > width and len(parts) > 1:
        parts.pop()
        out = " | ".join(parts)
    return out[:width] if width is not None else out


def _fewest_scored(snap: Snapshot) -> int | None:
    """The fewest rows a fold has scored (its cumulative ``n``), or None if not reported."""
    folds = snap.folds
    if "n" not in folds or "forgetting" not in folds:
        return None
    n = np.asarray(folds["n"], dtype=np.float64)[folds["forgetting"] == "cumulative"]
    return int(n.min()) if len(n) else None


def _valid_status(
    snap: Snapshot, config: RunConfig, shown: dict[str, Any] | None
) -> str | None:
    """The part of :func:`live_status` that gives the sequential decision: the alpha-spending
    test's decision on the test shown (rejected now, at an earlier check, or the p-value it
    needs), or the largest e-value of ``--sequential evalue``.

    >>> import numpy as np
    >>> from distval.aggregator.snapshot import Snapshot
    >>> cfg = RunConfig(learners=("ht", "nb"), n_folds=2, sequential="evalue")
    >>> rows = {"test": np.array(["sign_evalue"], dtype=object),
    ...         "learner_a": np.array(["ht"], dtype=object),
    ...         "learner_b": np.array(["nb"], dtype=object), "statistic": np.array([3.1]),
    ...         "reject": np.array([False]), "favours": np.array(["ht"], dtype=object)}
    >>> _valid_status(Snapshot(100, {}, rows), cfg, None)
    'e-value 3.1 (H0 rejected at 20, valid at any check)'
    """
    if config.sequential == "spending" and shown is not None and shown.get("anytime_valid"):
        limit = shown["boundary"]
        if shown["reject"] and not shown["pvalue"] <= limit:
            return "spending test: H0 rejected at an earlier check"
        if shown["reject"]:
            return f"spending test: H0 rejected (p <= {limit:.2g})"
        return f"spending test: not yet (needs p <= {limit:.2g})"
    rows = [t for t in rows_of(snap.tests) if t["test"] == "sign_evalue"]
    if config.sequential != "evalue" or not rows:
        return None
    top = max(rows, key=lambda t: t["statistic"])
    pair = "" if len(rows) == 1 else f" {top['learner_a']}/{top['learner_b']}"
    limit = 1 / config.alpha
    if top["reject"]:
        who = f" ({top['favours']})" if top.get("favours") else ""
        return f"e-value{pair} reached {limit:g}: H0 rejected, valid at any check{who}"
    return f"e-value{pair} {top['statistic']:.3g} (H0 rejected at {limit:g}, valid at any check)"
