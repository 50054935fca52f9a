"""The end-of-run screen's first table read back, and checked against the run's saved paired
table and its verdicts (tests only)."""

from __future__ import annotations

import re

import pandas as pd

#: A row of the same-row table: A, A's mean (±sd), B, B's mean (±sd), folds.
_ROW = re.compile(r"^(\S+)\s+(-?[\d.]+)(?: ±[\d.]+)?\s+(\S+)\s+(-?[\d.]+)(?: ±[\d.]+)?\s+(\d+)$")


def first_table(text: str) -> list[tuple[str, float, str, float, int]]:
    """The rows of the first table after the verdicts: it must be the same-row one (its
    header ``A  <measure> of A  B  <measure> of B  folds``)."""
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if re.match(r"^(A|learner) ", line))
    assert lines[head].split()[-1] == "folds" and " of A " in lines[head], lines[head]
    rows = []
    for line in lines[head + 2:]:
        if not line.strip():
            break
        m = _ROW.match(line)
        assert m, line
        rows.append((m[1], float(m[2]), m[3], float(m[4]), int(m[5])))
    return rows


def check_first_table(res, *, higher_is_better: bool, scale: float, tolerance: float) -> int:
    """The screen's first table (``res.to_text()``) against pandas on ``res.paired()`` at the
    last position (A's and B's mean over the folds where both have a value, times ``scale``,
    within ``tolerance`` of the printed number), and its order against the verdict of each
    pair: the learner ahead in the table is the verdict's winner, or the verdict line says
    that folds favour it. Returns the number of pairs with a decided verdict."""
    rows = first_table(res.to_text())
    want = paired_means(res)
    assert len(rows) == len(want)
    verdicts = res.verdicts()
    verdicts = verdicts[verdicts["position"] == verdicts["position"].max()]
    decided = 0
    for a, va, b, vb, folds in rows:
        mean = want.loc[(a, b)]
        assert folds == mean["folds"]
        assert abs(va - scale * mean["value_a"]) <= tolerance, (a, va, mean)
        assert abs(vb - scale * mean["value_b"]) <= tolerance, (b, vb, mean)
        v = verdicts[(verdicts["learner_a"] == a) & (verdicts["learner_b"] == b)].iloc[0]
        if v["decision"] not in ("A", "B") or va == vb:
            continue
        decided += 1
        winner = a if v["decision"] == "A" else b
        ahead = a if (va > vb) == higher_is_better else b
        if ahead != winner:  # the verdict says why: folds favour the table's leader
            assert f"favour {ahead}" in str(v["line"]), (rows, v["line"])
    return decided


def paired_means(res) -> pd.DataFrame:
    """Per pair (the index), A's and B's mean over the folds where both have a value at the
    last position of ``res.paired()`` (a saved run's ``res.paired``) and the number of those
    folds."""
    paired = res.paired() if callable(res.paired) else res.paired
    last = paired[paired["position"] == paired["position"].max()]
    both = last.dropna(subset=["value_a", "value_b"]).groupby(["learner_a", "learner_b"],
                                                              sort=False)
    return both[["value_a", "value_b"]].mean().assign(folds=both.size())
