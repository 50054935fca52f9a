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
