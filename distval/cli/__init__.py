"""The command line: every argparse line of distval, one module per command.

Each command module has ``add_arguments(parser)`` and ``main(args) -> int``. The command line
only parses arguments and calls the library; bad input ends with one line
``distval: error: ...`` and exit status 2.

>>> build_parser().parse_args(["run", "--folds", "5"]).n_folds
5
"""

from __future__ import annotations

import os
import signal
import sys


def _early_interrupt(signum: int, frame: object) -> None:
    """A Ctrl-C before :func:`program` runs (this module's imports, the console script's
    own lines): the program's one line and status 130, at once."""
    try:
        os.write(2, b"\ndistval: interrupted\n")
    finally:  # stderr closed: the status alone
        os._exit(130)


def _started_as_the_program() -> bool:
    """Whether the ``distval`` console script is importing this module to call
    :func:`program` (its ``__main__`` is the script)."""
    main_file = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    return os.path.basename(main_file) in ("distval", "distval-script.py")


if _started_as_the_program():  # the guard starts here, before the imports below
    signal.signal(signal.SIGINT, _early_interrupt)

import argparse  # noqa: E402 (after the guard)
import atexit  # noqa: E402
import contextlib  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import threading  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from types import FrameType, ModuleType  # noqa: E402
from typing import Any, NoReturn  # noqa: E402

from distval.errors import DistvalError, DistvalWarning  # noqa: E402

__all__ = ["READER_GONE", "build_parser", "command", "handled", "interrupted", "main",
           "one_line", "os_error", "program", "reader_gone", "show_warning",
           "terminate_as_interrupt"]

#: Commands: module under ``distval.cli`` and help text.
COMMANDS = {
    "run": ("run", "evaluate learners on a stream (default: ht vs nb, 10-fold bootstrap, "
            "Electricity)"),
    "learners": ("learners", "list the built-in learners"),
    "describe": ("describe", "stream diagnostics: classes, P(M), P(T), baselines"),
    "report": ("report", "figures, HTML and Markdown report of a results directory"),
    "compare": ("compare", "two saved runs side by side (same stream and settings)"),
    "export": ("export", "every table of a results directory as CSV"),
    "reproduce": ("reproduce", "reproduce the paper's experiments (type I/II errors)"),
    "suite": ("suite", "many streams x many learners: one run per stream, cross-stream "
              "ranks, tests, CD diagram"),
}


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"distval.cli.{COMMANDS[name][0]}")


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's one-line errors: ``distval: error: ...``, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"distval: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``distval`` parser with every command's options."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        __version__ = version("distval")
    except PackageNotFoundError:  # a source tree without installing it
        __version__ = "unknown"
    parser = _Parser(
        prog="distval",
        description="Distributed k-fold evaluation of stream classifiers with significance tests.",
    )
    parser.add_argument("--version", action="version", version=f"distval {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (_, help_text) in COMMANDS.items():
        mod = _module(name)
        description = getattr(mod, "DESCRIPTION", help_text)
        mod.add_arguments(sub.add_parser(name, help=help_text, description=description))
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``distval``; returns the exit status. The parser's imports (every command's
    module: a second or more) run under :func:`handled` too, so a Ctrl-C there is the
    same one line as during the command."""
    return handled(lambda: _dispatch(argv))


def _dispatch(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # a usage error: one line, SystemExit(2)
    if args.command is None:
        parser.print_help()
        return 0
    return int(_module(args.command).main(args))


def handled(call: Callable[[], int]) -> int:
    """``call()`` as every command runs: SIGTERM as Ctrl-C, Ctrl-C as one line
    ``distval: interrupted`` and exit status 130 (a command that writes results says
    where they are itself), and bad input (a :class:`DistvalError`) or the machine's
    refusal (an ``OSError``) as one line ``distval: error: ...`` on stderr and exit
    status 2.

    >>> def bad() -> int:
    ...     raise DistvalError("no such stream")
    >>> import contextlib, io
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     handled(bad), err.getvalue()
    (2, 'distval: error: no such stream\\n')
    """
    try:
        with terminate_as_interrupt(), warnings.catch_warnings():
            warnings.showwarning = show_warning
            return call()
    except KeyboardInterrupt:  # a command with nothing of its own to close (report, --plan)
        return interrupted()
    except BrokenPipeError as exc:
        if not _reader_gone():  # a pipe of distval's own (a socket, a child process)
            print(f"distval: error: {one_line(os_error(exc))}", file=sys.stderr)
            return 2
        return reader_gone()
    except DistvalError as exc:
        refused = one_line(str(exc))
    except OSError as exc:  # the machine's: a full or read-only disk, a path under a file
        refused = one_line(os_error(exc))
    return _refused(refused)  # out of the except block: its traceback is let go


def _refused(line: str) -> int:
    """Print ``distval: error: LINE``; exit status 2 (the frames of the refused command are
    let go: :func:`program` collects them before the process exits)."""
    print(f"distval: error: {line}", file=sys.stderr)
    return 2


def interrupted() -> int:
    """Say ``distval: interrupted`` on stderr (on a line of its own, after the terminal's
    ``^C``) and return the status of a program stopped by Ctrl-C, 130. The SIGINT handler
    is left as it is: :func:`program` remembers a second Ctrl-C while it exits, and a caller
    of :func:`main` in its own process (a test, a notebook) keeps its Ctrl-C and passes it
    on to the processes it starts (an ignored SIGINT is inherited)."""
    with contextlib.suppress(OSError, ValueError):  # stderr closed
        print("\ndistval: interrupted", file=sys.stderr, flush=True)
    return 130


#: The status of a program whose reader closed its output, as Unix tools end
#: (``head`` stopped reading): 128 + SIGPIPE.
READER_GONE = 128 + 13


def _reader_gone() -> bool:
    """Whether the reader of stdout or stderr has gone (a pipe closed at the other end:
    ``poll`` says POLLERR on its writing end)."""
    import select

    if not hasattr(select, "poll"):  # pragma: no cover - not POSIX
        return True
    for stream in (sys.__stdout__, sys.__stderr__):
        try:
            poller = select.poll()
            poller.register(stream.fileno(), select.POLLOUT)  # type: ignore[union-attr]
            if any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0)):
                return True
        except (OSError, ValueError, AttributeError):
            continue
    return False


def reader_gone() -> int:
    """End quietly when the reader of the output has gone (``distval learners | head -1``):
    what is still to be written goes nowhere (the standard streams on ``/dev/null``, so
    that the last flush does not fail again) and the status is :data:`READER_GONE`."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        for stream in (sys.__stdout__, sys.__stderr__):
            with contextlib.suppress(OSError, ValueError, AttributeError):
                os.dup2(null, stream.fileno())  # type: ignore[union-attr]
        os.close(null)
    return READER_GONE


