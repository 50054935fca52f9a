"""The reorganisation changed no number: runs pinned against summaries taken before it.

``tests/data/before_architecture_*.json`` were written by the package as it was before the
layout change (commit 6c9b725), from the same configurations; every measure and every test
statistic and p-value must come out identical. Their ``repinned`` entry lists the numbers
re-pinned since, and why (nominal features as categories for Hoeffding trees changed the
``ht`` rows on Electricity; nothing else moved).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import distval

PINNED = sorted((Path(__file__).parent / "data").glob("before_architecture_*.json"))


def _numbers(summary: dict) -> dict:
    out = {}
    for learner, kinds in summary["learners"].items():
        for kind, measures in kinds.items():
            for m, v in measures.items():
                out[(learner, kind, m)] = (v["mean"], v["std"])
    for t in summary["tests"]:
        key = (t["learner_a"], t["learner_b"], t["test"])
        if t["test"].startswith("q"):  # before q.parquet: the Q statistic was a test row
            out[key] = (t["statistic"],)
        elif t["test"].startswith("mcnemar"):  # its values were fold means, now its errors
            out[key] = (t["statistic"], t["pvalue"])
        else:
            value_a = t["value_a"] if "value_a" in t else t["mean_a"]
            value_b = t["value_b"] if "value_b" in t else t["mean_b"]
            out[key] = (t["statistic"], t["pvalue"], value_a, value_b)
    for q in summary.get("q", []):
        suffix = {"cumulative": "", "window": "_window", "fading": "_fading"}[q["forgetting"]]
        out[(q["learner_a"], q["learner_b"], "q" + suffix)] = (q["q"],)
    out["rows"] = summary["rows"]
    out["classes"] = tuple(summary["classes"])
    out["detections"] = json.dumps(summary["detections"], sort_keys=True)
    return out


def _same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("path", PINNED, ids=lambda p: p.stem)
def test_run_gives_the_numbers_pinned_before_the_reorganisation(path, tmp_path):
    pinned = json.loads(path.read_text())
    kwargs = dict(pinned["kwargs"])
    result = distval.evaluate(output_dir=tmp_path / "run", seed=3, **kwargs)
    now = _numbers(json.loads((tmp_path / "run" / "summary.json").read_text()))
    before = _numbers(pinned["summary"])
    assert len(before) > 20 and set(now) == set(before)
    differ = [k for k in before if not _same(now[k], before[k])]
    assert differ == []
    assert result.n_rows == pinned["summary"]["rows"]
