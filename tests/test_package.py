"""Package-level promises: the core does not import Ray; everything that travels pickles."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

CORE = [
    "distval",
    "distval.routing.validation",
    "distval.metrics",
    "distval.statistics",
    "distval.streams",
    "distval.learners",
    "distval.learners.host",
    "distval.aggregator",
    "distval.engine",
    "distval.results",
    "distval.config",
    "distval.cli",
]


def test_core_modules_do_not_import_ray():
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in CORE)
        + "import distval; distval.evaluate(stream='sea', n_rows=300, learners=('nb', 'ht'),"
        " n_folds=2, test_every=100)\n"
        "print('ray' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_objects_that_travel_to_actors_pickle():
    import numpy as np

    from distval.aggregator.core import Aggregator
    from distval.config import RunConfig
    from distval.engine.loop import iter_batches, open_config_stream
    from distval.learners.host import LearnerHost

    cfg = RunConfig(stream="sea", n_rows=500, learners=("arf(n_models=2)", "nb"), n_folds=3)
    stream = open_config_stream(cfg)
    batch = next(iter_batches(stream, cfg))
    host = LearnerHost(cfg.specs, [(0, 0), (1, 2)], stream.feature_names, cfg.seed)
    host.process(batch)
    for obj in (cfg, stream, batch, host, Aggregator.from_config(cfg), cfg.specs[0]):
        copy = pickle.loads(pickle.dumps(obj))
        assert type(copy) is type(obj)
    again = pickle.loads(pickle.dumps(batch))
    assert np.array_equal(again.weights, batch.weights) and again.start == batch.start


def test_bundled_electricity_ships_in_the_package():
    from distval.streams import bundled_path

    path = bundled_path()
    assert path.name == "elec2.parquet" and path.stat().st_size > 300_000


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"]])
def test_console_script_help(argv):
    out = subprocess.run(
        [sys.executable, "-m", "distval.cli", *argv], capture_output=True, text=True
    )
    assert out.returncode == 0 and "usage: distval" in out.stdout


def test_installed_dependencies_meet_the_declared_floors():
    """pyproject's floors are versions that were checked to work (see the comment there);
    the environment the tests run in must meet them, or the floors are not what we test."""
    from importlib.metadata import version
    from pathlib import Path

    import tomllib
    from packaging.requirements import Requirement
    from packaging.version import Version

    meta = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())["project"]
    reqs = {Requirement(r).name: Requirement(r) for r in meta["dependencies"]}
    assert reqs["river"].specifier.contains("0.25.0")
    assert not reqs["river"].specifier.contains("0.24.2")  # no river._river_rust.drift
    for name, req in reqs.items():
        if req.marker is not None and not req.marker.evaluate():
            continue  # e.g. tomli, only on Python 3.10
        assert Version(version(name)) in req.specifier, (name, version(name), str(req))


def test_ci_runs_the_readmes_two_commands():
    """The README's Quick start gives two one-line commands; the install's extras are the
    project's and bring every tool the test command runs; `.ci/run` extracts exactly those
    two lines (its own awk, run here with bash) and runs them."""
    import re
    import subprocess
    from pathlib import Path

    import tomllib

    root = Path(__file__).parents[1]
    section = (root / "README.md").read_text().split("\n## Quick start\n", 1)[1]
    blocks = re.findall(r"```sh\n(.+?)\n```", section.split("\n## ", 1)[0], re.S)
    assert len(blocks) == 2 and all("\n" not in b for b in blocks)
    install, test = blocks
    extras = re.search(r'pip install -e "\.\[([^\]]+)\]"', install).group(1).split(",")
    optional = tomllib.loads((root / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert set(extras) <= set(optional) and {"test", "moa", "docs"} <= set(extras)
    needed = " ".join(optional["test"] + optional["docs"])
    steps = ["ruff check .", "mypy", "mkdocs build --strict",
             "python -m pytest -n 2 --dist loadfile"]
    assert test.split(" && ") == steps
    assert all(tool in needed for tool in ("ruff", "mypy", "mkdocs", "pytest"))
    ci = (root / ".ci" / "run").read_text()
    awk = next(line for line in ci.splitlines() if line.startswith('commands="$(awk'))
    got = subprocess.run(
        ["bash", "-c", awk + '\nprintf "%s" "$commands"'],
        cwd=root, capture_output=True, text=True, check=True,
    ).stdout
    assert got.split("\n") == blocks
    assert 'eval "$quick_start"' in ci and 'eval "$test_command"' in ci


def test_the_corrections_page_states_the_stored_grids_as_they_are():
    """Each committed type I/II grid (a ``benchmarks/results/type-errors-*`` folder with a
    grid.json) is on docs/defects-notes.md, and none that is not: with the number of cells
    the page states, counted here from its cells.jsonl and grid.json, the number of them
    that recorded every look and their mean CPU seconds."""
    import json
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    page = (root / "docs" / "defects-notes.md").read_text()
    rows = re.findall(r"\| `(benchmarks/results/type-errors-[a-z-]+)` \| (\d+) of (\d+) \| "
                      r"(?:all )?(\d+) \| ([\d.]+) \|", page)
    grids = sorted(str(p.parent.relative_to(root))
                   for p in (root / "benchmarks" / "results").glob("type-errors-*/grid.json"))
    assert sorted(d for d, *_ in rows) == grids and len(grids) >= 2
    for directory, done, planned, with_looks, cpu in rows:
        d = root / directory
        grid = json.loads((d / "grid.json").read_text())
        cells = [json.loads(line) for line in (d / "cells.jsonl").read_text().splitlines()]
        assert int(planned) == len(grid["streams"]) * grid["runs"] * len(grid["schemes"])
        assert int(done) == len({c["key"] for c in cells})
        assert int(with_looks) == sum(len(c.get("looks", ())) == grid["looks"] for c in cells)
        assert float(cpu) == round(sum(c["cpu_seconds"] for c in cells) / len(cells), 1)