def show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Show a distval warning as one line ``distval: warning: ...`` (others as Python does);
    every command's (:func:`handled`)."""
    if issubclass(category, DistvalWarning):
        print(f"distval: warning: {message}", file=sys.stderr, flush=True)
    else:
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def one_line(text: str) -> str:
    """A message as one printable line: line breaks and runs of white space as one space
    (an Arrow message spans lines; a damaged file's text quoted in it may hold any byte),
    other control characters escaped, so nothing reaches the terminal but the line.

    >>> one_line("Invalid data\\nDeserializing failed.\\n\\n"), one_line("a\\x1b[2Jb")
    ('Invalid data Deserializing failed.', 'a\\\\x1b[2Jb')
    """
    text = " ".join(text.split())
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (``kill``, ``timeout``, ``docker stop``, Slurm, Kubernetes) handled as Ctrl-C:
    a ``KeyboardInterrupt`` in the main thread, so that a run closes its results, says where
    they are and exits with status 130. A local Ray the command starts keeps this handler
    (:func:`distval.ray_backend.session.ray_session`) instead of installing its own, which
    tore the process down mid-write.

    >>> import signal
    >>> with terminate_as_interrupt():
    ...     signal.getsignal(signal.SIGTERM) is _interrupt
    True
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def os_error(exc: OSError) -> str:
    """An operating-system error in one line: the path and the reason.

    >>> os_error(NotADirectoryError(20, "Not a directory", "/tmp/file/out"))
    '/tmp/file/out: Not a directory'
    >>> os_error(OSError(28, "No space left on device"))
    'No space left on device'
    """
    if exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return exc.strerror or str(exc) or type(exc).__name__


def command() -> int:
    """The ``distval`` program (the console script, ``python -m distval.cli``): :func:`main`,
    then a quick exit. By then every result is written and closed, and the process is about
    to end: Python's heap is frozen, so the interpreter's last collection skips it (after a
    MOA run it walked the whole heap for most of a second), and a JVM the run started is left
    to the operating system instead of being destroyed (JPype's ``DestroyJavaVM``).
    """
    status = main()
    gc.freeze()
    if "distval.learners.moa.jvm" in sys.modules:  # a run may have started the JVM
        from distval.learners.moa.jvm import leave_jvm_at_exit

        leave_jvm_at_exit()
    return status


def program() -> NoReturn:
    """The ``distval`` console script and ``python -m distval.cli``: :func:`command`, then
    the process ends without tearing the interpreter down. The exit handlers every library
    registered run first (``atexit``) and the standard streams are flushed; what is skipped
    is the interpreter's own finalization (clearing every module of scipy, numba, pandas...
    one by one), which after a MOA run cost as much CPU as a tenth of the run
    (``benchmarks/bench_cpu.py``). A thread that is not a daemon still running (nothing of
    distval's) gets the ordinary exit, which waits for it.

    A Ctrl-C at any moment from here on (its imports, the parser, the command, the exit)
    ends the program with one line ``distval: interrupted`` and status 130, never a
    traceback: one while it exits is remembered and said at the end.
    """
    if signal.getsignal(signal.SIGINT) is _early_interrupt:  # Ctrl-C as Python raises it
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        status = command()
    except KeyboardInterrupt:  # outside every command's own handling (after it, say)
        status = interrupted()
    if status == 2:
        # A refused command's frames (in cycles, once its traceback was let go) may still
        # hold an open pyarrow reader whose read-ahead thread, met at the exit, aborted the
        # process now and then ("terminate called without an active exception", status -6,
        # apache/arrow#34314): collected here, while Arrow is whole. Once per process, not
        # in handled(): a collection there cost 10-200 ms a refusal in a long-lived caller.
        gc.collect()
    late: list[int] = []
    try:
        signal.signal(signal.SIGINT, lambda signum, frame: late.append(signum))
        if any(t.is_alive() and not t.daemon for t in threading.enumerate()
               if t is not threading.main_thread()):
            sys.exit(status)
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):  # closed, or a broken pipe
                stream.flush()
    except KeyboardInterrupt:  # before the handler above was set
        late.append(signal.SIGINT)
    if late and status != 130:
        status = interrupted()
    os._exit(status)


if __name__ == "__main__":
    program()
