"""The type I/II grid's live page (``distval reproduce type-errors --live``) in headless
Chromium: cells done and Table 2 filling in as cells finish, equal to what ``collect`` makes
of the finished grid directory and to a plain count of the stored decisions; the token; a
grid stopped before its last cell; the command line's hook."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from live_progress import progress_seen

from distval.cli import main
from distval.experiments.type_errors import make_grid, read_cells, run_grid
from distval.experiments.type_errors.live import ended_grid_state, grid_state
from distval.experiments.type_errors.tables import collect
from distval.live import LiveServer

#: The quick profile cut to one stream, three runs, one scheme and 300 rows: three cells.
GRID = make_grid("quick", streams=["SEA(50)"], runs=3, n_rows=300, schemes=("cv",))


def test_the_grid_page_fills_in_as_cells_finish(browser: Any, tmp_path: Path) -> None:
    state = grid_state(tmp_path, GRID)
    server = LiveServer(state)

    def run() -> None:
        run_grid(GRID, output_dir=tmp_path, backend="inprocess", progress=False)
        time.sleep(1.5)  # the page sees the last cell before the end
        state.end()

    worker = threading.Thread(target=run)
    page = browser.new_page()
    try:
        page.goto(server.url)
        page.wait_for_selector("#state.starting")
        seen = progress_seen(page, worker)
        assert "cells 3 / 3" in seen and len(seen) >= 2  # it advanced without a reload
        progress = page.locator("#progress").text_content() or ""
        done = re.match(r"cells (\d+) / (\d+) done", progress)
        result = collect(GRID, read_cells(tmp_path), None)
        assert done is not None and int(done.group(1)) == len(result.cells) == 3
        assert int(done.group(2)) == GRID.runs * len(GRID.streams) * len(GRID.schemes)

        table2 = result.tables["table2"]
        body = table2[~table2["row"].str.startswith("avg time")]
        for r in body.itertuples():  # every entry of Table 2, ours and the paper's
            td = page.locator(f'#table2 td[data-row="{r.row}"][data-pnoise="{r.pnoise:.2f}"]'
                              f'[data-scheme="{r.scheme}"]')
            assert td.locator(".ours").text_content() == f"{r.ours:.2f}"
            assert td.locator(".paper").text_content() == f" ({r.paper:.2f})"
        # Wilcoxon's entries again, counted from the stored decisions with a plain loop
        for prequential in (False, True):
            variant = "prequential" if prequential else "non-prequential"
            for change in (0.0, *GRID.pnoise):
                rejects = [d["reject"] for c in read_cells(tmp_path) for d in c["results"]
                           if d["test"] == "wilcoxon" and d["prequential"] is prequential
                           and abs(d["pnoise"] - change) < 1e-9]
                td = page.locator(f'#table2 td[data-row="wilcoxon {variant}"]'
                                  f'[data-pnoise="{change:.2f}"][data-scheme="cv"] .ours')
                assert len(rejects) == 3
                assert td.text_content() == f"{sum(rejects) / len(rejects):.2f}"
        assert page.locator("#table3 td[data-row='SEA(50)']").count() == 3  # pnoise x cv
    finally:
        page.close()
        server.close()
        worker.join(timeout=60)


def test_a_request_without_the_token_gets_403(tmp_path: Path) -> None:
    server = LiveServer(grid_state(tmp_path, GRID))
    parts = urlsplit(server.url)
    try:
        for path in ("/", "/state", "/state?token=", f"/state?token={server.token[:-1]}"):
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(f"http://{parts.netloc}{path}", timeout=10)
            assert e.value.code == 403
            e.value.close()
        with urllib.request.urlopen(f"http://{parts.netloc}/state?token={server.token}",
                                    timeout=10) as r:
            status = json.loads(r.read())["status"]
        assert (status["state"], status["done"], status["total"]) == ("starting", 0, 3)
    finally:
        server.close()


def test_the_command_line_serves_the_page_and_ends_it_interrupted_when_cut(
        tmp_path: Path, capsys: Any) -> None:
    out = tmp_path / "grid"
    code = main(["reproduce", "type-errors", "--streams", "SEA(50)", "--runs", "3",
                 "--n-rows", "300", "--schemes", "cv", "--backend", "inprocess",
                 "--max-cells", "1", "--no-progress", "--output", str(out),
                 "--live", "--no-browser"])
    err = capsys.readouterr().err
    url = re.search(r"^distval: live page: (http://127\.0\.0\.1:\d+/\?token=[\w-]{24})$",
                    err, re.M)
    assert code == 0 and url is not None
    with pytest.raises(urllib.error.URLError):  # the command has ended: nothing listens
        urllib.request.urlopen(url.group(1), timeout=5)
    # served again from its directory (distval report DIR --live): one cell of three
    status = json.loads(ended_grid_state(out).to_json())["status"]
    assert len(read_cells(out)) == 1
    assert (status["state"], status["done"], status["total"]) == ("interrupted", 1, 3)
    assert status["message"].startswith("interrupted after 1 of 3 cells")
