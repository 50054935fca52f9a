"""Which learner is better, and is the answer right? Simulated learner pairs with planted truth.

Each run is one evaluation of learners A and B on ``--folds`` folds that all test every row
(prequential bootstrap or cross-validation), with ``--looks`` looks at equal spacing. The runs
do not train learners: they draw each (fold, row)'s 0/1 losses of A and B directly, which
lets the truth be planted exactly. Losses come from a Gaussian latent model: A is wrong on
(fold f, row t) when ``sqrt(a) z_t + sqrt(b) z_ft + sqrt(c) e_ftA`` exceeds the threshold
that makes its error rate ``err_A(t)``, likewise B (same ``z_t``, ``z_ft``, its own
``e_ftB``). ``z_t`` is shared by every fold and both learners (hard and easy rows), ``z_ft``
by both learners of a fold (a fold's own luck on a row), and ``z_t`` follows an AR(1) with
coefficient ``phi`` (``phi`` near 1: long runs of hard rows, as Electricity's label runs
make long runs of errors). Settings:

============== =======================================================================
null           err_A = err_B = 0.25
A +0.5 .. +2   err_A = 0.25 - 0.005 .. 0.02, err_B = 0.25 (A better by 0.5, 1, 2 points)
crossing       err_A = 0.10 + 0.30 exp(-t/4000), err_B = 0.20 + 0.06 exp(-t/4000): B leads
               early, the curves cross near row 3,500, the cumulative difference later
reversal       A better by 2 points for the first 30 % of the rows, then worse by 2
null, runs     the null with phi = 0.995 and a = 0.6 (strong temporal dependence)
A +1, runs     A better by 1 point with the same dependence
============== =======================================================================

Tests at every look (all from :mod:`distval`):

- ``wilcoxon/sign paired``: across folds, each fold's accuracy difference over its paired
  ADWIN window (one ADWIN per fold on ``(loss_B - loss_A + 1) / 2``, :class:`ADWINMeans`);
- ``wilcoxon/sign unpaired``: today's default: each learner's accuracy over its own ADWIN
  window per fold (the windows cover different rows);
- ``wilcoxon paired cum``: the folds' cumulative accuracy differences;
- ``mcnemar``: McNemar on the discordant (row, fold) pairs, cumulative;
- ``sign e`` / ``wilcoxon e``: the settled-sign and settled-Wilcoxon e-processes;
- ``CS``: the empirical-Bernstein confidence sequence of the per-row loss difference averaged
  over folds (:class:`distval.statistics.anytime.DifferenceCS`), decision against margin 0.

Rules: ``fixed, end`` (the test at alpha at the last look only), ``fixed, any`` (stop at the
first look with p <= alpha: peeking), ``spending`` (O'Brien-Fleming-type Lan-DeMets over the
planned looks; canonical boundaries for cumulative statistics, per-look shares for windowed
ones), ``e-value`` (reject when the e-process reaches 1/alpha), ``CS`` (stop at the first
look whose interval excludes 0). A decision names a winner; it is *right* when that learner
is truly better at that look and *wrong* when it is truly worse. "Truly" is the planted
error-rate difference at the look for windowed tests and its running average for cumulative
ones. Coverage: share of runs whose sequence contains its target at all looks; the target
is the running average of the conditional mean of the per-row difference given the past
*and the row's shared latent* ``z_t`` (a filtration the sequence is valid for), computed
exactly from the normal distribution.

Run: ``python benchmarks/bench_verdict.py`` (200 runs x 20,000 rows x 10 folds x 20 looks
per setting); small check: ``--runs 20 --rows 4000``. Writes ``results/verdict.md`` / ``.json``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import signal
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from distval.metrics.paired import ADWINMeans
from distval.statistics.anytime import confidence_sequence
from distval.statistics.mcnemar import mcnemar
from distval.statistics.ranks import midranks
from distval.statistics.sequential import (
    AlphaSpending,
    SettledSignEProcess,
    SettledWilcoxonEProcess,
)
from distval.statistics.sign import sign_test
from distval.statistics.wilcoxon import wilcoxon

from common import save, table


@dataclass(frozen=True)
class Setting:
    name: str
    kind: str  # const, crossing, reversal
    edge: float = 0.0  # err_B - err_A for const / reversal
    a: float = 0.3  # shared row latent's share of the variance
    b: float = 0.3  # fold-row latent's share
    phi: float = 0.0  # AR(1) coefficient of the row latent

    def errors(self, t: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(err_A, err_B) at rows ``t``."""
        if self.kind == "crossing":
            e = np.exp(-t / 4000.0)
            return 0.10 + 0.30 * e, 0.20 + 0.06 * e
        if self.kind == "reversal":
            err_a = np.where(t < 0.3 * n, 0.25 - self.edge, 0.25 + self.edge)
            return err_a, np.full(len(t), 0.25)
        return np.full(len(t), 0.25 - self.edge), np.full(len(t), 0.25)


