"""A run's results in memory: the time series, the final snapshot, the summary and its tables.

One type for every task: what differs (the fold measures, the baselines, the units) the
result asks its run's task (:mod:`distval.tasks`; ``res.task``).
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from distval.aggregator.snapshot import Snapshot
from distval.columns import Columns, concat, rows_of, select
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.results.answer import Answer, answer_tables, cost_table, render_text
from distval.results.compact import verdict_block, wrap
from distval.results.cost import cost_summary
from distval.results.reader import SavedRun
from distval.results.schema import TEST_SCHEMA, columns_of, finite_or_none, schemas_of, table
from distval.results.series import Series, TimeSeries
from distval.results.summary import (
    Block,
    label_note,
    measured,
    measures_block,
    q_block,
    tests_block,
)
from distval.results.tables import markdown_table, text_table
from distval.results.writer import ResultWriter
from distval.statistics.sequential import first_rejections
from distval.statistics.verdict import short_names, twin_line
from distval.tasks import Task, task_named

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["EvaluationResult"]


@dataclass
class EvaluationResult:
    """What a run produced: the time series, the final snapshot and a summary.

    ``folds()`` and ``tests()`` return pandas DataFrames of the whole time series;
    ``final_folds()`` the last position only; ``summary()`` a JSON-ready dict.

    The result itself keeps the last snapshot and a few running aggregates (drift detections
    per learner, what the null twin's rules decided), so its memory does not grow with the
    stream; the time series goes to its ``series`` (:mod:`distval.results.series`): the
    results directory of a run that writes one (``folds()`` and the others read it back
    from there), else compact Arrow columns in memory, which grow by O(checks).
    """

    config: RunConfig
    classes: list[str] = field(default_factory=list)
    n_rows: int = 0
    elapsed: float = 0.0
    #: Where every snapshot goes: memory (a :class:`TimeSeries`) or the results directory.
    series: Series = field(default_factory=TimeSeries, repr=False, compare=False)
    #: The number of snapshots (checks) added.
    checks: int = 0
    snapshot_seconds: list[float] = field(default_factory=list)  # wall time of each snapshot
    final: Snapshot | None = None
    interrupted: bool = False
    output_dir: Path | None = None
    #: Rows evaluated by each part of the backend: ``driver`` (this process) and ``actors``.
    evaluated_by: dict[str, int] = field(default_factory=dict)
    #: The backend that ran: "inprocess" or "ray" (None: not known).
    backend: str | None = None
    #: When the run's phases began, seconds since its start (:class:`distval.engine.run.Timeline`).
    timeline: dict[str, float] = field(default_factory=dict)
    #: Drift detections so far per learner and detector.
    detections: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The stream's name as the run opened it (the default run's: elec2).
    stream_name: str = ""
    _twin: _TwinRules = field(
        default_factory=lambda: _TwinRules(), init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        if isinstance(self.series, TimeSeries) and self.series.schemas is not self._schemas:
            self.series.schemas = self._schemas  # the task's fold table

    @property
    def task(self) -> Task:
        """The run's task (``res.task.name``: classification or regression)."""
        return task_named(self.config.task)

    @property
    def _schemas(self) -> dict[str, Any]:
        return schemas_of(self.task)

    def add(self, snapshot: Snapshot) -> None:
        """Take one check's snapshot: the new final one, appended to the time series."""
        self.series.append(snapshot)
        self.final = snapshot
        self.checks += 1
        events = snapshot.events
        if len(events.get("learner", ())):
            for learner, detector in zip(events["learner"].tolist(), events["detector"].tolist()):
                per = self.detections.setdefault(learner, {})
                per[detector] = per.get(detector, 0) + 1
        if self.config.twin_pair is not None:
            self._twin.add(snapshot, self.config.twin_pair)

    def _columns(self, table_name: str) -> Columns:
        """One table of the whole time series so far, as columns."""
        return columns_of(self.series.table(table_name))

    @property
    def fold_rows(self) -> list[dict[str, Any]]:
        """Every fold row so far as a dict (``folds()`` is the same as a DataFrame)."""
        return rows_of(self._columns("folds"))

    @property
    def test_rows(self) -> list[dict[str, Any]]:
        """Every test row so far as a dict (``tests()`` is the same as a DataFrame)."""
        return rows_of(self._columns("tests"))

    @property
    def q_rows(self) -> list[dict[str, Any]]:
        """Every Q row so far as a dict (``q()`` is the same as a DataFrame)."""
        return rows_of(self._columns("q"))

    def save(
        self, directory: str | os.PathLike[str], extra: dict[str, Any] | None = None
    ) -> None:
        """Write this result (e.g. one computed in another process) as a results directory.

        ``extra`` is merged into ``config.json``.
        """
        writer = ResultWriter(directory, overwrite=True, schemas=self._schemas,
                              optional=self.task.optional_tables)
        writer.write_config(self.config, extra)
        writer.append(
            Snapshot(
                self.n_rows,
                self._columns("folds"),
                self._columns("tests"),
                events=self._columns("events"),
                q=self._columns("q"),
                paired=self._columns("paired"),
                verdicts=self._columns("verdicts"),
                cost=self._columns("cost"),
            )
        )
        writer.close(self)

    # Repeat kept: one property per table, alike in shape by design.
    def folds(self) -> pd.DataFrame:
        return self.series.table("folds").to_pandas()

    def tests(self) -> pd.DataFrame:
        return self.series.table("tests").to_pandas()

    def q(self) -> pd.DataFrame:
        """The Q statistic of every pair over time (cumulative, window, fading)."""
        return self.series.table("q").to_pandas()

    def events(self) -> pd.DataFrame:
        return self.series.table("events").to_pandas()

    def paired(self) -> pd.DataFrame:
        """Every pair's paired windows per fold over time (:data:`PAIRED_SCHEMA`)."""
        return self.series.table("paired").to_pandas()

    def verdicts(self) -> pd.DataFrame:
        """Every pair's confidence sequence, decision and verdict line over time."""
        return self.series.table("verdicts").to_pandas()

    def cost(self) -> pd.DataFrame:
        """What each learner and fold cost at every test position (:mod:`distval.results.cost`)."""
        return self.series.table("cost").to_pandas()

    def final_folds(self) -> pd.DataFrame:
        return table([self.final.folds] if self.final else [],
                     self.task.fold_schema).to_pandas()

    def final_tests(self) -> pd.DataFrame:
        return table([self.final.tests] if self.final else [], TEST_SCHEMA).to_pandas()

    def summary(self) -> dict[str, Any]:
        """Mean and standard deviation over folds of the final measures, and final tests."""
        learners: dict[str, dict[str, dict[str, dict[str, float | None]]]] = {}
        final = self.final.folds if self.final else concat([], self.task.fold_schema)
        for label in self.config.labels:
            per_forgetting: dict[str, dict[str, dict[str, float | None]]] = {}
            for kind in dict.fromkeys(final["forgetting"].tolist()):
                sel = (final["learner"] == label) & (final["forgetting"] == kind)
                stats_: dict[str, dict[str, float | None]] = {}
                for m in measured(self.config):
                    v = final[m][sel].astype(float)
                    v = v[np.isfinite(v)]
                    stats_[m] = {
                        "mean": finite_or_none(float(v.mean())) if len(v) else None,
                        "std": finite_or_none(float(v.std(ddof=1))) if len(v) > 1 else None,
                    }
                per_forgetting[kind] = stats_
            learners[label] = per_forgetting
        return {
            "task": self.task.name,
            "rows": self.n_rows,
            "elapsed_seconds": round(self.elapsed, 3),
            "rows_per_second": round(self.n_rows / self.elapsed, 1) if self.elapsed else None,
            "interrupted": self.interrupted,
            "interrupted_at": self.n_rows if self.interrupted else None,
            "evaluated_by": dict(self.evaluated_by),
            "backend": self.backend,
            "timeline": dict(self.timeline),
            "classes": self.classes,
            "config": self.config.to_dict(),
            "learners": learners,
            "tests": [
                {k: finite_or_none(v) for k, v in t.items()}
                for t in (rows_of(self.final.tests) if self.final else [])
            ],
            "q": [
                {k: finite_or_none(v) for k, v in t.items()}
                for t in (rows_of(self.final.q) if self.final else [])
            ],
            "friedman": self.final.friedman if self.final else None,
            "detections": self._detection_counts(),
            "verdicts": [
                {k: finite_or_none(v) for k, v in t.items()}
                for t in (rows_of(self.final.verdicts) if self.final else [])
            ],
            "null_twin": self._null_twin(),
            "baseline": self.task.baseline(learners, short_names(self.config.labels)),
            "cost": cost_summary(self.series.table("cost")),
        }

    def _null_twin(self) -> dict[str, Any] | None:
        """What every rule decided for the pair (learner, its null twin): at the last look
        and at any look (what someone watching the checks would have acted on)."""
        pair = self.config.twin_pair
        if pair is None or not self.checks:
            return None
        a, b = pair
        rules = self._twin.rules()
        decided = [
            (r["rule"], r["at_any_look"] if r["anytime_valid"] else r["at_end"]) for r in rules
        ]
        identical = self._twin.identical
        line = twin_line(a, b, decided, self.config.alpha, identical=identical)
        peeked = [r["rule"] for r in rules if not r["anytime_valid"] and r["at_any_look"]]
        if peeked and not identical:
            line += (
                f"; at some look, {', '.join(peeked)} (fixed-alpha, not valid under peeking) "
                "rejected"
            )
        return {"pair": [a, b], "identical": identical, "rules": rules, "line": line}

    def _detection_counts(self) -> dict[str, dict[str, int]]:
        return {learner: dict(per) for learner, per in self.detections.items()}

    def answer(self) -> Answer:
        """The run's answer (:class:`~distval.results.answer.Answer`): what every surface
        renders."""
        return Answer.build(self.summary(), self.final.paired if self.final else None,
                            short_names(self.config.labels))

    def _blocks(self) -> list[Block]:
        """The summary as (caption, columns, rows, alignment) tables, for every renderer."""
        s = self.summary()
        blocks = [*answer_tables(self.answer(), learners=False),
                  measures_block(s["learners"], self.config.forgetting, self.task)]
        if s["tests"]:
            first = (first_rejections(self.tests()) if self.config.sequential == "spending"
                     else None)
            blocks.append(tests_block(s["tests"], self.config.alpha, self.config.sequential,
                                      first, self.task))
        if s["q"]:
            blocks.append(q_block(s["q"]))
        cost = cost_table(self.answer())
        if cost is not None:
            blocks.append(cost)
        return blocks

    def _title(self) -> str:
        cfg = self.config
        head = f"{cfg.n_folds}-fold {cfg.scheme}{' prequential' if cfg.prequential else ''}"
        cut = f" (interrupted at row {self.n_rows})" if self.interrupted else ""
        task = f", {self.task.title_word}" if self.task.title_word else ""
        stream = self.stream_name or cfg.stream_text or "elec2"
        return (f"distval: {stream}{task}, {head}, {self.n_rows} rows{label_note(cfg)}{cut}")

    def _footer(self) -> list[str]:
        s = self.summary()
        lines = [
            f"{self.n_rows} rows in {self.elapsed:.1f} s ({s['rows_per_second'] or 0:.0f} rows/s)."
        ]
        by = self.evaluated_by
        if self.backend == "ray" or "actors" in by:
            parts = [f"{by[k]} by the {'driver' if k == 'driver' else 'Ray actors'}" for k in by]
            lines.append("Rows evaluated: " + (", ".join(parts) or "none") + ".")
            if not by.get("actors"):
                lines.append(
                    "Ray's actors evaluated no row: the driver finished the stream while they "
                    "started, so this ran in-process (a job this short gains nothing from Ray)."
                )
        return lines

    def _verdict_lines(self, width: int = 100) -> list[str]:
        """The verdict block of the end-of-run print (none with fewer than two learners)."""
        s = self.summary()
        base = [s["baseline"]["line"]] if s.get("baseline") else []
        if not s["verdicts"]:
            return [line for b in base for line in wrap(b, width, "")]
        n_pairs = len(s["verdicts"])
        twin = [s["null_twin"]["line"]] if s["null_twin"] else []
        prices = self.answer().prices()
        return verdict_block(s["verdicts"], self.config.alpha, n_pairs, width,
                             prices + twin + base,
                             self.config.measure, self.task.loss)

    def to_markdown(self) -> str:
        """The verdicts, the final measures and test decisions as Markdown tables."""
        lines = [f"## {self._title()}", ""]
        s = self.summary()
        if s["verdicts"] or s.get("baseline"):
            lines += ["Verdicts:", ""]
            lines += [f"- {v['line']}" for v in s["verdicts"]]
            lines += [f"- {line}" for line in self.answer().prices()]
            if s["null_twin"]:
                lines.append(f"- {s['null_twin']['line']}")
            if s.get("baseline"):
                lines.append(f"- {s['baseline']['line']}")
            lines.append("")
        for caption, cols, rows, align in self._blocks():
            lines += [caption, "", markdown_table(cols, rows, align), ""]
        lines += self._footer()
        return "\n".join(lines) + "\n"

    def to_text(self, verbose: bool = False, width: int = 100) -> str:
        """The end-of-run print for a terminal: the verdict lines and compact measures tables
        (what the verdicts compare, on the same rows, first; then each learner's own
        windows: :func:`~distval.results.compact.compact_tables`), the sentences wrapped at
        word boundaries to ``width`` columns (the terminal's, at most 100); ``verbose`` adds
        every measure and every test row (aligned plain-text tables, as wide as they need).

        >>> res = EvaluationResult(RunConfig(learners=("nb",), n_folds=2), n_rows=0)
        >>> print(res.to_text().splitlines()[0])
        distval: elec2, 2-fold bootstrap prequential, 0 rows
        """
        lines = [*textwrap.wrap(self._title(), width), ""]
        verdicts = self._verdict_lines(width)
        if verdicts:
            lines += [*verdicts, ""]
        if verbose:
            for caption, cols, rows, align in self._blocks():
                lines += [caption.replace("`", ""), text_table(cols, rows, align), ""]
        else:
            s = self.summary()
            answer = self.answer()
            lines += render_text(answer_tables(answer, short=True), width)
            if s["tests"]:
                lines.append("Every test row: --verbose, or summary.md in the results.")
        lines += [part for line in self._footer() for part in textwrap.wrap(line, width)]
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        """A short summary: rows, the final measure per learner (over all rows, and over its
        own windows), the verdicts and the baseline line."""
        cfg, task = self.config, self.task
        lines = [f"<EvaluationResult {self._title().removeprefix('distval: ')}>"]
        answer = self.answer()
        word = task.word(cfg.measure)
        for x in answer.learners:
            every, own = x.all_rows.get(cfg.measure), x.own.get(cfg.measure)
            parts = [f"{n.text(task)} over all rows" for n in (every,) if n and n.known]
            if cfg.forgetting != "cumulative" and own is not None and own.known:
                parts.append(f"{own.text(task)} over its own {cfg.forgetting} window")
            if parts:
                lines.append(f"  {x.label}: {word} {', '.join(parts)}")
        s = self.summary()
        for v in s["verdicts"]:
            lines.append(f"  {v['line']}")
        if s.get("baseline"):
            lines.append(f"  {s['baseline']['line']}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The result in Jupyter: verdicts, measures, a figure (distval.results.notebook)."""
        from distval.results.notebook import result_html

        return result_html(self)

    def plot(self, measure: str | None = None) -> Figure:
        """The common figure: ``measure`` (default the run's) under the run's forgetting over
        time, the mean over folds per learner with the min–max range of the folds, in the
        units the text prints it (a share in percent: :meth:`Task.scale`, :meth:`Task.axis`);
        a matplotlib Figure (``distval report`` draws the full set).

        >>> import distval
        >>> res = distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"),
        ...                        n_folds=2, test_every=200)
        >>> [line.get_label() for line in res.plot().axes[0].get_lines()]
        ['nb', 'majority']
        """
        from matplotlib.figure import Figure

        measure = measure or self.config.measure
        if measure not in measured(self.config):
            choices = ", ".join(measured(self.config))
            raise DistvalError(f"unknown measure {measure!r}; choose one of {choices}")
        df = self.folds()
        df = df[df["forgetting"] == self.config.forgetting]
        fig = Figure(figsize=(8, 4.2), layout="constrained")
        ax = fig.add_subplot()
        styles = ["-", "--", "-.", ":"]
        scale = self.task.scale(measure)
        for i, label in enumerate(self.config.labels):
            g = df[df["learner"] == label].groupby("position")[measure]
            if not len(g):
                continue
            x = np.asarray(g.mean().index)
            ax.plot(x, scale * g.mean().to_numpy(), ls=styles[i % 4], lw=1.8, label=label)
            ax.fill_between(x, scale * g.min().to_numpy(), scale * g.max().to_numpy(),
                            alpha=0.15)
        ax.set_xlabel("stream position (rows)")
        ax.set_ylabel(f"{self.task.axis(measure)}, {self.config.forgetting}")
        ax.grid(alpha=0.3)
        ax.legend(loc="best", fontsize="small", ncol=1 + len(self.config.labels) // 6)
        return fig

    def saved(self) -> SavedRun:
        """This result as a :class:`SavedRun` (what ``load_results`` gives for a directory)."""
        folds = self.folds()
        return SavedRun(
            self.output_dir or Path("."),
            self.config.to_dict(),
            folds,
            self.tests(),
            self.summary(),
            q=self.q(),
            events=self.events(),
            paired=self.paired(),
            verdicts=self.verdicts(),
        )


class _TwinRules:
    """What every rule decided so far for the null twin's pair, kept as it goes (a few
    values per rule, not the time series): per test its last row and whether it ever
    rejected; the confidence sequence's last decision and whether it ever decided."""

    def __init__(self) -> None:
        self.last_position: int | None = None
        # test -> [anytime_valid, reject, position] of its last row, rejected at any look
        self.tests: dict[str, tuple[bool, bool, int, bool]] = {}
        self.verdict: tuple[bool, bool] | None = None  # (decided at the end, at any look)
        self.identical = False

    def add(self, snapshot: Snapshot, pair: tuple[str, str]) -> None:
        both = (pair, pair[::-1])
        tests = snapshot.tests
        if len(tests.get("test", ())):
            ab = zip(tests["learner_a"].tolist(), tests["learner_b"].tolist())
            mask = np.array([p in both for p in ab], dtype=bool)
            for t in rows_of(select(tests, mask)):
                name, position, reject = t["test"], int(t["position"]), bool(t["reject"])
                ever = reject or (name in self.tests and self.tests[name][3])
                self.tests[name] = (bool(t["anytime_valid"]), reject, position, ever)
                self.last_position = max(position, self.last_position or position)
                if name == "mcnemar":
                    self.identical = not t["discordant_pairs"]
        verdicts = snapshot.verdicts
        if len(verdicts.get("decision", ())):
            ab = zip(verdicts["learner_a"].tolist(), verdicts["learner_b"].tolist())
            for p, decision in zip(ab, verdicts["decision"].tolist()):
                if p in both:
                    ever = self.verdict is not None and self.verdict[1]
                    now = decision != "undecided"
                    self.verdict = (now, now or ever)

    def rules(self) -> list[dict[str, Any]]:
        """Each rule: its name, whether it is valid under peeking, and whether it decided at
        the end and at any look."""
        rules: list[dict[str, Any]] = []
        if self.verdict is not None:
            rules.append({
                "rule": "confidence sequence",
                "anytime_valid": True,
                "at_end": self.verdict[0],
                "at_any_look": self.verdict[1],
            })
        for name, (valid, reject, position, ever) in self.tests.items():
            rules.append({
                "rule": name,
                "anytime_valid": valid,
                "at_end": reject and position == self.last_position,
                "at_any_look": ever,
            })
        return rules
