"""``--private``, one option shared by every command that can use Ray: the same help, the
same refusals, and it reaches the Ray session of ``suite`` and ``run --permute``."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys

import pytest
from cli_errors import one_line_error

from distval.cli import build_parser


def _private_helps(parser, where=()):
    """The help of every ``--private`` option under ``parser``, by command path."""
    for action in parser._actions:
        if "--private" in action.option_strings:
            yield " ".join(where), action.help
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _private_helps(sub, (*where, name))


def test_every_ray_command_has_the_one_private_option():
    helps = dict(_private_helps(build_parser()))
    assert set(helps) == {"run", "suite", "reproduce type-errors"}, helps
    assert len(set(helps.values())) == 1 and "private local Ray" in helps["run"], helps


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["suite", "--streams", "sea", "--private", "--address", "auto"], "drop --address"),
        (["suite", "--streams", "sea", "--private", "--backend", "inprocess"],
         "need --backend ray"),
        (["run", "--permute", "time:p=0.5", "--private", "--address", "auto"],
         "drop --address"),
        (["run", "--private", "--backend", "inprocess"], "need --backend ray"),
    ],
)
def test_private_with_what_it_contradicts_is_one_line(tmp_path, capsys, argv, words):
    line = one_line_error(capsys, *argv, "--output", str(tmp_path / "out"))
    assert "--private" in line and words in line


def test_private_reaches_the_ray_session_of_suite_and_permute(tmp_path):
    """Before: `suite --private` was refused (no such option), and a suite joined the Ray
    RAY_ADDRESS names whatever it was told. Here RAY_ADDRESS names an address that accepts
    connections and never answers (joining it hangs), and RAY_TMPDIR a directory whose
    socket paths Ray refuses, so a private Ray fails at once and names itself: each
    command's one line says it tried to start a private Ray."""
    deep = tmp_path / ("x" * 110)  # Ray's sockets there would exceed AF_UNIX's 107 bytes
    deep.mkdir()
    small = ["--learners", "nb", "majority", "--n-rows", "300", "--folds", "2",
             "--no-progress", "--private"]
    commands = [
        ["suite", "--streams", "sea", *small, "--output", str(tmp_path / "suite")],
        ["run", "--stream", "sea", *small, "--permute", "time:p=0.5", "--repeats", "2",
         "--backend", "ray", "--output", str(tmp_path / "permute")],
    ]
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        env = {**os.environ, "RAY_ADDRESS": f"127.0.0.1:{silent.getsockname()[1]}",
               "RAY_TMPDIR": str(deep)}
        procs = [subprocess.Popen([sys.executable, "-m", "distval.cli", *argv], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for argv in commands]
        try:
            done = [(p.communicate(timeout=120)[1], p.returncode) for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
    for err, code in done:
        lines = [x for x in err.splitlines() if not x.startswith("distval: warning:")]
        assert code == 2 and len(lines) == 1, err[-3000:]
        assert lines[0].startswith("distval: error: cannot start or join a private Ray: ")
