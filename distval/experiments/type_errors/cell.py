"""One cell of the grid: one pass over a stream, every decision at every look.

A cell is one (stream, run, scheme). It runs two learners built by the same randomised
algorithm with different seeds, A and A' (learner indices 0 and 1 of one
:class:`~distval.learners.host.LearnerHost`), with the prequential routing (every fold tests
every row); the non-prequential variant is read off the same predictions through
:attr:`~distval.routing.validation.Assignment.held_out`. Per variant, A is compared with A' (no
change: a rejection is a type I error) and with A' passed through :func:`noise_filter`
(pnoise = 0.05, 0.10: a non-rejection is a type II error).

Each comparison is the evaluator's own: a :class:`~distval.statistics.comparison.PairComparison` per
(variant, change), fed the folds' accuracies over the rows they tested and the discordant
(row, fold) pairs, as the aggregator feeds it. At every look (``GridConfig.looks``, equally
spaced) it decides each test at fixed alpha and under O'Brien-Fleming alpha spending over
the stream's rows, and updates the settled-sign e-process (``sign_evalue``); the cell keeps
the decision of every look, so "ever rejected at any look" (what a user watching the live
results experiences) sits beside the decision at the end (bifet2015 Table 2's).

>>> from distval.experiments.type_errors.profiles import GridConfig
>>> cfg = GridConfig(streams=(("SEA(50)", "SEA(50)"),), n_rows=200, learner="majority",
...                  n_folds=4, looks=4, batch_size=100)
>>> cell = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "cv")
>>> cell["looks"]
[50, 100, 150, 200]
>>> sorted({r["test"] for r in cell["results"]})
['mcnemar', 'mcnemar_fold', 'mcnemar_row', 'sign', 'sign_evalue', 'wilcoxon']
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from distval.aggregator.settings import ComparisonSettings
from distval.errors import DistvalError
from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors.attnoise import AttributeNoise
from distval.experiments.type_errors.noise import label_noise, noise_filter, one_pair_per_row
from distval.experiments.type_errors.profiles import (
    REAL,
    SYNTHETIC,
    TESTS,
    GridConfig,
    open_real_stream,
    stream_rows,
)
from distval.experiments.type_errors.window import Tail
from distval.results.provenance import machine
from distval.routing.validation import SCHEMES
from distval.statistics.comparison import EVALUE_TEST, Outcome, PairComparison

__all__ = [
    "MCNEMAR_VARIANTS",
    "cell_key",
    "label_noise",
    "look_positions",
    "noise_filter",
    "one_pair_per_row",
    "run_cell",
]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def cell_key(stream: str, run: int, scheme: str) -> str:
    """The key of a cell in ``cells.jsonl``.

    >>> cell_key("SEA(50)", 3, "cv")
    'SEA(50)|3|cv'
    """
    return f"{stream}|{run}|{scheme}"


def look_positions(rows: int, looks: int) -> list[int]:
    """``looks`` positions equally spaced over ``rows`` (rounded up; at most one per row).

    >>> look_positions(3000, 20)[:3], look_positions(10, 20)[-1]
    ([150, 300, 450], 10)
    """
    return sorted({int(np.ceil(i * rows / looks)) for i in range(1, looks + 1)})


#: A number per scheme for the seeds of its cells: the index in the paper's order (what the
#: committed grids ran with), then the others. Fixed here, not taken from ``--schemes``, so
#: a cell's seeds follow from its key (stream, run, scheme) whatever schemes run beside it.
SCHEME_NUMBER = {s: i for i, s in enumerate(dict.fromkeys((*paper.SCHEMES, *SCHEMES)))}


def _seeds(seed: int, run: int, scheme: str) -> tuple[int, int, int, int]:
    """(stream, learners, folds, noise) seeds of a cell: the stream and the learners depend
    on the run only, so the three schemes of a run see the same rows and the same A, A';
    the folds and the noise on the run and the scheme's fixed :data:`SCHEME_NUMBER`.

    >>> split, cv = _seeds(1, 0, "split"), _seeds(1, 0, "cv")
    >>> split[:2] == cv[:2], split[2:] == cv[2:]
    (True, False)
    """
    scheme_index = SCHEME_NUMBER[scheme]
    ss = np.random.SeedSequence([seed, run])
    stream_seed, learner_seed = (int(v & 0x7FFFFFFF) for v in ss.generate_state(2))
    cs = np.random.SeedSequence([seed, run, 1000 + scheme_index])
    fold_seed, noise_seed = (int(v & 0x7FFFFFFF) for v in cs.generate_state(2))
    return stream_seed, learner_seed, fold_seed, noise_seed


class _Counts:
    """A cell's running counts. Axis 0: variant (0 non-prequential, 1 prequential); for B,
    axis 1: A' then A' through each noise filter; last axis: fold."""

    def __init__(self, n_folds: int, n_b: int) -> None:
        k = n_folds
        self.tested = np.zeros((2, k))
        self.hits_a = np.zeros((2, k))
        self.hits_b = np.zeros((2, n_b, k))
        self.n01 = np.zeros((2, n_b, k))  # A wrong, B right
        self.n10 = np.zeros((2, n_b, k))  # A right, B wrong
        # the same over one tested (row, fold) pair per row (one_pair_per_row)
        self.row01 = np.zeros((2, n_b))
        self.row10 = np.zeros((2, n_b))

    def add(self, ca: BoolArray, cb: BoolArray, masks: BoolArray, picks: BoolArray) -> None:
        """``ca`` (folds, rows) A right, ``cb`` (B variants, folds, rows) B right, ``masks``
        (variants, folds, rows) the (row, fold) pairs each variant tests, ``picks`` the
        same with one pair per row."""
        self.tested += masks.sum(axis=2)
        self.hits_a += (ca[None] & masks).sum(axis=2)
        m = masks[:, None]
        self.hits_b += (cb[None] & m).sum(axis=3)
        self.n01 += (~ca[None, None] & cb[None] & m).sum(axis=3)
        self.n10 += (ca[None, None] & ~cb[None] & m).sum(axis=3)
        p = picks[:, None]
        self.row01 += (~ca[None, None] & cb[None] & p).sum(axis=(2, 3))
        self.row10 += (ca[None, None] & ~cb[None] & p).sum(axis=(2, 3))

    def accuracies(self) -> tuple[FloatArray, FloatArray]:
        """Fold accuracies of A (variants, folds) and of B (variants, B variants, folds)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.hits_a / self.tested, self.hits_b / self.tested[:, None]


