"""Every results directory records the versions behind its numbers."""

from __future__ import annotations

import json
import platform
import subprocess
from pathlib import Path

import numpy
import pyarrow
import ray
import river

from distval.evaluation import evaluate

ROOT = Path(__file__).resolve().parents[2]


def test_config_json_records_versions_and_the_git_commit(tmp_path):
    evaluate(stream="sea", n_rows=400, learners=("nb",), n_folds=2, test_every=200,
             output_dir=tmp_path / "r")
    saved = json.loads((tmp_path / "r" / "config.json").read_text())["provenance"]
    assert saved["packages"]["numpy"] == numpy.__version__
    assert saved["packages"]["pyarrow"] == pyarrow.__version__
    assert saved["packages"]["river"] == river.__version__
    assert saved["packages"]["ray"] == ray.__version__
    assert saved["python"] == platform.python_version()
    assert saved["distval"]
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True)
    if head.returncode == 0:  # a checkout (not an sdist): the commit is the checkout's
        assert saved["git"]["commit"] == head.stdout.strip()


def test_the_pyarrow_floor_excludes_cve_2023_47248():
    text = (ROOT / "pyproject.toml").read_text()
    assert '"pyarrow>=14.0.1"' in text
    from packaging.version import Version

    assert Version(pyarrow.__version__) >= Version("14.0.1")
