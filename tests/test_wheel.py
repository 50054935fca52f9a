"""The README's install, offline: the wheel built from this checkout, installed into a fresh
virtual environment, runs ``distval run`` from the wheel's own files.

The wheel is built (``pip wheel --no-deps --no-build-isolation``) from a copy of the files a
wheel is made of (``pyproject.toml``, the README, ``distval/``), so the checkout is left as
it is. The fresh environment gets the wheel alone (``--no-deps``, ``--no-index``: nothing
is downloaded); its dependencies come from this test's environment, whose site-packages
directories a ``.pth`` file appends to the fresh one's path, after its own site-packages.
Paths listed in a ``.pth`` file are not scanned for ``.pth`` files themselves, so an editable
install of distval there (a finder hook installed by a ``.pth``) never loads: ``import
distval`` can only find the wheel's copy. CI's ``.ci/run`` also installs the wheel the
README's way, with the ``moa`` extra from the package index, and runs the default job.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd

import distval
from distval.learners.moa.jvm import missing

ROOT = Path(__file__).resolve().parents[1]
ROWS = 2000


def _build_wheel(tmp: Path) -> Path:
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "distval", src / "distval",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "-w", str(tmp / "dist"), str(src)],
        check=True, capture_output=True, text=True,
    )
    (wheel,) = (tmp / "dist").glob("distval-*.whl")
    return wheel


def _fresh_venv(tmp: Path) -> Path:
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], check=True, capture_output=True, text=True)
    ours = dict.fromkeys(sysconfig.get_path(k) for k in ("purelib", "platlib"))
    (Path(site.stdout.strip()) / "test-dependencies.pth").write_text("\n".join(ours) + "\n")
    return python


def test_a_fresh_venv_installs_the_wheel_and_runs_distval(tmp_path):
    wheel = _build_wheel(tmp_path)
    assert wheel.name == f"distval-{distval.__version__}-py3-none-any.whl"
    # every module of the checkout and the bundled data are in the wheel
    names = set(zipfile.ZipFile(wheel).namelist())
    want = {p.relative_to(ROOT).as_posix() for p in (ROOT / "distval").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}
    assert want <= names, sorted(want - names)[:5]
    python = _fresh_venv(tmp_path)
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
         "--no-index", str(wheel)],
        check=True, capture_output=True, text=True,
    )
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "NUMBA_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # numba's compiled kernels go there
    work = tmp_path / "elsewhere"
    work.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import distval; print(distval.__file__)"],
        cwd=work, env=env, check=True, capture_output=True, text=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(tmp_path / "venv"), where
    script = tmp_path / "venv" / "bin" / "distval"  # the wheel's console script
    done = subprocess.run(
        [str(script), "run", "--n-rows", str(ROWS), "--output", "run"],
        cwd=work, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    config = json.loads((work / "run" / "config.json").read_text())
    assert config["n_rows"] == ROWS  # the default job (Electricity, MOA's HT and NB), made short
    # the installed copy computes what this checkout computes for the same job
    learners: Any = ("ht", "nb")  # river's where MOA cannot run, else MOA's
    if missing() is None:
        learners = {"HoeffdingTree": "moa:trees.HoeffdingTree",
                    "NaiveBayes": "moa:bayes.NaiveBayes"}
    here = distval.evaluate(stream="elec2", n_rows=ROWS, learners=learners, n_folds=10)
    got = pd.read_parquet(work / "run" / "folds.parquet")
    final = got[got["position"] == got["position"].max()].reset_index(drop=True)
    want_final = here.final_folds().reset_index(drop=True)
    pd.testing.assert_series_equal(final["accuracy"], want_final["accuracy"])
    # the README's Quick start after its Install, in the same environment: the run compiled
    # numba's kernels, and uninstalling the wheel leaves nothing of distval behind (numba's
    # cache is in the user's cache directory, not in the package), so the editable install
    # of the same sources that follows is the distval that imports
    purelib = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        check=True, capture_output=True, text=True).stdout.strip())
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    subprocess.run([*pip, "uninstall", "-q", "-y", "distval"], check=True, capture_output=True)
    left = sorted(str(p.relative_to(purelib)) for p in purelib.glob("distval*/**/*"))
    assert left == [], left[:5]
    assert list((tmp_path / "cache" / "distval" / "numba").rglob("kernels.*.nbc"))
    subprocess.run(
        [*pip, "install", "-q", "--no-deps", "--no-index", "--no-build-isolation", "-e",
         str(tmp_path / "src")],
        check=True, capture_output=True, text=True,
    )
    editable = subprocess.run(
        [str(python), "-c", "from distval.metrics import FORGETTING; import distval; "
         "print(distval.__file__)"],
        cwd=work, env=env, capture_output=True, text=True,
    )
    assert editable.returncode == 0, editable.stderr[-2000:]
    assert Path(editable.stdout.strip()) == tmp_path / "src" / "distval" / "__init__.py"
