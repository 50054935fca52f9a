"""distval suite: one run per stream, resumed from disk, tables equal to an uninterrupted
suite's, Ray tasks giving the in-process numbers; the CLI and TOML form."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from scipy import stats

import distval
from distval.cli import main
from distval.errors import DistvalError
from distval.experiments.suite import make_suite, suite
from distval.experiments.suite.run import stream_weight
from tests.helpers.changed_files import write_csv

STREAMS = ["sea", "SEA(50)", "elec2", "HYP(10,0.001)"]
OPTIONS = {
    "learners": ("nb", "majority", "persistent"),
    "n_rows": 600,
    "n_folds": 2,
    "test_every": 300,
}


def _tables(directory):
    data = json.loads((directory / "suite.json").read_text())
    return (
        (directory / "suite.md").read_text(),
        (directory / "suite.tex").read_text(),
        data["comparison"],
    )


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    res = suite(STREAMS, output_dir=out, figures=False, **OPTIONS)
    return out, res


def test_each_stream_is_the_run_distval_evaluate_gives(uninterrupted):
    out, res = uninterrupted
    comp = json.loads((out / "suite.json").read_text())["comparison"]
    assert comp["streams"] == ["sea", "SEA-50", "elec2", "HYP-10-0.001"]
    for i, spec in enumerate(STREAMS):
        alone = distval.evaluate(stream=spec, **OPTIONS).summary()["learners"]
        for j, lab in enumerate(OPTIONS["learners"]):
            cum = alone[lab]["cumulative"]["accuracy"]
            assert comp["values"][i][j] == pytest.approx(cum["mean"], rel=1e-12)
            assert comp["spread"][i][j] == pytest.approx(cum["std"], rel=1e-12)
        assert (out / res.config.names[i] / "folds.parquet").is_file()
    table = np.asarray(comp["values"])
    # ranks with ties within the ROPE, a plain loop: 1 + those better by more than the ROPE
    # + half of the others within it; the one rule: no other ranking is kept; Friedman
    # (scipy) on those ranks
    rope = comp["rope"]
    tied = np.array([[1 + sum(v - u > rope for v in row) + 0.5 * sum(
        abs(v - u) <= rope for k, v in enumerate(row) if k != j) for j, u in enumerate(row)]
        for row in table])
    assert comp["ranks"] == tied.tolist() and "average_ranks_raw" not in comp
    assert list(comp["average_ranks"].values()) == pytest.approx(tied.mean(axis=0).tolist())
    ref = stats.friedmanchisquare(*tied.T)
    assert comp["friedman"]["chi2"] == pytest.approx(ref.statistic)
    assert comp["friedman"]["average_ranks"] == tied.mean(axis=0).round(3).tolist()


def test_resume_skips_finished_streams_and_ends_with_the_same_tables(uninterrupted, tmp_path):
    whole, res = uninterrupted
    out = tmp_path / "resumed"
    shutil.copytree(whole, out)
    names = res.config.names
    # an interrupted session: one stream never started, one cut off before its summary was
    # final, the suite's tables not yet written
    shutil.rmtree(out / names[1])
    summary = out / names[3] / "summary.json"
    summary.write_text(json.dumps(json.loads(summary.read_text()) | {"interrupted": True}))
    for name in ("suite.md", "suite.tex"):
        (out / name).unlink()
    kept = {n: (out / n / "summary.json").stat().st_mtime_ns for n in (names[0], names[2])}
    suite(STREAMS, output_dir=out, figures=False, **OPTIONS)
    assert {n: (out / n / "summary.json").stat().st_mtime_ns for n in kept} == kept
    assert json.loads(summary.read_text())["interrupted"] is False
    assert _tables(out) == _tables(whole)


def test_a_directory_with_other_settings_is_refused(uninterrupted, tmp_path):
    whole, _ = uninterrupted
    out = tmp_path / "other"
    shutil.copytree(whole, out)
    with pytest.raises(DistvalError, match="other settings"):
        suite(STREAMS, output_dir=out, figures=False, **(OPTIONS | {"n_folds": 3}))


@pytest.mark.ray
def test_ray_tasks_give_the_in_process_tables(uninterrupted, tmp_path, ray_local):
    whole, _ = uninterrupted
    out = tmp_path / "ray"
    suite(STREAMS, output_dir=out, backend="ray", figures=False, **OPTIONS)
    assert _tables(out) == _tables(whole)


@pytest.mark.ray
def test_fewer_streams_than_cores_spread_their_replicas_over_actors(tmp_path, ray_local):
    """One stream on the session's 2-CPU Ray: its run gets two actors (a Ray run, not one
    task in one process), with the numbers of the in-process run."""
    options = OPTIONS | {"n_rows": 3000, "test_every": 1000}
    out = tmp_path / "spread"
    suite(["elec2"], output_dir=out, backend="ray", figures=False, **options)
    calm = tmp_path / "calm"
    suite(["elec2"], output_dir=calm, figures=False, **options)
    got = json.loads((out / "elec2" / "summary.json").read_text())
    want = json.loads((calm / "elec2" / "summary.json").read_text())
    assert got["backend"] == "ray" and want["backend"] == "inprocess"
    assert got["learners"] == want["learners"] and got["tests"] == want["tests"]
    assert _tables(out) == _tables(calm)


def test_streams_are_weighed_by_rows_and_measured_cost_per_row():
    cfg = make_suite(["elec2", "sea"], learners=("nb",), n_rows=50_000)
    # elec2 holds 45,312 rows (below n_rows); sea is a generator cut at n_rows
    assert stream_weight(cfg, 0, {}) == 45_312.0
    assert stream_weight(cfg, 1, {}) == 50_000.0
    measured = {"elec2": {"rows": 1000, "cpu_seconds": 2.0}}  # 2 ms a row, sea unmeasured
    assert stream_weight(cfg, 0, measured) == pytest.approx(45_312 * 0.002)
    assert stream_weight(cfg, 1, measured) == pytest.approx(50_000 * 0.002)


def test_cli_with_a_toml_file_writes_tables_and_figures(tmp_path, capsys):
    toml = tmp_path / "mine.toml"
    toml.write_text(
        'streams = ["sea", "SEA(50)"]\nlearners = ["nb", "majority", "persistent"]\n'
        'n_rows = 600\nfolds = 2\ntest_every = 300\nbackend = "inprocess"\n'
    )
    out = tmp_path / "out"
    # the command line wins over the file: a third stream
    status = main(
        [
            "suite",
            str(toml),
            "--streams",
            "sea",
            "SEA(50)",
            "elec2",
            "--output",
            str(out),
            "--no-progress",
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "| stream | nb | majority | persistent |" in printed
    for name in ("suite.json", "suite.md", "suite.tex", "cd.svg", "cd.pdf", "ranks.svg"):
        assert (out / name).stat().st_size > 0, name
    assert (out / "cd.pdf").read_bytes()[:4] == b"%PDF"
    tex = (out / "suite.tex").read_text()
    assert "\\toprule" in tex and "\\bottomrule" in tex and "\\mathbf{" in tex
    data = json.loads((out / "suite.json").read_text())
    assert data["config"]["run"]["n_folds"] == 2 and len(data["streams"]) == 3
    # distval report SUITE_DIR redraws the tables and figures from suite.json
    for name in ("suite.md", "cd.svg"):
        (out / name).unlink()
    assert main(["report", str(out), "--format", "png"]) == 0
    assert (out / "cd.svg").is_file() and (out / "cd.png").is_file()
    assert (out / "suite.md").read_text().startswith("# Suite: 3 learners on 3 streams")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["suite", "--learners", "nb"], "give the streams"),
        (["suite", "--streams", "nosuchstream.csv"], "nosuchstream"),
        (["suite", "--streams", "sea", "--rope", "-1", "--backend", "inprocess"], "rope"),
    ],
)
def test_bad_input_is_one_line(argv, message, capsys, tmp_path):
    assert main([*argv, "--output", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("distval: error:") and message in err[0]


def test_directories_expand_to_their_stream_files(tmp_path):
    (tmp_path / "b.csv").write_text("x,y\n1,a\n2,b\n")
    (tmp_path / "a.arff").write_text(
        "@relation r\n@attribute x numeric\n@attribute y {a,b}\n@data\n1,a\n2,b\n"
    )
    (tmp_path / "notes.txt").write_text("not a stream\n")
    cfg = make_suite([str(tmp_path), "sea"], learners=("nb",), n_rows=100)
    assert cfg.names == ("a", "b", "sea")


CSV_OPTIONS = {"learners": ("nb", "majority"), "n_folds": 2, "test_every": 200}


def test_a_stream_whose_file_changed_is_computed_again_with_one_line(tmp_path, capsys):
    """A suite over a CSV file and a generator, the generator's stream cut off; the CSV
    replaced by another of the same shape and size, other values: the rerun computes the
    CSV's stream again (its numbers are a fresh evaluation's on the new file, not the old
    file's), says so in one line, and keeps the generator's finished stream."""
    data = tmp_path / "data.csv"
    write_csv(data, 0)
    out = tmp_path / "out"
    suite([str(data), "sea"], output_dir=out, figures=False, n_rows=400, **CSV_OPTIONS)
    old = json.loads((out / "data" / "summary.json").read_text())["learners"]
    shutil.rmtree(out / "sea")  # an interrupted suite: its second stream never finished
    size = data.stat().st_size
    write_csv(data, 1)
    assert data.stat().st_size == size  # the same shape and size, other values
    argv = ["suite", "--streams", str(data), "sea", "--learners", "nb", "majority",
            "--n-rows", "400", "--folds", "2", "--test-every", "200", "--backend",
            "inprocess", "--output", str(out), "--no-progress"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    fresh = distval.evaluate(stream=str(data), n_rows=400, **CSV_OPTIONS).summary()["learners"]
    got = json.loads((out / "data" / "summary.json").read_text())["learners"]
    comp = json.loads((out / "suite.json").read_text())["comparison"]
    for j, lab in enumerate(CSV_OPTIONS["learners"]):
        want = fresh[lab]["cumulative"]["accuracy"]["mean"]
        assert got[lab]["cumulative"]["accuracy"]["mean"] == pytest.approx(want, rel=1e-12)
        assert comp["values"][comp["streams"].index("data")][j] == pytest.approx(want)
    # the old file's class followed x1: naive Bayes scored far above the random labels now
    assert old["nb"]["cumulative"]["accuracy"]["mean"] > 0.8
    assert got["nb"]["cumulative"]["accuracy"]["mean"] < 0.7
    said = [line for line in err.splitlines() if "changed" in line]
    assert said == ["distval: the file of stream data changed since the suite computed it "
                    "(its content changed); it is computed again"]
    # the stream's directory reads back as a run's, its fingerprint kept beside the settings
    again = distval.load_results(out / "data").summary()["learners"]
    assert again["nb"]["cumulative"]["accuracy"] == got["nb"]["cumulative"]["accuracy"]
    # rerun unchanged: nothing recomputed, no line about a change
    kept = (out / "data" / "summary.json").stat().st_mtime_ns
    assert main(argv) == 0
    assert "changed" not in capsys.readouterr().err
    assert (out / "data" / "summary.json").stat().st_mtime_ns == kept


def test_a_finished_suite_rerun_into_its_directory_says_it_is_complete(tmp_path, capsys):
    """A finished suite with its page and figures, rerun with the same command: status 0,
    one line saying it is complete, no stream computed again, the same tables."""
    out = tmp_path / "out"
    argv = ["suite", "--streams", "sea", "SEA(50)", "--learners", "nb", "majority",
            "--n-rows", "400", "--folds", "2", "--test-every", "200", "--backend",
            "inprocess", "--output", str(out), "--no-progress"]
    assert main(argv) == 0
    assert (out / "suite.html").is_file() and (out / "cd.svg").is_file()
    first = capsys.readouterr().out
    kept = {n: (out / n / "summary.json").stat().st_mtime_ns for n in ("sea", "SEA-50")}
    assert main(argv) == 0
    again = capsys.readouterr()
    assert [line for line in again.err.splitlines() if line.startswith("distval:")] == [
        f"distval: this suite is complete in {out} (every stream finished there, on the data "
        "it reads now); nothing to compute (--overwrite computes it again)"]
    assert {n: (out / n / "summary.json").stat().st_mtime_ns for n in kept} == kept
    assert again.out == first
