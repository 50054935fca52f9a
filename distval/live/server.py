"""The live page's web server: the standard library's ``ThreadingHTTPServer`` in a daemon
thread, bound to 127.0.0.1 on a free port, answering only requests that carry the run's
random token (``?token=...``; any other gets 403 Forbidden). ``HEAD`` answers as ``GET``
does, without the body. The listen backlog holds 128 connections: fifty pages (or
scripts) asking at once wait for a thread, not for a retried connection.

Three addresses: ``/`` the page (``page.html``), ``/plotly.min.js`` the charting library
as the installed ``plotly`` package ships it, ``/state`` the JSON of
:meth:`~distval.live.state.LiveState.to_json` (``since=V``: the charts only if they changed
after version V). The page asks for ``/state`` once a second.

>>> import urllib.request, urllib.error
>>> from distval.live.state import LiveState
>>> server = LiveServer(LiveState())
>>> try:
...     urllib.request.urlopen(server.url.split("?")[0])
... except urllib.error.HTTPError as e:
...     print(e.code)
403
>>> server.close()
"""

from __future__ import annotations

import hmac
import importlib.util
import ipaddress
import secrets
import threading
import time
from collections.abc import Callable
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

from distval.errors import DistvalError

__all__ = ["LiveServer", "PageState", "is_loopback", "plotly_js"]


@cache
def plotly_js() -> bytes:
    """plotly.js, minified, from the installed ``plotly`` package (its wheel ships it; the
    package is found, not imported)."""
    spec = importlib.util.find_spec("plotly")
    if spec is None or spec.origin is None:
        raise DistvalError("the live page needs the plotly package (pip install plotly)")
    return (Path(spec.origin).parent / "package_data" / "plotly.min.js").read_bytes()


@cache
def _page(name: str) -> bytes:
    """The page ``name`` with the pages' shared head (``head.html``), status lines
    (``status.html``), style (``live.css``) and script (``live.js``) written into it, so
    that each page is one self-contained document.

    >>> page = _page("page.html").decode()
    >>> "/* live.css */" in page, "async function poll(" in page, page.startswith("<!DOCTYPE")
    (False, True, True)
    """
    files = resources.files("distval.live")
    text = files.joinpath(name).read_text(encoding="utf-8")
    for part in ("head.html", "status.html"):
        text = text.replace(f"<!-- {part} -->\n", files.joinpath(part).read_text("utf-8"), 1)
    text = text.replace("/* live.css */\n", files.joinpath("live.css").read_text("utf-8"), 1)
    text = text.replace("// live.js\n", files.joinpath("live.js").read_text("utf-8"), 1)
    return text.encode("utf-8")


class PageState(Protocol):
    """What a live page is served from: :class:`~distval.live.state.LiveState` (a run),
    :class:`~distval.live.suite.SuiteState` (a suite), :class:`~distval.live.grid.GridState`
    (the type I/II grid). ``page``: its HTML file in this
    package; ``version``: one more whenever the charts change."""

    page: str
    version: int

    def to_json(self, since: int = -1) -> str: ...


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class LiveServer:
    """Serve ``state`` on ``host`` (default 127.0.0.1) at ``port`` (0: a free one) from a
    daemon thread; :attr:`url` carries the token. :meth:`close` stops it."""

    def __init__(self, state: PageState, host: str = "127.0.0.1", port: int = 0) -> None:
        self.state = state
        self.token = secrets.token_urlsafe(18)
        self.last_request = 0.0  # time.monotonic() of the page's last /state request
        self.served_version = -1  # the state version last sent
        #: CPU seconds spent answering requests (in the server's threads).
        self.request_seconds = 0.0
        self._count = threading.Lock()
        #: What :meth:`close` does after the server stops (remove the browser's file).
        self.closing: list[Callable[[], None]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                server._answer(self)

            def do_HEAD(self) -> None:  # GET's status and headers, without the body
                server._answer(self)

        self._httpd = _Listener((host, port), Handler)
        self.host = host
        self.port = int(self._httpd.server_address[1])
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="distval-live",
                                        daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """The page's address, token included."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/?token={self.token}"

    def _answer(self, h: BaseHTTPRequestHandler) -> None:
        start = time.thread_time()
        try:
            self._route(h)
        finally:
            with self._count:
                self.request_seconds += time.thread_time() - start

    def _route(self, h: BaseHTTPRequestHandler) -> None:
        parts = urlsplit(h.path)
        query = parse_qs(parts.query)
        token = query.get("token", [""])[0]
        if not hmac.compare_digest(token.encode(), self.token.encode()):
            self._send(h, 403, b"forbidden: this page needs the token of the URL distval printed\n",
                       "text/plain; charset=utf-8")
            return
        if parts.path == "/":
            self._send(h, 200, _page(self.state.page), "text/html; charset=utf-8")
        elif parts.path == "/plotly.min.js":
            self._send(h, 200, plotly_js(), "text/javascript; charset=utf-8", cache=True)
        elif parts.path == "/state":
            try:
                since = int(query.get("since", ["-1"])[0])
            except ValueError:
                since = -1
            version = self.state.version
            body = self.state.to_json(since).encode()
            self.last_request = time.monotonic()
            self.served_version = version
            self._send(h, 200, body, "application/json")
        else:
            self._send(h, 404, b"not found\n", "text/plain; charset=utf-8")

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, code: int, body: bytes, kind: str,
              cache: bool = False) -> None:
        try:
            h.send_response(code)
            h.send_header("Content-Type", kind)
            h.send_header("Content-Length", str(len(body)))
            h.send_header("Cache-Control", "private, max-age=86400" if cache else "no-store")
            h.send_header("X-Content-Type-Options", "nosniff")
            h.end_headers()
            if h.command != "HEAD":
                h.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the page went away
            pass

    def linger(self, timeout: float = 5.0) -> None:
        """After the run: wait (at most ``timeout`` seconds) until a page that asked in
        the last three seconds has been sent the final state, so that it shows it."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if time.monotonic() - self.last_request > 3.0 \
                    or self.served_version >= self.state.version:
                return
            time.sleep(0.05)

    def close(self) -> None:
        """Stop serving, then do what :attr:`closing` holds."""
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)
        for then in self.closing:
            then()


class _Listener(ThreadingHTTPServer):
    """A thread per request, and a listen backlog of 128 connections (the
    standard library's 5 left clients of a busy page waiting seconds for a retried
    connection)."""

    daemon_threads = True
    request_queue_size = 128