SETTINGS = [
    Setting("null", "const"),
    Setting("A +0.5", "const", 0.005),
    Setting("A +1", "const", 0.01),
    Setting("A +2", "const", 0.02),
    Setting("crossing", "crossing"),
    Setting("reversal", "reversal", 0.02),
    Setting("null, runs", "const", 0.0, a=0.6, b=0.15, phi=0.995),
    Setting("A +1, runs", "const", 0.01, a=0.6, b=0.15, phi=0.995),
]

#: (test name, which truth it targets: "cur" = now, "cum" = running average)
FOLD_TESTS = [
    ("wilcoxon paired", "cur"),
    ("sign paired", "cur"),
    ("wilcoxon unpaired", "cur"),
    ("sign unpaired", "cur"),
    ("wilcoxon paired cum", "cum"),
    ("mcnemar", "cum"),
]


def fold_test(name: str, va: np.ndarray, vb: np.ndarray, alpha: float) -> tuple[float, int]:
    """(p-value, favoured side +1 A / -1 B / 0) of a fold test of one run at one look."""
    ok = np.isfinite(va) & np.isfinite(vb)
    va, vb = va[ok], vb[ok]
    d = va - vb
    if not len(d):
        return 1.0, 0
    if name.startswith("sign"):
        r = sign_test(va, vb, alpha=alpha)
        return float(r.pvalue), int(np.sign((d > 0).sum() - (d < 0).sum()))
    r = wilcoxon(va, vb, alpha=alpha)
    nz = d[d != 0]
    ranks = midranks(np.abs(nz)) if len(nz) else np.zeros(0)
    return float(r.pvalue), int(np.sign((np.sign(nz) * ranks).sum()))


def simulate(s: Setting, runs: int, n: int, folds: int, n_looks: int, alpha: float,
             rng: np.random.Generator) -> dict[str, Any]:
    """Every test's p-value and favoured side at every look, the e-processes, the CS."""
    m = n // n_looks
    looks = np.arange(1, n_looks + 1) * m
    sa, sb, sc = math.sqrt(s.a), math.sqrt(s.b), math.sqrt(1 - s.a - s.b)
    z = rng.standard_normal((runs, 1))  # stationary start of the AR(1)
    paired = ADWINMeans(runs * folds)
    unpaired = ADWINMeans(runs * 2 * folds)
    cum_diff = np.zeros((runs, folds))
    n01 = np.zeros(runs)  # A wrong, B right
    n10 = np.zeros(runs)
    wins_a = np.zeros((runs, folds))
    wins_b = np.zeros((runs, folds))
    e_sign = [SettledSignEProcess(folds, alpha) for _ in range(runs)]
    e_wil = [SettledWilcoxonEProcess(folds, alpha) for _ in range(runs)]
    x = np.empty((runs, n), dtype=np.float64)
    cond = np.empty((runs, n), dtype=np.float64)
    p = {name: np.ones((runs, n_looks)) for name, _ in FOLD_TESTS}
    fav = {name: np.zeros((runs, n_looks), dtype=np.int64) for name, _ in FOLD_TESTS}
    e_rej = {k: np.full(runs, -1) for k in ("sign e", "wilcoxon e")}
    e_fav = {k: np.zeros(runs, dtype=np.int64) for k in ("sign e", "wilcoxon e")}
    err_a, err_b = s.errors(np.arange(n, dtype=np.float64), n)
    tau_a, tau_b = sps.norm.isf(err_a), sps.norm.isf(err_b)
    for j in range(n_looks):
        rows = slice(j * m, (j + 1) * m)
        noise = rng.standard_normal((runs, m))
        if s.phi:
            zi = s.phi * z
            zrow, _ = signal.lfilter([math.sqrt(1 - s.phi**2)], [1, -s.phi], noise, axis=1,
                                     zi=zi)
        else:
            zrow = noise
        z = zrow[:, -1:]
        shared = sa * zrow[:, None, :] + sb * rng.standard_normal((runs, folds, m))
        loss_a = shared + sc * rng.standard_normal((runs, folds, m)) > tau_a[rows]
        loss_b = shared + sc * rng.standard_normal((runs, folds, m)) > tau_b[rows]
        diff = loss_b.astype(np.float64) - loss_a  # > 0: A right where B wrong
        x[:, rows] = diff.mean(axis=1)
        scale = math.sqrt(1 - s.a)
        cond[:, rows] = sps.norm.sf((tau_b[rows] - sa * zrow) / scale) - sps.norm.sf(
            (tau_a[rows] - sa * zrow) / scale
        )
        paired.update(((diff + 1) / 2).reshape(runs * folds, m))
        unpaired.update(np.concatenate([loss_a, loss_b], axis=1).reshape(-1, m))
        cum_diff += diff.sum(axis=2)
        wa, wb = (diff > 0).sum(axis=2), (diff < 0).sum(axis=2)
        wins_a += wa
        wins_b += wb
        n10 += wa.sum(axis=1)
        n01 += wb.sum(axis=1)
        pd = (2 * paired.means - 1).reshape(runs, folds)
        acc = (1 - unpaired.means).reshape(runs, 2, folds)
        cum = cum_diff / ((j + 1) * m)
        zeros = np.zeros(folds)
        for r in range(runs):
            for name, va, vb in (
                ("wilcoxon paired", pd[r], zeros),
                ("sign paired", pd[r], zeros),
                ("wilcoxon unpaired", acc[r, 0], acc[r, 1]),
                ("sign unpaired", acc[r, 0], acc[r, 1]),
                ("wilcoxon paired cum", cum[r], zeros),
            ):
                p[name][r, j], fav[name][r, j] = fold_test(name, va, vb, alpha)
            mc = mcnemar(n01[r], n10[r], alpha=alpha)
            p["mcnemar"][r, j], fav["mcnemar"][r, j] = mc.pvalue, int(np.sign(n10[r] - n01[r]))
            for key, e in (("sign e", e_sign[r]), ("wilcoxon e", e_wil[r])):
                e.update(wins_a[r], wins_b[r])
                if e.reject and e_rej[key][r] < 0:
                    e_rej[key][r], e_fav[key][r] = j, int(np.sign(e.margin))
    t = np.arange(1, n + 1)
    mean, lower, upper = confidence_sequence(x, alpha, at=looks)
    target = (np.cumsum(cond, axis=1) / t)[:, looks - 1]
    planted = err_b - err_a
    return {
        "p": p, "fav": fav, "e_rej": e_rej, "e_fav": e_fav,
        "cs": (mean, lower, upper), "target": target,
        "truth_cur": planted[looks - 1],
        "truth_cum": (np.cumsum(planted) / t)[looks - 1],
        "looks": looks,
    }


