"""Type I / type II error grid of bifet2015 §4.1 (Tables 2, 3, 4; DESIGN.md §5).

A *cell* is one (stream, run, scheme). One pass over the stream, with the prequential
routing (every fold tests every row), runs two learners built by the same randomised
algorithm with different seeds, A and A' (learner indices 0 and 1 of one
:class:`~distval.learners.host.LearnerHost`, so :func:`~distval.learners.make_replicas` seeds their
replicas apart). Training does not depend on the variant, so the non-prequential variant
is read off the same predictions through :attr:`~distval.validation.Assignment.held_out`.
Three comparisons are made per variant, all with A as the first learner:

* *no change*: A against A' -- a rejection is a type I error;
* *change, pnoise*: A against A' passed through :func:`noise_filter` (pnoise = 0.05, 0.10)
  -- a non-rejection is a type II error. The noisy learner costs no training.

The fold values of the Sign and Wilcoxon tests are the folds' accuracies over the rows they
tested; McNemar's counts are the discordant (row, fold) pairs summed over folds, as the
evaluator's aggregator counts them. The decision is the one at the end of the stream.

Finished cells are appended to ``cells.jsonl`` at once, so an interrupted grid resumes
without recomputing them; cells run as Ray tasks (one CPU each) or in this process.

Example
-------
>>> from distval.experiments.type_errors import GridConfig, run_grid
>>> cfg = GridConfig(streams=(("SEA(50)", "SEA(50)"),), runs=1, n_rows=200,
...                  learner="distval.experiments.type_errors:bagged_ht(n_models=2)",
...                  schemes=("cv",))
>>> result = run_grid(cfg, backend="inprocess", progress=False)
>>> sorted(result.cells["scheme"].unique())
['cv']
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from distval.errors import DistvalError
from distval.evaluation import check_backend
from distval.experiments import bifet2015 as paper
from distval.results import claim_output

__all__ = [
    "ENSEMBLE",
    "PROFILES",
    "SYNTHETIC",
    "TESTS",
    "GridConfig",
    "GridResult",
    "Progress",
    "Projection",
    "bagged_ht",
    "cell_key",
    "make_grid",
    "measured_costs",
    "noise_filter",
    "open_real_stream",
    "project",
    "read_cells",
    "run_cell",
    "run_grid",
]

#: The ten synthetic configurations of bifet2015 §4.1 (specs of :mod:`distval.streams.synth`).
SYNTHETIC = paper.PAPER_STREAMS[3:]
#: Real streams read from a user-given file: (label, option name, where to get it).
REAL = {
    "CovType": ("--covtype", "UCI covtype.data.gz or MOA covtypeNorm.arff"),
    "Poker": ("--poker", "UCI poker-hand-*.data or MOA poker-lsn.arff"),
}
TESTS = paper.TESTS

#: Size of the ``standard`` profile: 11 streams x 10 runs x 3 schemes = 330 cells of 50,000
#: rows, about 90 minutes on two idle cores by the measured costs below.
STANDARD_RUNS = 10
STANDARD_ROWS = 50_000

#: Measured CPU-seconds per 1,000 rows of one cell (one pass, both learners, 10 folds, mean
#: over bootstrap, cv and split) of :data:`ENSEMBLE` at 50,000 rows: the first 36 cells of
#: benchmarks/results/type-errors-standard, on this project's 2-core machine under a load
#: average of 5-27 (so possibly above an idle machine's). :func:`project` uses it when no
#: finished cell of the grid is at hand; CovType and Poker, never measured, borrow the
#: dearest stream's cost (``COST_SOURCE``).
REFERENCE_COST = {
    "Electricity": 0.40,
    "LED(50000)": 2.58,
    "SEA(50)": 0.26,
    "SEA(50000)": 0.27,
    "HYP(10,0.001)": 0.67,
    "HYP(10,0.0001)": 0.54,
    "RBF(0,0)": 0.72,
    "RBF(50,0.001)": 0.72,
    "RBF(10,0.001)": 0.63,
    "RBF(50,0.0001)": 0.65,
    "RBF(10,0.0001)": 0.66,
}
COST_SOURCE = {"CovType": "LED(50000)", "Poker": "LED(50000)"}
#: Rows of the real streams when read whole (UCI / MOA files).
REAL_ROWS = {"Electricity": 45_312, "CovType": 581_012, "Poker": 829_201}

#: The randomised tree ensemble of the ``standard`` and ``paper`` profiles: MOA's online
#: bagging of ten Hoeffding trees. Two seeds of it differ the way two random forests do
#: (each tree sees Poisson(1) copies of every row). Measured at 20,000 rows (one cv cell):
#: 4-12x less CPU than MOA's AdaptiveRandomForest with ten trees (Electricity 10.4 vs 57.0,
#: LED(50000) 30.7 vs 124.5, SEA(50) 2.1 vs 26.0 CPU-s), which would not fit 50,000 rows
#: x 10 runs in 90 minutes on two cores (benchmarks/results/type-errors-standard/README.md).
ENSEMBLE = "moa:meta.OzaBag -l trees.HoeffdingTree -s 10"

#: Profiles: runs per stream, rows per stream (None = whole stream) and learner.
#: ``standard`` is sized to about 90 minutes on two idle cores (measured CPU seconds per
#: cell); ``paper`` follows bifet2015 §4.1 (50 runs, 10 folds, a randomised tree ensemble);
#: the paper does not state the synthetic stream length, 1,000,000 rows is assumed.
PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        "runs": 5,
        "n_rows": 3000,
        "learner": "distval.experiments.type_errors:bagged_ht(n_models=2, grace_period=100)",
    },
    "standard": {"runs": STANDARD_RUNS, "n_rows": STANDARD_ROWS, "learner": ENSEMBLE},
    "paper": {"runs": 50, "n_rows": None, "synthetic_rows": 1_000_000, "learner": ENSEMBLE},
}


def bagged_ht(n_models: int = 2, seed: int | None = None, **tree_params: Any) -> Any:
    """A cheap randomised tree ensemble: online bagging of Hoeffding trees.

    Oza's online bagging (river ``ensemble.BaggingClassifier``) trains each tree on
    Poisson(1) copies of every row, so two ensembles with different ``seed`` differ the way
    two random forests do, at a fraction of ARF's cost (no feature sampling, no drift
    detectors). It is the ``quick`` profile's learner.

    >>> m = bagged_ht(n_models=2, seed=3, grace_period=50)
    >>> type(m).__name__, m.seed, len(m)
    ('BaggingClassifier', 3, 2)
    """
    from river import ensemble, tree

    return ensemble.BaggingClassifier(
        tree.HoeffdingTreeClassifier(**tree_params), n_models=n_models, seed=seed
    )


# --------------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class GridConfig:
    """The grid of one experiment: streams x runs x schemes (x variants x tests x changes).

    ``streams`` holds (label, spec) pairs; ``spec`` is anything :func:`open_stream` takes.
    ``n_rows`` caps every stream (None: whole files, ``synthetic_rows`` for generators).
    """

    streams: tuple[tuple[str, str], ...]
    runs: int = 5
    n_rows: int | None = 3000
    synthetic_rows: int = 1_000_000
    learner: str = PROFILES["quick"]["learner"]
    schemes: tuple[str, ...] = paper.SCHEMES
    n_folds: int = 10
    alpha: float = 0.05
    pnoise: tuple[float, ...] = (0.05, 0.10)
    sign_method: str = "exact"
    seed: int = 1
    batch_size: int = 500
    #: Which learner the noise filter wraps: ``"other"`` compares A with noise(A') (the
    #: change then holds the seed-to-seed difference too), ``"same"`` A with noise(A).
    noise_on: str = "other"

    def __post_init__(self) -> None:
        from distval.learners import parse_learner
        from distval.validation import SCHEMES

        if not self.streams:
            raise DistvalError("no stream to evaluate")
        if self.runs < 1:
            raise DistvalError(f"--runs must be at least 1, got {self.runs}")
        if self.n_rows is not None and self.n_rows < 10:
            raise DistvalError(f"--n-rows must be at least 10, got {self.n_rows}")
        bad = [s for s in self.schemes if s not in SCHEMES]
        if bad or not self.schemes:
            raise DistvalError(f"unknown scheme(s) {bad}; choose among {', '.join(SCHEMES)}")
        if not 0 < self.alpha < 1:
            raise DistvalError(f"alpha must be in (0, 1), got {self.alpha}")
        if any(not 0 < p < 1 for p in self.pnoise):
            raise DistvalError(f"pnoise values must be in (0, 1), got {self.pnoise}")
        if self.n_folds < 2:
            raise DistvalError(f"at least 2 folds are needed, got {self.n_folds}")
        if self.noise_on not in ("other", "same"):
            raise DistvalError(f"noise_on must be 'other' or 'same', got {self.noise_on!r}")
        try:
            parse_learner(self.learner).build()
        except DistvalError:
            raise
        except Exception as exc:
            raise DistvalError(f"learner {self.learner!r}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["streams"] = [list(s) for s in self.streams]
        d["schemes"] = list(self.schemes)
        d["pnoise"] = list(self.pnoise)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GridConfig:
        """The inverse of :meth:`to_dict` (e.g. a ``grid.json``); missing keys take defaults.

        >>> g = make_grid("quick", streams=["SEA(50)"])
        >>> GridConfig.from_dict(json.loads(json.dumps(g.to_dict()))) == g
        True
        """
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise DistvalError(f"unknown grid setting(s) {unknown}")
        kw = dict(d)
        kw["streams"] = tuple((str(a), str(b)) for a, b in d["streams"])
        for key in ("schemes", "pnoise"):
            if key in kw:
                kw[key] = tuple(kw[key])
        return cls(**kw)

    def rows_of(self, spec: str) -> int | None:
        """Row cap of a stream: ``n_rows``, or ``synthetic_rows`` for an uncapped generator."""
        if self.n_rows is not None:
            return self.n_rows
        from distval.streams.open import BUNDLED, FILE_EXTENSIONS

        is_file = spec.lower() in BUNDLED or any(spec.lower().endswith(e) for e in FILE_EXTENSIONS)
        return None if is_file else self.synthetic_rows


def open_real_stream(label: str, path: str | Path | None, n_rows: int | None = None) -> Any:
    """Open CoverType or Poker from the file a user gives (CSV/.data, Parquet or ARFF).

    The label must be the last column, as in the UCI and MOA distributions. A missing path
    or file ends with one clear :class:`DistvalError` naming the option and the source.

    >>> open_real_stream("CovType", None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: CovType is not bundled: give --covtype PATH (UCI ...
    """
    from distval.streams import open_stream

    option, source = REAL[label]
    if path is None:
        raise DistvalError(f"{label} is not bundled: give {option} PATH ({source})")
    path = Path(path)
    if not path.is_file():
        raise DistvalError(f"{option}: no such file: {path} ({label}: {source})")
    stream = open_stream(str(path), n_rows=n_rows)
    if len(stream.feature_names) < 1:
        raise DistvalError(f"{option}: {path} has no feature column")
    return stream


def make_grid(
    profile: str = "quick",
    *,
    streams: list[str] | None = None,
    covtype: str | Path | None = None,
    poker: str | Path | None = None,
    **overrides: Any,
) -> GridConfig:
    """A :class:`GridConfig` from a profile, optional stream selection and overrides.

    ``streams`` (labels among Electricity, CovType, Poker and the synthetic specs of
    :data:`SYNTHETIC`; default all) selects streams; CovType and Poker are included only
    when their file is given (an explicit request without a file is an error).

    >>> g = make_grid("quick", streams=["SEA(50)", "Electricity"], runs=2)
    >>> [label for label, _ in g.streams], g.runs, g.n_rows
    (['Electricity', 'SEA(50)'], 2, 3000)
    """
    if profile not in PROFILES:
        raise DistvalError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    settings = dict(PROFILES[profile])
    settings.update({k: v for k, v in overrides.items() if v is not None})
    files = {"CovType": covtype, "Poker": poker}
    wanted = list(paper.PAPER_STREAMS) if streams is None else list(streams)
    known = {s.lower().replace(" ", ""): s for s in paper.PAPER_STREAMS}
    known["elec2"] = "Electricity"
    chosen = []
    for name in wanted:
        label = known.get(name.lower().replace(" ", ""))
        if label is None:
            raise DistvalError(
                f"unknown stream {name!r}; choose among {', '.join(paper.PAPER_STREAMS)}"
            )
        if label in files:
            if files[label] is None:
                if streams is not None:
                    open_real_stream(label, None)  # raises the clear message
                continue
            open_real_stream(label, files[label], n_rows=1)  # fail early on a bad file
            chosen.append((label, str(Path(str(files[label])).resolve())))
        elif label == "Electricity":
            chosen.append((label, "elec2"))
        else:
            chosen.append((label, label))
    order = {s: i for i, s in enumerate(paper.PAPER_STREAMS)}
    chosen.sort(key=lambda pair: order[pair[0]])
    return GridConfig(streams=tuple(dict.fromkeys(chosen)), **settings)


# --------------------------------------------------------------------------------------------
# One cell


def noise_filter(
    pred: np.ndarray, pnoise: float, n_classes: int, rng: np.random.Generator
) -> np.ndarray:
    """Replace each prediction, with probability ``pnoise``, by one of the other classes.

    The replacement is uniform over the ``n_classes - 1`` other classes (DESIGN.md §5), so
    a learner of accuracy p0 becomes one of accuracy
    ``p0 (1 - pnoise) + (1 - p0) pnoise / (c - 1)`` (bifet2015 §4.1 derives the same kind
    of formula). Entries of -1 (not tested) stay -1.

    >>> rng = np.random.default_rng(0)
    >>> out = noise_filter(np.zeros(10_000, dtype=np.int32), 0.1, 3, rng)
    >>> round(float((out != 0).mean()), 2), sorted(np.unique(out).tolist())
    (0.1, [0, 1, 2])
    """
    pred = np.asarray(pred)
    if n_classes < 2:
        return np.array(pred, copy=True)
    flip = (rng.random(pred.shape) < pnoise) & (pred >= 0)
    shift = rng.integers(1, n_classes, size=pred.shape)
    return np.where(flip, (pred + shift) % n_classes, pred).astype(pred.dtype)


def cell_key(stream: str, run: int, scheme: str) -> str:
    return f"{stream}|{run}|{scheme}"


def _seeds(seed: int, run: int, scheme_index: int) -> tuple[int, int, int, int]:
    """(stream, learners, folds, noise) seeds of a cell: the stream and the learners depend
    on the run only, so the three schemes of a run see the same rows and the same A, A'."""
    ss = np.random.SeedSequence([seed, run])
    stream_seed, learner_seed = (int(v & 0x7FFFFFFF) for v in ss.generate_state(2))
    cs = np.random.SeedSequence([seed, run, 1000 + scheme_index])
    fold_seed, noise_seed = (int(v & 0x7FFFFFFF) for v in cs.generate_state(2))
    return stream_seed, learner_seed, fold_seed, noise_seed


def _decide(
    config: GridConfig,
    tested: np.ndarray,
    hits_a: np.ndarray,
    hits_b: np.ndarray,
    n01: np.ndarray,
    n10: np.ndarray,
) -> list[dict[str, Any]]:
    """The decisions of every (variant, change, test) from a cell's accumulated counts."""
    from distval import stats

    with np.errstate(invalid="ignore", divide="ignore"):
        acc_a = hits_a / tested
        acc_b = hits_b / tested[:, None]
    results = []
    changes = (0.0, *config.pnoise)
    for v, prequential in enumerate((False, True)):
        for j, change in enumerate(changes):
            va, vb = acc_a[v], acc_b[v, j]
            ok = np.isfinite(va) & np.isfinite(vb)
            diff = (va - vb)[ok]
            common = {
                "prequential": prequential,
                "pnoise": change,
                "mean_a": float(va[ok].mean()) if ok.any() else float("nan"),
                "mean_b": float(vb[ok].mean()) if ok.any() else float("nan"),
                # spread of the fold differences, against which the change must show
                "sd_diff": float(diff.std(ddof=1)) if len(diff) > 1 else float("nan"),
            }
            outcomes = {
                "mcnemar": stats.mcnemar(n01[v, j], n10[v, j], alpha=config.alpha),
                "sign": stats.sign_test(
                    va[ok], vb[ok], alpha=config.alpha, method=config.sign_method
                )
                if ok.any()
                else None,
                "wilcoxon": stats.wilcoxon(va[ok], vb[ok], alpha=config.alpha)
                if ok.any()
                else None,
            }
            for test, r in outcomes.items():
                row = common | {"test": test}
                if r is None:
                    row |= {"reject": False, "pvalue": 1.0, "statistic": 0.0, "n": 0}
                else:
                    row |= {
                        "reject": bool(r.reject),
                        "pvalue": float(r.pvalue),
                        "statistic": float(r.statistic),
                        "n": int(r.n),
                    }
                results.append(row)
    return results


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
    (wall time of the pass), ``cpu_seconds`` (CPU time of the pass), ``n_rows``,
    ``n_classes`` and ``results``: one dict per (prequential, pnoise, test) with ``reject``,
    ``pvalue``, ``statistic``, ``n``, ``mean_a`` and ``mean_b`` (mean fold accuracies) and
    ``sd_diff`` (standard deviation of the fold accuracy differences A - B). With
    ``checkpoints`` (row counts that are multiples of ``config.batch_size``), ``at`` maps
    each one reached to the decisions a stream cut there would give: one pass serves
    several stream lengths.
    """
    from distval.learners import parse_learner
    from distval.learners.host import Batch, LearnerHost
    from distval.streams import open_stream
    from distval.validation import FoldAssigner, Validation

    t0, c0 = time.perf_counter(), time.process_time()
    k = config.n_folds
    stream_seed, learner_seed, fold_seed, noise_seed = _seeds(
        config.seed, run, config.schemes.index(scheme) if scheme in config.schemes else 0
    )
    if label in REAL:
        stream = open_real_stream(label, spec, n_rows=config.rows_of(spec))
    else:
        stream = open_stream(spec, n_rows=config.rows_of(spec), seed=stream_seed)
    learner = parse_learner(config.learner)
    slots = [(i, f) for i in range(2) for f in range(k)]
    host = LearnerHost([learner, learner], slots, stream.feature_names, seed=learner_seed)
    assigner = FoldAssigner(Validation(scheme, n_folds=k, prequential=True), seed=fold_seed)
    rng = np.random.default_rng(noise_seed)
    n_b = 1 + len(config.pnoise)
    # Accumulators, axis 0 = variant (0 non-prequential, 1 prequential), axis 1 = B variant.
    tested = np.zeros((2, k))
    hits_a = np.zeros((2, k))
    hits_b = np.zeros((2, n_b, k))
    n01 = np.zeros((2, n_b))
    n10 = np.zeros((2, n_b))
    n = 0
    at: dict[str, list[dict[str, Any]]] = {}
    for chunk in stream.chunks(config.batch_size):
        a = assigner.assign(len(chunk.y))
        batch = Batch(chunk.start, chunk.X, chunk.y, a.weights, np.ones_like(a.held_out))
        pred = host.process(batch)  # (2k, rows)
        n_classes = max(len(stream.classes), 2)
        pa, pb = pred[:k], pred[k:]
        base = pa if config.noise_on == "same" else pb
        bs = np.stack([pb] + [noise_filter(base, p, n_classes, rng) for p in config.pnoise])
        y = chunk.y[None, :]
        ca = pa == y  # (k, rows)
        cb = bs == y[None]  # (n_b, k, rows)
        masks = np.stack([a.held_out.T, np.ones_like(a.held_out.T)])  # (2, k, rows)
        tested += masks.sum(axis=2)
        hits_a += (ca[None] & masks).sum(axis=2)
        m = masks[:, None]  # (2, 1, k, rows)
        hits_b += (cb[None] & m).sum(axis=3)
        n01 += (~ca[None, None] & cb[None] & m).sum(axis=(2, 3))
        n10 += (ca[None, None] & ~cb[None] & m).sum(axis=(2, 3))
        n += len(chunk.y)
        if n in checkpoints:
            at[str(n)] = _decide(config, tested, hits_a, hits_b, n01, n10)
    if n == 0:
        raise DistvalError(f"stream {label} has no rows")
    results = _decide(config, tested, hits_a, hits_b, n01, n10)
    out: dict[str, Any] = {
        "key": cell_key(label, run, scheme),
        "stream": label,
        "run": run,
        "scheme": scheme,
        "n_rows": n,
        "n_classes": len(stream.classes),
        "seconds": time.perf_counter() - t0,
        "cpu_seconds": time.process_time() - c0,
        "results": results,
    }
    if checkpoints:
        out["at"] = at
    return out


# --------------------------------------------------------------------------------------------
# The grid


@dataclass
class GridResult:
    """Outcome of a grid: per-cell decisions and the tables beside the paper's values."""

    config: GridConfig
    cells: pd.DataFrame
    decisions: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    output_dir: Path | None = None

    def to_markdown(self) -> str:
        return _markdown(self)


def _read_cells(path: Path) -> list[dict[str, Any]]:
    cells = []
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line:
                continue
            try:
                cells.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut by an interruption: that cell runs again
    return cells


#: The files a grid writes into its output directory.
GRID_FILES = (
    "grid.json",
    "cells.jsonl",
    "table2.csv",
    "table3.csv",
    "table4.csv",
    "decisions.csv",
    "tables.md",
    "type_errors.png",
)


#: Notes that may sit beside a grid's files (a committed result's README) without making
#: the directory "another run's"; never deleted, even by ``overwrite``.
GRID_NOTES = ("README.md",)


def _prepare_dir(config: GridConfig, output_dir: Path, overwrite: bool) -> Path:
    # with overwrite, foreign files are allowed anyway and only GRID_FILES are deleted
    owned = GRID_FILES if overwrite else GRID_FILES + GRID_NOTES
    claim_output(output_dir, owned, overwrite=overwrite, resumable=True)
    cfg_path, cells_path = output_dir / "grid.json", output_dir / "cells.jsonl"
    wanted = config.to_dict()
    if cfg_path.exists() and not overwrite:
        defaults = {f.name: f.default for f in fields(GridConfig) if f.name == "noise_on"}
        stored = defaults | json.loads(cfg_path.read_text())
        # cells are keyed by (stream, run, scheme) and their seeds depend on the run only,
        # so a grid may be resumed with more (or fewer) runs or streams
        free = ("streams", "runs")
        same = {k: v for k, v in stored.items() if k not in free} == {
            k: v for k, v in wanted.items() if k not in free
        }
        if not same:
            raise DistvalError(
                f"{output_dir} holds a grid with other settings; use another --output "
                "or --overwrite to start again"
            )
    cfg_path.write_text(json.dumps(wanted, indent=2))
    return cells_path


def run_grid(
    config: GridConfig,
    *,
    output_dir: str | Path | None = None,
    overwrite: bool = False,
    backend: str = "inprocess",
    address: str | None = None,
    progress: bool = True,
    max_cells: int | None = None,
    progress_stream: IO[str] | None = None,
) -> GridResult:
    """Run (or resume) the grid; every finished cell is appended to ``cells.jsonl`` at once.

    Parameters
    ----------
    config : GridConfig
    output_dir : path, optional
        Where ``grid.json``, ``cells.jsonl``, the tables (Markdown, CSV) and the chart go.
        Cells already in ``cells.jsonl`` are not recomputed. None: nothing is written.
    overwrite : bool
        Discard the cells of an earlier grid in ``output_dir``.
    backend : {"inprocess", "ray"}
        ``ray``: each cell is a Ray task with one CPU (local Ray, or ``address``).
    progress : bool
        A :class:`Progress` line: cells done, cells/hour, CPU-seconds per cell and the
        projected finish (rewritten in place on a terminal, one line per update otherwise).
    progress_stream : text stream, optional
        Where progress goes (default ``sys.stderr``).
    max_cells : int, optional
        Stop after this many new cells (a partial grid, resumable later).
    """
    if backend not in ("inprocess", "ray"):
        raise DistvalError(f"unknown backend {backend!r}; choose inprocess or ray")
    check_backend(backend, address)
    # run-major order: a partial grid covers every stream
    todo = [
        (label, spec, run, scheme)
        for run in range(config.runs)
        for label, spec in config.streams
        for scheme in config.schemes
    ]
    keys = {cell_key(lb, r, s) for lb, _, r, s in todo}
    cells_path = None
    done: dict[str, dict[str, Any]] = {}
    if output_dir is not None:
        output_dir = Path(output_dir)
        cells_path = _prepare_dir(config, output_dir, overwrite)
        done = {c["key"]: c for c in _read_cells(cells_path) if c.get("key") in keys}
    todo = [c for c in todo if cell_key(c[0], c[2], c[3]) not in done]
    if max_cells is not None:
        todo = todo[:max_cells]

    bar = Progress(len(keys), len(done), stream=progress_stream) if progress else None

    def store(cell: dict[str, Any]) -> None:
        done[cell["key"]] = cell
        if cells_path is not None:
            with cells_path.open("a") as fh:
                fh.write(json.dumps(cell) + "\n")
        if bar is not None:
            bar.update(cell)

    try:
        if backend == "ray" and todo:
            _run_ray(config, todo, store, address)
        else:
            for label, spec, run, scheme in todo:
                store(run_cell(config, label, spec, run, scheme))
    finally:
        if bar is not None:
            bar.close()
    result = _collect(config, [done[k] for k in sorted(done)], output_dir)
    if output_dir is not None and len(result.cells):
        _write(result)
    return result


class Progress:
    """Progress of a grid: cells done, cells/hour, CPU-seconds per cell, projected finish.

    On a terminal the line is rewritten in place; otherwise (a log file, ``nohup``, a
    cluster job) a plain line is printed every ``every`` seconds and at the end, so logs
    stay readable. The rate counts only cells finished in this session (resumed cells are
    not timed again).

    >>> import io
    >>> out = io.StringIO()
    >>> p = Progress(4, 1, stream=out, every=0)
    >>> p.update({"cpu_seconds": 2.0}); p.close()
    >>> out.getvalue().splitlines()[0].split(",")[0]
    'type-errors grid: 2/4 cells (50.0%)'
    """

    def __init__(
        self, total: int, done: int = 0, *, stream: IO[str] | None = None, every: float = 60.0
    ) -> None:
        self.total, self.done, self.start_done = total, done, done
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self.t0 = time.time()
        self.last = -float("inf")
        self.cpu = 0.0

    def line(self) -> str:
        new = self.done - self.start_done
        elapsed = time.time() - self.t0
        share = 100 * self.done / max(self.total, 1)
        text = f"type-errors grid: {self.done}/{self.total} cells ({share:.1f}%)"
        if new > 0 and elapsed > 0:
            rate = new / elapsed * 3600
            left = (self.total - self.done) / rate * 3600
            finish = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() + left))
            text += (
                f", {rate:.1f} cells/h, {self.cpu / new:.1f} CPU-s/cell, "
                f"projected finish {finish} (in {_duration(left)})"
            )
        return text

    def update(self, cell: dict[str, Any] | None = None) -> None:
        self.done += 1
        if cell is not None:
            self.cpu += float(cell.get("cpu_seconds") or 0.0)
        now = time.time()
        if self.tty:
            self.stream.write("\r" + self.line() + " " * 4)
            self.stream.flush()
        elif now - self.last >= self.every or self.done == self.total:
            self.last = now
            print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
        elif self.done > self.start_done and self.done < self.total:
            print(self.line(), file=self.stream, flush=True)
        self.stream.flush()


