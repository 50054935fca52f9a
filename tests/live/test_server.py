"""The live page's server: nothing without the run's token (403), the page, plotly.js as the
installed package ships it and the state as JSON with it."""

from __future__ import annotations

import importlib.util
import json
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from distval.live import LiveServer, LiveState
from distval.live.server import is_loopback


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_a_request_without_the_token_gets_403() -> None:
    server = LiveServer(LiveState())
    try:
        parts = urlsplit(server.url)
        base = f"{parts.scheme}://{parts.netloc}"
        assert parts.hostname == "127.0.0.1"
        wrong = "x" * len(server.token)
        for path in ("/", "/state", "/plotly.min.js", "/nothing"):
            assert status(base + path) == 403
            assert status(f"{base}{path}?token={wrong}") == 403
            assert status(f"{base}{path}?token=") == 403
            assert status(f"{base}{path}?token={server.token[:-1]}") == 403
        assert status(f"{base}/?token={server.token}") == 200
        assert status(f"{base}/nothing?token={server.token}") == 404
    finally:
        server.close()


def test_each_server_has_its_own_token() -> None:
    a, b = LiveServer(LiveState()), LiveServer(LiveState())
    try:
        assert a.token != b.token and len(a.token) >= 20
        other = f"http://127.0.0.1:{a.port}/state?token={b.token}"
        assert status(other) == 403
    finally:
        a.close()
        b.close()


def test_the_page_gets_plotly_from_the_installed_package_and_the_state() -> None:
    spec = importlib.util.find_spec("plotly")
    assert spec is not None and spec.origin is not None
    shipped = (Path(spec.origin).parent / "package_data" / "plotly.min.js").read_bytes()
    server = LiveServer(LiveState())
    base = f"http://127.0.0.1:{server.port}"
    try:
        with urllib.request.urlopen(f"{base}/plotly.min.js?token={server.token}") as r:
            assert r.read() == shipped
        with urllib.request.urlopen(f"{base}/?token={server.token}") as r:
            page = r.read().decode()
        assert "https://" not in page and "http://" not in page  # no CDN, nothing outside
        with urllib.request.urlopen(f"{base}/state?token={server.token}") as r:
            assert json.loads(r.read())["status"]["state"] == "starting"
    finally:
        server.close()


@pytest.mark.parametrize(("host", "local"), [("127.0.0.1", True), ("::1", True),
                                              ("localhost", True), ("0.0.0.0", False),
                                              ("10.0.0.5", False), ("head-node", False)])
def test_loopback_hosts(host: str, local: bool) -> None:
    assert is_loopback(host) is local


def _head(url: str) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, method="HEAD")
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return int(r.status), dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return int(e.code), dict(e.headers), e.read()


def test_head_answers_as_get_does_without_the_body() -> None:
    """HEAD: 403 without the token (on every address), 200 with it, GET's headers (the
    length of GET's body) and no body."""
    server = LiveServer(LiveState())
    base = f"http://127.0.0.1:{server.port}"
    try:
        for path in ("/", "/state", "/plotly.min.js"):
            assert _head(base + path)[0] == 403
            assert _head(f"{base}{path}?token={'x' * len(server.token)}")[0] == 403
        with urllib.request.urlopen(f"{base}/plotly.min.js?token={server.token}") as r:
            body = r.read()
        code, headers, got = _head(f"{base}/plotly.min.js?token={server.token}")
        assert (code, got) == (200, b"")
        assert int(headers["Content-Length"]) == len(body)
        assert _head(f"{base}/?token={server.token}")[0] == 200
    finally:
        server.close()


def test_fifty_connections_at_once_wait_in_the_listen_backlog() -> None:
    """With the server's accept loop stopped (its socket still listening), 50 clients
    connect at once: the kernel completes every connection into the listen backlog. (The
    standard library's backlog of 5 completes 6 and drops the rest's handshakes, which
    clients retry only after 1, 3, 7 s...: the 10-second stalls of a busy page.)"""
    import socket

    server = LiveServer(LiveState())
    server._httpd.shutdown()  # no accept() from here on; the socket still listens
    clients: list[socket.socket] = []
    try:
        connected = 0
        for _ in range(50):
            s = socket.socket()
            clients.append(s)
            s.settimeout(0.5)
            try:
                s.connect(("127.0.0.1", server.port))
                connected += 1
            except OSError:  # a dropped handshake: timed out
                pass
        assert connected == 50
    finally:
        for s in clients:
            s.close()
        server._httpd.server_close()


def test_fifty_concurrent_clients_are_all_answered() -> None:
    """50 clients at once, 4 requests each on fresh connections (the page's /state and
    the page itself): every one answered 200 with the right body."""
    from concurrent.futures import ThreadPoolExecutor

    server = LiveServer(LiveState())
    base = f"http://127.0.0.1:{server.port}"
    with urllib.request.urlopen(f"{base}/?token={server.token}", timeout=10) as r:
        page = r.read()

    def client(i: int) -> list[bool]:
        out = []
        for j in range(4):
            path = "/" if (i + j) % 2 else "/state"
            with urllib.request.urlopen(f"{base}{path}?token={server.token}",
                                        timeout=30) as r:
                body = r.read()
                out.append(r.status == 200 and (body == page if path == "/"
                                                else "status" in json.loads(body)))
        return out

    try:
        with ThreadPoolExecutor(50) as pool:
            answers = [ok for oks in pool.map(client, range(50)) for ok in oks]
        assert len(answers) == 200 and all(answers)
    finally:
        server.close()
