"""Tests of ``distval reproduce type-errors`` (bifet2015 §4.1, Tables 2-4; DESIGN.md §5)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as st

from distval.cli import main as cli_main
from distval.errors import DistvalError
from distval.experiments import bifet2015 as paper
from distval.experiments.type_errors import (
    GridConfig,
    make_grid,
    noise_filter,
    open_real_stream,
    run_cell,
    run_grid,
)

CHEAP = "distval.experiments.type_errors:bagged_ht(n_models=2, grace_period=50)"


def tiny(**kw) -> GridConfig:
    base = {
        "streams": (("SEA(50)", "SEA(50)"), ("RBF(0,0)", "RBF(0,0)")),
        "runs": 2,
        "n_rows": 120,
        "learner": CHEAP,
        "schemes": ("bootstrap", "split"),
        "n_folds": 4,
        "batch_size": 50,
    }
    return GridConfig(**(base | kw))


# -- the paper's numbers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "table, variant", [(paper.TABLE3, paper.TABLE3_VARIANT), (paper.TABLE4, paper.TABLE4_VARIANT)]
)
def test_paper_per_stream_tables_average_to_table2(table, variant):
    # bifet2015: the "Average" line of Tables 3 and 4 is a row of Table 2; the per-stream
    # values typed in here must average to it (both are rounded to two decimals: <= 0.01).
    assert list(table) == list(paper.PAPER_STREAMS)
    for key, expected in paper.TABLE2[variant].items():
        mean = np.mean([table[s][key] for s in paper.PAPER_STREAMS])
        assert abs(mean - expected) <= 0.01, (key, mean, expected)


# -- the noise filter ------------------------------------------------------------------------


@pytest.mark.parametrize("c, p0, pnoise", [(2, 0.8, 0.05), (4, 0.7, 0.10), (10, 0.3, 0.10)])
def test_noise_filter_accuracy_matches_formula(c, p0, pnoise):
    # DESIGN.md §5 / bifet2015 §4.1: p = p0 (1 - pnoise) + (1 - p0) pnoise / (c - 1).
    rng = np.random.default_rng(42)
    n = 400_000
    y = rng.integers(0, c, n)
    correct = rng.random(n) < p0
    wrong = (y + rng.integers(1, c, n)) % c
    pred = np.where(correct, y, wrong).astype(np.int32)
    noisy = noise_filter(pred, pnoise, c, np.random.default_rng(7))
    acc = float((noisy == y).mean())
    p0_emp = float(correct.mean())
    expected = p0_emp * (1 - pnoise) + (1 - p0_emp) * pnoise / (c - 1)
    sd = np.sqrt(expected * (1 - expected) / n)
    assert abs(acc - expected) < 4 * sd
    changed = noisy != pred
    # a changed prediction is never the original class, and its offset is uniform on 1..c-1
    assert abs(changed.mean() - pnoise) < 4 * np.sqrt(pnoise * (1 - pnoise) / n)
    if c > 2:
        offsets = ((noisy - pred) % c)[changed]
        counts = np.bincount(offsets, minlength=c)[1:]
        assert st.chisquare(counts).pvalue > 1e-4


def test_noise_filter_keeps_untested_and_is_seeded():
    pred = np.array([[-1, 0, 1, 2] * 50])
    a = noise_filter(pred, 0.5, 3, np.random.default_rng(3))
    b = noise_filter(pred, 0.5, 3, np.random.default_rng(3))
    assert (a[pred == -1] == -1).all()
    assert np.array_equal(a, b)


# -- one cell --------------------------------------------------------------------------------


def test_identical_learners_never_differ_and_noise_discordance_matches_pnoise():
    # "majority" has no seed: A and A' are the same model, so no test may reject on "no
    # change", and every McNemar discordant pair comes from the noise filter: in the
    # prequential variant about pnoise * k * n of them (binomial expectation).
    cfg = tiny(learner="majority", streams=(("SEA(50)", "SEA(50)"),), n_rows=400)
    cell = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "bootstrap")
    res = pd.DataFrame(cell["results"])
    null = res[res.pnoise == 0]
    assert not null.reject.any()
    assert (null[null.test == "mcnemar"].n == 0).all()
    assert (null.mean_a == null.mean_b).all()
    for p in cfg.pnoise:
        row = res[(res.pnoise == p) & (res.test == "mcnemar") & res.prequential].iloc[0]
        trials = cfg.n_folds * 400
        assert abs(row.n - p * trials) < 4 * np.sqrt(trials * p * (1 - p))
        assert row.mean_b < row.mean_a
        # McNemar's statistic as scipy's chi-square on the counts (n01 + n10 = n, n01 < n10)
        assert 0 <= row.pvalue <= 1
        assert row.pvalue == pytest.approx(st.chi2.sf(row.statistic, 1))


def test_non_prequential_cv_tests_each_row_once():
    # cv, non-prequential: each row is tested by one fold only (bifet2015 §3), so with the
    # noise filter the discordant pairs are about pnoise * n, k times fewer than prequential.
    cfg = tiny(learner="majority", streams=(("SEA(50)", "SEA(50)"),), n_rows=1000)
    cell = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "cv")
    res = pd.DataFrame(cell["results"])
    row = res[(res.pnoise == 0.10) & (res.test == "mcnemar") & ~res.prequential].iloc[0]
    assert abs(row.n - 100) < 4 * np.sqrt(1000 * 0.1 * 0.9)


# -- grids -----------------------------------------------------------------------------------


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


# -- real streams from user files ------------------------------------------------------------


def test_covtype_and_poker_files_are_read(tmp_path):
    rng = np.random.default_rng(0)
    # UCI covtype.data: no header, 54 integer features, class 1..7 last
    X = rng.integers(0, 100, size=(30, 54))
    y = rng.integers(1, 8, size=30)
    path = tmp_path / "covtype.data"
    np.savetxt(path, np.column_stack([X, y]), fmt="%d", delimiter=",")
    s = open_real_stream("CovType", path)
    got = np.vstack([c.X for c in s.chunks(7)])
    labels = np.concatenate([c.y for c in s.chunks(7)])
    assert len(s.feature_names) == 54
    np.testing.assert_array_equal(got, X.astype(float))
    first = list(dict.fromkeys(y.tolist()))  # class indices by first appearance
    np.testing.assert_array_equal(labels, [first.index(v) for v in y])
    # MOA poker-lsn.arff style: nominal suits/ranks, nominal class
    arff = tmp_path / "poker.arff"
    rows = rng.integers(1, 5, size=(12, 10))
    cls = rng.integers(0, 3, size=12)
    header = ["@relation poker"]
    header += [f"@attribute s{i} {{1,2,3,4}}" for i in range(10)]
    header += ["@attribute class {0,1,2}", "@data"]
    body = [",".join(map(str, [*r, c])) for r, c in zip(rows, cls)]
    arff.write_text("\n".join(header + body) + "\n")
    p = open_real_stream("Poker", arff, n_rows=10)
    labels = np.concatenate([c.y for c in p.chunks(4)])
    assert len(labels) == 10 and len(p.feature_names) == 10
    assert [p.classes[i] for i in labels] == [str(c) for c in cls[:10]]
    # in a grid, a given file is used; an explicit request without one is a clear error
    g = make_grid("quick", streams=["CovType", "SEA(50)"], covtype=path)
    assert [lb for lb, _ in g.streams] == ["CovType", "SEA(50)"]
    with pytest.raises(DistvalError, match="--poker PATH"):
        make_grid("quick", streams=["Poker"])
    with pytest.raises(DistvalError, match="no such file"):
        make_grid("quick", covtype=tmp_path / "absent.data")
    assert next(lb for lb, _ in make_grid("quick").streams) == "Electricity"


# -- command line ----------------------------------------------------------------------------


def test_cli(tmp_path, capsys):
    out = tmp_path / "o"
    argv = ["reproduce", "type-errors", "--streams", "SEA(50),RBF(0,0)", "--runs", "1"]
    argv += ["--n-rows", "60", "--schemes", "split", "--learner", CHEAP]
    argv += ["--backend", "inprocess", "--output", str(out), "--no-progress"]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    assert "Table 3" in text and "RBF(0,0)" in text
    t3 = pd.read_csv(out / "table3.csv")
    assert set(t3.row) == {"SEA(50)", "RBF(0,0)", "Average"}
    assert cli_main(["reproduce", "type-errors", "--streams", "XYZ", "--output", str(out)]) == 2
    assert "unknown stream 'XYZ'" in capsys.readouterr().err
    assert cli_main(["reproduce", "type-errors", "--streams", "CovType"]) == 2
    assert "--covtype PATH" in capsys.readouterr().err


# -- the standard and paper profiles (issue 15) ----------------------------------------------

needs_moa = pytest.mark.skipif(
    not __import__("distval.learners.moa", fromlist=["available"]).available(),
    reason="the standard profile's learner is a MOA ensemble: needs Java and the moa extra",
)


def test_standard_profile_round_trips(tmp_path):
    from distval.experiments.type_errors import ENSEMBLE, PROFILES

    g = make_grid("standard")
    # issue 15: between quick and paper, >= 10 runs of >= 50,000 rows, MOA tree ensemble
    assert g.runs >= 10 and g.n_rows is not None and g.n_rows >= 50_000
    assert PROFILES["quick"]["runs"] <= g.runs <= PROFILES["paper"]["runs"]
    assert g.learner == ENSEMBLE == make_grid("paper").learner
    assert (g.n_folds, g.alpha, g.schemes) == (10, 0.05, paper.SCHEMES)
    assert len(g.streams) == 11  # 13 streams less CovType and Poker (no file given)
    again = GridConfig.from_dict(json.loads(json.dumps(g.to_dict())))
    assert again == g
    # a grid.json written before noise_on existed still reads, with the default
    old = g.to_dict()
    del old["noise_on"]
    assert GridConfig.from_dict(old) == g
    with pytest.raises(DistvalError, match="unknown grid setting"):
        GridConfig.from_dict(g.to_dict() | {"colour": "red"})


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


def test_moa_learners_of_a_cell_differ_only_by_seed():
    from distval.learners import parse_learner, replica_seed
    from distval.learners.host import LearnerHost

    # run_cell hosts [learner, learner]: learner 0 (A) and 1 (A') get different seeds per fold
    seeds_a = [replica_seed(7, 0, f) for f in range(10)]
    seeds_b = [replica_seed(7, 1, f) for f in range(10)]
    assert not set(seeds_a) & set(seeds_b)
    spec = parse_learner("nb")
    host = LearnerHost([spec, spec], [(i, f) for i in range(2) for f in range(2)], ["x"], seed=7)
    assert host.labels[0] == host.labels[1]


def test_checkpoints_give_the_decisions_of_shorter_streams():
    # RBF and HYP do not depend on the stream length (SEA and LED place drifts at n/4, n/2)
    rbf = (("RBF(10,0.001)", "RBF(10,0.001)"),)
    cfg = tiny(streams=rbf, runs=1, n_rows=100)
    long = run_cell(cfg, *rbf[0], 0, "bootstrap", checkpoints=(50, 100))
    short = run_cell(tiny(streams=rbf, runs=1, n_rows=50), *rbf[0], 0, "bootstrap")
    assert long["at"]["100"] == fixed_rows(long)
    assert long["at"]["50"] == fixed_rows(short)


#: Fields a cell's rows gained with per-look recording (issue 18).
PER_LOOK = ("pvalues", "decisions", "ever_reject", "spending_reject")


def fixed_rows(cell: dict) -> list[dict]:
    """A cell's end-of-stream fixed-alpha rows, as cells.jsonl held them before per-look
    recording."""
    return [
        {k: v for k, v in r.items() if k not in PER_LOOK}
        for r in cell["results"]
        if r["test"] in paper.TESTS
    ]


QUICK = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "type-errors-quick"


def test_a_cell_gives_the_decisions_committed_before_per_look_recording():
    """A committed quick cell (written by the single-module harness before issue 18) comes
    out the same: the cell now compares through the aggregator's PairComparison."""
    cfg = GridConfig.from_dict(json.loads((QUICK / "grid.json").read_text()))
    lines = (QUICK / "cells.jsonl").read_text().splitlines()
    old = next(c for c in map(json.loads, lines) if c["key"] == "SEA(50)|0|split")
    new = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "split")
    assert "sd_diff" not in old["results"][0]  # written before sd_diff existed
    assert [{k: v for k, v in r.items() if k != "sd_diff"} for r in fixed_rows(new)] == (
        old["results"]
    )


