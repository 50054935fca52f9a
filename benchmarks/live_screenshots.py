"""Screenshots of the live page for ``docs/live.md``: mid-run, finished and interrupted, taken
by headless Chromium (Playwright driving the system's ``chromium``).

The run is the default job's (elec2, ht against nb, 10-fold bootstrap) on its first
``--rows`` rows, in-process; the mid-run picture is taken when half of them are done.

Run: ``python benchmarks/live_screenshots.py [--rows 20000]`` from the repository root; it
writes ``docs/images/live-running.png``, ``live-finished.png``, ``live-interrupted.png``
``live-suite.png`` (a suite's page) and ``live-grid.png`` (the type I/II grid's page;
``--only grid`` takes that one alone).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import distval
from distval.live import LiveServer, LiveState

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"


def suite_page(page: Any, out: Path) -> None:
    """A suite of five streams (ht, nb and the majority class, 5,000 rows each), pictured
    when three are done."""
    from distval.experiments.suite import suite
    from distval.live.suite import SuiteState

    state = SuiteState(out)
    server = LiveServer(state)
    page.goto(server.url)
    streams = ["sea", "SEA(50)", "SEA(7)", "elec2", "SEA(3)"]
    worker = threading.Thread(target=lambda: suite(
        streams, output_dir=out, learners=("ht", "nb", "majority"), n_rows=5000,
        n_folds=6, backend="inprocess", figures=False))
    worker.start()
    page.wait_for_function("document.getElementById('progress').textContent"
                           ".startsWith('streams 3 /')", timeout=600_000)
    time.sleep(1.5)
    page.screenshot(path=str(IMAGES / "live-suite.png"), full_page=True)
    worker.join()
    state.end()
    time.sleep(1.5)
    server.close()


def grid_page(page: Any, out: Path) -> None:
    """The type I/II grid's page: the quick profile on three streams, three runs each, 1,000
    rows, every scheme (27 cells, in-process), pictured when 18 cells are done."""
    from distval.experiments.type_errors import make_grid, run_grid
    from distval.experiments.type_errors.live import grid_state

    config = make_grid("quick", streams=["SEA(50)", "HYP(10,0.001)", "RBF(10,0.001)"],
                       runs=3, n_rows=1000)
    state = grid_state(out, config)
    server = LiveServer(state)
    page.goto(server.url)
    worker = threading.Thread(target=lambda: run_grid(config, output_dir=out,
                                                      backend="inprocess", progress=False))
    worker.start()
    page.wait_for_function("document.getElementById('progress').textContent"
                           ".startsWith('cells 18 /')", timeout=600_000)
    time.sleep(1.5)
    page.screenshot(path=str(IMAGES / "live-grid.png"), full_page=True)
    worker.join()
    state.end()
    time.sleep(1.5)
    server.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--only", choices=("grid",), default=None,
                    help="take the grid's picture alone")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    IMAGES.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if args.only == "grid":
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            grid_dir = Path(tempfile.mkdtemp(prefix="distval-live-grid-"))
            grid_page(browser.new_page(viewport={"width": 1400, "height": 1000}), grid_dir)
            browser.close()
        shutil.rmtree(grid_dir, ignore_errors=True)
        print(f"wrote {IMAGES}/live-grid.png")
        return
    half = threading.Event()

    def rows_done(n: int) -> None:
        if n >= args.rows // 2:
            half.set()

    out = Path(tempfile.mkdtemp(prefix="distval-live-shots-"))
    state = LiveState(out / "run")
    server = LiveServer(state)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True,
                                    args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(server.url)
        worker = threading.Thread(target=lambda: distval.evaluate(
            n_rows=args.rows, output_dir=out / "run", progress=rows_done, observer=state))
        worker.start()
        half.wait()
        time.sleep(2.5)  # a poll or two after the half
        page.screenshot(path=str(IMAGES / "live-running.png"), full_page=True)
        worker.join()
        page.wait_for_selector("#state.finished")
        time.sleep(1.5)
        page.screenshot(path=str(IMAGES / "live-finished.png"), full_page=True)
        server.close()

        def stop(n: int) -> None:
            if n >= args.rows // 3:
                raise KeyboardInterrupt

        with contextlib.suppress(KeyboardInterrupt):
            distval.evaluate(n_rows=args.rows, output_dir=out / "stopped", progress=stop)
        saved = LiveServer(LiveState.from_directory(out / "stopped"))
        page.goto(saved.url)
        page.wait_for_selector("#state.interrupted")
        time.sleep(1.5)
        page.screenshot(path=str(IMAGES / "live-interrupted.png"), full_page=True)
        saved.close()
        suite_page(page, out / "suite")
        grid_page(page, out / "grid")
        browser.close()
    shutil.rmtree(out, ignore_errors=True)
    print(f"wrote {IMAGES}/live-{{running,finished,interrupted,suite,grid}}.png")


if __name__ == "__main__":
    main()
