"""One frozen, validated description of an evaluation run."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from distval.config_format import CONFIG_FORMAT, current_keys, upgrade_config
from distval.errors import DistvalError, check_open_unit, check_positive_int
from distval.learners import LearnerSpec, learner_spec
from distval.learners.registry import BUILTIN, REGRESSORS, split_name
from distval.metrics import FORGETTING
from distval.routing.delays import Delay, delay_spec
from distval.routing.validation import FOLD_CHOICES, SCHEMES, Validation
from distval.statistics.sequential import SEQUENTIAL, SPENDING
from distval.streams.delimited import na_vocabulary
from distval.streams.iterable import stream_name
from distval.streams.open import INFINITE, check_stream_path
from distval.tasks import TASK_OBJECTS, TASKS, resolve_task, task_named

__all__ = ["CONFIG_FORMAT", "TASKS", "TESTS", "RunConfig", "current_keys", "read_config"]

#: Every measure a run may compare (``--measure``), over the tasks.
COMPARED = tuple(dict.fromkeys(m for t in TASK_OBJECTS.values() for m in t.compared))

#: Across-fold tests run for every learner pair ("friedman" needs three learners or more).
TESTS = ("sign", "wilcoxon", "mcnemar", "friedman")


def read_config(
    data: object, source: str = "config.json", *, strict: bool = True
) -> dict[str, Any]:
    """A saved configuration (a ``config.json``'s content) in today's format: the one place
    that upgrades older formats, and refuses what no format holds.

    Format 1 (no ``"format"`` key) named ``adwin_delta`` ``delta``. With ``strict`` (a
    configuration to run), a key that is neither a field of :class:`RunConfig` nor one a run
    adds (:data:`RUN_KEYS`) is an error naming the closest known key, so that a typo never
    runs with a default; reading a results directory (``strict=False``) keeps such keys
    (``EvaluationResult.save(extra=...)`` adds the caller's own).

    >>> read_config({"delta": 0.01, "n_folds": 5})
    {'n_folds': 5, 'adwin_delta': 0.01, 'format': 2}
    >>> read_config({"n_fold": 5})
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: config.json: unknown key 'n_fold' (did you mean 'n_folds'?)
    """
    fields = [f.name for f in dataclasses.fields(RunConfig)]
    return upgrade_config(data, source, fields, strict=strict)


def _labels(given: tuple[str, ...], specs: list[LearnerSpec]) -> list[str]:
    """The learners' labels: those ``given`` if one per learner and distinct, else each
    spec's, a repeated one numbered from its second (``ht``, ``ht#2``)."""
    if len(given) == len(specs) and len(set(given)) == len(given):
        return list(given)
    labels: list[str] = []
    seen: dict[str, int] = {}
    for spec in specs:
        seen[spec.label] = seen.get(spec.label, 0) + 1
        labels.append(spec.label if seen[spec.label] == 1 else f"{spec.label}#{seen[spec.label]}")
    return labels


def _option(default: Any, help: str, **cli: Any) -> Any:
    """A field whose metadata is the single source of its command-line option: ``help``,
    and ``flag`` / ``metavar`` / ``choices`` / ``type`` / ``nargs`` / ``group`` for argparse
    (:mod:`distval.cli.run` generates ``distval run``'s options from them)."""
    return field(default=default, metadata={"help": help, **cli})


@dataclass(frozen=True)
class RunConfig:
    """Everything that determines the results of a run (same config + seed = same numbers).

    ``learners`` holds river classifier or pipeline objects (each the template its fold
    replicas clone) or learner specs as text (``"ht(grace_period=50)"``); a dict gives each
    learner its label. ``stream`` is a spec (a file, ``"elec2"``, a generator such as
    ``"SEA(50)"``) or, from Python, a river dataset or any iterable of ``(x: dict, y)``.

    >>> RunConfig(learners=("ht", "nb"), n_folds=5).validation
    Validation(scheme='bootstrap', n_folds=5, prequential=True, fold_choice='random')
    >>> from river import tree
    >>> RunConfig(learners={"fast": tree.HoeffdingTreeClassifier(grace_period=50)}).labels
    ('fast',)
    >>> RunConfig(alpha=1.5)
    Traceback (most recent call last):
    ...
    distval.errors.DistvalError: `alpha` must be in (0, 1), got 1.5
    """

    stream: Any = _option(  # noqa: RUF009 - a dataclass field (metadata), built once
        None,
        "a .parquet/.csv/.csv.gz/.arff file, 'elec2' (the bundled Electricity data, the "
        "default), or a generator such as 'sea', 'SEA(50)', 'HYP(10,0.001)', "
        "'rbf(n_classes=3)'",
        metavar="SPEC",
        group="stream",
    )
    delay: Any = _option(  # noqa: RUF009 - a dataclass field (metadata), built once
        None,
        "labels arrive late: N rows (1: at once), or with --delay-column a time in that "
        "column's units or a duration such as 30min, 2h, 1d (the column in seconds); rows "
        "still waiting at the end are scored, not trained on",
        metavar="DELAY",
        group="stream",
    )
    delay_column: str | None = _option(
        None, "column holding each row's time, for --delay as a time", metavar="COLUMN",
        group="stream",
    )
    label_probability: float = _option(
        1.0,
        "share of rows whose label the learners get (seeded draw per row); the measures "
        "still count every row",
        metavar="P",
        type=float,
        group="stream",
    )
    target: str | None = _option(
        None, "label column of a file (default: the last column)", metavar="COLUMN",
        group="stream",
    )
    n_rows: int | None = _option(
        None,
        "stop after N rows (generators: stream length, default 100000)",
        metavar="N",
        type=int,
        group="stream",
    )
    na_values: tuple[str, ...] | None = _option(
        None,
        "comma-separated field values a CSV file marks missing values with, besides the "
        "empty field, e.g. 'N/A,NA,null,?,-' (default: N/A,NA,null,?,NaN,nan; '-' is not "
        "among them)",
        metavar="LIST",
        type="texts",
        group="stream",
    )
    infinite: str = _option(
        "refuse",
        "an infinite feature value: refuse (an error naming the column and row) or missing "
        "(read as a missing value)",
        flag="--inf",
        choices=INFINITE,
        group="stream",
    )
    learners: Any = _option(  # noqa: RUF009 - a dataclass field (metadata), built once
        ("ht", "nb"),
        "built-in names (classifiers ht, hat, nb, arf, lb, logreg, majority, persistent, "
        "tc(base=...), ta(base=..., lags=...); regressors "
        + ", ".join(n for n in BUILTIN if n in REGRESSORS)
        + "), moa:<MOA class and options>, package.module:Class, or "
        "sklearn:<estimator with partial_fit>, each optionally NAME(key=value,...); "
        "mini_batch=N learns in blocks of N rows (docs/minibatch.md); NAME=LEARNER names it "
        "in every table, line and figure (sgd=\"sklearn:SGDClassifier(loss='log_loss')\")",
        metavar="LEARNER",
        nargs="+",
        group="learners and validation",
    )
    scheme: str = _option(
        "bootstrap", "validation scheme", choices=SCHEMES, group="learners and validation"
    )
    n_folds: int = _option(
        10, "number of folds", flag="--folds", metavar="K", type=int,
        group="learners and validation",
    )
    prequential: bool = _option(
        True,
        "test every fold on every row before training",
        group="learners and validation",
    )
    fold_choice: str = _option(
        "random",
        "how cv/split pick the special fold: random (paper) or round-robin (MOA)",
        choices=FOLD_CHOICES,
        group="learners and validation",
    )
    forgetting: str = _option(
        "adwin", "window of the per-fold measures", choices=FORGETTING,
        group="measures and tests",
    )
    window: int = _option(
        1000, "sliding window size, also McNemar's and Q's window", metavar="W", type=int,
        group="measures and tests",
    )
    fading: float = _option(
        0.999, "fading factor in (0, 1); ewma forgetting decays by 1 - F", metavar="F",
        type=float, group="measures and tests",
    )
    adwin_delta: float = _option(
        0.002, "ADWIN's confidence δ (adwin forgetting)", type=float, group="measures and tests"
    )
    alpha: float = _option(0.05, "significance level", type=float, group="measures and tests")
    measure: str = _option(
        "accuracy",
        "per-fold value compared by the sign, Wilcoxon and Friedman tests; log_loss, brier "
        "(lower is better) and auc score the class probabilities, computed only when one of "
        "them is asked for; a regression run compares rmse (its default), mae or r2",
        choices=COMPARED,
        group="measures and tests",
    )
    tests: tuple[str, ...] | None = _option(
        None,
        f"comma-separated, among {','.join(TESTS)} (default: all), or 'none'",
        metavar="LIST",
        type="tests",
        group="measures and tests",
    )
    sign_method: str = _option(
        "exact",
        "exact binomial sign test, or the paper's critical-value rule",
        choices=("exact", "critical"),
        group="measures and tests",
    )
    test_every: int = _option(
        1000, "compute measures and tests every N rows", metavar="N", type=int,
        group="measures and tests",
    )
    sequential: str = _option(
        "none",
        "live decisions valid when the results are watched: none (a fixed-alpha test at "
        "every check; stopping at its first rejection errs more often than alpha), spending "
        "(alpha spending over the planned rows, Lan-DeMets), evalue (an e-process over the "
        "folds' signs, valid at every check with no planned length)",
        choices=SEQUENTIAL,
        group="measures and tests",
    )
    planned_rows: int | None = _option(
        None,
        "stream length planned by --sequential spending (default: --n-rows or the stream's "
        "known length; if neither is known, check k spends alpha*6/(pi^2 k^2))",
        metavar="N",
        type=int,
        group="measures and tests",
    )
    # Repeat kept: option fields are alike in shape by design: each field's metadata is its CLI
    # option.
    spending_function: str = _option(
        "obrien-fleming",
        "spending function of --sequential spending",
        choices=SPENDING,
        group="measures and tests",
    )
    seed: int = _option(
        1, "seed of fold routing, replicas and generators", type=int,
        group="learners and validation",
    )
    batch_size: int = _option(
        1000, "rows per batch sent to the learners", metavar="N", type=int,
        group="execution and output",
    )
    mcnemar_alpha: float | None = _option(
        None,
        "significance level of McNemar's decisions (default: --alpha; 0.01 is gama2013's "
        "threshold 6.635)",
        metavar="A",
        type=float,
        group="measures and tests",
    )
    cost: bool = _option(
        True,
        "measure what each learner and fold costs: thread CPU seconds learning and "
        "predicting, model bytes and RAM-hours at every test position; cost.parquet",
        group="measures and tests",
    )
    drift: bool = _option(
        False,
        "Page-Hinkley drift detection on each fold's error estimates (cumulative, --window, "
        "--fading, and short/long ratios); events.parquet",
        group="measures and tests",
    )
    ph_delta: float = _option(0.1, "Page-Hinkley delta", type=float, group="measures and tests")
    ph_lambda: float = _option(
        100.0, "Page-Hinkley threshold lambda", type=float, group="measures and tests"
    )
    margin: float = _option(
        0.0,
        "equivalence margin of the verdict, in accuracy (0.01: one point): a pair is "
        "'equivalent' when its confidence sequence lies within ±MARGIN, 'better' only beyond it",
        metavar="MARGIN",
        type=float,
        group="measures and tests",
    )
    null_twin: str | None = _option(
        None,
        "add a second copy of LEARNER (its label or spec) with other replica seeds; the "
        "summary reports what every rule decided for the pair: a calibration check of the "
        "tests on this stream",
        metavar="LEARNER",
        group="learners and validation",
    )
    task: str = _option(
        "auto",
        "classification, or regression (a numeric target; MAE, RMSE, R², see "
        "docs/regression.md); auto: regression when every learner is a regressor",
        choices=TASKS,
        group="learners and validation",
    )
    labels: tuple[str, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        given: tuple[str, ...] = tuple(self.labels)
        if isinstance(self.learners, Mapping):
            given = tuple(str(k) for k in self.learners)
            learners = tuple(self.learners.values())
        elif isinstance(self.learners, str) or not hasattr(self.learners, "__iter__"):
            learners = (self.learners,)
        else:
            learners = tuple(self.learners)
        named = [split_name(t) if isinstance(t, str) else (None, t) for t in learners]
        if any(name for name, _ in named):  # NAME=SPEC: the name labels the learner
            if given and len(given) == len(learners):
                named = [(name or g, t) for g, (name, t) in zip(given, named)]
            given = tuple(name or (t if isinstance(t, str) else learner_spec(t).label)
                          for name, t in named)
            learners = tuple(t for _, t in named)
        if not learners:
            raise DistvalError("give at least one learner")
        object.__setattr__(self, "learners", learners)
        if isinstance(self.stream, os.PathLike):
            object.__setattr__(self, "stream", os.fspath(self.stream))
        check_stream_path(self.stream)  # before the learners: a MOA one starts the JVM
        self._check_options()  # the same: every check that needs no learner
        specs = [learner_spec(t) for t in learners]
        if self.null_twin is not None:
            learners, specs, given = self._with_twin(learners, specs, given)
            object.__setattr__(self, "learners", learners)
        labels = _labels(given, specs)
        object.__setattr__(self, "labels", tuple(labels))
        object.__setattr__(
            self,
            "_specs",
            [dataclasses.replace(s, label=lab) for s, lab in zip(specs, labels)],
        )
        self._check_task()
        task = task_named(self.task)
        if self.measure not in task.compared:
            task.check(self)  # refuses the measure, naming what it is for
        if self.tests is None:
            tests: tuple[str, ...] = task.default_tests(len(learners))
        else:
            tests = tuple(self.tests)
            if tests and len(learners) < 2:
                raise DistvalError(
                    f"the tests {', '.join(tests)} compare learners: give at least 2 learners, "
                    f"got {len(learners)}"
                )
        object.__setattr__(self, "tests", tests)
        self._check_sequential()
        task.check(self)

    def _check_options(self) -> None:
        """The options checked without the learners (before them: a MOA learner starts the
        JVM and, the first time, compiles its host)."""
        self.validation  # noqa: B018 - validates scheme, folds and fold choice
        if self.na_values is not None:
            object.__setattr__(self, "na_values", na_vocabulary(self.na_values)[1:])
        if self.infinite not in INFINITE:
            raise DistvalError(
                f"unknown `infinite` rule {self.infinite!r}; choose one of {', '.join(INFINITE)}"
            )
        object.__setattr__(
            self, "_delay", delay_spec(self.delay, self.delay_column, self.label_probability)
        )
        if self.forgetting not in FORGETTING:
            raise DistvalError(
                f"unknown forgetting {self.forgetting!r}; choose one of {', '.join(FORGETTING)}"
            )
        for name in ("window", "test_every", "batch_size"):
            check_positive_int(getattr(self, name), name)
        if self.n_rows is not None:
            check_positive_int(self.n_rows, "n_rows")
        for name in ("fading", "adwin_delta", "alpha"):
            check_open_unit(getattr(self, name), name)
        if not isinstance(self.margin, (int, float)) or not 0 <= self.margin < 1:
            raise DistvalError(f"`margin` must be in [0, 1), got {self.margin!r}")
        if self.mcnemar_alpha is not None:
            check_open_unit(self.mcnemar_alpha, "mcnemar_alpha")
        if not isinstance(self.ph_lambda, (int, float)) or self.ph_lambda <= 0:
            raise DistvalError(f"`ph_lambda` must be positive, got {self.ph_lambda!r}")
        if not isinstance(self.ph_delta, (int, float)) or self.ph_delta < 0:
            raise DistvalError(f"`ph_delta` must be >= 0, got {self.ph_delta!r}")
        if self.sign_method not in ("exact", "critical"):
            raise DistvalError(
                f"unknown sign-test method {self.sign_method!r}; choose exact or critical"
            )
        unknown = [t for t in self.tests or () if t not in TESTS]
        if unknown:
            raise DistvalError(f"unknown test {unknown[0]!r}; choose among {', '.join(TESTS)}")

    def _check_task(self) -> None:
        """Resolve ``task`` (:func:`~distval.tasks.resolve_task`); the measure left at
        its default (accuracy) becomes the task's default (a regression run's: rmse)."""
        task = resolve_task(self.task, self.specs)
        object.__setattr__(self, "task", task)
        if self.measure == "accuracy":
            object.__setattr__(self, "measure", task_named(task).default_measure)

    def _with_twin(
        self, learners: tuple[Any, ...], specs: list[LearnerSpec], given: tuple[str, ...]
    ) -> tuple[tuple[Any, ...], list[LearnerSpec], tuple[str, ...]]:
        """The learners with the null twin of ``null_twin`` appended (unless a saved
        configuration already holds it): the same learner, labelled ``<label>~twin``."""
        names = _labels(given, specs)  # a learner given twice: ht, ht#2 (as the tables)
        twin = str(self.null_twin)
        if twin.endswith("~twin"):
            twin = twin[: -len("~twin")]
        found = [i for i, (n, s) in enumerate(zip(names, specs)) if twin in (n, s.text)]
        if not found:
            raise DistvalError(
                f"--null-twin {self.null_twin}: no such learner among {', '.join(names)}"
            )
        i = found[0]
        object.__setattr__(self, "null_twin", names[i])
        label = f"{names[i]}~twin"
        if label in names:  # a saved run's configuration: the twin is there already
            return learners, specs, tuple(names)
        return (
            (*learners, learners[i]),
            [*specs, specs[i]],
            (*names, label),
        )

    @property
    def twin_pair(self) -> tuple[str, str] | None:
        """(learner, its null twin) labels, or None without ``--null-twin``."""
        if self.null_twin is None:
            return None
        return self.null_twin, f"{self.null_twin}~twin"

    def _check_sequential(self) -> None:
        """``sequential`` and its options: one clear message for a bad combination."""
        if self.sequential not in SEQUENTIAL:
            raise DistvalError(
                f"unknown sequential rule {self.sequential!r}; choose one of "
                f"{', '.join(SEQUENTIAL)}"
            )
        if self.spending_function not in SPENDING:
            raise DistvalError(
                f"unknown spending function {self.spending_function!r}; choose one of "
                f"{', '.join(SPENDING)}"
            )
        if self.sequential != "none" and not self.tests:
            why = ("--tests none runs none" if len(self.learners) >= 2
                   else "give two learners or more")
            raise DistvalError(f"--sequential {self.sequential} decides tests: {why}")
        if self.sequential != "spending":
            if self.planned_rows is not None:
                raise DistvalError("--planned-rows is the horizon of --sequential spending")
            if self.spending_function != "obrien-fleming":
                raise DistvalError("--spending-function needs --sequential spending")
            return
        if self.sign_method == "critical" and "sign" in (self.tests or ()):
            raise DistvalError(
                "--sign-method critical decides by a critical number of wins, not a p-value: "
                "--sequential spending needs the exact sign test"
            )
        if self.planned_rows is not None:
            check_positive_int(self.planned_rows, "planned_rows")
            if self.n_rows is not None and self.planned_rows < self.n_rows:
                raise DistvalError(
                    f"--planned-rows {self.planned_rows} is below --n-rows {self.n_rows}: "
                    "checks past the plan would have no alpha left"
                )

    @property
    def validation(self) -> Validation:
        return Validation(self.scheme, self.n_folds, self.prequential, self.fold_choice)

    @property
    def specs(self) -> list[LearnerSpec]:
        """The learners as labelled specs (objects are their replicas' template)."""
        return list(self._specs)  # type: ignore[attr-defined]  # set in __post_init__, not a field

    @property
    def label_delay(self) -> Delay | None:
        """When labels reach the learners (:mod:`distval.routing.delays`); None: at once, all."""
        return self._delay  # type: ignore[attr-defined, no-any-return]  # set in __post_init__

    @property
    def stream_text(self) -> str | None:
        """The stream as text: its spec, or ``python:<name>`` for a Python object."""
        if self.stream is None or isinstance(self.stream, str):
            return self.stream
        return f"python:{getattr(self.stream, 'name', None) or stream_name(self.stream)}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields; :meth:`from_dict` reads them back (``config.json``).

        >>> cfg = RunConfig(learners=("ht", "nb"), n_folds=5)
        >>> RunConfig.from_dict(cfg.to_dict()) == cfg
        True
        """
        out: dict[str, Any] = {"format": CONFIG_FORMAT}
        out |= {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["stream"] = self.stream_text
        out["learners"] = [s.text for s in self.specs]
        out["labels"] = list(self.labels)
        out["tests"] = list(self.tests or ())
        if not task_named(self.task).named_in_config:  # a classification run's as before
            del out["task"]
        if callable(self.delay):
            out["delay"] = f"python:{getattr(self.delay, '__name__', 'function')}"
        elif self.delay is not None and not isinstance(self.delay, (int, float, str)):
            out["delay"] = f"{self.delay.total_seconds()}s"  # a timedelta, in seconds
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], *, reading: bool = False) -> RunConfig:
        """The configuration a :meth:`to_dict` (or a run's ``config.json``) describes, read by
        :func:`read_config`; the keys a run adds (e.g. ``backend``) are left out. With
        ``reading`` (a saved run loaded to be read, never run again) a stream that was a
        Python object stays as its recorded ``python:<name>`` text."""
        names = {f.name for f in dataclasses.fields(cls)}
        kw = {k: v for k, v in read_config(data).items() if k in names}
        for key in ("learners", "labels", "tests", "na_values"):
            if isinstance(kw.get(key), list):
                kw[key] = tuple(kw[key])
        text = kw.get("stream")
        if isinstance(text, str) and text.startswith("python:") and not reading:
            raise DistvalError(
                f"the stream {text!r} was a Python object in the saved run: no text reopens it"
            )
        text = kw.get("delay")
        if isinstance(text, str) and text.startswith("python:"):
            raise DistvalError(
                f"the delay {text!r} was a Python function in the saved run: no text rebuilds it"
            )
        return cls(**kw)

