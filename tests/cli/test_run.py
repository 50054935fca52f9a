"""The command line: a real run, and one clear message with exit 2 for every bad input."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from distval.cli import main


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_writes_results_and_prints_a_summary(tmp_path, capsys):
    out_dir = tmp_path / "res"
    code, out, err = run_cli(
        capsys,
        "run",
        "--backend",
        "inprocess",
        "--n-rows",
        "2000",
        "--folds",
        "3",
        "--learners",
        "ht",
        "majority",
        "--test-every",
        "500",
        "--output",
        str(out_dir),
        "--scheme",
        "cv",
        "--no-prequential",
        "--forgetting",
        "window",
        "--window",
        "300",
    )
    assert code == 0, err
    assert "| ht |" in out and "| majority |" in out and "wilcoxon" in out
    cfg = json.loads((out_dir / "config.json").read_text())
    assert cfg["scheme"] == "cv" and cfg["prequential"] is False and cfg["window"] == 300
    folds = pq.read_table(out_dir / "folds.parquet").to_pandas()
    assert sorted(folds["position"].unique()) == [500, 1000, 1500, 2000]
    assert set(folds["forgetting"]) == {"window", "cumulative"}
    # non-prequential cv on Electricity: each row tested by exactly one fold
    last = folds[(folds.position == 2000) & (folds.forgetting == "cumulative")]
    assert last.groupby("learner")["n"].sum().tolist() == [2000, 2000]


def test_learners_lists_the_builtins(capsys):
    code, out, _ = run_cli(capsys, "learners")
    assert code == 0 and "ht" in out and "persistent" in out


@pytest.fixture
def files(tmp_path):
    (tmp_path / "ragged.csv").write_text("a,b,class\n1,2,x\n3,4,y\n5,x\n")
    rows = "".join(f"{i},{i * 2},{'xy'[i % 2]}\n" for i in range(3000))
    (tmp_path / "text.csv").write_text("a,b,class\n" + rows + "7,oops,x\n")
    (tmp_path / "empty.csv").write_text("a,b,class\n")
    (tmp_path / "data.txt").write_text("a,b\n")
    (tmp_path / "ok.csv").write_text("a,b,class\n" + rows)
    full = tmp_path / "full"
    full.mkdir()
    (full / "something").write_text("x")
    return tmp_path


CASES = [
    (["--stream", "{d}/missing.csv"], "no such file"),
    (["--stream", "{d}/data.txt"], "extension"),
    (["--stream", "{d}/ragged.csv"], "ragged.csv"),
    (["--stream", "{d}/text.csv", "--n-rows", "5000"], "oops"),
    (["--stream", "{d}/empty.csv"], "empty"),
    (["--stream", "{d}/ok.csv", "--target", "label"], "label"),
    (["--folds", "1"], "at least 2 folds"),
    (["--learners", "ht", "--tests", "wilcoxon"], "at least 2 learners"),
    (["--learners", "ht", "j48"], "unknown learner 'j48'; built-in names are ht"),
    (["--learners", "ht", "nosuch.module:Cls"], "does not import"),
    (["--stream", "seaa"], "not a known generator"),
    (["--stream", "sea(colour=3)"], "colour"),
    (["--window", "0"], "`window` must be a positive integer"),
    (["--alpha", "1.5"], "`alpha` must be in (0, 1)"),
    (["--alpha", "0"], "`alpha` must be in (0, 1)"),
    (["--delta", "2"], "`delta` must be in (0, 1)"),
    (["--fading", "1"], "`fading` must be in (0, 1)"),
    (["--output", "{d}/full"], "not empty"),
    (["--tests", "t-test"], "unknown test 't-test'"),
    (["--actors", "0"], "--actors"),
    (["--learners", "ht", "river.preprocessing:StandardScaler"], "is not a classifier"),
    (
        ["--learners", "ht", "failing_learner:BreaksAt(after=50)"],
        "learner 'failing_learner:BreaksAt(after=50)' (fold 0) failed on a batch starting at row 0:"
        " ValueError: cannot learn any more",
    ),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=[m for _, m in CASES])
def test_bad_input_gets_one_clear_message(files, tmp_path, capsys, args, message):
    argv = ["run", "--no-progress", "--n-rows", "300", "--folds", "2", "--test-every", "100"]
    argv += [a.format(d=files) for a in args]
    if "--output" not in argv:
        argv += ["--output", str(tmp_path / "out")]
    if "--actors" not in argv:
        argv += ["--backend", "inprocess"]
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("distval: error: "), err
    assert message in lines[0]


def test_output_directory_can_be_overwritten(files, tmp_path, capsys):
    code, _, err = run_cli(
        capsys,
        "run",
        "--backend",
        "inprocess",
        "--stream",
        str(files / "ok.csv"),
        "--folds",
        "2",
        "--learners",
        "nb",
        "majority",
        "--output",
        str(files / "full"),
        "--overwrite",
    )
    assert code == 0, err
    assert (files / "full" / "something").exists()  # other files are left alone
    assert (files / "full" / "summary.json").exists()


def test_drift_and_mcnemar_options_reach_the_config(tmp_path, capsys):
    out_dir = tmp_path / "d"
    code, _, err = run_cli(
        capsys,
        "run",
        "--backend",
        "inprocess",
        "--n-rows",
        "1000",
        "--folds",
        "2",
        "--learners",
        "majority",
        "persistent",
        "--drift",
        "--ph-lambda",
        "50",
        "--ph-delta",
        "0.05",
        "--mcnemar-alpha",
        "0.01",
        "--output",
        str(out_dir),
    )
    assert code == 0, err
    cfg = json.loads((out_dir / "config.json").read_text())
    assert (cfg["drift"], cfg["ph_lambda"], cfg["ph_delta"], cfg["mcnemar_alpha"]) == (
        True,
        50.0,
        0.05,
        0.01,
    )