def test_every_look_is_recorded_and_agrees_with_the_end():
    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), runs=1, n_rows=300, looks=6)
    cell = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "bootstrap")
    assert cell["looks"] == [50, 100, 150, 200, 250, 300]
    assert len(cell["boundaries"]) == 6
    assert all(a < b for a, b in zip(cell["boundaries"], cell["boundaries"][1:]))
    for r in cell["results"]:
        assert len(r["pvalues"]) == 6 and r["pvalues"][-1] == pytest.approx(r["pvalue"], 1e-3)
        if r["test"] == "sign_evalue":
            marks = r["decisions"]["evalue"]
            assert r["ever_reject"] == r["reject"] == marks.endswith("1")
            assert "10" not in marks  # an e-process rejection stays
            assert min(r["pvalues"]) >= 1 / 46.6  # 10 folds: the e-value is at most 1/P0(R)
            continue
        fixed, spent = r["decisions"]["fixed"], r["decisions"]["spending"]
        assert fixed[-1] == ("1" if r["reject"] else "0")
        assert [c == "1" for c in fixed] == [p <= cfg.alpha for p in r["pvalues"]]
        assert r["ever_reject"] == ("1" in fixed) and r["spending_reject"] == spent.endswith("1")
        assert "10" not in spent  # a spending rejection stays
        if "1" in spent:  # its first rejection: a p-value below the (smaller) spending limit
            first = spent.index("1")
            assert fixed[first] == "1" and r["pvalues"][first] <= cell["boundaries"][first] * 1.001


