"""Running, storing and resuming grids (distval.experiments.type_errors.grid)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from type_error_grids import BEFORE_LOOKS, needs_moa, tiny

from distval.errors import DistvalError
from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors import GridConfig, make_grid, run_grid


def test_tiny_grid_fractions_and_reproducibility(tmp_path):
    cfg = tiny()
    a = run_grid(cfg, output_dir=tmp_path / "a", progress=False)
    b = run_grid(cfg, progress=False)
    assert len(a.cells) == 2 * 2 * 2
    for name in ("table2", "table3", "table4"):
        t = a.tables[name]
        rates = t[~t.row.str.startswith("avg time")].ours
        assert rates.between(0, 1).all() and rates.notna().all()
        pd.testing.assert_frame_equal(
            t.drop(columns="ours")[~t.row.str.startswith("avg time")],
            b.tables[name].drop(columns="ours")[~t.row.str.startswith("avg time")],
        )
    keep = ["stream", "run", "scheme", "prequential", "pnoise", "test", "reject", "pvalue"]
    pd.testing.assert_frame_equal(a.decisions[keep], b.decisions[keep])
    # Table 2 = mean over streams of the per-stream fraction of runs, recomputed here.
    d = a.decisions
    sel = d[(d.test == "wilcoxon") & d.prequential & (d.pnoise == 0.05) & (d.scheme == "split")]
    expected = sel.groupby("stream").reject.mean().mean()
    t2 = a.tables["table2"]
    got = t2[(t2.row == "wilcoxon prequential") & (t2.pnoise == 0.05) & (t2.scheme == "split")]
    assert got.ours.iloc[0] == pytest.approx(expected)
    assert got.paper.iloc[0] == paper.TABLE2[("wilcoxon", True)][(0.05, "split")]
    for f in ("table2.csv", "table3.csv", "table4.csv", "tables.md", "type_errors.png"):
        assert (tmp_path / "a" / f).stat().st_size > 0


def test_resume_after_interruption_gives_the_same_tables(tmp_path):
    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), schemes=("cv", "split"))
    full = run_grid(cfg, output_dir=tmp_path / "full", progress=False)
    part = tmp_path / "part"
    first = run_grid(cfg, output_dir=part, progress=False, max_cells=2)
    assert len(first.cells) == 2
    # a cell cut in the middle of writing: the broken line is ignored and recomputed
    with (part / "cells.jsonl").open("a") as fh:
        fh.write('{"key": "SEA(50)|1|spl')
    stored = [json.loads(x) for x in (part / "cells.jsonl").read_text().splitlines()[:2]]
    resumed = run_grid(cfg, output_dir=part, progress=False)
    assert len(resumed.cells) == 4
    lines = (part / "cells.jsonl").read_text().splitlines()
    # the two finished cells were not recomputed (their stored lines are unchanged)
    assert [json.loads(x) for x in lines[:2]] == stored
    keep = ["stream", "run", "scheme", "prequential", "pnoise", "test", "reject", "pvalue"]
    pd.testing.assert_frame_equal(full.decisions[keep], resumed.decisions[keep])
    for name in ("table3", "table4"):
        pd.testing.assert_frame_equal(full.tables[name], resumed.tables[name])


def test_a_grid_resumes_with_more_runs(tmp_path):
    one = run_grid(tiny(runs=1, schemes=("split",)), output_dir=tmp_path, progress=False)
    two = run_grid(tiny(runs=2, schemes=("split",)), output_dir=tmp_path, progress=False)
    assert len(one.cells) == 2 and len(two.cells) == 4
    assert len((tmp_path / "cells.jsonl").read_text().splitlines()) == 4


def test_other_settings_in_the_same_directory_are_refused(tmp_path):
    run_grid(tiny(runs=1, schemes=("split",)), output_dir=tmp_path, progress=False)
    with pytest.raises(DistvalError, match="other settings"):
        run_grid(tiny(runs=1, schemes=("split",), alpha=0.01), output_dir=tmp_path)


@pytest.mark.ray
def test_ray_backend_gives_the_same_decisions(ray_local):
    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), runs=1)
    a = run_grid(cfg, backend="ray", progress=False)
    b = run_grid(cfg, backend="inprocess", progress=False)
    keep = ["stream", "run", "scheme", "prequential", "pnoise", "test", "reject", "pvalue"]
    pd.testing.assert_frame_equal(a.decisions[keep], b.decisions[keep])


def test_ray_cells_read_a_real_stream_shipped_through_the_object_store(ray_local, tmp_path,
                                                                       monkeypatch):
    """The driver reads the CovType file once; the cells on Ray read their copy of it (the
    driver's file is gone by then) and decide as the same cells in this process."""
    import numpy as np

    from distval.experiments.type_errors import grid

    data = tmp_path / "covtype.csv"
    rng = np.random.default_rng(4)
    x = rng.normal(size=(150, 2))
    y = (x[:, 0] + 0.5 * rng.normal(size=150) > 0).astype(int)
    data.write_text("a,b,class\n" + "".join(f"{a:.4f},{b:.4f},{k}\n" for (a, b), k in zip(x, y)))
    cfg = tiny(streams=(("CovType", str(data)),), runs=1, schemes=("cv",), noise_on="training")
    here = run_grid(cfg, progress=False).decisions
    files = grid.ship_files(cfg)
    assert files == {str(data): data.read_bytes()}
    monkeypatch.setattr(grid, "ship_files", lambda config: files)
    data.unlink()
    there = run_grid(cfg, backend="ray", progress=False).decisions
    keep = ["stream", "run", "scheme", "prequential", "pnoise", "test", "reject", "pvalue"]
    pd.testing.assert_frame_equal(here[keep], there[keep])


@needs_moa
def test_standard_profile_two_cells_finish_and_resume(tmp_path):
    import io

    # the standard profile as it is, shrunk: tiny stream, two cells, a cheap MOA ensemble
    cfg = make_grid(
        "standard",
        streams=["SEA(50)"],
        runs=1,
        n_rows=400,
        schemes=("cv", "split"),
        learner="moa:meta.OzaBag -l trees.HoeffdingTree -s 2",
    )
    log = io.StringIO()  # not a terminal: plain progress lines
    first = run_grid(cfg, output_dir=tmp_path, max_cells=1, progress_stream=log)
    assert len(first.cells) == 1
    assert "type-errors grid: 1/2 cells (50.0%)" in log.getvalue()
    assert "cells/h" in log.getvalue() and "projected finish" in log.getvalue()
    stored = (tmp_path / "cells.jsonl").read_text().splitlines()
    resumed = run_grid(cfg, output_dir=tmp_path, progress=False)
    assert len(resumed.cells) == 2
    lines = (tmp_path / "cells.jsonl").read_text().splitlines()
    assert lines[:1] == stored and len(lines) == 2  # the first cell was not recomputed
    cells = [json.loads(x) for x in lines]
    assert {c["scheme"] for c in cells} == {"cv", "split"}
    assert all(c["cpu_seconds"] > 0 and c["n_rows"] == 400 for c in cells)
    # A and A' are two seeds of one algorithm: they disagree somewhere, and the no-change
    # McNemar counts come from their disagreements only
    row = next(r for r in cells[0]["results"] if r["pnoise"] == 0 and r["test"] == "mcnemar")
    assert row["n"] > 0
    assert GridConfig.from_dict(json.loads((tmp_path / "grid.json").read_text())) == cfg
    # a committed result's README beside the cells does not stop the grid from resuming
    (tmp_path / "README.md").write_text("notes")
    assert len(run_grid(cfg, output_dir=tmp_path, progress=False).cells) == 2
    assert (tmp_path / "README.md").read_text() == "notes"


def test_old_cells_without_looks_resume_and_stay_out_of_the_peeking_tables(tmp_path):
    """A directory written before per-look recording resumes: its cells count in Tables 2-4
    and only the new cells in the peeking tables."""
    stored = [json.loads(x) for x in (BEFORE_LOOKS / "cells.jsonl").read_text().splitlines()]
    keep = [c for c in stored if c["key"] in ("SEA(50)|0|bootstrap", "SEA(50)|0|cv")]
    old = json.loads((BEFORE_LOOKS / "grid.json").read_text())
    assert "looks" not in old
    (tmp_path / "grid.json").write_text(json.dumps(old))
    (tmp_path / "cells.jsonl").write_text("".join(json.dumps(c) + "\n" for c in keep))
    cfg = make_grid("quick", streams=["SEA(50)"], runs=1)
    result = run_grid(cfg, output_dir=tmp_path, progress=False)
    lines = (tmp_path / "cells.jsonl").read_text().splitlines()
    assert [json.loads(x)["key"] for x in lines] == [c["key"] for c in keep] + ["SEA(50)|0|split"]
    t2 = result.tables["table2"]
    assert (t2[t2.row == "sign prequential"].runs == 1).all()  # one run per scheme
    peek = result.tables["peeking"]
    assert set(peek[peek.cells > 0].scheme) == {"split"}
    assert "1 of 3 cells" in (tmp_path / "tables.md").read_text()
    assert (tmp_path / "peeking.png").stat().st_size > 0


def _covtype_like(path, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    x = rng.normal(size=(150, 2))
    y = (x[:, 0] + 0.5 * rng.normal(size=150) > 0).astype(int)
    path.write_text("a,b,class\n" + "".join(f"{a:.4f},{b:.4f},{k}\n" for (a, b), k in zip(x, y)))


def test_a_file_changed_between_runs_of_a_grid_is_not_mixed(tmp_path, capsys):
    """A grid resumed after its stream's file was replaced by another of the same shape
    computes the old file's cells again: every cell is that of a grid run on the new file
    alone, and one line says why."""
    data, out = tmp_path / "covtype.csv", tmp_path / "grid"
    _covtype_like(data, 4)
    cfg = tiny(streams=(("CovType", str(data)),), runs=1, schemes=("cv",), noise_on="training")
    run_grid(cfg, output_dir=out, progress=False)
    _covtype_like(data, 5)
    capsys.readouterr()
    resumed = run_grid(tiny(**(cfg.to_dict() | {"runs": 2, "streams": cfg.streams})),
                       output_dir=out, progress=False).decisions
    err = capsys.readouterr().err
    fresh = run_grid(tiny(**(cfg.to_dict() | {"runs": 2, "streams": cfg.streams})),
                     progress=False).decisions
    keep = ["stream", "run", "scheme", "pnoise", "test", "reject", "pvalue"]
    order = ["run", "pnoise", "test"]
    pd.testing.assert_frame_equal(resumed[keep].sort_values(order).reset_index(drop=True),
                                  fresh[keep].sort_values(order).reset_index(drop=True))
    lines = [ln for ln in err.splitlines() if "changed since" in ln]
    assert len(lines) == 1 and "CovType" in lines[0], err


def test_a_planted_copy_of_a_shipped_file_is_not_used(tmp_path, monkeypatch):
    """A shipped file's copy is trusted only by its whole SHA-256: a same-size file planted
    under its name is replaced; the copies live in a folder of mode 0700, and a folder of
    that name that others may write into is refused."""
    import hashlib
    import os
    import stat

    from distval.experiments.type_errors import grid

    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    data = b"a,b,class\n1,2,0\n"
    digest = hashlib.sha256(data).hexdigest()
    first = grid.local_copy("/x/covtype.csv", {"/x/covtype.csv": data})
    folder = os.path.dirname(first)
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    assert os.path.basename(first) == f"{digest[:16]}.csv"
    with open(first, "wb") as fh:  # the same size, other rows
        fh.write(b"a,b,class\n9,9,1\n")
    again = grid.local_copy("/x/covtype.csv", {"/x/covtype.csv": data})
    assert hashlib.sha256(Path(again).read_bytes()).hexdigest() == digest
    os.chmod(folder, 0o777)
    with pytest.raises(DistvalError, match="0700"):
        grid.local_copy("/x/covtype.csv", {"/x/covtype.csv": data})