def _comparisons(config: GridConfig, planned: int | None) -> list[list[PairComparison]]:
    """One :class:`PairComparison` per (variant, change), built as the aggregator builds
    its own (:meth:`~distval.aggregator.settings.ComparisonSettings.comparison`); with ``planned``
    rows, alpha spending over them and the e-process too, else fixed alpha only."""
    settings = ComparisonSettings(
        tests=TESTS,
        alpha=config.alpha,
        sign_method=config.sign_method,
        sequential="none" if planned is None else "both",
    )
    return [
        [settings.comparison(config.n_folds, planned) for _ in range(1 + len(config.pnoise))]
        for _ in range(2)
    ]


def _compare(
    config: GridConfig,
    counts: _Counts,
    comparisons: list[list[PairComparison]],
    position: int,
) -> dict[tuple[int, int], list[Outcome]]:
    """Every (variant, change)'s outcomes at this look."""
    acc_a, acc_b = counts.accuracies()
    out = {}
    for v in range(2):
        for j in range(1 + len(config.pnoise)):
            n01, n10 = counts.n01[v, j], counts.n10[v, j]
            out[v, j] = comparisons[v][j].look(
                position, acc_a[v], acc_b[v, j], {"cumulative": (n01.sum(), n10.sum())},
                (n10, n01),
            )
    return out


