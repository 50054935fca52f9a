"""Running a suite: one run per stream, resumed from disk, then the cross-stream tables.

A suite's output directory holds one results directory per stream (the same files as
``distval run --output``), ``suite.json`` (the settings, each stream's status and cost, the
cross-stream statistics), ``suite.md`` and ``suite.tex`` (the tables), and at the end the
critical-difference diagram and the rank plot (``cd.svg``, ``cd.pdf``, ``ranks.svg``,
``ranks.pdf``). ``suite.json`` and the tables are rewritten each time a stream finishes.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as d:
...     res = suite(["sea", "SEA(50)"], learners=("nb", "majority"), n_rows=600, n_folds=2,
...                 test_every=300, output_dir=d, figures=False)
...     sorted(p.name for p in Path(d).iterdir())
['SEA-50', 'sea', 'suite.json', 'suite.md', 'suite.tex']
>>> res.cross.average_ranks
{'nb': 1.0, 'majority': 2.0}
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.errors import DistvalError
from distval.evaluation import check_backend, evaluate
from distval.experiments.study import Part, StudyProgress, run_study
from distval.experiments.suite.statistics import CrossStream, compare
from distval.files import read_json
from distval.results import EvaluationResult, claim_output
from distval.results.lock import locks_output
from distval.streams.fingerprint import STORED, stale, stream_fingerprint
from distval.tasks import task_named

__all__ = ["SuiteConfig", "SuiteResult", "make_suite", "stream_dir_name", "suite"]

#: The files a suite writes beside its streams' directories.
SUITE_FILES = (
    "suite.json",
    "suite.md",
    "suite.tex",
    "suite.html",
    ".suite.json.tmp",
    ".suite.md.tmp",
    ".suite.tex.tmp",
    *(f"{name}.{fmt}" for name in ("cd", "ranks") for fmt in ("svg", "pdf", "png")),
)
#: File endings of streams found in a directory given as a stream.
STREAM_ENDINGS = (".parquet", ".csv", ".csv.gz", ".arff", ".arff.gz", ".data", ".data.gz")


def stream_dir_name(spec: str) -> str:
    """A directory name for a stream: a file's name without its ending, a spec's characters
    outside ``[A-Za-z0-9._]`` as dashes.

    >>> stream_dir_name("SEA(50)"), stream_dir_name("HYP(10,0.001)"), stream_dir_name("a/b.csv")
    ('SEA-50', 'HYP-10-0.001', 'b')
    """
    base = spec
    for ending in STREAM_ENDINGS:
        if spec.lower().endswith(ending):
            base = Path(spec[: -len(ending)]).name
            break
    return re.sub(r"-+", "-", re.sub(r"[^A-Za-z0-9._]", "-", base)).strip("-.") or "stream"


def _expand(streams: Sequence[str]) -> list[str]:
    """Streams with every directory replaced by its stream files, sorted by name."""
    out: list[str] = []
    for s in streams:
        path = Path(s)
        if path.is_dir():
            files = sorted(
                str(p) for p in path.iterdir() if p.name.lower().endswith(STREAM_ENDINGS)
            )
            if not files:
                raise DistvalError(f"{s} holds no stream file ({', '.join(STREAM_ENDINGS)})")
            out += files
        else:
            out.append(s)
    return out


@dataclass(frozen=True)
class SuiteConfig:
    """A suite: streams, the run settings every stream shares, and how the tables compare.

    ``run`` is a :class:`RunConfig` whose ``stream`` is ignored; ``names`` are the streams'
    directory names; ``forgetting`` picks the final value the tables compare
    (``cumulative``: the whole stream; or the run's windowed value) and ``rope`` is the
    Bayesian test's region of practical equivalence, in units of the measure.
    """

    streams: tuple[str, ...]
    names: tuple[str, ...]
    run: RunConfig
    forgetting: str = "cumulative"
    rope: float = 0.01

    def stream_config(self, i: int) -> RunConfig:
        return dataclasses.replace(self.run, stream=self.streams[i])

    def to_dict(self) -> dict[str, Any]:
        run = self.run.to_dict()
        run.pop("stream", None)
        return {
            "streams": list(self.streams),
            "names": list(self.names),
            "run": run,
            "forgetting": self.forgetting,
            "rope": self.rope,
        }


def make_suite(
    streams: Sequence[str],
    *,
    forgetting: str = "cumulative",
    rope: float = 0.01,
    **run_options: Any,
) -> SuiteConfig:
    """A :class:`SuiteConfig` from streams (names, generator specs, files, directories) and
    :class:`RunConfig` options (``learners``, ``n_rows``, ``n_folds``, ...).

    >>> cfg = make_suite(["elec2", "SEA(50)"], learners=("ht", "nb"), n_rows=1000)
    >>> cfg.names, cfg.run.n_rows
    (('elec2', 'SEA-50'), 1000)
    """
    if isinstance(streams, str):
        streams = [streams]
    specs = _expand(list(streams))
    if not specs:
        raise DistvalError("a suite needs at least one stream")
    if not (isinstance(rope, (int, float)) and rope >= 0):
        raise DistvalError(f"`rope` must be a number >= 0, got {rope!r}")
    if "stream" in run_options:
        raise DistvalError("give the suite's streams as `streams`, not `stream`")
    run = RunConfig(**run_options)
    names: list[str] = []
    for spec in specs:
        name = stream_dir_name(spec)
        unique, k = name, 2
        while unique in names or unique in SUITE_FILES:
            unique, k = f"{name}-{k}", k + 1
        names.append(unique)
        open_config_stream(dataclasses.replace(run, stream=spec))  # a bad spec fails here
    if forgetting != "cumulative" and forgetting != run.forgetting:
        raise DistvalError(
            f"the tables compare {forgetting!r} values but the runs keep {run.forgetting!r}; "
            "use the same forgetting, or cumulative"
        )
    return SuiteConfig(tuple(specs), tuple(names), run, forgetting, float(rope))


@dataclass
class SuiteResult:
    """A finished (or partial) suite: per stream its run summary, and the comparison."""

    config: SuiteConfig
    summaries: dict[str, dict[str, Any]]  # stream directory name -> summary.json content
    costs: dict[str, dict[str, Any]]
    cross: CrossStream
    output_dir: Path | None = None
    #: The streams taken from ``output_dir`` as they were (finished and unchanged there).
    reused: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return len(self.summaries) == len(self.config.names)

    @property
    def computed(self) -> tuple[str, ...]:
        """The streams computed by this call (not taken from ``output_dir``)."""
        return tuple(n for n in self.config.names if n in self.summaries and n not in self.reused)

    def to_dict(self) -> dict[str, Any]:
        from distval.experiments.suite.units import rope_words

        cfg = self.config
        data: dict[str, Any] = {
            "format": 1,
            "kind": "suite",
            "config": cfg.to_dict(),
            "measure": cfg.run.measure,
            "streams": [
                {
                    "name": n,
                    "stream": s,
                    "done": n in self.summaries,
                    "learner_costs": (self.summaries.get(n) or {}).get("cost"),
                    **self.costs.get(n, {}),
                }
                for n, s in zip(cfg.names, cfg.streams, strict=True)
            ],
            "comparison": self.cross.to_dict(),
        }
        # the rank rule in words, for the pages that cannot format it (the live page)
        data["comparison"]["rank_rule"] = f"ties within {rope_words(data)}"
        return data

    def to_markdown(self) -> str:
        from distval.experiments.suite.tables import suite_markdown

        return suite_markdown(self.to_dict())

    def to_latex(self) -> str:
        from distval.experiments.suite.tables import suite_latex

        return suite_latex(self.to_dict())

    def write(self, figures: bool = True) -> None:
        """``suite.json``, ``suite.md``, ``suite.tex``, and with ``figures`` the diagrams and
        the page ``suite.html``."""
        if self.output_dir is None:
            return
        from distval.experiments.suite.page import write_suite_page
        from distval.experiments.suite.tables import write_suite_files

        data = self.to_dict()
        write_suite_files(self.output_dir, data, figures=figures)
        if figures:
            write_suite_page(self.output_dir, data)


def final_values(
    summary: Mapping[str, Any], labels: Sequence[str], measure: str, forgetting: str
) -> tuple[list[float], list[float]]:
    """Each learner's final mean and sd over folds of ``measure`` in a run's summary."""
    means, sds = [], []
    for lab in labels:
        try:
            d = summary["learners"][lab][forgetting][measure]
        except KeyError:
            raise DistvalError(
                f"the run's summary has no {forgetting} {measure} for {lab!r}"
            ) from None
        mean, sd = d.get("mean"), d.get("std")
        means.append(float("nan") if mean is None else float(mean))
        sds.append(float("nan") if sd is None else float(sd))
    return means, sds


def _compare(cfg: SuiteConfig, summaries: Mapping[str, Mapping[str, Any]]) -> CrossStream:
    names = [n for n in cfg.names if n in summaries]
    labels = list(cfg.run.labels)
    rows = [final_values(summaries[n], labels, cfg.run.measure, cfg.forgetting) for n in names]
    values = np.array([r[0] for r in rows]).reshape(len(rows), len(labels))
    spread = np.array([r[1] for r in rows]).reshape(len(rows), len(labels))
    finite = np.isfinite(values).all(axis=1)  # a stream without a value cannot be ranked
    return compare(
        values[finite],
        labels,
        streams=[n for n, ok in zip(names, finite, strict=True) if ok],
        spread=spread[finite],
        alpha=cfg.run.alpha,
        rope=cfg.rope,
        seed=cfg.run.seed,
        lower_is_better=not task_named(cfg.run.task).higher_is_better(cfg.run.measure),
    )


def _same_settings(saved: Any, wanted: RunConfig) -> bool:
    if not isinstance(saved, dict):
        return False
    want = json.loads(json.dumps(wanted.to_dict()))
    return bool({k: saved.get(k) for k in want} == want)


def stream_print(config: RunConfig) -> dict[str, Any]:
    """The fingerprint of the stream a run of ``config`` reads
    (:mod:`distval.streams.fingerprint`, the one ``distval run --resume`` checks).

    >>> stream_print(RunConfig(stream="sea", seed=1))
    {'kind': 'generator', 'spec': 'sea', 'seed': 1}
    """
    return stream_fingerprint(open_config_stream(config), config.stream, config.seed)


def _finished_part(out: Path, overwrite: bool) -> Any:
    def finished(part: Part) -> dict[str, Any] | None:
        directory = out / part.name
        if overwrite or not directory.is_dir() or not any(directory.iterdir()):
            return None
        try:
            saved = json.loads((directory / "config.json").read_text())
        except (OSError, ValueError):
            saved = None
        if saved is not None and not _same_settings(saved, part.payload):
            raise DistvalError(
                f"{directory} holds a run with other settings; use another --output or --overwrite"
            )
        try:
            summary = json.loads((directory / "summary.json").read_text())
        except (OSError, ValueError):
            return None
        if summary.get("interrupted", True):
            return None
        why = stale(saved or {}, stream_print(part.payload))
        if why is not None:  # never the old file's numbers as the new file's
            print(f"distval: the file of stream {part.name} changed since the suite computed "
                  f"it ({why}); it is computed again", file=sys.stderr, flush=True)
            return None
        return {"summary": summary, "reused": True}

    return finished


#: A stream's run: its result, CPU seconds, warnings and the fingerprint of what it read.
Computed = tuple[EvaluationResult, float, list[tuple[str, type[Warning]]], dict[str, Any]]


def spread_options(part: Part) -> dict[str, Any]:
    """The backend options of a study part's run: in this process, or over ``part.actors``
    Ray actors (of the Ray the part's task runs in).

    >>> spread_options(Part("a")), spread_options(Part("a", replicas=20, actors=8))
    ({'backend': 'inprocess'}, {'backend': 'ray', 'n_actors': 8})
    """
    if part.actors > 1:
        return {"backend": "ray", "n_actors": part.actors}
    return {"backend": "inprocess"}


def stream_weight(cfg: SuiteConfig, i: int, costs: Mapping[str, Mapping[str, Any]]) -> float:
    """Stream ``i``'s expected cost, to start the costliest first: its rows (the stream's
    length, at most ``n_rows``) times its CPU seconds per row measured by an earlier session
    of the suite (``costs``, from ``suite.json``), else times the mean of those measured
    (every stream runs the same learners, so rows alone order the unmeasured ones).

    >>> cfg = make_suite(["elec2", "sea"], learners=("nb",), n_rows=1000)
    >>> stream_weight(cfg, 0, {}), stream_weight(cfg, 0, {"elec2": {"rows": 10, "cpu_seconds": 5}})
    (1000.0, 500.0)
    """
    stream = open_config_stream(cfg.stream_config(i))
    known = [k for k in (stream.n_rows, stream.limit, cfg.run.n_rows) if k is not None]
    n = min(known) if known else 1
    rate = {
        k: float(c["cpu_seconds"]) / float(c["rows"])
        for k, c in costs.items()
        if c.get("cpu_seconds") and c.get("rows")
    }
    per_row = rate.get(cfg.names[i], float(np.mean(list(rate.values()))) if rate else 1.0)
    return float(n) * per_row


def _evaluate_part(part: Part, rows: Callable[[int], None] | None = None) -> Computed:
    """One stream's run, in this process or, given ``part.actors`` > 1, with its replicas
    spread over that many Ray actors (the same numbers); returns the result, the CPU
    seconds of this process and the warnings it raised (shown by the driver, once each, not
    by a Ray worker). No side effect: a Ray task that is retried (its node lost) computes
    the same result again. ``rows`` is told the rows done after every batch (the progress
    line's rows within a stream, in this process or from a Ray task). The stream's
    fingerprint is taken before the run reads it, and stored with the run."""
    read = stream_print(part.payload)
    cpu = time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = evaluate(part.payload, progress=rows or False, **spread_options(part))
    notes = [(str(w.message), w.category) for w in caught]
    return result, time.process_time() - cpu, notes, read


@locks_output
def suite(
    streams: Sequence[str] | SuiteConfig,
    *,
    output_dir: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    backend: str = "inprocess",
    address: str | None = None,
    n_tasks: int | None = None,
    progress: bool = False,
    figures: bool = True,
    forgetting: str = "cumulative",
    rope: float = 0.01,
    **run_options: Any,
) -> SuiteResult:
    """Evaluate learners on many streams, one run per stream, and compare them across streams.

    ``streams``: names (``"elec2"``), generator specs (``"SEA(50)"``), files or directories
    of files, or a :class:`SuiteConfig`; ``run_options`` are :class:`RunConfig` fields
    shared by every stream (``learners``, ``n_rows``, ``n_folds``, ...). With ``output_dir``
    each stream's run is written to ``output_dir/<stream>`` and the suite's files beside
    them; a rerun into the same directory skips the streams already complete there, and its
    tables equal those of an uninterrupted suite. A stream is reused only if it was
    computed on the data it reads now (its fingerprint, stored with it, checked as
    ``distval run --resume`` checks a checkpoint's): one that changed since is computed
    again, with one line on stderr saying so. ``backend="ray"`` runs the streams as Ray
    tasks, one CPU each (at most ``n_tasks`` at once), on local cores or the cluster at
    ``address``, the costliest first (:func:`stream_weight`); a task whose node is lost is
    run again. With fewer streams than cores (and ``n_tasks`` not below the streams), each
    stream's replicas are spread over Ray actors, the cores shared out by cost
    (:func:`distval.experiments.study.share_cores`); the numbers are the same.
    """
    if isinstance(streams, SuiteConfig):
        if run_options:
            raise DistvalError("give either a SuiteConfig or run options, not both")
        cfg = streams
    else:
        cfg = make_suite(streams, forgetting=forgetting, rope=rope, **run_options)
    if backend not in ("inprocess", "ray"):
        raise DistvalError(f"unknown backend {backend!r}; choose inprocess or ray")
    check_backend(backend, address, n_tasks)
    out = Path(output_dir) if output_dir is not None else None
    if out is not None:
        claim_output(out, {*cfg.names, *SUITE_FILES}, overwrite=overwrite, resumable=True)
        out.mkdir(parents=True, exist_ok=True)
    costs = _stored_costs(out) if out is not None and not overwrite else {}
    replicas = len(cfg.run.learners) * cfg.run.n_folds
    parts = [
        Part(name, stream_weight(cfg, i, costs), cfg.stream_config(i), replicas)
        for i, name in enumerate(cfg.names)
    ]
    summaries: dict[str, dict[str, Any]] = {}
    shown: set[tuple[str, type[Warning]]] = set()

    def store(part: Part, computed: Computed) -> dict[str, Any]:
        result, cpu, notes, read = computed
        for note in notes:  # the same notice from every stream: shown once
            if note not in shown:
                shown.add(note)
                warnings.warn(note[0], note[1], stacklevel=2)
        if out is not None:
            result.save(out / part.name, {STORED: read})  # checked before it is reused
        summary = result.summary()
        costs[part.name] = {
            "rows": int(summary["rows"]),
            "elapsed_seconds": float(summary.get("elapsed_seconds") or 0.0),
            "cpu_seconds": round(float(cpu), 3),
        }
        return {"summary": summary, "reused": False}

    def refresh(records: dict[str, Any]) -> None:
        summaries.clear()
        summaries.update({n: r["summary"] for n, r in records.items()})
        if out is not None:
            SuiteResult(cfg, dict(summaries), costs, _compare(cfg, summaries), out).write(
                figures=False
            )

    bar = StudyProgress("suite", parts, unit="streams") if progress else None
    finished = _finished_part(out, overwrite) if out is not None else (lambda p: None)
    records = run_study(
        parts,
        _evaluate_part,
        finished=finished,
        store=store,
        on_record=refresh,
        backend=backend,
        address=address,
        limit=n_tasks,
        progress=bar,
        reports_rows=True,  # rows done within a stream, per batch
    )
    summaries = {n: r["summary"] for n, r in records.items()}
    for n, r in records.items():
        if r["reused"] and n not in costs:
            s = r["summary"]
            costs[n] = {"rows": int(s["rows"]), "elapsed_seconds": s.get("elapsed_seconds")}
    reused = tuple(n for n, r in records.items() if r["reused"])
    result = SuiteResult(cfg, summaries, costs, _compare(cfg, summaries), out, reused)
    result.write(figures=figures)
    return result


def _stored_costs(out: Path) -> dict[str, dict[str, Any]]:
    """The per-stream costs an earlier session of this suite recorded in ``suite.json``."""
    try:
        stored = json.loads((out / "suite.json").read_text())
    except (OSError, ValueError):
        return {}
    keys = ("rows", "elapsed_seconds", "cpu_seconds")
    return {
        s["name"]: {k: s[k] for k in keys if k in s}
        for s in stored.get("streams", [])
        if s.get("done") and "name" in s
    }


def load_suite(directory: str | os.PathLike[str]) -> dict[str, Any]:
    """The ``suite.json`` of a suite's output directory."""
    path = Path(directory) / "suite.json"
    data = read_json(path, "a suite")
    if not isinstance(data, dict) or data.get("kind") != "suite":
        raise DistvalError(f"{path} does not describe a suite")
    return data