def first(hit: np.ndarray) -> np.ndarray:
    """Index of the first True per row, -1 if none."""
    any_ = hit.any(axis=1)
    return np.where(any_, hit.argmax(axis=1), -1)


def decisions(sim: dict[str, Any], alpha: float, n: int) -> dict[str, tuple[np.ndarray, ...]]:
    """Per rule and test: (look of the decision, -1 none; side +1/-1; truth kind)."""
    looks = sim["looks"]
    out: dict[str, tuple[np.ndarray, np.ndarray, str]] = {}
    limits = {}
    for canonical in (True, False):
        rule = AlphaSpending(n_rows=n, alpha=alpha, canonical=canonical)
        limits[canonical] = np.array([rule.threshold(int(pos)) for pos in looks])
    last = len(looks) - 1
    for name, truth in FOLD_TESTS:
        p, fav = sim["p"][name], sim["fav"][name]
        end = np.where(p[:, last] <= alpha, last, -1)
        out[f"fixed, end | {name}"] = (end, fav[:, last], truth)
        j = first(p <= alpha)
        out[f"fixed, any | {name}"] = (j, fav[np.arange(len(j)), np.maximum(j, 0)], truth)
        lim = limits[truth == "cum"]
        j = first(p <= lim[None, :])
        out[f"spending | {name}"] = (j, fav[np.arange(len(j)), np.maximum(j, 0)], truth)
    for key in ("sign e", "wilcoxon e"):
        out[f"e-value | {key}"] = (sim["e_rej"][key], sim["e_fav"][key], "cum")
    _, lower, upper = sim["cs"]
    side = np.where(lower > 0, 1, np.where(upper < 0, -1, 0))
    j = first(side != 0)
    out["CS | CS"] = (j, side[np.arange(len(j)), np.maximum(j, 0)], "cum")
    j_end = np.where(side[:, last] != 0, last, -1)
    out["CS, end | CS"] = (j_end, side[:, last], "cum")
    return out