def _rows(
    config: GridConfig, counts: _Counts, outcomes: dict[tuple[int, int], list[Outcome]]
) -> list[dict[str, Any]]:
    """Decision rows in the order of ``cells.jsonl``: per (variant, change) McNemar, sign,
    Wilcoxon (fixed alpha, as bifet2015 Table 2), then the e-process when it ran."""
    acc_a, acc_b = counts.accuracies()
    changes = (0.0, *config.pnoise)
    rows = []
    for (v, j), outs in outcomes.items():
        va, vb = acc_a[v], acc_b[v, j]
        ok = np.isfinite(va) & np.isfinite(vb)
        diff = (va - vb)[ok]
        common = {
            "prequential": bool(v),
            "pnoise": changes[j],
            "mean_a": float(va[ok].mean()) if ok.any() else float("nan"),
            "mean_b": float(vb[ok].mean()) if ok.any() else float("nan"),
            # spread of the fold differences, against which the change must show
            "sd_diff": float(diff.std(ddof=1)) if len(diff) > 1 else float("nan"),
        }
        # effect size: the mean fold difference in units of its spread over the folds
        sd = common["sd_diff"]
        common["d"] = float(diff.mean() / sd) if np.isfinite(sd) and sd > 0 else float("nan")
        by_test = {o.test: o for o in outs}
        for test in (*TESTS, EVALUE_TEST):
            o = by_test.get(test)
            if o is None and test == EVALUE_TEST:
                continue
            if o is None:  # no fold with values for both: no test
                rows.append(common | {"test": test, "reject": False, "pvalue": 1.0,
                                      "statistic": 0.0, "n": 0})
                continue
            rows.append(common | {"test": test, "reject": o.fixed, "pvalue": o.pvalue,
                                  "statistic": o.statistic, "n": o.n})
        rows += [common | r for r in _mcnemar_variants(config, counts, v, j)]
    return rows


#: McNemar's test as the folds' discordant pairs may be pooled (the paper does not say):
#: ``mcnemar`` counts every tested (row, fold) pair (a row counts up to k times, the counts
#: are correlated); ``mcnemar_row`` one tested pair per row, its fold drawn at random (for
#: non-prequential cv, the row's held-out fold, so the same as ``mcnemar``);
#: ``mcnemar_fold`` a chi-square per fold, summed, against chi-square with as many degrees
#: of freedom as folds with discordant pairs.
MCNEMAR_VARIANTS = ("mcnemar", "mcnemar_row", "mcnemar_fold")


def _mcnemar_variants(
    config: GridConfig, counts: _Counts, v: int, j: int
) -> list[dict[str, Any]]:
    """The decisions (end of stream, fixed alpha) of ``mcnemar_row`` and ``mcnemar_fold``."""
    from scipy import stats

    from distval.statistics.mcnemar import mcnemar

    out = []
    n01, n10 = float(counts.row01[v, j]), float(counts.row10[v, j])
    res = mcnemar(n01, n10, alpha=config.alpha)
    out.append({"test": "mcnemar_row", "reject": bool(res.reject), "pvalue": res.pvalue,
                "statistic": res.statistic, "n": int(n01 + n10)})
    f01, f10 = counts.n01[v, j], counts.n10[v, j]
    used = (f01 + f10) > 0
    chi = float(((f01 - f10)[used] ** 2 / (f01 + f10)[used]).sum())
    df = int(used.sum())
    p = float(stats.chi2.sf(chi, df)) if df else 1.0
    out.append({"test": "mcnemar_fold", "reject": p <= config.alpha, "pvalue": p,
                "statistic": chi, "n": df})
    return out


def _fixed_rows(config: GridConfig, counts: _Counts, position: int) -> list[dict[str, Any]]:
    """The fixed-alpha decisions a stream cut at ``position`` would give."""
    return _rows(config, counts, _compare(config, counts, _comparisons(config, None), position))


