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
    for obj in (cfg, stream, batch, host, Aggregator(cfg), cfg.specs[0]):
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