def score(sim: dict[str, Any], dec: tuple[np.ndarray, np.ndarray, str]) -> dict[str, float]:
    look, side, truth = dec
    true = np.sign(np.round(sim[f"truth_{truth}"], 12))
    decided = look >= 0
    t = true[np.maximum(look, 0)]
    return {
        "decided": float(decided.mean()),
        "right": float((decided & (side == t) & (t != 0)).mean()),
        "wrong": float((decided & (side == -t) & (t != 0)).mean()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--looks", type=int, default=20)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--settings", default="", help="comma-separated names (default: all)")
    args = ap.parse_args()
    chosen = [s for s in SETTINGS if not args.settings or s.name in args.settings.split(",")]
    alpha, runs = args.alpha, args.runs
    mc = 3 * math.sqrt(alpha * (1 - alpha) / runs)
    results: dict[str, dict[str, dict[str, float]]] = {}
    coverage: dict[str, float] = {}
    width: dict[str, float] = {}
    seconds: dict[str, float] = {}
    for i, s in enumerate(chosen):
        t0 = time.perf_counter()
        rng = np.random.default_rng([args.seed, i])
        sim = simulate(s, runs, args.rows, args.folds, args.looks, alpha, rng)
        _, lower, upper = sim["cs"]
        target = sim["target"]
        coverage[s.name] = float(((lower <= target) & (target <= upper)).all(axis=1).mean())
        width[s.name] = float(np.median(upper[:, -1] - lower[:, -1]))
        ruled = decisions(sim, alpha, args.rows)
        results[s.name] = {rule: score(sim, d) for rule, d in ruled.items()}
        seconds[s.name] = time.perf_counter() - t0
        print(f"{s.name}: {seconds[s.name]:.1f} s", file=sys.stderr, flush=True)
    rules = list(next(iter(results.values())))
    nulls = [s.name for s in chosen if s.kind == "const" and s.edge == 0]
    others = [s.name for s in chosen if s.name not in nulls]

    def cell(name: str, rule: str) -> str:
        r = results[name][rule]
        if name in nulls:
            return f"{r['decided']:.3f}"
        return f"{r['right']:.2f} / {r['wrong']:.3f}"

    rows = []
    for rule in rules:
        kind, test = rule.split(" | ")
        rows.append({"rule": kind, "test": test} | {n: cell(n, rule) for n in [*nulls, *others]})
    rows.append({"rule": "CS coverage", "test": "all looks"}
                | {n: f"{coverage[n]:.3f}" for n in [*nulls, *others]})
    rows.append({"rule": "CS width", "test": "last look (points)"}
                | {n: f"{100 * width[n]:.2f}" for n in [*nulls, *others]})
    anytime = [r for r in rules if r.split(" | ")[0] in ("spending", "e-value", "CS")]
    worst_type1 = max(results[n][r]["decided"] for n in nulls for r in anytime) if nulls else 0
    worst_wrong = max(results[n][r]["wrong"] for n in others for r in anytime) if others else 0
    goals = [
        {"goal": f"every anytime rule's type I <= alpha + 3 MC se ({alpha + mc:.3f})",
         "measured": f"{worst_type1:.3f}", "met": str(worst_type1 <= alpha + mc)},
        {"goal": f"CS coverage >= 1 - alpha - 3 MC se ({1 - alpha - mc:.3f}) at all looks",
         "measured": f"{min(coverage.values()):.3f}",
         "met": str(min(coverage.values()) >= 1 - alpha - mc)},
        {"goal": f"wrong-winner share of anytime rules <= alpha + 3 MC se ({alpha + mc:.3f})",
         "measured": f"{worst_wrong:.3f}", "met": str(worst_wrong <= alpha + mc)},
    ]
    if "A +1" in results:
        for test in ("wilcoxon", "sign"):
            pr = results["A +1"][f"fixed, end | {test} paired"]["right"]
            un = results["A +1"][f"fixed, end | {test} unpaired"]["right"]
            goals.append({"goal": f"paired {test} at least as powerful as unpaired at 1 point",
                          "measured": f"{pr:.2f} vs {un:.2f}", "met": str(pr >= un - mc)})
    text = "\n\n".join([
        "# The verdict: rules and tests on simulated learner pairs with planted truth",
        f"{runs} runs per setting, {args.rows:,} rows, {args.folds} folds that all test every "
        f"row, {args.looks} looks, alpha {alpha}; Monte Carlo standard error at alpha: "
        f"{mc / 3:.3f}. Losses are drawn, not learned (see the script's docstring for the "
        "latent model, the settings and what counts as right and wrong).",
        "Null settings: share of runs that name a winner (type I at any look; `fixed, end`: "
        "at the last look). Other settings: `right / wrong` = share of runs whose decision "
        "names the learner truly better / truly worse at the look of the decision.",
        table(rows),
        "## Goals (issue 26)",
        table(goals),
        "Seconds per setting: " + ", ".join(f"{k} {v:.0f}" for k, v in seconds.items()),
    ])
    save("verdict", text, {"args": vars(args), "results": results, "coverage": coverage,
                           "cs_width": width, "goals": goals, "seconds": seconds})


if __name__ == "__main__":
    main()