def _short(p: float) -> float:
    return float(f"{p:.4g}")


class _LookLog:
    """The decisions of every row at every look: p-values and, per rule, '0'/'1' strings."""

    def __init__(self) -> None:
        self.positions: list[int] = []
        self.boundaries: list[float] = []
        self.pvalues: dict[tuple[int, int, str], list[float]] = {}
        self.marks: dict[tuple[int, int, str, str], list[str]] = {}

    def record(self, position: int, outcomes: dict[tuple[int, int], list[Outcome]]) -> None:
        self.positions.append(position)
        for (v, j), outs in outcomes.items():
            for o in outs:
                self.pvalues.setdefault((v, j, o.test), []).append(_short(o.pvalue))
                rules = {"evalue": o.reject} if o.test == EVALUE_TEST else {
                    "fixed": o.fixed, "spending": o.reject}
                for rule, flag in rules.items():
                    self.marks.setdefault((v, j, o.test, rule), []).append("1" if flag else "0")
                if (v, j, o.test) == (0, 0, "mcnemar"):
                    self.boundaries.append(_short(o.boundary))

    def annotate(self, rows: list[dict[str, Any]], config: GridConfig) -> None:
        """Add the per-look fields to the final rows (same order as :func:`_rows`)."""
        changes = (0.0, *config.pnoise)
        for row in rows:
            v, j = int(row["prequential"]), changes.index(row["pnoise"])
            key = (v, j, row["test"])
            if key not in self.pvalues:
                continue
            decisions = {rule: "".join(marks) for (kv, kj, kt, rule), marks in self.marks.items()
                         if (kv, kj, kt) == key}
            row["pvalues"] = self.pvalues[key]
            row["decisions"] = decisions
            if row["test"] == EVALUE_TEST:
                row["ever_reject"] = "1" in decisions["evalue"]
            else:
                row["ever_reject"] = "1" in decisions["fixed"]
                row["spending_reject"] = decisions["spending"].endswith("1")


