"""The suite's live page (``distval suite --live``) in headless Chromium: streams done and
the average ranks as they fill in, then finished; and the page's state without a browser."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

from live_progress import progress_seen

from distval.experiments.suite import suite
from distval.live import LiveServer
from distval.live.suite import SuiteState

OPTIONS = {"learners": ("nb", "majority"), "n_rows": 600, "n_folds": 2, "test_every": 300,
           "backend": "inprocess", "figures": False}
STREAMS = ["sea", "SEA(50)", "SEA(7)"]


def test_the_suite_page_fills_in_as_streams_finish(browser: Any, tmp_path: Path) -> None:
    state = SuiteState(tmp_path)
    server = LiveServer(state)
    out: dict[str, Any] = {}

    # a learner that sleeps 0.6 s on its first prediction in each fold: each stream takes
    # over a second, so the page (one look a second) sees the suite between its streams
    slow = {**OPTIONS, "learners": ("nb", "odd_learners:SlowStart(seconds=0.6)")}

    def run() -> None:
        out["result"] = suite(STREAMS, output_dir=tmp_path, **slow)
        time.sleep(1.5)  # the page sees the last stream before the end
        state.end()

    worker = threading.Thread(target=run)
    page = browser.new_page()
    try:
        page.goto(server.url)
        seen = progress_seen(page, worker)
        assert "streams 3 / 3" in seen and len(seen) >= 2  # it advanced without a reload
        ranks = json.loads((tmp_path / "suite.json").read_text())["comparison"]["average_ranks"]
        drawn = page.evaluate("() => { const t = document.getElementById('chart-ranks').data[0];"
                              " return Object.fromEntries(t.y.map((k, i) => [k, t.x[i]])); }")
        assert drawn == ranks == dict(out["result"].cross.average_ranks)
        assert page.locator("#streams tr").count() == len(STREAMS)
        # the values as a person reads them: accuracy in percent (one decimal), each
        # stream's best rank in bold, ties within the ROPE of 1 point (a plain loop)
        comparison = json.loads((tmp_path / "suite.json").read_text())["comparison"]
        shown = page.evaluate("() => [...document.querySelectorAll('#values tr')].slice(1)"
                              ".map(tr => [...tr.cells].slice(1).map(td => "
                              "[td.textContent, getComputedStyle(td).fontWeight]))")
        for row, sd, cells in zip(comparison["values"], comparison["spread"], shown,
                                  strict=True):
            assert [t for t, _ in cells] == [f"{100 * v:.1f} ±{100 * e:.1f}"
                                             for v, e in zip(row, sd, strict=True)]
            rank = [1 + sum(w - u > 0.01 for w in row)
                    + 0.5 * sum(abs(w - u) <= 0.01 for w in row[:j] + row[j + 1:])
                    for j, u in enumerate(row)]
            assert [int(w) >= 700 for _, w in cells] == [r == min(rank) for r in rank]
        assert "accuracy (%)" in page.locator("#values-title").inner_text()
        title = page.evaluate("() => document.getElementById('chart-ranks').layout.title.text")
        assert "ties within ± 1 point" in title
    finally:
        page.close()
        server.close()
        worker.join(timeout=60)


def test_a_suite_stopped_halfway_is_interrupted(tmp_path: Path) -> None:
    suite(STREAMS[:1], output_dir=tmp_path, **OPTIONS)
    data = json.loads((tmp_path / "suite.json").read_text())
    data["streams"].append({"name": "elec2", "stream": "elec2", "done": False})
    (tmp_path / "suite.json").write_text(json.dumps(data))
    state = SuiteState(tmp_path)
    state.end()
    status = json.loads(state.to_json())["status"]
    assert status["state"] == "interrupted" and (status["done"], status["total"]) == (1, 2)
    assert status["message"].startswith("interrupted after 1 of 2 streams")
