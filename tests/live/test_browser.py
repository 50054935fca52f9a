"""``--live`` opens the browser on a private file that forwards to the tokened address: the
browser's own command line (a real process started by the standard library's ``webbrowser``
through ``$BROWSER``) holds no token; the file is this user's alone and leads to the page."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: The "browser": records its argv, and what the file it was given holds, as a browser
#: reading it would.
BROWSER = """#!{python}
import json, os, stat, sys
from urllib.parse import unquote, urlsplit
record = {{"argv": sys.argv}}
target = sys.argv[-1]
if target.startswith("file:"):
    path = unquote(urlsplit(target).path)
    record.update(path=path, mode=stat.S_IMODE(os.stat(path).st_mode),
                  folder_mode=stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode),
                  html=open(path, encoding="utf-8").read())
with open({out!r}, "w") as fh:
    json.dump(record, fh)
"""

#: A ``--live`` start as the command line makes it, in a fresh interpreter (the standard
#: library reads ``$BROWSER`` once per process).
RUN = """
import argparse, json, os, sys, urllib.request
from distval.live import cli
from distval.live.state import LiveState
p = argparse.ArgumentParser()
cli.add_arguments(p)
server = cli._start(LiveState(), p.parse_args(["--live"]))
print(json.dumps({"url": server.url, "token": server.token}), flush=True)
sys.stdin.readline()  # the test has looked at the file and the page
server.close()
"""


def test_the_browser_is_opened_on_a_private_file_that_forwards_to_the_tokened_page(
    tmp_path: Path,
) -> None:
    out = tmp_path / "browser.json"
    browser = tmp_path / "fake-browser"
    browser.write_text(BROWSER.format(python=sys.executable, out=str(out)))
    browser.chmod(0o700)
    env = os.environ | {"BROWSER": str(browser), "DISPLAY": ":99",
                        "PYTHONPATH": os.getcwd()}
    env.pop("WAYLAND_DISPLAY", None)
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(RUN)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdin is not None
        started = json.loads(proc.stdout.readline())
        seen = json.loads(out.read_text())  # webbrowser waits for the command to return
        token, url = started["token"], started["url"]
        assert token not in " ".join(seen["argv"])
        assert seen["argv"][-1].startswith("file://")
        assert seen["mode"] == 0o600 and seen["folder_mode"] == 0o700
        # the file forwards to the tokened page (meta refresh, script and link agree)
        targets = {*re.findall(r'content="0;url=([^"]+)"', seen["html"]),
                   *re.findall(r'href="([^"]+)"', seen["html"]),
                   *(json.loads(m) for m in
                     re.findall(r"location\.replace\((\"[^\"]+\")\)", seen["html"]))}
        assert targets == {url}
        with urllib.request.urlopen(url, timeout=10) as r:
            assert r.status == 200
        path = Path(unquote(urlsplit(seen["argv"][-1]).path))
        assert path.is_file() and stat.S_IMODE(path.stat().st_mode) == 0o600
        _, err = proc.communicate("\n", timeout=30)
        assert proc.returncode == 0, err
        assert not path.exists() and not path.parent.exists()  # removed with the server
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