class _Pass:
    """The stream, learner hosts, fold routing and noise of one cell, and its batches as
    boolean arrays: A right (folds, rows), each B right (B variants, folds, rows), the
    (row, fold) pairs each variant tests (variants, folds, rows) and one of them per row.

    B variants: A' (no change), then one per pnoise: with ``noise_on="predictions"`` the
    filtered learner's predictions through :func:`noise_filter`; with ``"training"`` the
    filtered learner's seed trained on :func:`label_noise`'s labels (its own host) and
    scored on the clean labels."""

    def __init__(self, config: GridConfig, label: str, spec: str, run: int, scheme: str) -> None:
        from distval.learners import parse_learner
        from distval.learners.host import LearnerHost
        from distval.routing.validation import FoldAssigner, Validation

        self.config = config
        k = config.n_folds
        stream_seed, learner_seed, fold_seed, noise_seed = _seeds(config.seed, run, scheme)
        self.stream = open_cell_stream(config, label, spec, stream_seed)
        learner = parse_learner(config.learner)
        slots = [(i, f) for i in range(2) for f in range(k)]
        self.host = LearnerHost([learner, learner], slots, self.stream.feature_names,
                                seed=learner_seed)
        # the filtered learner: A (index 0) or A' (index 1), same seeds as in self.host
        filtered = 0 if config.noise_learner == "same" else 1
        self.noisy_hosts = [
            LearnerHost([learner, learner], [(filtered, f) for f in range(k)],
                        self.stream.feature_names, seed=learner_seed)
            for _ in config.pnoise
        ] if config.noise_on == "training" else []
        self.assigner = FoldAssigner(Validation(scheme, n_folds=k, prequential=True),
                                     seed=fold_seed)
        self.rng = np.random.default_rng(noise_seed)
        self.label_rngs = [np.random.default_rng([noise_seed, 2, j])
                           for j in range(len(config.pnoise))]
        self.pick_rng = np.random.default_rng([noise_seed, 1])
        nominal = [i for i, f in enumerate(self.stream.feature_names)
                   if f in getattr(self.stream, "nominal", {})]
        self.att_noise = [
            AttributeNoise(config.att_noise, len(self.stream.feature_names), nominal,
                           np.random.default_rng([noise_seed, 3, j]))
            for j in range(len(config.pnoise))
        ] if config.att_noise > 0 else []
        declared = getattr(self.stream, "n_classes", None)
        self.seen = [np.zeros(max(int(declared or 0), 2), dtype=bool) for _ in config.pnoise]
        #: Labels flipped by the training noise so far, per pnoise (a check on its rate).
        self.flips = [0] * len(config.pnoise)

    def _noisy_labels(self, j: int, y: npt.NDArray[Any]) -> npt.NDArray[Any]:
        top = int(y.max()) + 1 if len(y) else 0
        if top > len(self.seen[j]):  # a class beyond the declared ones
            self.seen[j] = np.concatenate([self.seen[j], np.zeros(top - len(self.seen[j]), bool)])
        noisy, flip = label_noise(y, self.config.pnoise[j], self.label_rngs[j], self.seen[j])
        self.flips[j] += int(flip.sum())
        return noisy.astype(y.dtype)

    def _noisy_x(self, j: int, X: FloatArray) -> FloatArray:
        return self.att_noise[j](X) if self.att_noise else X

    def batches(self) -> Iterator[tuple[BoolArray, BoolArray, BoolArray, BoolArray]]:
        from distval.learners.batch import Batch

        cfg, k = self.config, self.config.n_folds
        for chunk in self.stream.chunks(cfg.batch_size):
            a = self.assigner.assign(len(chunk.y))
            tested = np.ones_like(a.held_out)
            batch = Batch(chunk.start, chunk.X, chunk.y, a.weights, tested)
            pred = self.host.process(batch)  # (2k, rows)
            pa, pb = pred[:k], pred[k:]
            if cfg.noise_on == "training":
                changed = [
                    host.process(Batch(chunk.start, self._noisy_x(j, chunk.X),
                                       self._noisy_labels(j, chunk.y), a.weights, tested))
                    for j, host in enumerate(self.noisy_hosts)
                ]
            else:
                n_classes = max(len(self.stream.classes), 2)
                base = pa if cfg.noise_learner == "same" else pb
                changed = [noise_filter(base, p, n_classes, self.rng) for p in cfg.pnoise]
            bs = np.stack([pb, *changed])
            y = chunk.y[None, :]
            masks = np.stack([a.held_out.T, np.ones_like(a.held_out.T)])
            yield pa == y, bs == y[None], masks, one_pair_per_row(masks, self.pick_rng)


def open_cell_stream(config: GridConfig, label: str, spec: str, seed: int) -> Any:
    """The stream of a cell: a real file, or a generator whose drifts sit where a stream of
    ``config.drift_length`` rows has them (MOA's convention: fixed positions, the cell
    reads the first ``n_rows``), or, without ``drift_length``, relative to the rows read.

    >>> from distval.experiments.type_errors.profiles import GridConfig
    >>> cfg = GridConfig(streams=(("SEA(50)", "SEA(50)"),), n_rows=100, learner="majority",
    ...                  drift_length=1_000_000)
    >>> s = open_cell_stream(cfg, "SEA(50)", "SEA(50)", 1)
    >>> s.length, s.n_rows
    (1000000, 100)
    """
    from distval.streams import open_stream
    from distval.streams.synth import GeneratorStream

    if label in REAL:
        return open_real_stream(label, spec, n_rows=config.rows_of(spec))
    rows = config.rows_of(spec)
    if config.drift_length is not None and label in SYNTHETIC:
        length = max(config.drift_length, rows or 0)
        return GeneratorStream(spec, n=length, seed=seed, limit=rows, name=label)
    return open_stream(spec, n_rows=rows, seed=seed)


