"""The live page in a real browser (headless Chromium): it loads, draws the run's checks as
they come without a reload, shows the final verdict line and an interruption."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import distval
from distval.live import LiveServer, LiveState

#: A small run: nb against the majority class on SEA, a check every 250 rows.
RUN = {"stream": "sea", "n_rows": 3000, "learners": ("nb", "majority"), "n_folds": 3,
       "test_every": 250}

POINTS = "() => document.getElementById('chart-folds').data" \
         "?.reduce((n, t) => n + t.x.length, 0) ?? 0"


def slowly(seconds: float, stop_at: int | None = None) -> Any:
    """A progress callback: pause after every batch, so that the browser sees the run
    advance; with ``stop_at``, a Ctrl-C once that many rows are done."""
    def rows_done(n: int) -> None:
        time.sleep(seconds)
        if stop_at is not None and n >= stop_at:
            raise KeyboardInterrupt

    return rows_done


def test_the_page_follows_a_run_to_its_verdict(browser: Any, tmp_path: Path) -> None:
    state = LiveState(tmp_path)
    server = LiveServer(state)
    out: dict[str, Any] = {}

    def run() -> None:
        out["result"] = distval.evaluate(**RUN, output_dir=tmp_path, overwrite=True,
                                         progress=slowly(0.25), observer=state)

    worker = threading.Thread(target=run)
    page = browser.new_page()
    try:
        worker.start()
        page.goto(server.url)
        page.wait_for_function(f"({POINTS})() > 0", timeout=20_000)
        first = page.evaluate(POINTS)
        loads = page.evaluate("performance.getEntriesByType('navigation').length")
        page.wait_for_function(f"({POINTS})() > {first}", timeout=20_000)  # no reload
        assert page.evaluate("performance.getEntriesByType('navigation').length") == loads
        worker.join(timeout=60)
        page.wait_for_selector("#state.finished", timeout=10_000)
        shown = page.locator("#verdicts li.verdict").all_text_contents()
        summary = json.loads((tmp_path / "summary.json").read_text())
        assert shown == [v["line"] for v in summary["verdicts"]] and shown
        # under the verdict, the summary's cost line; then the cost table, a row per learner
        prices = page.locator("#verdicts li.price").all_text_contents()
        printed = (tmp_path / "summary.md").read_text().splitlines()
        assert [f"- {p}" for p in prices] == [x for x in printed if x.startswith("- cost:")]
        assert prices and page.locator("#cost-section").is_visible()
        cells = page.locator("#cost tr").evaluate_all(
            "rows => rows.map(r => [...r.children].map(c => c.textContent))")
        assert cells[0][:2] == ["learner", "CPU s"]
        assert [r[0] for r in cells[1:]] == list(summary["cost"])
        assert [float(r[1]) for r in cells[1:]] == [
            round(c["cpu_s"], 2) for c in summary["cost"].values()]
        # every check of the fold table is a point of each fold's curve, of their mean and
        # of the two baselines (no-change, majority class)
        checks = sorted(set(out["result"].folds()["position"]))
        lines = 2 * (RUN["n_folds"] + 1) + 2
        assert page.evaluate(POINTS) == lines * len(checks)
        assert page.locator("#progress").text_content().startswith("rows 3,000 / 3,000")
    finally:
        page.close()
        server.close()
        worker.join(timeout=60)


def test_an_interrupted_run_says_where_to_continue(browser: Any, tmp_path: Path) -> None:
    state = LiveState(tmp_path)
    server = LiveServer(state)
    page = browser.new_page()
    try:
        with pytest.raises(KeyboardInterrupt):
            distval.evaluate(**RUN, output_dir=tmp_path, overwrite=True, checkpoint_seconds=0,
                             progress=slowly(0.0, stop_at=1000), observer=state)
        at = json.loads((tmp_path / "summary.json").read_text())["interrupted_at"]
        page.goto(server.url)
        page.wait_for_selector("#state.interrupted", timeout=10_000)
        assert page.locator("#message").text_content() == (
            f"interrupted at row {at} \u2014 continue with `distval run --resume {tmp_path}`")
    finally:
        page.close()
        server.close()
    # `distval report DIR --live` serves the same page from the directory
    saved = LiveServer(LiveState.from_directory(tmp_path))
    page = browser.new_page()
    try:
        page.goto(saved.url)
        page.wait_for_selector("#state.interrupted", timeout=10_000)
        assert page.locator("#message").text_content().startswith(f"interrupted at row {at} ")
    finally:
        page.close()
        saved.close()


def test_the_charts_are_drawn_in_percent_and_points(browser: Any, tmp_path: Path) -> None:
    """What the browser draws: the fold chart's mean curves are 100 × pandas' means over
    folds of the saved fold table under "accuracy (%)", the verdict chart's mean 100 × the
    verdict table's running mean under "accuracy difference (pts)" (before: fractions under
    "accuracy" and "difference")."""
    res = distval.evaluate(**RUN, output_dir=tmp_path, overwrite=True)
    server = LiveServer(LiveState.from_directory(tmp_path))
    page = browser.new_page()
    try:
        page.goto(server.url)
        page.wait_for_selector("#state.finished", timeout=10_000)
        page.wait_for_function("document.getElementById('chart-verdict').data?.length > 0",
                               timeout=20_000)
        drawn = page.evaluate("""() => Object.fromEntries(['chart-folds', 'chart-verdict'].map(
            id => { const c = document.getElementById(id);
                    return [id, {axis: c.layout.yaxis.title.text,
                                 lines: c.data.map(t => [t.name, t.y])}]; }))""")
    finally:
        page.close()
        server.close()
    assert drawn["chart-folds"]["axis"] == "accuracy (%)"
    assert drawn["chart-verdict"]["axis"] == "accuracy difference (pts)"
    folds = res.folds()
    primary = folds[folds["forgetting"] == res.config.forgetting]
    lines = dict(drawn["chart-folds"]["lines"])
    for label in res.config.labels:
        want = primary[primary["learner"] == label].groupby("position")["accuracy"].mean()
        assert lines[f"{label} (mean over folds)"] == pytest.approx(100 * want.to_numpy())
    means = [y for name, y in drawn["chart-verdict"]["lines"] if str(name).endswith("(mean)")]
    assert means == [pytest.approx(100 * res.verdicts()["mean"].to_numpy())]
