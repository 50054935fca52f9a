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
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from distval.errors import DistvalError
from distval.evaluation import check_backend
from distval.experiments import bifet2015 as paper
from distval.results import claim_output

__all__ = [
    "PROFILES",
    "SYNTHETIC",
    "TESTS",
    "GridConfig",
    "GridResult",
    "bagged_ht",
    "cell_key",
    "make_grid",
    "noise_filter",
    "open_real_stream",
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

#: Profiles: runs per stream, rows per stream (None = whole stream) and learner.
#: ``paper`` follows bifet2015 §4.1 (50 runs, 10 folds, a random-forest-like ensemble); the
#: paper does not state the synthetic stream length, 1,000,000 rows is assumed.
PROFILES = {
    "quick": {
        "runs": 5,
        "n_rows": 3000,
        "learner": "distval.experiments.type_errors:bagged_ht(n_models=2, grace_period=100)",
    },
    "paper": {"runs": 50, "n_rows": None, "synthetic_rows": 1_000_000, "learner": "arf"},
}


def bagged_ht(n_models: int = 2, seed: int | None = None, **tree_params):
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
        try:
            parse_learner(self.learner).build()
        except DistvalError:
            raise
        except Exception as exc:
            raise DistvalError(f"learner {self.learner!r}: {exc}") from None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["streams"] = [list(s) for s in self.streams]
        d["schemes"] = list(self.schemes)
        d["pnoise"] = list(self.pnoise)
        return d

    def rows_of(self, spec: str) -> int | None:
        """Row cap of a stream: ``n_rows``, or ``synthetic_rows`` for an uncapped generator."""
        if self.n_rows is not None:
            return self.n_rows
        from distval.streams.open import BUNDLED, FILE_EXTENSIONS

        is_file = spec.lower() in BUNDLED or any(spec.lower().endswith(e) for e in FILE_EXTENSIONS)
        return None if is_file else self.synthetic_rows


def open_real_stream(label: str, path: str | Path | None, n_rows: int | None = None):
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
    **overrides,
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
            chosen.append((label, str(Path(files[label]).resolve())))
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
        return pred.copy()
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


def run_cell(config: GridConfig, label: str, spec: str, run: int, scheme: str) -> dict:
    """One pass over a stream: the decisions of every (variant, change, test) of a cell.

    Returns a JSON-ready dict with ``key``, ``stream``, ``run``, ``scheme``, ``seconds``
    (wall time of the pass), ``cpu_seconds`` (CPU time of the pass), ``n_rows``,
    ``n_classes`` and ``results``: one dict per (prequential, pnoise, test) with ``reject``,
    ``pvalue``, ``statistic``, ``n``,
    ``mean_a`` and ``mean_b`` (mean fold accuracies).
    """
    from distval import stats
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
    for chunk in stream.chunks(config.batch_size):
        a = assigner.assign(len(chunk.y))
        batch = Batch(chunk.start, chunk.X, chunk.y, a.weights, np.ones_like(a.held_out))
        pred = host.process(batch)  # (2k, rows)
        n_classes = max(len(stream.classes), 2)
        pa, pb = pred[:k], pred[k:]
        bs = np.stack([pb] + [noise_filter(pb, p, n_classes, rng) for p in config.pnoise])
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
    if n == 0:
        raise DistvalError(f"stream {label} has no rows")
    with np.errstate(invalid="ignore", divide="ignore"):
        acc_a = hits_a / tested
        acc_b = hits_b / tested[:, None]
    results = []
    changes = (0.0, *config.pnoise)
    for v, prequential in enumerate((False, True)):
        for j, change in enumerate(changes):
            va, vb = acc_a[v], acc_b[v, j]
            ok = np.isfinite(va) & np.isfinite(vb)
            common = {
                "prequential": prequential,
                "pnoise": change,
                "mean_a": float(va[ok].mean()) if ok.any() else float("nan"),
                "mean_b": float(vb[ok].mean()) if ok.any() else float("nan"),
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
    return {
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


def _read_cells(path: Path) -> list[dict]:
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


def _prepare_dir(config: GridConfig, output_dir: Path, overwrite: bool) -> Path:
    claim_output(output_dir, GRID_FILES, overwrite=overwrite, resumable=True)
    cfg_path, cells_path = output_dir / "grid.json", output_dir / "cells.jsonl"
    wanted = config.to_dict()
    if cfg_path.exists() and not overwrite:
        stored = json.loads(cfg_path.read_text())
        same = {k: v for k, v in stored.items() if k != "streams"} == {
            k: v for k, v in wanted.items() if k != "streams"
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
        A tqdm bar over cells with an ETA.
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
    done: dict[str, dict] = {}
    if output_dir is not None:
        output_dir = Path(output_dir)
        cells_path = _prepare_dir(config, output_dir, overwrite)
        done = {c["key"]: c for c in _read_cells(cells_path) if c.get("key") in keys}
    todo = [c for c in todo if cell_key(c[0], c[2], c[3]) not in done]
    if max_cells is not None:
        todo = todo[:max_cells]

    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(keys), initial=len(done), unit="cell", desc="type-errors grid")

    def store(cell: dict) -> None:
        done[cell["key"]] = cell
        if cells_path is not None:
            with cells_path.open("a") as fh:
                fh.write(json.dumps(cell) + "\n")
        if bar is not None:
            bar.update(1)

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


def _cell(config: GridConfig, cell: tuple) -> dict:
    return run_cell(config, *cell)


def _run_ray(config: GridConfig, todo: list, store, address: str | None) -> None:
    from distval.ray_backend.tasks import map_tasks, ray_session

    with ray_session(address):
        for _, cell in map_tasks(
            _cell, todo, shared=(config,), max_retries=0, name=lambda c: f"grid cell {c[:3]}"
        ):
            store(cell)


def _collect(config: GridConfig, cells: list[dict], output_dir: Path | None) -> GridResult:
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
    for name, frame in result.tables.items():
        frame.to_csv(out / f"{name}.csv", index=False)
    result.decisions.to_csv(out / "decisions.csv", index=False)
    (out / "tables.md").write_text(result.to_markdown())
    _chart(result, out / "type_errors.png")