def test_old_cells_without_looks_resume_and_stay_out_of_the_peeking_tables(tmp_path):
    """A directory written before per-look recording resumes: its cells count in Tables 2-4
    and only the new cells in the peeking tables."""
    stored = [json.loads(x) for x in (QUICK / "cells.jsonl").read_text().splitlines()]
    keep = [c for c in stored if c["key"] in ("SEA(50)|0|bootstrap", "SEA(50)|0|cv")]
    old = json.loads((QUICK / "grid.json").read_text())
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


def test_noise_on_same_compares_a_with_its_own_noisy_copy():
    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), runs=1, n_rows=400, noise_on="same")
    c = run_cell(cfg, "SEA(50)", "SEA(50)", 0, "cv")
    r = {(x["prequential"], x["pnoise"], x["test"]): x for x in c["results"]}
    # noise(A) is only ever wrong where the filter changed a correct prediction of A
    assert r[(True, 0.1, "mcnemar")]["mean_b"] < r[(True, 0.1, "mcnemar")]["mean_a"]
    with pytest.raises(DistvalError, match="noise_on"):
        tiny(noise_on="both")


def test_paper_plan_prints_projection_without_running(tmp_path, capsys):
    out = tmp_path / "paper"
    argv = ["reproduce", "type-errors", "--profile", "paper", "--plan", "--output", str(out)]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    assert "11 streams x 50 runs x 3 schemes = 1650 cells (0 done)" in text
    assert "core-hours" in text and "CPU-s/cell" in text and "in 12 h (overnight)" in text
    assert "LED(50000)" in text and "1,000,000" in text
    assert not out.exists()  # nothing ran, nothing was written


