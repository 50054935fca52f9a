"""A run's results in memory: the time series, the final snapshot, the summary and its tables."""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from distval.aggregator import Snapshot
from distval.columns import Columns, concat, rows_of, select
from distval.config import RunConfig
from distval.errors import DistvalError
from distval.metrics import MEASURES, PROBA_MEASURES
from distval.results.compact import (
    baseline,
    compact_measures,
    label_words,
    verdict_block,
    wrap,
)
from distval.results.reader import SavedRun
from distval.results.schema import (
    FOLD_SCHEMA,
    SUMMARY_MEASURES,
    TEST_SCHEMA,
    columns_of,
    finite_or_none,
    table,
)
from distval.results.series import Series, TimeSeries
from distval.results.tables import markdown_table, text_table
from distval.results.writer import ResultWriter
from distval.verdict import short_names, twin_line

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["EvaluationResult"]

#: A summary table: (caption, columns, rows, alignment), drawn by every renderer.
Block = tuple[str, list[str], list[list[str]], str]


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
    #: When the run's phases began, seconds since its start (:class:`distval.engine.Timeline`).
    timeline: dict[str, float] = field(default_factory=dict)
    #: Drift detections so far per learner and detector.
    detections: dict[str, dict[str, int]] = field(default_factory=dict)
    _twin: _TwinRules = field(
        default_factory=lambda: _TwinRules(), init=False, repr=False, compare=False
    )

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
        writer = ResultWriter(directory, overwrite=True)
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
            )
        )
        writer.close(self)

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

    def final_folds(self) -> pd.DataFrame:
        return table([self.final.folds] if self.final else [], FOLD_SCHEMA).to_pandas()

    def final_tests(self) -> pd.DataFrame:
        return table([self.final.tests] if self.final else [], TEST_SCHEMA).to_pandas()

    def summary(self) -> dict[str, Any]:
        """Mean and standard deviation over folds of the final measures, and final tests."""
        learners: dict[str, dict[str, dict[str, dict[str, float | None]]]] = {}
        final = self.final.folds if self.final else concat([], FOLD_SCHEMA)
        for label in self.config.labels:
            per_forgetting: dict[str, dict[str, dict[str, float | None]]] = {}
            for kind in dict.fromkeys(final["forgetting"].tolist()):
                sel = (final["learner"] == label) & (final["forgetting"] == kind)
                stats_: dict[str, dict[str, float | None]] = {}
                for m in _measured(self.config):
                    v = final[m][sel].astype(float)
                    v = v[np.isfinite(v)]
                    stats_[m] = {
                        "mean": finite_or_none(float(v.mean())) if len(v) else None,
                        "std": finite_or_none(float(v.std(ddof=1))) if len(v) > 1 else None,
                    }
                per_forgetting[kind] = stats_
            learners[label] = per_forgetting
        return {
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
            "baseline": baseline(learners, short_names(self.config.labels)),
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

    def _blocks(self) -> list[Block]:
        """The summary as (caption, columns, rows, alignment) tables, for every renderer."""
        s = self.summary()
        blocks = [_measures_block(s["learners"], self.config.forgetting)]
        if s["tests"]:
            blocks.append(_tests_block(s["tests"], self.config.alpha, self.config.sequential))
        if s["q"]:
            blocks.append(_q_block(s["q"]))
        return blocks

    def _title(self) -> str:
        cfg = self.config
        head = f"{cfg.n_folds}-fold {cfg.scheme}{' prequential' if cfg.prequential else ''}"
        cut = f" (interrupted at row {self.n_rows})" if self.interrupted else ""
        return f"distval: {cfg.stream or 'elec2'}, {head}, {self.n_rows} rows{_labels(cfg)}{cut}"

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
        return verdict_block(s["verdicts"], self.config.alpha, n_pairs, width, twin + base,
                             self.config.measure)

    def to_markdown(self) -> str:
        """The verdicts, the final measures and test decisions as Markdown tables."""
        lines = [f"## {self._title()}", ""]
        s = self.summary()
        if s["verdicts"] or s.get("baseline"):
            lines += ["Verdicts:", ""]
            lines += [f"- {v['line']}" for v in s["verdicts"]]
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
        """The end-of-run print for a terminal: the verdict lines and a compact measures
        table, the sentences wrapped at word boundaries to ``width`` columns (the terminal's,
        at most 100); ``verbose`` adds every measure and every test row (aligned plain-text
        tables, as wide as they need).

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
            fg = self.config.forgetting
            lines += [
                *textwrap.wrap(_measures_caption(fg, "(%, mean ±sd over folds)"), width),
                compact_measures(
                    s["learners"], fg, short_names(self.config.labels), self.config.measure
                ),
                "",
            ]
            if s["tests"]:
                lines.append("Every test row: --verbose, or summary.md in the results.")
        lines += [part for line in self._footer() for part in textwrap.wrap(line, width)]
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        """A short summary: rows, the final measure per learner (over all rows, and over its
        own windows), the verdicts and the baseline line."""
        cfg = self.config
        lines = [f"<EvaluationResult {self._title().removeprefix('distval: ')}>"]
        final = self.final.folds if self.final else concat([], FOLD_SCHEMA)
        def mean(label: str, kind: str) -> float | None:
            sel = (final["learner"] == label) & (final["forgetting"] == kind)
            v = final[cfg.measure][sel].astype(float)
            v = v[v == v]
            return float(np.mean(v)) if len(v) else None

        for label in cfg.labels:
            own, every = mean(label, cfg.forgetting), mean(label, "cumulative")
            parts = [f"{x:.4f} over all rows" for x in (every,) if x is not None]
            if cfg.forgetting != "cumulative" and own is not None:
                parts.append(f"{own:.4f} over its own {cfg.forgetting} windows")
            if parts:
                lines.append(f"  {label}: {cfg.measure} {', '.join(parts)}")
        s = self.summary()
        for v in s["verdicts"]:
            lines.append(f"  {v['line']}")
        if s.get("baseline"):
            lines.append(f"  {s['baseline']['line']}")
        return "\n".join(lines)

    def plot(self, measure: str | None = None) -> Figure:
        """The common figure: ``measure`` (default the run's) under the run's forgetting over
        time, the mean over folds per learner with the min–max range of the folds; a
        matplotlib Figure (``distval report`` draws the full set).

        >>> import distval
        >>> res = distval.evaluate(stream="sea", n_rows=600, learners=("nb", "majority"),
        ...                        n_folds=2, test_every=200)
        >>> [line.get_label() for line in res.plot().axes[0].get_lines()]
        ['nb', 'majority']
        """
        from matplotlib.figure import Figure

        measure = measure or self.config.measure
        if measure not in _measured(self.config):
            choices = ", ".join(_measured(self.config))
            raise DistvalError(f"unknown measure {measure!r}; choose one of {choices}")
        df = self.folds()
        df = df[df["forgetting"] == self.config.forgetting]
        fig = Figure(figsize=(8, 4.2), layout="constrained")
        ax = fig.add_subplot()
        styles = ["-", "--", "-.", ":"]
        for i, label in enumerate(self.config.labels):
            g = df[df["learner"] == label].groupby("position")[measure]
            if not len(g):
                continue
            x = np.asarray(g.mean().index)
            ax.plot(x, g.mean().to_numpy(), ls=styles[i % 4], lw=1.8, label=label)
            ax.fill_between(x, g.min().to_numpy(), g.max().to_numpy(), alpha=0.15)
        ax.set_xlabel("stream position (rows)")
        ax.set_ylabel(f"{measure} ({self.config.forgetting})")
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


def _mean_sd(d: dict[str, float | None]) -> str:
    if d["mean"] is None:
        return "–"
    return f"{d['mean']:.4f}" + (f" ± {d['std']:.4f}" if d["std"] is not None else "")


def _num(v: float | None, spec: str = ".4g") -> str:
    return "–" if v is None else format(v, spec)


def _pvalue(p: float | None) -> str:
    """A p-value for a table, never ``0``.

    >>> _pvalue(0.0), _pvalue(0.01234567)
    ('< 1e-16', '0.01235')
    """
    return "–" if p is None else ("< 1e-16" if p < 1e-16 else format(p, ".4g"))


def _measures_block(learners: dict[str, Any], kind: str) -> Block:
    """The final measures under ``kind`` forgetting, with the cumulative accuracy."""
    rows = []
    for label, per in learners.items():
        if not per:
            continue
        main = per.get(kind, {})
        cum = per.get("cumulative", main)
        shown = [*SUMMARY_MEASURES, *(m for m in PROBA_MEASURES if m in main)]
        cells = [_mean_sd(main[m]) for m in shown] if main else []
        rows.append([label, *cells, _mean_sd(cum["accuracy"])])
    first: dict[str, Any] = next(
        (per[kind] for per in learners.values() if per.get(kind)), {}
    )
    shown = [*SUMMARY_MEASURES, *(m for m in PROBA_MEASURES if m in first)]
    return (
        _measures_caption(kind, "(mean ± sd over folds)", "`"),
        ["learner", *shown, "accuracy (cumulative)"],
        rows,
        "l" + "r" * (len(shown) + 1),
    )


def _measures_caption(kind: str, units: str, quote: str = "") -> str:
    """What a measures table covers: under a forgetting mechanism each learner's own windows
    (which may hold other rows than another learner's: the verdicts compare on the same
    rows); cumulative: every row each fold tested.

    >>> _measures_caption("cumulative", "(%)").split(": ")[1]
    'each learner over every row its folds tested; last column'
    """
    if kind == "cumulative":
        return (f"Measures at the end {units} under {quote}cumulative{quote} forgetting: each "
                "learner over every row its folds tested; last column: the same.")
    return (
        f"Measures at the end {units} under {quote}{kind}{quote} forgetting: each learner "
        "over its own windows, so two learners' values may cover different rows and need not "
        "agree with the verdicts, which compare them on the same rows; last column: "
        "accuracy over all rows."
    )


def _measured(cfg: RunConfig) -> tuple[str, ...]:
    """The fold measures a run has: the probabilistic ones only when it asked for one."""
    return MEASURES + PROBA_MEASURES if cfg.measure in PROBA_MEASURES else MEASURES


#: What the decisions of each ``--sequential`` rule mean, for the summary and the report.
SEQUENTIAL_NOTES = {
    "none": "Each decision is a fixed-alpha test at this check: watching the checks and "
    "stopping at the first rejection errs more often than alpha (--sequential spending or "
    "evalue give decisions that stay valid).",
    "spending": "Decisions valid under peeking: each test's p-value met the alpha-spending "
    "limit of its check (Lan-DeMets; 'p limit' at the last check) at some check so far.",
    "evalue": "sign_evalue and wilcoxon_evalue are valid at every check (e-processes over "
    "the folds' settled signs and settling-order ranks; the statistic is the e-value, H0 "
    "rejected once it reaches 1/alpha, the p-value 1/largest e-value); the other rows are "
    "fixed-alpha tests at this check.",
}


def _tests_block(tests: list[dict[str, Any]], alpha: float, sequential: str = "none") -> Block:
    """The final test decisions and what each compared; with ``--sequential``, which
    decisions stay valid when the checks are watched and the p-value limit each used."""
    watched = sequential != "none"
    adjusted = _across_pairs(tests, alpha)
    rows = []
    for i, t in enumerate(tests):
        compared = f"{t['measure']}, {t['forgetting']}" if t.get("measure") else "–"
        if t["test"] in ("sign", "wilcoxon"):
            compared += ", paired"
        digits = ".4f" if t.get("measure") != "errors" else ".6g"
        row = [
            t["learner_a"],
            t["learner_b"],
            t["test"],
            compared,
            _num(t["value_a"], digits),
            _num(t["value_b"], digits),
            _num(t["statistic"]),
            _num(t["pvalue"]),
            "yes" if t["reject"] else "no",
        ]
        if watched:
            row += ["yes" if t.get("anytime_valid") else "no", _num(t.get("boundary"), ".3g")]
        if adjusted is not None:
            row.append(adjusted[i])
        row[7] = _pvalue(t["pvalue"])
        rows.append([*row, t.get("favours") or "–"])
    cols = ["A", "B", "test", "compares", "A", "B", "statistic", "p-value", "reject H0"]
    if watched:
        cols += ["valid under peeking", "p limit"]
    if adjusted is not None:
        cols.append("across pairs")
    caption = (
        f"Tests (alpha = {alpha}): sign and Wilcoxon across folds on the paired windows (per "
        "fold, both learners over the rows it tested with both); McNemar on the errors of "
        "the (row, fold) pairs both learners tested. Values: the compared quantity of A and "
        "B. " + SEQUENTIAL_NOTES[sequential if watched else "none"]
    )
    if adjusted is not None:
        caption += (
            " 'across pairs': the decision corrected for the number of pairs, Holm's "
            "procedure on each test's p-values (family-wise error) and e-BH on the e-values "
            "(false discovery rate)."
        )
    align = "llllrrrrl" + ("lr" if watched else "") + ("l" if adjusted is not None else "")
    return caption, [*cols, "favours"], rows, align + "l"


def _across_pairs(tests: list[dict[str, Any]], alpha: float) -> list[str] | None:
    """With several learner pairs, each test row's decision after Holm (p-values) or e-BH
    (e-values, the ``*_evalue`` rows) across the pairs; None with one pair.

    >>> rows = [{"test": "wilcoxon", "learner_a": a, "pvalue": p, "statistic": 0.0}
    ...         for a, p in (("x", 0.01), ("y", 0.04))]
    >>> _across_pairs(rows, 0.05)
    ['Holm: yes', 'Holm: yes']
    """
    from distval.multiplicity import e_bh, holm

    pairs = {(t["learner_a"], t.get("learner_b")) for t in tests if t["learner_a"] != "*"}
    if len(pairs) < 2:
        return None
    out = ["–"] * len(tests)
    for name in dict.fromkeys(t["test"] for t in tests):
        idx = [i for i, t in enumerate(tests) if t["test"] == name and t["learner_a"] != "*"]
        if name.endswith("_evalue"):
            decided = e_bh([tests[i]["statistic"] for i in idx], alpha)
            label = "e-BH"
        else:
            decided = holm([tests[i]["pvalue"] for i in idx], alpha)
            label = "Holm"
        for i, d in zip(idx, decided.tolist()):
            out[i] = f"{label}: {'yes' if d else 'no'}"
    return out


def _q_block(q_rows: list[dict[str, Any]]) -> Block:
    """The final Q statistic of every pair."""
    rows = [
        [
            q["learner_a"],
            q["learner_b"],
            q["forgetting"],
            _num(q["q"], "+.4f"),
            _num(q["errors_a"], ".6g"),
            _num(q["errors_b"], ".6g"),
            q.get("favours") or "–",
        ]
        for q in q_rows
    ]
    return (
        "Q statistic log(errors A / errors B) (gama2013; negative favours A):",
        ["A", "B", "forgetting", "Q", "errors A", "errors B", "favours"],
        rows,
        "lllrrrl",
    )


def _labels(cfg: RunConfig) -> str:
    """How labels reached the learners, for a title (:func:`label_words`).

    >>> _labels(RunConfig(delay=500, label_probability=0.1))
    ', labels 500 rows late, 10 % revealed'
    >>> _labels(RunConfig(delay="30min", delay_column="time"))
    ", labels 1800 s late (by 'time')"
    """
    d = cfg.to_dict()
    return label_words(d.get("delay"), d.get("label_probability"), d.get("delay_column"))
