"""The grid's settings: profiles (quick, standard, paper), streams and :class:`GridConfig`.

bifet2015 §4.1 ([experiments](experiments.md)): two seeds of one randomised tree ensemble, k
= 10 folds, alpha = 0.05, 50 runs per stream in the paper; the ``quick`` and ``standard``
profiles are smaller grids of the same design, sized by measured CPU costs.

>>> g = make_grid("quick", streams=["SEA(50)"])
>>> g.runs, g.n_rows, g.looks
(5, 3000, 20)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from distval.errors import DistvalError
from distval.experiments import bifet2015 as paper
from distval.learners import learner_factory

__all__ = [
    "COST_SOURCE",
    "ENSEMBLE",
    "FAITHFUL_LEARNER",
    "NOISE_LEARNERS",
    "NOISE_ON",
    "PROFILES",
    "QUICK_LEARNER",
    "REAL",
    "REAL_ROWS",
    "REFERENCE_COST",
    "REFERENCE_COSTS",
    "REFERENCE_GROWTH",
    "REFERENCE_LEARNERS",
    "REFERENCE_ROWS",
    "SYNTHETIC",
    "TESTS",
    "GridConfig",
    "bagged_ht",
    "make_grid",
    "open_real_stream",
    "stream_rows",
]


#: The ten synthetic configurations of bifet2015 §4.1 (specs of :mod:`distval.streams.synth`).
SYNTHETIC = paper.PAPER_STREAMS[3:]
#: Real streams read from a user-given file: (label, option name, where to get it).
REAL = {
    "CovType": ("--covtype", "UCI covtype.data.gz or MOA covtypeNorm.arff"),
    "Poker": ("--poker", "UCI poker-hand-*.data or MOA poker-lsn.arff"),
}
TESTS = paper.TESTS
#: What the noise filter of the type II pair changes, and which learner it filters.
NOISE_ON = ("training", "predictions")
NOISE_LEARNERS = ("other", "same")

#: Size of the ``standard`` profile: 11 streams x 10 runs x 3 schemes = 330 cells of 50,000
#: rows, about 90 minutes on two idle cores by the measured costs below.
STANDARD_RUNS = 10
STANDARD_ROWS = 50_000

#: Measured CPU-seconds per 1,000 rows of one cell (one pass, both learners, 10 folds, mean
#: over bootstrap, cv and split) of :data:`ENSEMBLE` at 50,000 rows: the first 36 cells of
#: the standard grid of commit c118faa (benchmarks/results/type-errors-standard, no longer
#: committed), on this project's 2-core machine under a load average of 5-27 (so possibly
#: above an idle machine's). :func:`project` uses it when no finished cell of the grid is
#: at hand; CovType and Poker, never measured, borrow the dearest stream's cost
#: (``COST_SOURCE``).
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
#: The same for the ``quick`` profile's learner (:data:`QUICK_LEARNER`) at 3,000 rows: the
#: mean over the 165 cells of benchmarks/results/type-errors-quick (every look recorded),
#: 2026-12-07, this project's 2-core VM (AMD EPYC) shared, load average 4-19, one process
#: under nice.
QUICK_REFERENCE_COST = {
    "Electricity": 1.40,
    "LED(50000)": 11.16,
    "SEA(50)": 0.97,
    "SEA(50000)": 0.97,
    "HYP(10,0.001)": 1.70,
    "HYP(10,0.0001)": 1.88,
    "RBF(0,0)": 1.75,
    "RBF(50,0.001)": 1.78,
    "RBF(10,0.001)": 1.77,
    "RBF(50,0.0001)": 1.70,
    "RBF(10,0.0001)": 1.88,
}
COST_SOURCE = {"CovType": "LED(50000)", "Poker": "LED(50000)"}
#: Rows of the real streams when read whole (UCI / MOA files).
REAL_ROWS = {"Electricity": 45_312, "CovType": 581_012, "Poker": 829_201}

#: The randomised tree ensemble of the ``standard`` and ``paper`` profiles: MOA's online
#: bagging of ten Hoeffding trees. Two seeds of it differ the way two random forests do
#: (each tree sees Poisson(1) copies of every row). Measured at 20,000 rows (one cv cell):
#: 4-12x less CPU than MOA's AdaptiveRandomForest with ten trees (Electricity 10.4 vs 57.0,
#: LED(50000) 30.7 vs 124.5, SEA(50) 2.1 vs 26.0 CPU-s), which would not fit 50,000 rows
#: x 10 runs in 90 minutes on two cores (the standard grid's README, commit 46abe46).
ENSEMBLE = "moa:meta.OzaBag -l trees.HoeffdingTree -s 10"
#: The learner of the ``paper`` profile: bifet2015 §4.1 trains its pairs "with random
#: forests" and cites leveraging bagging for them (its reference [4]); MOA's
#: ``meta.LeveragingBag`` (ten Hoeffding trees, Poisson(6) weights, ADWIN per tree) is that
#: method with MOA's defaults. Measured 0.8-3.8x OzaBag's CPU at 10,000 rows (docs).
FAITHFUL_LEARNER = "moa:meta.LeveragingBag -l trees.HoeffdingTree -s 10"
#: Synthetic stream length of the paper's streams (MOA's benchmark convention; bifet2015
#: does not state it): drift positions are those of a stream this long.
PAPER_SYNTHETIC_ROWS = 1_000_000
#: The ``shape`` profile, sized to about an hour of one core of this project's shared
#: 2-core machine (about 6 CPU-s per 10,000-row cell with training-label noise): four
#: synthetic streams (the first 10,000 rows of their 1,000,000-row MOA versions: SEA's
#: drifts at 250,000 rows lie beyond, HYP and RBF(50,0.001) drift throughout) x 20 runs.
SHAPE_STREAMS = ("SEA(50)", "HYP(10,0.001)", "RBF(0,0)", "RBF(50,0.001)")
SHAPE_RUNS = 20
SHAPE_ROWS = 10_000
#: The cheap randomised ensemble of the ``quick`` profile (river, no JVM).
QUICK_LEARNER = "distval.experiments.type_errors:bagged_ht(n_models=2, grace_period=100)"
#: The same for :data:`FAITHFUL_LEARNER` with training-label noise (four learners per
#: cell: A, A' and A' trained on noisy labels at two pnoise): one 100,000-row cv cell per
#: stream (Electricity: its 45,312 rows), CPU-seconds per 1,000 rows after its first 10,000
#: (which hold the JVM's start), by benchmarks/bench_paper_cost.py on this project's 2-core
#: VM (AMD EPYC), 2026-12-07 15:09-16:14 UTC, load average 0-16
#: (benchmarks/results/type-errors-paper-cost/): every stream of the profile; CovType and
#: Poker, not at hand, borrow LED's (:data:`FAITHFUL_COST_SOURCE`).
FAITHFUL_REFERENCE_COST = {
    "Electricity": 1.36,
    "LED(50000)": 6.85,
    "SEA(50)": 1.06,
    "SEA(50000)": 0.90,
    "HYP(10,0.001)": 2.12,
    "HYP(10,0.0001)": 2.21,
    "RBF(0,0)": 2.53,
    "RBF(50,0.001)": 2.17,
    "RBF(10,0.001)": 2.33,
    "RBF(50,0.0001)": 2.64,
    "RBF(10,0.0001)": 2.69,
}
FAITHFUL_COST_SOURCE = {"CovType": "LED(50000)", "Poker": "LED(50000)"}
#: Rows of the cells :data:`FAITHFUL_REFERENCE_COST` was measured on: a longer cell is
#: carried by :data:`REFERENCE_GROWTH`.
REFERENCE_ROWS = 100_000
#: How the per-row cost changes with the rows (trees grow with the stream; drifts make
#: LeveragingBag's ADWIN reset them), by learner and stream: (b, factor), where a
#: 1,000,000-row cell costs ``factor`` x its reference per-row cost x its rows, and a cell of
#: n > :data:`REFERENCE_ROWS` rows ``factor (n / 1e6) ** b`` times that: a power law rows^b of
#: the per-row cost fitted on the 10,000-row blocks of the same 100,000-row cells, carried
#: 10x past what was measured. Streams not measured take the steepest (an upper guess).
REFERENCE_GROWTH = {
    FAITHFUL_LEARNER: {
        "SEA(50)": (0.29, 1.86),
        "SEA(50000)": (0.35, 2.10),
        "HYP(10,0.001)": (-0.03, 0.95),
        "HYP(10,0.0001)": (0.21, 1.54),
        "RBF(0,0)": (0.22, 1.58),
        "RBF(50,0.001)": (0.03, 1.07),
        "RBF(10,0.001)": (0.03, 1.05),
        "RBF(50,0.0001)": (0.07, 1.15),
        "RBF(10,0.0001)": (0.11, 1.25),
        "LED(50000)": (-0.10, 0.82),
    }
}
#: Reference per-row costs by learner (:func:`~distval.experiments.type_errors.project`).
REFERENCE_COSTS = {
    ENSEMBLE: REFERENCE_COST,
    QUICK_LEARNER: QUICK_REFERENCE_COST,
    FAITHFUL_LEARNER: FAITHFUL_REFERENCE_COST
    | {k: FAITHFUL_REFERENCE_COST[v] for k, v in FAITHFUL_COST_SOURCE.items()},
}
#: Learners per cell in the cells a reference cost was measured on (the cost of a cell is
#: about proportional to its learners: 2 with noise on predictions, 2 + len(pnoise) with
#: noise on the training labels).
REFERENCE_LEARNERS = {ENSEMBLE: 2, QUICK_LEARNER: 2, FAITHFUL_LEARNER: 4}

#: Profiles: runs per stream, rows per stream (None = whole stream) and learner.
#: ``standard`` is sized to about 90 minutes on two idle cores (measured CPU seconds per
#: cell); ``paper`` follows bifet2015 §4.1 (50 runs, 10 folds, a randomised tree ensemble);
#: the paper does not state the synthetic stream length, 1,000,000 rows is assumed.
PROFILES: dict[str, dict[str, Any]] = {
    "quick": {
        "runs": 5,
        "n_rows": 3000,
        "learner": QUICK_LEARNER,
    },
    "standard": {"runs": STANDARD_RUNS, "n_rows": STANDARD_ROWS, "learner": ENSEMBLE},
    "shape": {
        "runs": SHAPE_RUNS,
        "n_rows": SHAPE_ROWS,
        "streams": SHAPE_STREAMS,
        "learner": ENSEMBLE,
        "noise_on": "training",
        "sign_method": "critical",
        "drift_length": PAPER_SYNTHETIC_ROWS,
        "looks": 10,
    },
    "paper": {
        "runs": 50,
        "n_rows": None,
        "synthetic_rows": PAPER_SYNTHETIC_ROWS,
        "learner": FAITHFUL_LEARNER,
        "noise_on": "training",
        "sign_method": "critical",
        "drift_length": PAPER_SYNTHETIC_ROWS,
    },
}


@learner_factory
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
    #: What the noise filter changes (bifet2015 §4.1 leaves it open): ``"predictions"``,
    #: the filtered learner's predictions after the fact (p = p0 (1 - pnoise) + ...), or
    #: ``"training"``, the labels the filtered learner learns from (MOA's AddNoiseFilter on
    #: its training stream), the learner then scored on the clean labels.
    noise_on: str = "predictions"
    #: Which learner is filtered: ``"other"`` compares A with filtered A' (the change then
    #: holds the seed-to-seed difference too), ``"same"`` A with filtered A.
    noise_learner: str = "other"
    #: Synthetic streams: the length whose drift positions the rows follow (MOA's
    #: convention: drifts at fixed positions of a 1,000,000-row stream, of which a cell
    #: reads the first ``n_rows``). None: drifts placed relative to the rows read.
    drift_length: int | None = None
    #: Looks per stream, equally spaced over its rows: the decisions of every test are
    #: recorded at each (fixed alpha, alpha spending, the e-process), for the type I error
    #: of a user who watches the live results ("ever rejected at any look").
    looks: int = 20
    #: A second tested measure beside the cumulative accuracy: each fold's accuracy over
    #: the last ``window`` pairs it tested (MOA ``EvaluatePrequential``'s default ``-w
    #: 1000``), decided at the end in the same pass (a cell's ``window`` rows). None: off.
    window: int | None = None
    #: MOA's ``AddNoiseFilter -a att_noise`` on the filtered learner's stream as well as the
    #: label noise (training noise only): every numeric value shifted by N(0, 1) x its running
    #: sd x att_noise, nominal values redrawn with that probability; the learner predicts on
    #: the noisy attributes and is scored on the clean labels. 0: labels only.
    att_noise: float = 0.0

    def __post_init__(self) -> None:
        from distval.learners import parse_learner
        from distval.routing.validation import SCHEMES

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
        if isinstance(self.looks, bool) or not isinstance(self.looks, int) or self.looks < 1:
            raise DistvalError(f"--looks must be at least 1, got {self.looks!r}")
        if self.noise_on not in NOISE_ON:
            raise DistvalError(
                f"--noise-on must be one of {', '.join(NOISE_ON)}, got {self.noise_on!r}")
        if self.noise_learner not in NOISE_LEARNERS:
            raise DistvalError(f"--noise-learner must be one of {', '.join(NOISE_LEARNERS)}, "
                               f"got {self.noise_learner!r}")
        if self.window is not None and (isinstance(self.window, bool) or not isinstance(
                self.window, int) or self.window < 1):
            raise DistvalError(f"--window must be a positive number of rows, got {self.window!r}")
        if not 0 <= self.att_noise <= 1:
            raise DistvalError(f"--att-noise must be in [0, 1], got {self.att_noise}")
        if self.att_noise > 0 and self.noise_on != "training":
            raise DistvalError("--att-noise needs --noise-on training (it filters the stream "
                               "the noisy learner learns from)")
        if self.drift_length is not None and self.drift_length < 1:
            raise DistvalError(f"drift_length must be positive, got {self.drift_length}")
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

        >>> import json
        >>> g = make_grid("quick", streams=["SEA(50)"])
        >>> GridConfig.from_dict(json.loads(json.dumps(g.to_dict()))) == g
        True
        """
        names = {f.name for f in fields(cls)}
        d = cls.upgrade(d)
        unknown = sorted(set(d) - names)
        if unknown:
            raise DistvalError(f"unknown grid setting(s) {unknown}")
        kw = dict(d)
        kw["streams"] = tuple((str(a), str(b)) for a, b in d["streams"])
        for key in ("schemes", "pnoise"):
            if key in kw:
                kw[key] = tuple(kw[key])
        return cls(**kw)

    @staticmethod
    def upgrade(d: dict[str, Any]) -> dict[str, Any]:
        """A stored ``grid.json`` in today's terms: grids written before ``noise_learner``
        kept the filtered learner ("other"/"same") in ``noise_on`` (noise on predictions).

        >>> GridConfig.upgrade({"noise_on": "same"})
        {'noise_on': 'predictions', 'noise_learner': 'same'}
        """
        d = dict(d)
        if d.get("noise_on") in NOISE_LEARNERS:
            d["noise_learner"] = d["noise_on"]
            d["noise_on"] = "predictions"
        return d

    @property
    def learners_per_cell(self) -> int:
        """Learners trained in one cell: A and A', plus one per pnoise with training noise.

        >>> GridConfig(streams=(("S", "SEA(50)"),), learner="majority",
        ...            noise_on="training").learners_per_cell
        4
        """
        return 2 + (len(self.pnoise) if self.noise_on == "training" else 0)

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
    default_streams = settings.pop("streams", None)
    if streams is None and default_streams is not None:
        streams = list(default_streams)
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


def stream_rows(config: GridConfig, label: str, spec: str) -> int:
    """Rows one cell of this stream reads (whole real files: their published size).

    >>> stream_rows(make_grid("paper"), "Electricity", "elec2"), stream_rows(
    ...     make_grid("paper"), "SEA(50)", "SEA(50)")
    (45312, 1000000)
    """
    cap = config.rows_of(spec)
    whole = REAL_ROWS.get(label)
    if cap is None:
        if whole is None:
            raise DistvalError(f"size of {label} unknown; give --n-rows")
        return whole
    return cap if whole is None else min(cap, whole)