def test_projection_uses_finished_cells():
    from distval.experiments.type_errors import project

    cfg = tiny(streams=(("SEA(50)", "SEA(50)"),), runs=2, schemes=("cv",))
    cells = [{"key": "SEA(50)|0|cv", "stream": "SEA(50)", "cpu_seconds": 6.0, "n_rows": 120}]
    p = project(cfg, cells)
    (row,) = p.streams
    assert row["cpu_per_krow"] == pytest.approx(50.0) and row["cells_done"] == 1
    assert p.core_hours == pytest.approx(6.0 / 3600)
    with pytest.raises(DistvalError, match="no measured cost"):
        project(cfg)  # a river learner with no finished cell: nothing to project from


def test_plan_with_costs_measured_by_another_grid(tmp_path, capsys):
    from distval.experiments.type_errors import ENSEMBLE

    # a standard grid's directory: per-row costs come from its cells, none counts as done
    std = tmp_path / "std"
    std.mkdir()
    (std / "grid.json").write_text(json.dumps(make_grid("standard").to_dict()))
    cell = {"key": "LED(50000)|0|cv", "stream": "LED(50000)", "cpu_seconds": 200.0}
    (std / "cells.jsonl").write_text(json.dumps(cell | {"n_rows": 50_000}) + "\n")
    argv = ["reproduce", "type-errors", "--profile", "paper", "--plan"]
    argv += ["--cost-from", str(std), "--output", str(tmp_path / "paper")]
    assert cli_main(argv) == 0
    text = capsys.readouterr().out
    led = next(x for x in text.splitlines() if x.startswith("LED(50000)"))
    assert "4.000" in led and "4000.0" in led and "measured elsewhere" in led  # 4 CPU-s/1k rows
    assert "(0 done)" in text
    # another learner's costs are refused
    (std / "grid.json").write_text(json.dumps(make_grid("quick").to_dict()))
    assert cli_main(argv) == 2
    assert ENSEMBLE in capsys.readouterr().err
