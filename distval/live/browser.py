"""Open the live page in a browser without its token on any command line.

A browser started with ``http://127.0.0.1:PORT/?token=...`` holds the token in its argv,
which every local user reads with ``ps`` for as long as the browser runs. So distval does
what Jupyter does: it writes a small page that forwards to the tokened address into a
file only this user can read (0600, in a fresh folder of its own, 0700), and opens the
browser on that file. The browser's command line names the file; the token is only inside
it. The file is removed when the server stops.

>>> page = forwarding_page("http://127.0.0.1:8000/?token=abc")
>>> 'content="0;url=http://127.0.0.1:8000/?token=abc"' in page
True
"""

from __future__ import annotations

import html
import json
import os
import shutil
import sys
import tempfile
import webbrowser
from contextlib import suppress
from pathlib import Path

from distval.files import write_file

__all__ = ["forget", "forwarding_page", "graphical", "open_in_browser"]


def forwarding_page(url: str) -> str:
    """An HTML page that sends the browser on to ``url`` at once (a refresh, a script, and
    a link for a browser that does neither)."""
    attr = html.escape(url, quote=True)
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
        f"<meta http-equiv=\"refresh\" content=\"0;url={attr}\">\n"
        "<meta name=\"referrer\" content=\"no-referrer\">\n"
        "<title>distval live page</title></head><body>\n"
        f"<p>Opening the <a href=\"{attr}\">distval live page</a>…</p>\n"
        f"<script>window.location.replace({json.dumps(url)});</script>\n"
        "</body></html>\n"
    )


def graphical() -> bool:
    """Whether this session has a graphical browser to open (never a text browser that
    would take the terminal)."""
    return sys.platform in ("darwin", "win32") or bool(
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def open_in_browser(url: str) -> Path | None:
    """Write :func:`forwarding_page` of ``url`` to a private file and open the browser on
    the file; returns the file (for :func:`forget`), or None where no graphical browser
    is there to open."""
    if not graphical():
        return None
    folder = Path(tempfile.mkdtemp(prefix="distval-live-"))  # 0700, a fresh name
    path = write_file(folder / "open.html", forwarding_page(url), mode=0o600)
    with suppress(webbrowser.Error):
        webbrowser.open(path.resolve().as_uri(), new=2)
    return path


def forget(path: Path | None) -> None:
    """Remove the file :func:`open_in_browser` wrote, and its folder."""
    if path is not None:
        shutil.rmtree(path.parent, ignore_errors=True)
