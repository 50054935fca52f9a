"""The regression verdict's confidence sequence on planted truths: type I and coverage at
every look, with heavy-tailed, unbounded errors.

Each run draws, for ``--folds`` folds that all test every row and ``--rows`` rows, the
errors of learners A and B directly (no learner is trained), so the truth is planted
exactly. The sequence is :class:`distval.statistics.anytime.DifferenceCS` on ``[-1, 1]`` over the
per-row value ``x_t``: the mean over folds of ``sign(|e_B| - |e_A|)``, as
:class:`distval.aggregator.numeric.RegressionAggregator` feeds it. Row scale ``s_t = exp(z_t /
2)`` with ``z_t`` an AR(1) (coefficient ``phi``, unit variance): runs of hard rows.

============== =======================================================================
null t1.5      e_A, e_B = s_t (u_t + T), T Student-t with 1.5 degrees of freedom (infinite
               variance), u_t the row's error both suffer (same draw for A and B and
               every fold): exchangeable, target 0
null cauchy    the same with Cauchy noise and phi = 0.995 (strong dependence)
A 0.9x t1.5    e_A = 0.9 s_t T_A, e_B = s_t T_B: the target is
               P(|T_B| > 0.9 |T_A|) - P(|T_B| < 0.9 |T_A|), the same on every row
A 0.8x cauchy  the same with Cauchy noise, factor 0.8
A normal vs B cauchy  e_A = s_t N, e_B = s_t C: A closer on more rows
============== =======================================================================

The targets of the alternatives are computed once by Monte Carlo (10 million draws; their
standard error, about 3e-4, is reported). Type I: share of null runs whose interval excludes
0 at any look (the error of one who watches every look). Coverage: share of runs whose
interval contains the target at every look. Power: share of alternative runs decided for A
by the last look.

Run: ``python benchmarks/bench_verdict_regression.py`` (200 runs x 20,000 rows x 10 folds
x 20 looks per setting). Writes ``results/verdict_regression.md`` / ``.json``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from distval.statistics.anytime import DifferenceCS

from common import save


def _noise(kind: str, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    if kind == "t1.5":
        return rng.standard_t(1.5, shape)
    if kind == "cauchy":
        return rng.standard_cauchy(shape)
    return rng.standard_normal(shape)


SETTINGS = {
    # name: (noise A, noise B, factor of A, shared row error, phi)
    "null t1.5": ("t1.5", "t1.5", 1.0, True, 0.9),
    "null cauchy": ("cauchy", "cauchy", 1.0, True, 0.995),
    "A 0.9x t1.5": ("t1.5", "t1.5", 0.9, False, 0.9),
    "A 0.8x cauchy": ("cauchy", "cauchy", 0.8, False, 0.995),
    "A normal vs B cauchy": ("normal", "cauchy", 1.0, False, 0.9),
}


def target(name: str, rng: np.random.Generator, draws: int = 10_000_000) -> tuple[float, float]:
    """The planted mean of sign(|e_B| - |e_A|) and its Monte Carlo standard error."""
    na, nb, factor, shared, _ = SETTINGS[name]
    if shared and factor == 1.0 and na == nb:
        return 0.0, 0.0
    s = np.sign(np.abs(_noise(nb, rng, (draws,))) - factor * np.abs(_noise(na, rng, (draws,))))
    return float(s.mean()), float(s.std() / np.sqrt(draws))


def one_run(name: str, rng: np.random.Generator, rows: int, folds: int, looks: int,
            alpha: float, truth: float) -> tuple[bool, bool, bool]:
    """(excluded 0 at some look, covered the truth at every look, decided A at the end)."""
    na, nb, factor, shared, phi = SETTINGS[name]
    z = np.empty(rows)
    eps = rng.standard_normal(rows) * np.sqrt(1 - phi**2)
    z[0] = rng.standard_normal()
    for t in range(1, rows):  # AR(1) recursion (scalar: a few ms per run)
        z[t] = phi * z[t - 1] + eps[t]
    scale = np.exp(z / 2)
    u = _noise(na, rng, (rows,)) if shared else np.zeros(rows)
    ea = scale * (u + factor * _noise(na, rng, (folds, rows)))
    eb = scale * (u + _noise(nb, rng, (folds, rows)))
    x = np.sign(np.abs(eb) - np.abs(ea)).mean(axis=0)
    cs = DifferenceCS(alpha, lo=-1.0, hi=1.0)
    excluded0, covered = False, True
    for chunk in np.array_split(x, looks):
        cs.update(chunk)
        lo, hi = cs.lower, cs.upper
        excluded0 |= lo > 0 or hi < 0
        covered &= lo <= truth <= hi
    return excluded0, covered, cs.lower > 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--looks", type=int, default=20)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    rows = []
    for name in SETTINGS:
        truth, se = target(name, rng)
        got = np.array([one_run(name, rng, args.rows, args.folds, args.looks, args.alpha, truth)
                        for _ in range(args.runs)])
        rows.append({
            "setting": name, "target": truth, "target_se": se,
            "type_I_any_look": float(got[:, 0].mean()) if truth == 0 else None,
            "coverage_all_looks": float(got[:, 1].mean()),
            "decided_A_at_end": float(got[:, 2].mean()),
        })
        print(rows[-1], file=sys.stderr, flush=True)
    seconds = time.perf_counter() - started
    lines = [
        "# Regression verdict: sign-based confidence sequence on planted truths",
        "",
        f"{args.runs} runs x {args.rows:,} rows x {args.folds} folds x {args.looks} looks per "
        f"setting, alpha {args.alpha}, seed {args.seed}; {seconds:.0f} s.",
        "",
        "| setting | target (MC s.e.) | type I, any look | coverage, all looks | "
        "decided A at end |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        t1 = "-" if r["type_I_any_look"] is None else f"{r['type_I_any_look']:.3f}"
        lines.append(
            f"| {r['setting']} | {r['target']:.4f} ({r['target_se']:.1g}) | {t1} | "
            f"{r['coverage_all_looks']:.3f} | {r['decided_A_at_end']:.3f} |"
        )
    save("verdict_regression", "\n".join(lines),
         {"args": vars(args), "rows": rows, "seconds": seconds})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
