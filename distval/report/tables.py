"""The report's tables: final measures, final tests, decisions over time, configuration.

Each builder returns ``(columns, rows)`` of strings, which the page writes as HTML or, with
:func:`distval.results.markdown_table`, as Markdown.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from distval.results import SavedRun
from distval.results.saved import VALIDATION_SETTINGS
from distval.results.summary import rejected_cell
from distval.statistics.sequential import first_rejections

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "config_rows",
    "decision_table",
    "decisions_rows",
    "final_tests_table",
    "measures_table",
    "tests_with_pvalues",
]



def _finite(v: float) -> float | None:
    return v if math.isfinite(v) else None


def _mean_sd(d: dict[str, float | None]) -> tuple[float | None, float | None]:
    return d.get("mean"), d.get("std")


def measures_table(res: SavedRun) -> tuple[list[str], list[list[str]]]:
    """The final measures per learner and forgetting (mean ± sd over folds, in the task's
    units): the task's measures and the run's ``--measure`` when it is another (``auc``,
    ``brier``, …)."""
    task = res.task
    f = res.folds[res.folds["position"] == res.final_position]
    measure = str(res.config.get("measure") or task.default_measure)
    names = (*task.shown, *([measure] if measure not in task.shown and measure in f else []))
    cols = ["learner", "forgetting", "folds", *names]
    rows = []
    for kind in dict.fromkeys([res.forgetting, *f["forgetting"]]):
        for label in res.labels:
            s = f[(f["learner"] == label) & (f["forgetting"] == kind)]
            if s.empty:
                continue
            saved = ((res.summary or {}).get("learners") or {}).get(label, {}).get(kind)
            if (saved and res.final_position == (res.summary or {}).get("rows")
                    and all(m in saved for m in names)):
                cells = [task.cell(m, *_mean_sd(saved[m])) for m in names]
                rows.append([label, kind, str(len(s)), *cells])
                continue
            cells = []  # no summary.json (a run cut off before writing it): from the folds
            for m in names:
                v = s[m].to_numpy(dtype=float)
                v = v[~(v != v)]
                mean = _finite(float(v.mean())) if len(v) else None
                sd = _finite(float(v.std(ddof=1))) if len(v) > 1 else None
                cells.append(task.cell(m, mean, sd))
            rows.append([label, kind, str(len(s)), *cells])
    return cols, rows


def _num(v: float | None, spec: str = ".4g") -> str:
    return "–" if v is None or v != v else format(v, spec)


def final_tests_table(res: SavedRun) -> tuple[list[str], list[list[str]]]:
    """The tests at the last check: what each compared (measure, forgetting; A's and B's
    values), the outcome and the learner the data favour."""
    t = res.tests
    last = t[t["position"] == t["position"].max()]
    sequential = bool(last["anytime_valid"].any())
    cols = ["A", "B", "test", "compares", "value A", "value B", "statistic", "p-value",
            "reject H0"]
    if sequential:
        cols += ["rule valid when watched", "p limit"]
    first = first_rejections(t) if sequential else {}
    rows = []
    for r in last.itertuples():
        digits = ".6g" if r.measure == "errors" else ".4f"

        def value(v: float, measure: str = str(r.measure), digits: str = digits) -> str:
            if measure in res.task.measures and v == v:
                return res.task.cell(measure, v)
            return _num(v, digits)
        row = [
            r.learner_a,
            r.learner_b,
            r.test,
            f"{r.measure}, {r.forgetting}" + (", paired" if r.test in ("sign", "wilcoxon")
                                              else ""),
            value(r.value_a),
            value(r.value_b),
            _num(r.statistic),
            "< 1e-16" if r.pvalue < 1e-16 else _num(r.pvalue),
            "–" if r.pvalue != r.pvalue else rejected_cell(r._asdict(), first),
        ]
        if sequential:
            row += ["yes" if r.anytime_valid else "no", _num(r.boundary, ".3g")]
        rows.append([*row, r.favours if isinstance(r.favours, str) else "–"])
    return [*cols, "favours"], rows


def final_q_table(res: SavedRun) -> tuple[list[str], list[list[str]]]:
    """The Q statistic of every pair at the last check (cumulative, window, fading)."""
    q = res.q
    if q is None or not len(q):
        return [], []
    last = q[q["position"] == q["position"].max()]
    cols = ["A", "B", "forgetting", "Q", "errors A", "errors B", "favours"]
    rows = [
        [
            r.learner_a,
            r.learner_b,
            r.forgetting,
            _num(r.q, "+.4f"),
            _num(r.errors_a, ".6g"),
            _num(r.errors_b, ".6g"),
            r.favours if isinstance(r.favours, str) else "–",
        ]
        for r in last.itertuples()
    ]
    return cols, rows


def decision_table(tests: pd.DataFrame) -> list[dict[str, Any]]:
    """Per (pair, test): checks, share of checks rejecting H0, first rejection, and the
    position from which H0 stayed rejected until the end (None if not rejected at the end).

    Tests without any p-value (descriptive statistics) are left out.

    >>> import pandas as pd
    >>> t = pd.DataFrame({"position": [1, 2, 3, 4], "test": "sign", "learner_a": "a",
    ...                   "learner_b": "b", "reject": [True, False, True, True]})
    >>> d = decision_table(t)[0]
    >>> d["checks"], d["share_rejected"], d["first_rejected"], d["rejected_since"]
    (4, 0.75, 1, 3)
    """

    out: list[dict[str, Any]] = []
    if len(tests) == 0:
        return out
    if "pvalue" in tests:
        tests = tests[tests["test"].isin(tests_with_pvalues(tests))]
    for (a, b, test), g in tests.groupby(["learner_a", "learner_b", "test"], sort=False):
        pos = g["position"].to_numpy()
        rej = g["reject"].to_numpy(dtype=bool)
        first = int(pos[np.argmax(rej)]) if rej.any() else None
        since = None
        if rej[-1]:
            kept = np.flatnonzero(~rej)
            since = int(pos[kept[-1] + 1]) if len(kept) else int(pos[0])
        out.append(
            {
                "learner_a": a,
                "learner_b": b,
                "test": test,
                "checks": len(rej),
                "share_rejected": float(rej.mean()),
                "first_rejected": first,
                "rejected_since": since,
            }
        )
    return out


def decisions_rows(res: SavedRun) -> tuple[list[str], list[list[str]]]:
    cols = [
        "A",
        "B",
        "test",
        "checks",
        "H0 rejected (% of checks)",
        "first rejected at row",
        "rejected since row",
    ]
    rows = [
        [
            d["learner_a"],
            d["learner_b"],
            d["test"],
            str(d["checks"]),
            f"{100 * d['share_rejected']:.1f}",
            "never" if d["first_rejected"] is None else str(d["first_rejected"]),
            "not at the end" if d["rejected_since"] is None else str(d["rejected_since"]),
        ]
        for d in decision_table(res.tests)
    ]
    return cols, rows


def config_rows(res: SavedRun) -> tuple[list[str], list[list[str]]]:
    keep = (
        "stream_name",
        "stream",
        "n_rows",
        "learners",
        *VALIDATION_SETTINGS,
        "alpha",
        "measure",
        "tests",
        "sign_method",
        "test_every",
        "sequential",
        "planned_rows",
        "spending_function",
        "seed",
        "backend",
    )
    rows = []
    for k in keep:
        if k in res.config:
            v = res.config[k]
            if k == "stream" and v is None:  # the default run's
                v = res.config.get("stream_name") or "elec2"
            rows.append([k, ", ".join(map(str, v)) if isinstance(v, list) else str(v)])
    return ["setting", "value"], rows


def tests_with_pvalues(tests: pd.DataFrame) -> set[str]:
    """Tests with at least one p-value (descriptive statistics such as Q have none)."""
    return set(tests.loc[tests["pvalue"].notna(), "test"])
