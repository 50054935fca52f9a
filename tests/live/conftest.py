"""A headless Chromium for the live page's tests: Playwright driving the system's Chromium
(Debian's ``chromium``; Playwright's own download needs the internet). The tests that need
it skip, with the reason, where either is missing."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if importlib.util.find_spec("playwright") is None:
        pytest.skip("needs Playwright (pip install -e '.[test]')")
    path = chromium_path()
    if path is None:
        pytest.skip("needs a Chromium (Debian: apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, headless=True,
                              args=["--no-sandbox", "--disable-gpu"])
        try:
            yield b
        finally:
            b.close()

