"""``python -m benchmarks NAME [--quick] [ARGS...]``: run one named benchmark.

``python -m benchmarks`` (no name) lists them. The benchmark runs as a fresh process (its
cold imports are part of what it measures) with the arguments :mod:`benchmarks.registry`
gives it, then ``ARGS``; it writes ``results/NAME.json`` and ``NAME.md`` (with ``--quick``,
a small run, ``results/quick/NAME.*``). ``python -m benchmarks --check`` checks that every
table the README and the docs copy from a result file still equals it.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

from benchmarks.common import RESULTS
from benchmarks.registry import REGISTRY

HERE = Path(__file__).resolve().parent


def command(name: str, quick: bool, extra: list[str]) -> list[str]:
    """The command line that runs benchmark ``name``."""
    bench = REGISTRY[name]
    args = [*bench.args, *(bench.quick or () if quick else ()), *extra]
    return [sys.executable, str(HERE / bench.script), *args]


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "list"):
        width = max(map(len, REGISTRY))
        for name, bench in REGISTRY.items():
            small = "" if bench.quick is None else "  [--quick]"
            print(f"{name:<{width}}  {bench.what}{small}")
        return 0
    if argv[0] == "--check":
        from benchmarks.render import main as render

        return render(["--check", *argv[1:]])
    name, rest = argv[0], argv[1:]
    if name not in REGISTRY:
        print(f"benchmarks: error: no benchmark {name!r} (python -m benchmarks lists them)",
              file=sys.stderr)
        return 2
    quick = "--quick" in rest
    if quick and REGISTRY[name].quick is None:
        print(f"benchmarks: error: {name} has no --quick size", file=sys.stderr)
        return 2
    extra = [a for a in rest if a != "--quick"]
    cmd = command(name, quick, extra)
    shown = ["python", "-m", "benchmarks", name, *(["--quick"] if quick else []), *extra]
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(HERE.parent), os.environ.get("PYTHONPATH", "")]),
        DISTVAL_BENCHMARK=name,
        DISTVAL_BENCHMARK_COMMAND=shlex.join(shown),
        DISTVAL_BENCHMARK_OUT=str(RESULTS / "quick" if quick else RESULTS),
    )
    return subprocess.run(cmd, env=env).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
