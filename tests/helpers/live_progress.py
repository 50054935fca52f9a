"""The live pages' tests: what a page's progress line showed while a command ran."""

from __future__ import annotations

from typing import Any


def progress_seen(page: Any, worker: Any) -> set[str]:
    """Run ``worker`` (a thread) while ``page`` watches its ``#progress`` line: every text
    it showed before " done", once the page says the command finished."""
    page.evaluate("""() => { window.seen = [];
        new MutationObserver(() => window.seen.push(
            document.getElementById('progress').textContent.split(' done')[0]))
        .observe(document.getElementById('progress'), {childList: true}); }""")
    worker.start()
    worker.join(timeout=120)
    page.wait_for_selector("#state.finished", timeout=10_000)
    return set(page.evaluate("window.seen"))
