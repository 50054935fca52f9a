"""The README's commands and Python example, as a reader would type them.

``sh_commands`` gives every command of the README's ```sh blocks (a line ending in ``\\``
joined to the next, a trailing ``# comment`` dropped), with the section it is in;
``python_example`` the ```python block; ``sized`` sets ``--n-rows`` (and optionally
``--backend``) on a command that reads a stream, so that a test may run it small;
``write_data_csv`` writes the ``data.csv`` the README's first command reads (its label
column ``label``).

Used by tests/test_readme.py and benchmarks/bench_readme.py.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _blocks(text: str, language: str) -> list[tuple[str, str]]:
    """(section title, block body) of every fenced block in ``language``."""
    out = []
    section = ""
    fence = f"```{language}\n"
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("## "):
            section = line[3:].strip()
        if line == fence:
            j = lines.index("```\n", i + 1)
            out.append((section, "".join(lines[i + 1 : j])))
            i = j
        i += 1
    return out


def sh_commands(text: str | None = None) -> list[tuple[str, list[str]]]:
    """(section, argv) of every command in the README's ```sh blocks; a command line holding
    ``&&`` gives one entry per part."""
    text = README.read_text() if text is None else text
    out = []
    for section, body in _blocks(text, "sh"):
        joined = re.sub(r"\\\n\s*", " ", body)
        for line in joined.splitlines():
            for part in line.split(" && "):
                argv = shlex.split(part, comments=True)
                if argv:
                    out.append((section, argv))
    return out


def python_example(text: str | None = None) -> str:
    """The README's one ```python block."""
    text = README.read_text() if text is None else text
    (block,) = [body for _, body in _blocks(text, "python")]
    return block


def reads_a_stream(argv: list[str]) -> bool:
    """A ``distval run`` (not a re-run of a saved config) or ``distval suite``."""
    return argv[:2] == ["distval", "suite"] or (
        argv[:2] == ["distval", "run"] and "--config" not in argv
    )


def sized(argv: list[str], n_rows: int, backend: str | None = None) -> list[str]:
    """``argv`` with ``--n-rows n_rows`` (replacing the one given) where it reads a stream,
    and with ``backend`` (``--backend``) if given and the command has none."""
    if not reads_a_stream(argv):
        return list(argv)
    out = list(argv)
    if "--n-rows" in out:
        i = out.index("--n-rows")
        out[i + 1] = str(n_rows)
    else:
        out += ["--n-rows", str(n_rows)]
    if backend is not None and "--backend" not in out:
        out += ["--backend", backend]
    return out


def write_data_csv(path: Path, n_rows: int, seed: int = 7) -> Path:
    """A CSV of ``n_rows`` rows of river's SEA generator: three numeric columns and a
    ``label`` column (0 or 1)."""
    from river.datasets import synth

    lines = ["a,b,c,label"]
    for x, y in synth.SEA(seed=seed, noise=0.1).take(n_rows):
        lines.append(f"{x[0]:.6g},{x[1]:.6g},{x[2]:.6g},{int(y)}")
    path.write_text("\n".join(lines) + "\n")
    return path