def run_cell(
    config: GridConfig,
    label: str,
    spec: str,
    run: int,
    scheme: str,
    checkpoints: tuple[int, ...] = (),
) -> dict[str, Any]:
    """One pass over a stream: the decisions of every (variant, change, test) of a cell.

    Returns a JSON-ready dict with ``key``, ``stream``, ``run``, ``scheme``, ``seconds``
    (wall time of the pass), ``cpu_seconds`` (CPU time of the pass), ``machine`` (the
    machine that ran it: :func:`~distval.results.provenance.machine`), ``n_rows``,
    ``n_classes``, ``looks`` (the look positions), ``boundaries`` (the spending p-value limit
    at each look) and ``results``: one dict per (prequential, pnoise, test) with ``reject``
    (fixed alpha, at the end), ``pvalue``, ``statistic``, ``n``, ``mean_a`` and ``mean_b``
    (mean fold accuracies), ``sd_diff`` (standard deviation of the fold accuracy
    differences A - B), ``pvalues`` (at each look), ``decisions`` (per rule a '0'/'1' string,
    one character per look), ``ever_reject`` (fixed alpha at any look) and
    ``spending_reject``; the ``sign_evalue`` rows are the e-process (``reject`` at the end,
    which is also ``ever_reject``). With ``checkpoints`` (row counts that are multiples of
    ``config.batch_size``), ``at`` maps each one reached to the fixed decisions a stream cut
    there would give: one pass serves several stream lengths.
    """
    t0, c0 = time.perf_counter(), time.process_time()
    cell = _Pass(config, label, spec, run, scheme)
    planned = stream_rows(config, label, spec)
    looks = look_positions(planned, config.looks)
    comparisons = _comparisons(config, planned)
    counts = _Counts(config.n_folds, 1 + len(config.pnoise))
    log = _LookLog()
    n = 0
    last: dict[tuple[int, int], list[Outcome]] = {}
    at: dict[str, list[dict[str, Any]]] = {}
    tail = Tail(config.window) if config.window else None
    for ca, cb, masks, picks in cell.batches():
        rows = ca.shape[1]
        if tail is not None:
            tail.add(ca, cb, masks, picks)
        cuts = [p - n for p in looks if n < p < n + rows]
        for lo, hi in zip([0, *cuts], [*cuts, rows]):
            counts.add(ca[:, lo:hi], cb[:, :, lo:hi], masks[:, :, lo:hi], picks[:, :, lo:hi])
            if n + hi in looks:
                last = _compare(config, counts, comparisons, n + hi)
                log.record(n + hi, last)
        n += rows
        if n in checkpoints:
            at[str(n)] = _fixed_rows(config, counts, n)
    if n == 0:
        raise DistvalError(f"stream {label} has no rows")
    if not log.positions or log.positions[-1] != n:  # a stream shorter than planned
        last = _compare(config, counts, comparisons, n)
        log.record(n, last)
    results = _rows(config, counts, last)
    log.annotate(results, config)
    out: dict[str, Any] = {
        "key": cell_key(label, run, scheme),
        "stream": label,
        "run": run,
        "scheme": scheme,
        "n_rows": n,
        "n_classes": len(cell.stream.classes),
        "pid": os.getpid(),  # the worker that ran it (a grid on Ray spreads over many)
        "machine": machine(),  # where its CPU seconds were spent
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0,
        "looks": log.positions,
        "boundaries": log.boundaries,
        "results": results,
    }
    if config.noise_on == "training":
        out["label_flips"] = cell.flips
    if checkpoints:
        out["at"] = at
    if tail is not None:
        window = _Counts(config.n_folds, 1 + len(config.pnoise))
        window.add(*tail.trimmed())
        out["window"] = _fixed_rows(config, window, n)
    return out
