"""The live page: ``distval run --live`` serves the run, as it goes, on a local web page.

:class:`LiveState` keeps what the page draws (an observer of the run,
:class:`~distval.engine.observer.RunObserver`), :class:`LiveServer` serves it on
127.0.0.1 behind a per-run token, with the charting library's JavaScript from the
installed ``plotly`` package (no CDN, no internet). See ``docs/live.md``.

>>> import urllib.request
>>> server = LiveServer(LiveState())
>>> server.url.startswith("http://127.0.0.1:"), "?token=" in server.url
(True, True)
>>> urllib.request.urlopen(server.url).status
200
>>> server.close()
"""

from distval.live.server import LiveServer
from distval.live.state import LiveState, snapshots_of

__all__ = ["LiveServer", "LiveState", "snapshots_of"]