def _duration(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds // 3600:.0f} h {seconds % 3600 // 60:02.0f} min"
    return f"{seconds / 86400:.1f} days"


def _cell(config: GridConfig, cell: tuple[str, str, int, str]) -> dict[str, Any]:
    return run_cell(config, *cell)


def _run_ray(
    config: GridConfig,
    todo: list[tuple[str, str, int, str]],
    store: Callable[[dict[str, Any]], None],
    address: str | None,
) -> None:
    from distval.ray_backend.tasks import map_tasks, ray_session

    with ray_session(address):
        for _, cell in map_tasks(
            # a cell is deterministic: Ray may rerun it if its node or worker is lost
            _cell,
            todo,
            shared=(config,),
            max_retries=2,
            name=lambda c: f"grid cell {c[:3]}",
        ):
            store(cell)


def _collect(
    config: GridConfig, cells: list[dict[str, Any]], output_dir: Path | None
) -> GridResult:
    columns = ["stream", "run", "scheme", "n_rows", "n_classes", "seconds", "cpu_seconds"]
    meta = pd.DataFrame([{k: c.get(k, np.nan) for k in columns} for c in cells], columns=columns)
    rows = [
        {"stream": c["stream"], "run": c["run"], "scheme": c["scheme"]} | r
        for c in cells
        for r in c["results"]
    ]
    decisions = pd.DataFrame(rows)
    result = GridResult(config, meta, decisions, output_dir=output_dir)
    if len(decisions):
        result.tables = paper.tables(
            decisions,
            meta,
            pnoise=config.pnoise,
            schemes=config.schemes,
            streams=[label for label, _ in config.streams],
        )
    return result


# --------------------------------------------------------------------------------------------
# Projection of a grid's cost


@dataclass
class Projection:
    """Projected CPU cost of a grid, from measured CPU-seconds per row of each stream.

    ``streams`` has one dict per stream: ``stream``, ``rows`` (per cell), ``cpu_per_krow``
    (CPU-s per 1,000 rows), ``cpu_per_cell``, ``cells``, ``cells_done``, ``core_hours``
    (of the cells not done yet) and ``source`` (where the cost comes from).
    """

    config: GridConfig
    streams: list[dict[str, Any]]

    @property
    def cells(self) -> int:
        return sum(int(s["cells"]) for s in self.streams)

    @property
    def cells_done(self) -> int:
        return sum(int(s["cells_done"]) for s in self.streams)

    @property
    def core_hours(self) -> float:
        """Core-hours of the cells not yet done (one cell = one core)."""
        return float(sum(s["core_hours"] for s in self.streams))

    def hours_on(self, cores: int) -> float:
        """Wall hours on ``cores`` cores if the cells kept every core busy."""
        return self.core_hours / cores

    def cores_for(self, hours: float) -> int:
        """Cores needed to finish within ``hours`` (at most one cell per core at a time)."""
        need = int(np.ceil(self.core_hours / hours)) if self.core_hours > 0 else 1
        return max(1, min(need, self.cells - self.cells_done))

    def to_text(self) -> str:
        cfg = self.config
        lines = [
            f"Projected cost: {len(cfg.streams)} streams x {cfg.runs} runs x "
            f"{len(cfg.schemes)} schemes = {self.cells} cells ({self.cells_done} done), "
            f"learner {cfg.learner}",
            "",
            f"{'stream':16s} {'rows/cell':>10s} {'CPU-s/1k rows':>13s} {'CPU-s/cell':>11s} "
            f"{'cells left':>10s} {'core-h':>8s}  cost from",
        ]
        for r in self.streams:
            lines.append(
                f"{r['stream']:16s} {r['rows']:>10,d} {r['cpu_per_krow']:>13.3f} "
                f"{r['cpu_per_cell']:>11.1f} {r['cells'] - r['cells_done']:>10d} "
                f"{r['core_hours']:>8.2f}  {r['source']}"
            )
        per_cell = self.core_hours * 3600 / max(1, self.cells - self.cells_done)
        overnight = self.cores_for(12.0)
        lines += [
            "",
            f"mean CPU-s per cell left: {per_cell:.1f}; total: {self.core_hours:.1f} core-hours "
            f"({self.hours_on(2):.1f} h on 2 cores, {self.hours_on(32):.2f} h on 32 cores); "
            f"{overnight} cores finish it in 12 h (overnight).",
            "CPU time is linear in rows here (measured per-row cost x rows); cells are one "
            "core each, so more cores than cells left do not help.",
        ]
        return "\n".join(lines)


def stream_rows(config: GridConfig, label: str, spec: str) -> int:
    """Rows one cell of this stream reads (whole real files: their published size)."""
    cap = config.rows_of(spec)
    whole = REAL_ROWS.get(label)
    if cap is None:
        if whole is None:
            raise DistvalError(f"size of {label} unknown; give --n-rows")
        return whole
    return cap if whole is None else min(cap, whole)


def measured_costs(cells: list[dict[str, Any]]) -> dict[str, float]:
    """CPU-seconds per 1,000 rows of each stream, averaged over finished cells."""
    per: dict[str, list[float]] = {}
    for c in cells:
        cpu, n = c.get("cpu_seconds"), c.get("n_rows")
        if cpu and n:
            per.setdefault(c["stream"], []).append(1000.0 * float(cpu) / float(n))
    return {k: float(np.mean(v)) for k, v in per.items()}


def project(
    config: GridConfig,
    cells: list[dict[str, Any]] | None = None,
    *,
    costs: dict[str, float] | None = None,
) -> Projection:
    """Project the CPU cost of a grid without running it.

    Per-row costs come, per stream, from ``cells`` (finished cells of this grid or of
    another grid with the same learner: CPU-seconds / rows), else ``costs``, else
    :data:`REFERENCE_COST` when the learner is :data:`ENSEMBLE`; a stream without a
    measurement borrows a sibling's (:data:`COST_SOURCE`). Cells are assumed to cost the
    same whatever the scheme.

    >>> p = project(make_grid("paper"))
    >>> p.cells, p.core_hours > 100, p.cores_for(12.0) > 2
    (1650, True, True)
    """
    done_keys = {c["key"] for c in cells or []}
    measured = measured_costs(cells or [])
    table: dict[str, tuple[float, str]] = {}
    if config.learner == ENSEMBLE:
        table |= {k: (v, "reference table") for k, v in REFERENCE_COST.items()}
    table |= {k: (v, "measured elsewhere") for k, v in (costs or {}).items()}
    table |= {
        k: (v, f"{n} cells measured")
        for k, v in measured.items()
        for n in [sum(1 for c in cells or [] if c.get("stream") == k)]
    }
    rows = []
    for label, spec in config.streams:
        if label in table:
            cost, source = table[label]
        elif COST_SOURCE.get(label) in table:
            cost = table[COST_SOURCE[label]][0]
            source = f"as {COST_SOURCE[label]} ({table[COST_SOURCE[label]][1]})"
        else:
            raise DistvalError(
                f"no measured cost for {label} with learner {config.learner!r}: run a few "
                "cells first (--max-cells) and project from their output directory"
            )
        n = stream_rows(config, label, spec)
        keys = [cell_key(label, r, s) for r in range(config.runs) for s in config.schemes]
        n_done = sum(k in done_keys for k in keys)
        per_cell = cost * n / 1000.0
        rows.append(
            {
                "stream": label,
                "rows": n,
                "cpu_per_krow": cost,
                "cpu_per_cell": per_cell,
                "cells": len(keys),
                "cells_done": n_done,
                "core_hours": per_cell * (len(keys) - n_done) / 3600.0,
                "source": source,
            }
        )
    return Projection(config, rows)


def read_cells(output_dir: str | Path) -> list[dict[str, Any]]:
    """The finished cells stored in a grid's output directory (none if there is none)."""
    return _read_cells(Path(output_dir) / "cells.jsonl")


# --------------------------------------------------------------------------------------------
# Tables


def _table(frame: pd.DataFrame, digits: int = 2) -> str:
    return paper.markdown_table(paper.wide(frame, digits))


def _markdown(result: GridResult) -> str:
    cfg = result.config
    n_cells = len(result.cells)
    rows = cfg.n_rows if cfg.n_rows is not None else f"whole files, {cfg.synthetic_rows} generated"
    lines = [
        "# Type I / type II errors (bifet2015 §4.1, Tables 2-4)",
        "",
        f"Learner `{cfg.learner}`, {cfg.n_folds} folds, alpha = {cfg.alpha}, "
        f"{cfg.runs} runs per stream, rows per stream: "
        f"{rows}"
        f"; {n_cells} cells. Each entry: ours (paper). 'no change' columns are type I error "
        "rates (lower is better); 'pnoise' columns are power, 1 - type II error (higher is "
        "better). Times are wall seconds of one pass, which serves both variants.",
        "",
    ]
    for name, frame in result.tables.items():
        digits = 2
        body = frame
        if name == "table2":
            timing = frame[frame.row.str.startswith("avg time")]
            body = frame[~frame.row.str.startswith("avg time")]
            lines += [f"## {paper.TITLES[name]}", "", _table(body), ""]
            lines += ["Average wall time per cell (s):", "", _table(timing, 1), ""]
            continue
        lines += [f"## {paper.TITLES[name]}", "", _table(body, digits), ""]
    return "\n".join(lines)


def _chart(result: GridResult, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t2 = result.tables["table2"]
    t2 = t2[~t2.row.str.startswith("avg time")]
    changes = list(dict.fromkeys(t2.pnoise))
    rows = list(dict.fromkeys(t2.row))
    schemes = list(result.config.schemes)
    fig, axes = plt.subplots(1, len(changes), figsize=(5 * len(changes), 4.5), sharey=True)
    axes = np.atleast_1d(axes)
    width = 0.8 / len(schemes)
    x = np.arange(len(rows))
    for ax, change in zip(axes, changes):
        part = t2[np.isclose(t2.pnoise, change)]
        for i, scheme in enumerate(schemes):
            s = part[part.scheme == scheme].set_index("row").loc[rows]
            ax.bar(x + (i - (len(schemes) - 1) / 2) * width, s.ours, width, label=scheme)
            ax.plot(
                x + (i - (len(schemes) - 1) / 2) * width,
                s.paper,
                "k_",
                markersize=10,
                label="paper" if i == 0 else None,
            )
        ax.set_xticks(
            x,
            [
                r.replace(" non-prequential", "\nnon-preq.").replace(" prequential", "\npreq.")
                for r in rows
            ],
            fontsize=7,
        )
        kind = "type I error" if change == 0 else f"power (pnoise={change:.2f})"
        ax.set_title(f"{'no change' if change == 0 else 'change'}: {kind}")
        ax.set_ylim(0, 1.05)
        if change == 0:
            ax.axhline(result.config.alpha, color="grey", lw=0.8, ls="--")
    axes[0].set_ylabel("fraction of runs rejecting H0")
    axes[-1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _write(result: GridResult) -> None:
    out = result.output_dir
    if out is None:
        return
    for name, frame in result.tables.items():
        frame.to_csv(out / f"{name}.csv", index=False)
    result.decisions.to_csv(out / "decisions.csv", index=False)
    (out / "tables.md").write_text(result.to_markdown())
    _chart(result, out / "type_errors.png")
