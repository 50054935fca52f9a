"""Saved runs: loaded back they equal the run in memory; two compare only when they measured
the same thing; the CSV export holds exactly the Parquet tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import distval
from distval.cli import main
from distval.results.saved import TABLES, comparison, export_csv

OPTS = {
    "stream": "sea(noise=0.1)",
    "n_rows": 1500,
    "learners": ("nb", "ht", "majority"),  # three: Friedman runs too
    "n_folds": 3,
    "test_every": 500,
    "drift": True,  # events.parquet: a low Page-Hinkley threshold, so there are detections
    "ph_lambda": 2.0,
    "tests": ("sign", "wilcoxon", "mcnemar", "friedman"),
}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    return distval.evaluate(output_dir=d, overwrite=True, **OPTS), d


def test_a_saved_run_loads_back_equal_to_the_run_in_memory(saved):
    res, d = saved
    back = distval.load_results(d)
    assert type(back) is type(res) and back.config == res.config
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(back, name)(), getattr(res, name)())
    assert len(back.events()) > 0  # the comparison covered drift detections
    pd.testing.assert_frame_equal(back.final_folds(), res.final_folds())
    pd.testing.assert_frame_equal(back.final_tests(), res.final_tests())
    timing = {"elapsed_seconds", "rows_per_second"}
    now, then = back.summary(), json.loads(json.dumps(res.summary()))
    assert {k: v for k, v in now.items() if k not in timing} == {
        k: v for k, v in then.items() if k not in timing
    }
    assert back.summary()["friedman"] is not None
    tables = lambda text: text.split("\n\n")[1:-1]  # noqa: E731 - without the speed footer
    assert tables(back.to_markdown()) == tables(res.to_markdown())
    assert repr(back) == repr(res)
    (line,) = [ln for ln in back.plot().axes[0].get_lines() if ln.get_label() == "nb"]
    (same,) = [ln for ln in res.plot().axes[0].get_lines() if ln.get_label() == "nb"]
    assert np.array_equal(line.get_ydata(), same.get_ydata())


def test_compare_puts_the_final_numbers_of_both_runs_side_by_side(saved, tmp_path, capsys):
    _, d = saved
    other = tmp_path / "other"
    distval.evaluate(output_dir=other, **{**OPTS, "learners": ("nb", "majority")}, seed=7)
    tables = comparison(d, other)
    verdicts, tests = tables[0], tables[-1]
    (learners,) = [t for t in tables if t[0].startswith("Each learner")]
    (cost,) = [t for t in tables if t[0].startswith("What each learner cost")]
    rows = {(r[0], r[1]): r for r in learners[2]}
    assert set(rows) == {("A", "nb"), ("A", "ht"), ("A", "majority"), ("B", "nb"),
                         ("B", "majority")}
    # the cells are the runs' own final fold means, recomputed here from folds.parquet
    for tag, path in (("A", d), ("B", other)):
        folds = pq.read_table(path / "folds.parquet").to_pandas()
        last = folds[(folds["position"] == 1500) & (folds["forgetting"] == "cumulative")]
        for label, group in last.groupby("learner"):
            assert rows[tag, label][2].startswith(f"{100 * group['accuracy'].mean():.1f} ±")
    # what each learner cost: its folds' CPU and bytes at the last position of cost.parquet
    spent = {(r[0], r[1]): r for r in cost[2]}
    per_row = {}
    for tag, path in (("A", d), ("B", other)):
        c = pq.read_table(path / "cost.parquet").to_pandas()
        last = c[c["position"] == c["position"].max()]
        for label, g in last.groupby("learner"):
            assert spent[tag, label][2] == f"{g['cpu'].sum():.2f}"
            assert spent[tag, label][5] == f"{g['bytes'].sum() / 1e6:.3g}"
            per_row[tag, label] = (g["cpu"].sum() / g["rows"].max(), g["bytes"].sum())
    decided = {tuple(r[:3]): r for r in tests[2]}
    assert decided["friedman", "*", "*"][6:] == ["–", "–", "–"]  # two learners in B: none
    # each row names the learner the run's data favour, as its tests.parquet says
    for path, at in ((d, 3), (other, 6)):
        t = pq.read_table(path / "tests.parquet").to_pandas()
        t = t[t["position"] == t["position"].max()]
        for r in t.itertuples():
            fav = r.favours if isinstance(r.favours, str) else "–"
            assert decided[r.test, r.learner_a, r.learner_b][at + 2] == fav
    assert any(r[5] not in ("–",) for r in tests[2])  # some test favours a learner
    # the verdicts of both runs, as their verdicts.parquet's last look holds them, each
    # followed by its price: the ratios of cost.parquet's CPU per row and bytes
    for tag, path in (("A", d), ("B", other)):
        v = pq.read_table(path / "verdicts.parquet").to_pandas()
        want = v[v["position"] == v["position"].max()]
        said = [line for t, line in verdicts[2] if t == tag]
        for r in want.itertuples():
            at = said.index(r.line)
            price = said[at + 1]
            first, second = price.removeprefix("cost: ").split(" costs ")[0], None
            second = r.learner_b if first == r.learner_a else r.learner_a
            (cpu_a, bytes_a), (cpu_b, bytes_b) = per_row[tag, first], per_row[tag, second]
            ratio = lambda x: f"{x:.2g}×" if x < 10 else f"{x:.0f}×"  # noqa: E731
            assert price == (f"cost: {first} costs {ratio(cpu_a / cpu_b)} {second}'s CPU per "
                             f"row and {ratio(bytes_a / bytes_b)} its memory") + price[
                                 price.index(" its memory") + len(" its memory"):]
        assert len([x for x in said if x.startswith("cost: ")]) == len(want)
    assert main(["compare", str(d), str(other)]) == 0
    out = capsys.readouterr().out
    assert "accuracy, all rows" in out and "RAM-hours" in out and "cost: " in out


def test_compare_says_which_run_was_interrupted_and_where(saved, tmp_path, capsys):
    """Before: a killed run's measures showed "–" and "interrupted" appeared nowhere."""
    import shutil

    _, d = saved
    killed = tmp_path / "killed"
    shutil.copytree(d, killed)
    (killed / "summary.json").unlink()  # as SIGKILL leaves it: no summary
    folds = pq.read_table(killed / "folds.parquet").to_pandas()
    last = int(folds["position"].max())
    assert main(["compare", str(d), str(killed)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # captions wrapped at 100 columns
    assert f"B: {killed}, interrupted at row {last})" in out
    assert f"A: {d}, interrupted" not in out
    # the killed run's answer still states its cost so far (cost.parquet's last position)
    (cost,) = [t for t in comparison(d, killed) if t[0].startswith("What each learner cost")]
    c = pq.read_table(killed / "cost.parquet").to_pandas()
    c = c[(c["position"] == c["position"].max()) & (c["learner"] == "ht")]
    assert ["B", "ht", f"{c['cpu'].sum():.2f}"] in [r[:3] for r in cost[2]]


def test_compare_refuses_runs_of_other_streams_or_settings_in_one_line(saved, tmp_path, capsys):
    _, d = saved
    other = tmp_path / "other"
    distval.evaluate(output_dir=other, **{**OPTS, "n_folds": 2, "stream": "sea"})
    assert main(["compare", str(d), str(other)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("distval: error: ")
    assert "stream 'sea(noise=0.1)' vs 'sea'" in err[0] and "n_folds 3 vs 2" in err[0]
    assert "n_rows" not in err[0]  # only what differs is named


def test_compare_takes_the_default_stream_and_elec2_named_as_one_stream(tmp_path, capsys):
    """A run with no --stream (the bundled Electricity file), one with --stream elec2 and one
    with the bundled file's path evaluate the same stream: compare accepts each pair."""
    from distval.streams.open import bundled_path

    opts = {"n_rows": 600, "learners": ("nb", "majority"), "n_folds": 2, "test_every": 300}
    for name, stream in (("default", None), ("named", "elec2"),
                         ("path", str(bundled_path()))):
        distval.evaluate(output_dir=tmp_path / name, stream=stream, **opts)
    assert main(["compare", str(tmp_path / "default"), str(tmp_path / "named")]) == 0
    assert main(["compare", str(tmp_path / "path"), str(tmp_path / "default")]) == 0
    out = capsys.readouterr().out
    assert "Verdicts of each run" in out and ("A: majority" in out or "A: nb" in out)


def test_the_csv_export_holds_exactly_the_parquet_tables(saved, tmp_path):
    _, d = saved
    assert main(["export", str(d), "--output", str(tmp_path / "csv")]) == 0
    for name in TABLES:
        parquet = pq.read_table(d / f"{name}.parquet").to_pandas()
        csv = pd.read_csv(tmp_path / "csv" / f"{name}.csv")
        assert list(csv.columns) == list(parquet.columns) and len(csv) == len(parquet) > 0
        if name == "folds":
            got = csv.pop("recall_by_class").map(json.loads)
            want = parquet.pop("recall_by_class").map(list)
            for a, b in zip(got, want):
                np.testing.assert_array_equal(np.array(a, dtype=float), np.array(b, dtype=float))
        empty = {c: float for c in parquet if parquet[c].isna().all()}  # cost's reason
        parquet = parquet.astype(empty).fillna(np.nan).infer_objects()
        pd.testing.assert_frame_equal(csv, parquet, check_dtype=False)
    assert [p.name for p in export_csv(d)] == [f"{n}.csv" for n in TABLES]


def test_a_run_of_a_python_stream_object_loads_back_under_its_recorded_name(tmp_path):
    """The README's example: a river generator object and river learner objects, saved;
    ``distval.load_results`` gives it back (the stream as ``python:SEA``, never reopened)
    with the same final folds and verdicts as the run in memory."""
    from river import naive_bayes, tree
    from river.datasets import synth

    res = distval.evaluate(
        stream=synth.SEA(seed=1, noise=0.1), n_rows=1200, n_folds=3, test_every=400,
        learners={"ht": tree.HoeffdingTreeClassifier(grace_period=50),
                  "nb": naive_bayes.GaussianNB()},
        output_dir=tmp_path / "sea",
    )
    back = distval.load_results(tmp_path / "sea")
    assert back.config.stream == "python:SEA"
    pd.testing.assert_frame_equal(back.final_folds(), res.final_folds())
    pd.testing.assert_frame_equal(back.verdicts(), res.verdicts())
    with pytest.raises(distval.DistvalError, match="was a Python object"):
        distval.RunConfig.from_dict(back.config.to_dict())  # to run again, not to read
