"""The ``--live`` options of the command line and what they do: serve the page, print its
address, open it in a browser where there is one (on a private file that forwards to the
address: :mod:`~distval.live.browser`), and leave the final state to the page.

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_arguments(p)
>>> a = p.parse_args(["--live", "--no-browser"])
>>> a.live, a.live_host, a.browser
(True, '127.0.0.1', False)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from distval.errors import DistvalError
from distval.live.browser import forget, open_in_browser
from distval.live.server import LiveServer, PageState, is_loopback
from distval.live.state import LiveState

__all__ = ["EndingState", "add_arguments", "live_page", "live_served", "live_suite",
           "serve_directory", "serve_until_interrupted"]


def add_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--live``, ``--live-host`` and ``--no-browser``."""
    parser.add_argument(
        "--live", action="store_true",
        help="serve a live page of the run on 127.0.0.1 (a free port; the address, with a "
        "per-run token, is printed and opened in the browser)",
    )
    parser.add_argument(
        "--live-host", default="127.0.0.1", metavar="HOST",
        help="with --live: listen on HOST instead (e.g. 0.0.0.0 on a cluster's head node; "
        "anyone who can reach it and has the printed URL sees the page)",
    )
    parser.add_argument(
        "--no-browser", dest="browser", action="store_false",
        help="with --live: print the page's address but do not open a browser",
    )


def _start(state: PageState, args: argparse.Namespace) -> LiveServer:
    host = args.live_host
    if not is_loopback(host):
        print(f"distval: warning: the live page listens on {host}: anyone who can reach it "
              "and has the URL's token sees the run", file=sys.stderr, flush=True)
    try:
        server = LiveServer(state, host=host)
    except OSError as exc:
        raise DistvalError(f"--live-host {host}: cannot listen there: "
                           f"{exc.strerror or exc}") from None
    print(f"distval: live page: {server.url}", file=sys.stderr, flush=True)
    if args.browser:  # on a private file's path: no command line holds the token
        opened = open_in_browser(server.url)
        server.closing.append(lambda: forget(opened))
    return server


@contextmanager
def live_page(args: argparse.Namespace, directory: str | os.PathLike[str] | None,
              ) -> Iterator[LiveState | None]:
    """With ``--live``: a :class:`LiveState` to give the run as its observer, served while
    the block runs; at the end the page gets the final state (finished or interrupted)
    before the server stops. Without: None."""
    if not getattr(args, "live", False):
        yield None
        return
    state = LiveState(directory)
    server = _start(state, args)
    try:
        yield state
    finally:
        server.linger()
        server.close()


@contextmanager
def live_suite(args: argparse.Namespace, directory: str | os.PathLike[str]) -> Iterator[None]:
    """With ``--live`` (and no ``--plan``): serve the suite's page
    (:class:`~distval.live.suite.SuiteState`, from ``directory/suite.json``) while the block
    runs; it ends finished when every stream is done, else interrupted."""
    from distval.live.suite import SuiteState

    with live_served(args, lambda: SuiteState(directory)):
        yield


class EndingState(PageState, Protocol):
    """A page's state that is told when its command ends (a suite's, the grid's)."""

    def end(self) -> None: ...


@contextmanager
def live_served(args: argparse.Namespace, make: Callable[[], EndingState]) -> Iterator[None]:
    """With ``--live`` (and no ``--plan``): serve the state ``make()`` returns while the
    block runs, and tell it when the block ends (finished or interrupted, as it judges)."""
    if not getattr(args, "live", False) or getattr(args, "plan", False):
        yield
        return
    state = make()
    server = _start(state, args)
    try:
        yield
    finally:
        state.end()
        server.linger()
        server.close()


def serve_directory(args: argparse.Namespace, directory: str | os.PathLike[str]) -> int:
    """``distval report DIR --live``: serve the page of the (finished or interrupted) run, or
    suite, in ``directory`` until Ctrl-C."""
    d = Path(directory)
    state: PageState
    if (d / "suite.json").is_file():  # a suite's directory: its page, as it ended
        from distval.live.suite import SuiteState

        suite = SuiteState(d)
        suite.end()
        state = suite
    elif (d / "config.json").is_file():
        state = LiveState.from_directory(d)
    else:
        raise DistvalError(f"{d} is not a run's (or a suite's) results directory")
    return serve_until_interrupted(args, state)


def serve_until_interrupted(args: argparse.Namespace, state: PageState) -> int:
    """Serve ``state`` until Ctrl-C."""
    server = _start(state, args)
    print("distval: serving until Ctrl-C", file=sys.stderr, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0
