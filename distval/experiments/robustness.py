"""Robustness of an evaluation to the order of the stream (zliobaite-controlled-permutations §5.2).

:func:`run_robustness` evaluates the original stream and ``repeats`` copies permuted in a
controlled way (:mod:`distval.streams.permutations`), concurrently as Ray tasks with
``backend="ray"``, and reports the spread of every measure and the stability of the learner
ranking over the copies.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, SupportsFloat

import numpy as np
from scipy.stats import kendalltau, rankdata

from distval.config import RunConfig
from distval.engine.loop import open_config_stream
from distval.errors import DistvalError, check_positive_int
from distval.evaluation import check_backend, evaluate
from distval.experiments.study import Part, StudyProgress, run_study
from distval.files import replacing, write_file
from distval.metrics import MEASURES
from distval.results import EvaluationResult, claim_output, finite_or_none, markdown_table
from distval.results.lock import locks_output
from distval.streams.fingerprint import STORED, stale, stream_fingerprint
from distval.streams.permutations import (
    PermutationSpec,
    average_neighbour_distance,
    copy_seed,
    parse_permutation,
    total_neighbour_distance,
)
from distval.streams.permuted import PermutedStream, StreamData

__all__ = ["CopyResult", "RobustnessResult", "run_robustness"]


@dataclass
class CopyResult:
    """One evaluated copy: its permutation and the final measures per learner.

    ``values[learner][measure]`` is the mean over folds of the cumulative measure at the end of
    the stream.
    """

    name: str
    index: int
    seed: int | None
    tnd: int
    and_: float
    values: dict[str, dict[str, float | None]]
    rows: int
    elapsed: float
    reused: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "index": self.index,
            "seed": self.seed,
            "tnd": self.tnd,
            "and": self.and_,
            "rows": self.rows,
            "elapsed_seconds": round(self.elapsed, 3),
            "reused": self.reused,
            "values": self.values,
        }


@dataclass
class RobustnessResult:
    """The original and the permuted copies' results, with spread and ranking stability.

    ``summary()`` is a JSON-ready dict (as written to ``robustness.json``), ``to_markdown()``
    the report written to ``robustness.md``.
    """

    config: RunConfig
    permutation: str
    copies: list[CopyResult] = field(default_factory=list)
    output_dir: Path | None = None
    elapsed: float = 0.0
    stream_name: str | None = None

    @property
    def _stream(self) -> str:
        return self.stream_name or self.config.stream or "elec2"

    @property
    def original(self) -> CopyResult:
        return self.copies[0]

    @property
    def permuted(self) -> list[CopyResult]:
        return self.copies[1:]

    def _matrix(self, measure: str, copies: list[CopyResult]) -> np.ndarray:
        """(copies, learners) values of ``measure``; NaN where undefined."""
        return np.array(
            [
                [_nan(c.values.get(lab, {}).get(measure)) for lab in self.config.labels]
                for c in copies
            ],
            dtype=float,
        ).reshape(len(copies), len(self.config.labels))

    def spread(self) -> dict[str, dict[str, dict[str, float | None]]]:
        """learner -> measure -> original value, mean and sd (ddof 1) over permuted copies."""
        out: dict[str, dict[str, dict[str, float | None]]] = {lab: {} for lab in self.config.labels}
        for m in MEASURES:
            orig = self._matrix(m, [self.original])[0]
            vals = self._matrix(m, self.permuted)
            for j, lab in enumerate(self.config.labels):
                v = vals[:, j][np.isfinite(vals[:, j])]
                out[lab][m] = {
                    "original": _finite(orig[j]),
                    "mean": _finite(v.mean()) if len(v) else None,
                    "std": _finite(v.std(ddof=1)) if len(v) > 1 else None,
                    "min": _finite(v.min()) if len(v) else None,
                    "max": _finite(v.max()) if len(v) else None,
                }
        return out

    def rankings(self) -> list[dict[str, Any]]:
        """Per copy: the learners ranked by the run's measure (best first; ties share a rank),
        whether the ranks equal the original's, and Kendall's tau-b against the original."""
        labels = self.config.labels
        vals = self._matrix(self.config.measure, self.copies)
        ranks = rankdata(-np.nan_to_num(vals, nan=-np.inf), method="min", axis=1)
        out: list[dict[str, Any]] = []
        for c, v, r in zip(self.copies, vals, ranks, strict=True):
            tau = float("nan")
            if len(labels) > 1 and np.ptp(vals[0]) > 0 and np.ptp(v) > 0:
                tau = float(kendalltau(v, vals[0]).statistic)
            order = sorted(range(len(labels)), key=lambda j: (r[j], j))
            out.append(
                {
                    "copy": c.name,
                    "ranking": [labels[j] for j in order],
                    "ranks": {labels[j]: int(r[j]) for j in range(len(labels))},
                    "equals_original": bool(np.array_equal(r, ranks[0])),
                    "kendall_tau": _finite(tau),
                }
            )
        return out

    def summary(self) -> dict[str, Any]:
        """Everything in ``robustness.json``."""
        spec = parse_permutation(self.permutation)
        ranks = self.rankings()[1:]
        taus = np.array([_nan(r["kendall_tau"]) for r in ranks], dtype=float)
        ands = np.array([c.and_ for c in self.permuted], dtype=float)
        n = self.original.rows
        return {
            "stream": self._stream,
            "permutation": self.permutation,
            "repeats": len(self.permuted),
            "rows": n,
            "measure": self.config.measure,
            "config": self.config.to_dict(),
            "and": {
                "expected": _finite(spec.expected_and(n)),
                "mean": _finite(ands.mean()) if len(ands) else None,
                "std": _finite(ands.std(ddof=1)) if len(ands) > 1 else None,
            },
            "ranking_equal_to_original": {
                "count": int(sum(r["equals_original"] for r in ranks)),
                "of": len(ranks),
                "fraction": (
                    _finite(np.mean([r["equals_original"] for r in ranks])) if ranks else None
                ),
            },
            "kendall_tau": {
                "mean": _finite(np.nanmean(taus)) if np.isfinite(taus).any() else None,
                "min": _finite(np.nanmin(taus)) if np.isfinite(taus).any() else None,
            },
            "learners": self.spread(),
            "rankings": self.rankings(),
            "copies": [c.to_dict() for c in self.copies],
            "elapsed_seconds": round(self.elapsed, 3),
        }

    def to_markdown(self) -> str:
        """The robustness report as Markdown."""
        s = self.summary()
        cfg = self.config
        labels = cfg.labels
        head = f"{cfg.n_folds}-fold {cfg.scheme}{' prequential' if cfg.prequential else ''}"
        a = s["and"]
        lines = [
            f"## distval robustness: {self._stream}, {head}, {s['rows']} rows, "
            f"original + {s['repeats']} copies permuted by `{self.permutation}`",
            "",
            f"Average neighbour distance of the permuted copies: {_f(a['mean'])} ± {_f(a['std'])}"
            f" (expected {_f(a['expected'])}; identity 1).",
            "",
            f"Cumulative `{cfg.measure}` at the end of the stream (mean over folds): original, "
            "then mean ± sd, min and max over the permuted copies.",
            "",
        ]
        rows = []
        for lab in labels:
            v = s["learners"][lab][cfg.measure]
            spread = f"{_f(v['mean'])} ± {_f(v['std'])}"
            rows.append([lab, _f(v["original"]), spread, _f(v["min"]), _f(v["max"])])
        lines.append(
            markdown_table(["learner", "original", "permuted mean ± sd", "min", "max"], rows)
        )
        shown = [m for m in MEASURES if m != "n"]
        lines += [
            "",
            "Every measure (cumulative, mean over folds), mean ± sd over the permuted copies:",
            "",
        ]
        rows = [
            [
                lab,
                *(
                    f"{_f(s['learners'][lab][m]['mean'])} ± {_f(s['learners'][lab][m]['std'])}"
                    for m in shown
                ),
            ]
            for lab in labels
        ]
        lines.append(markdown_table(["learner", *shown], rows))
        eq, tau = s["ranking_equal_to_original"], s["kendall_tau"]
        lines += [
            "",
            f"Ranking by `{cfg.measure}` equals the original's on {eq['count']} of {eq['of']} "
            f"permuted copies; Kendall's tau with the original: mean {_f(tau['mean'])}, "
            f"min {_f(tau['min'])}.",
            "",
        ]
        rows = [
            [
                c.name,
                f"{c.and_:.3f}",
                " > ".join(r["ranking"]),
                "yes" if r["equals_original"] else "no",
                _f(r["kendall_tau"]),
            ]
            for c, r in zip(self.copies, s["rankings"], strict=True)
        ]
        cols = ["copy", "AND", "ranking (best first)", "same as original", "Kendall tau"]
        lines.append(markdown_table(cols, rows))
        lines += ["", f"{len(self.copies)} evaluations in {self.elapsed:.1f} s."]
        return "\n".join(lines) + "\n"

    def plot(self, path: str | os.PathLike[str]) -> Path:
        """A PNG of the cumulative accuracy of every learner on every copy."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        vals = self._matrix("accuracy", self.copies)
        x = np.arange(len(self.copies))
        fig, ax = plt.subplots(figsize=(max(6.0, 0.35 * len(x) + 3), 4.0))
        for j, lab in enumerate(self.config.labels):
            (line,) = ax.plot(x[1:], vals[1:, j], marker="o", ms=4, lw=1, label=lab)
            ax.axhline(vals[0, j], color=line.get_color(), ls=":", lw=0.8)
            ax.plot([0], [vals[0, j]], marker="*", ms=12, color=line.get_color())
        ax.set_xticks(x, [c.name for c in self.copies], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("accuracy (cumulative, mean over folds)")
        ax.set_title(f"{self._stream}: original (★) and copies permuted by {self.permutation}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = Path(path)
        with replacing(path) as fh:
            fig.savefig(fh, format="png", dpi=110)
        plt.close(fig)
        return path

    def write(self, directory: str | os.PathLike[str]) -> None:
        directory = Path(directory)
        write_file(directory / "robustness.json", json.dumps(self.summary(), indent=2) + "\n")
        write_file(directory / "robustness.md", self.to_markdown())
        self.plot(directory / "accuracy.png")


def _nan(v: float | None) -> float:
    return float("nan") if v is None else float(v)


def _finite(v: SupportsFloat) -> float | None:
    return finite_or_none(float(v))


def _f(v: float | None) -> str:
    return "–" if v is None else f"{v:.4f}"


@dataclass(frozen=True)
class _Plan:
    name: str
    index: int
    seed: int | None
    order: np.ndarray

    def extra(self, permutation: str, stream_name: str) -> dict[str, Any]:
        return {
            "backend": "inprocess",
            "stream_name": stream_name,
            "permutation": "none" if self.index == 0 else permutation,
            "copy": self.index,
            "permutation_seed": self.seed,
        }


def _copy_values(summary: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    out: dict[str, dict[str, float | None]] = {}
    for lab, per in summary["learners"].items():
        cum = per.get("cumulative") or {}
        out[lab] = {m: d["mean"] for m, d in cum.items()}
    return out


def _evaluate_copy(
    config: RunConfig,
    data: StreamData,
    plan: _Plan,
    output_dir: str | os.PathLike[str] | None,
    extra: dict[str, Any],
    **backend: Any,
) -> EvaluationResult:
    """One evaluation of a copy (in-process unless ``backend`` options say otherwise);
    writes ``output_dir`` when given."""
    stream = PermutedStream(data, plan.order, name=extra["stream_name"])
    result = evaluate(config, source=stream, output_dir=output_dir, overwrite=True, **backend)
    if output_dir is not None:
        path = Path(output_dir) / "config.json"
        write_file(path, json.dumps(json.loads(path.read_text()) | extra, indent=2) + "\n")
    return result


def _finished(
    directory: Path, config: RunConfig, extra: dict[str, Any], overwrite: bool,
    read: dict[str, Any], changed: Callable[[str], None],
) -> dict[str, Any] | None:
    """The summary of a finished copy with the same settings in ``directory``, else None.

    A directory of a copy with other settings is an error unless ``overwrite``. A copy
    computed on other data than the stream's now (its stored fingerprint is not ``read``)
    is computed again: ``changed`` is told why.
    """
    if overwrite or not directory.is_dir() or not any(directory.iterdir()):
        return None
    stored: dict[str, Any] = {}
    try:
        saved = json.loads((directory / "config.json").read_text())
        saved.pop("provenance", None)  # the versions that ran it, not a setting
        saved.pop("run_id", None)  # which run wrote it, not a setting
        if STORED in saved:  # what it read, checked below
            stored[STORED] = saved.pop(STORED)
    except (OSError, ValueError, AttributeError, TypeError):
        saved = None
    if saved != json.loads(json.dumps(config.to_dict() | extra)):
        raise DistvalError(
            f"{directory} holds a copy evaluated with other settings; "
            "choose another output directory or pass --overwrite"
        )
    try:
        summary: dict[str, Any] = json.loads((directory / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    if summary.get("interrupted", True):
        return None
    why = stale(stored, read)
    if why is not None:
        changed(why)
        return None
    return summary


@locks_output
def run_robustness(
    config: RunConfig,
    *,
    permute: str,
    repeats: int,
    output_dir: str | os.PathLike[str] | None,
    overwrite: bool = False,
    progress: bool = False,
    backend: str = "inprocess",
    address: str | None = None,
    n_actors: int | None = None,
) -> RobustnessResult:
    """Evaluate ``config`` on the original stream and on ``repeats`` permuted copies.

    Copy ``i`` (1-based) is permuted by ``permute`` with seed :func:`copy_seed` ``(config.seed,
    i)``; folds and learners keep ``config.seed``, so only the row order differs between copies
    (the multiple tests of Sect. 5.2). ``output_dir`` gets one results directory per copy
    (``original``, ``<kind>-01`` …), ``robustness.json``, ``robustness.md`` and
    ``accuracy.png``. A rerun into the same directory reuses every finished copy whose settings
    match, computed on the same data (the stream's fingerprint is stored with each copy; a
    stream changed since is computed again, with one line on stderr saying so);
    ``overwrite`` recomputes them all. With ``backend="ray"`` the copies run concurrently
    as Ray tasks (one CPU each, at most ``n_actors`` at a time); with fewer copies than
    cores (and ``n_actors`` unset or not below the copies) each copy's replicas are spread
    over Ray actors, the cores shared out evenly (the same numbers).

    Examples
    --------
    >>> import tempfile
    >>> cfg = RunConfig(stream="sea", n_rows=600, learners=("majority", "persistent"),
    ...                 n_folds=2, test_every=300)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     res = run_robustness(cfg, permute="speed:p=0.5", repeats=2, output_dir=d)
    ...     sorted(p.name for p in Path(d).iterdir())
    ['accuracy.png', 'original', 'robustness.json', 'robustness.md', 'speed-01', 'speed-02']
    >>> [c.name for c in res.copies], res.original.and_
    (['original', 'speed-01', 'speed-02'], 1.0)
    """
    start = time.perf_counter()
    spec = parse_permutation(permute)
    check_positive_int(repeats, "repeats")
    check_backend(backend, address, n_actors)
    if backend == "auto":
        backend = "ray" if address or n_actors else "inprocess"
    if output_dir is None:
        raise DistvalError("run_robustness needs an output directory")
    out = Path(output_dir)
    width = max(2, len(str(repeats)))
    names = ["original"] + [f"{spec.kind}-{i:0{width}d}" for i in range(1, repeats + 1)]
    owned = {*names, "robustness.json", "robustness.md", "accuracy.png"}
    claim_output(out, owned, overwrite=overwrite, resumable=True)

    stream = open_config_stream(config)
    read = stream_fingerprint(stream, config.stream, config.seed)  # before reading it
    data = StreamData.read(stream)
    plans = _plans(config, spec, names, data)
    out.mkdir(parents=True, exist_ok=True)

    replicas = len(config.learners) * config.n_folds
    # each copy weighs its rows: the progress line counts rows done within a copy
    parts = [Part(plan.name, float(len(plan.order)), (plan, extra), replicas)
             for plan, extra in plans]

    said: list[str] = []

    def changed(why: str) -> None:  # one line for all the copies
        if not said:
            said.append(why)
            print(f"distval: the stream {config.stream} changed since its copies in {out} "
                  f"were computed ({why}); they are computed again", file=sys.stderr,
                  flush=True)

    def finished(part: Part) -> tuple[dict[str, Any], bool] | None:
        plan, extra = part.payload
        summary = _finished(out / plan.name, config, extra, overwrite, read, changed)
        return None if summary is None else (summary, True)

    def store(part: Part, result: EvaluationResult) -> tuple[dict[str, Any], bool]:
        plan, extra = part.payload
        result.save(out / plan.name, extra | {STORED: read})  # checked before reuse
        return result.summary(), False

    bar = StudyProgress(f"{data.name} copies", parts, unit="copies") if progress else None
    # Repeat kept: run_study's keywords, as the suite passes them: one call each, nothing to fold.
    records = run_study(
        parts,
        _copy,
        shared=(config, data),
        finished=finished,
        store=store,
        backend=backend,
        address=address,
        limit=n_actors,
        progress=bar,
        reports_rows=True,
    )
    copies = {
        plan.index: _copy_result(plan, *records[plan.name]) for plan, _ in plans
    }
    result = RobustnessResult(
        config=config,
        permutation=spec.text,
        copies=[copies[i] for i in range(len(plans))],
        output_dir=out,
        elapsed=time.perf_counter() - start,
        stream_name=data.name,
    )
    result.write(out)
    return result


def _plans(
    config: RunConfig, spec: PermutationSpec, names: list[str], data: StreamData
) -> list[tuple[_Plan, dict[str, Any]]]:
    """Each copy's row order (``names[0]``: the original order) with the keys its
    ``config.json`` adds to the run's settings."""
    n = len(data)
    plans = [_Plan("original", 0, None, np.arange(n, dtype=np.int64))]
    for i in range(1, len(names)):
        seed = copy_seed(config.seed, i)
        plans.append(_Plan(names[i], i, seed, spec.generate(n, seed)))
    return [
        (p, p.extra(spec.text, f"{data.name} [{spec.text} #{p.index}]" if p.index else data.name))
        for p in plans
    ]


def _copy_result(plan: _Plan, summary: dict[str, Any], reused: bool) -> CopyResult:
    """What the robustness study keeps of a copy's run summary."""
    return CopyResult(
        name=plan.name,
        index=plan.index,
        seed=plan.seed,
        tnd=total_neighbour_distance(plan.order),
        and_=average_neighbour_distance(plan.order),
        values=_copy_values(summary),
        rows=int(summary["rows"]),
        elapsed=float(summary.get("elapsed_seconds") or 0.0),
        reused=reused,
    )


def _copy(
    config: RunConfig, data: StreamData, part: Part, rows: Callable[[int], None] | None = None
) -> EvaluationResult:
    """One copy's evaluation, in memory (the study runner's ``compute``: no side effect);
    with ``part.actors`` > 1 its replicas are spread over that many Ray actors. ``rows`` is
    told the rows done after every batch."""
    plan, extra = part.payload
    options: dict[str, Any] = {"backend": "ray", "n_actors": part.actors} \
        if part.actors > 1 else {}
    if rows is not None:
        options["progress"] = rows
    return _evaluate_copy(config, data, plan, None, extra, **options)
