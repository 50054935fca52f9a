"""Package-level promises: the core does not import Ray; everything that travels pickles."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

CORE = [
    "distval",
    "distval.validation",
    "distval.metrics",
    "distval.stats",
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

    from distval.aggregator import Aggregator
    from distval.config import RunConfig
    from distval.engine import iter_batches, open_config_stream
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
        assert Version(version(name)) in req.specifier, (name, version(name), str(req))


def test_ci_runs_the_readmes_test_command():
    """`.ci/run` ends with the command the README gives for lint, types and tests."""
    import re
    from pathlib import Path

    root = Path(__file__).parents[1]
    readme = (root / "README.md").read_text()
    command = re.search(r"Run the lint.*?```sh\n(.+?)\n```", readme, re.S).group(1)
    assert "mypy" in command and "ruff check" in command and "pytest" in command
    ci = (root / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == command
