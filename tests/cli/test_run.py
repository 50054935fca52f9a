"""The command line: a real run, and one clear message with exit 2 for every bad input."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from interrupted_stream import StopAfter

import distval
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
        "--verbose",
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[2].startswith("Verdicts (95% confidence sequences")
    # an aligned terminal table: every row of a table as wide as its rule, no Markdown pipes
    assert "|" not in out and "wilcoxon" in out
    head = next(i for i, line in enumerate(lines) if line.startswith("learner"))
    assert lines[head + 2].startswith("ht ") and lines[head + 3].startswith("majority ")
    assert len(lines[head + 1]) >= max(len(x) for x in lines[head + 2 : head + 4])
    assert "| ht |" in (out_dir / "summary.md").read_text()  # summary.md stays Markdown
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
    (["--adwin-delta", "2"], "`adwin_delta` must be in (0, 1)"),
    (["--fading", "1"], "`fading` must be in (0, 1)"),
    (["--output", "{d}/full"], "not empty"),
    (["--tests", "t-test"], "unknown test 't-test'"),
    (["--actors", "0"], "--actors"),
    (["--folds", "x"], "argument --folds: invalid int value: 'x'"),
    (["--scheme", "holdout"], "argument --scheme: invalid choice: 'holdout'"),
    (["--config", "{d}/nosuch.json"], "cannot read"),
    (["--config", "{d}/ragged.csv"], "is not valid JSON"),
    (["--learners", "ht", "river.preprocessing:StandardScaler"], "not a classifier"),
    (
        ["--learners", "ht", "river.linear_model:LinearRegression"],
        "the learners mix regressors (river.linear_model:LinearRegression) with classifiers"
        " (ht)",
    ),
    (
        ["--learners", "ht", "river.tree:HoeffdingTreeRegressor(grace_period=50)"],
        "the learners mix regressors (river.tree:HoeffdingTreeRegressor(grace_period=50))",
    ),
    (["--sequential", "evalue", "--planned-rows", "100"], "--planned-rows is the horizon"),
    (["--sequential", "spending", "--planned-rows", "200"], "is below --n-rows 300"),
    (["--learners", "ht", "--sequential", "spending"], "give two learners or more"),
    (["--spending-function", "pocock"], "--spending-function needs --sequential spending"),
    (["--sequential", "bayes"], "argument --sequential: invalid choice: 'bayes'"),
    (["--sequential", "spending", "--sign-method", "critical"], "needs the exact sign test"),
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
    try:
        code, _, err = run_cli(capsys, *argv)
    except SystemExit as exc:  # argparse's own errors
        code, err = exc.code, capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err
    # 2 folds: the low-power warning of the start may come first; the error is one line
    lines = [x for x in err.strip().splitlines() if not x.startswith("distval: warning: with 2")]
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


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    from importlib.metadata import version

    assert capsys.readouterr().out.strip() == f"distval {version('distval')}"
    assert version("distval") == distval.__version__


@pytest.mark.moa
def test_the_command_exits_quickly_only_after_the_results_are_written(tmp_path):
    """The ``distval`` program (:func:`distval.cli.command`) returns main's status with the
    heap frozen and the JVM left to the OS, in a process of its own; the results it wrote
    are complete (one final fold row per replica, read back with pyarrow)."""
    import subprocess
    import sys

    out = tmp_path / "res"
    code = (
        "import gc, sys\n"
        "from distval.cli import command\n"
        f"sys.argv = ['distval', 'run', '--stream', 'sea', '--n-rows', '600', '--learners',"
        f" 'moa:bayes.NaiveBayes', 'nb', '--folds', '2', '--backend', 'inprocess',"
        f" '--no-progress', '--output', {str(out)!r}]\n"
        "status = command()\n"
        "import jpype.config\n"
        "print(status, gc.get_freeze_count() > 0, jpype.config.destroy_jvm)\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "0 True False"
    folds = pq.read_table(out / "folds.parquet").to_pandas()
    assert folds["position"].max() == 600
    assert len(folds[folds["position"] == 600]) == 2 * 2 * 2  # learners x folds x forgetting


@pytest.mark.moa
@pytest.mark.parametrize(("args", "message"), [
    (["--stream", "{d}/missing.csv"], "no such file: {d}/missing.csv"),
    (["--stream", "{d}/data.txt"], "unsupported file type: {d}/data.txt; supported extensions"),
    (["--window", "0"], "`window` must be a positive integer"),
    (["--fading", "1"], "`fading` must be in (0, 1)"),
    (["--tests", "t-test"], "unknown test 't-test'"),
], ids=["no such file", "extension", "window", "fading", "tests"])
def test_options_are_refused_before_a_moa_learner_starts_the_jvm(tmp_path, args, message):
    """The stream's path and every option that needs no learner are checked before the
    learners: on a machine whose MOA host is not compiled yet, a typo is one line at once,
    with nothing compiled."""
    import os
    import sys

    (tmp_path / "data.txt").write_text("a,b\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    done = subprocess.run(
        [sys.executable, "-m", "distval.cli", "run", *[a.format(d=tmp_path) for a in args],
         "--learners", "moa:bayes.NaiveBayes", "nb", "--no-progress", "--backend", "inprocess",
         "--output", str(tmp_path / "out")],
        capture_output=True, text=True, env=env, timeout=120,
    )
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("distval: error: "), done.stderr
    assert message.format(d=tmp_path) in lines[0]
    assert not (tmp_path / "cache" / "distval" / "moa").exists()  # no MOA host compiled


def _program(code: str) -> subprocess.CompletedProcess[str]:
    import sys

    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_the_program_runs_exit_handlers_flushes_and_keeps_its_status(tmp_path):
    """:func:`distval.cli.program` ends the process without the interpreter's teardown: the
    handlers registered with ``atexit`` still run, what was printed is all there, the
    results are complete on disk (one final fold row per replica, read back with pyarrow)."""
    out = tmp_path / "res"
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('handler ran', flush=True))\n"
        "from distval.cli import program\n"
        f"sys.argv = ['distval', 'run', '--stream', 'sea', '--n-rows', '600', '--learners',"
        f" 'moa:bayes.NaiveBayes', 'nb', '--folds', '2', '--backend', 'inprocess',"
        f" '--no-progress', '--output', {str(out)!r}]\n"
        "program()\n"
        "print('not reached')\n"
    )
    done = _program(code)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[-1] == "handler ran"
    assert f"results: {out}" in lines
    assert "not reached" not in done.stdout
    folds = pq.read_table(out / "folds.parquet").to_pandas()
    assert folds["position"].max() == 600
    assert len(folds[folds["position"] == 600]) == 2 * 2 * 2  # learners x folds x forgetting


def test_the_program_exits_2_on_bad_input_and_waits_for_other_threads():
    """Bad input still ends with one line and status 2; a thread that is not a daemon (a
    user's, when distval is called from a script) gets the ordinary exit, which waits."""
    code = (
        "import sys, threading, time\n"
        "def late():\n"
        "    time.sleep(0.3)\n"
        "    print('thread done', flush=True)\n"
        "threading.Thread(target=late).start()\n"
        "from distval.cli import program\n"
        "sys.argv = ['distval', 'run', '--stream', 'no_such_stream_xyz', '--no-progress']\n"
        "program()\n"
    )
    done = _program(code)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("distval: error: ")
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stdout.strip() == "thread done"


def test_config_json_reruns_a_saved_run_exactly(tmp_path, capsys):
    first = tmp_path / "first"
    argv = ["run", "--backend", "inprocess", "--no-progress", "--stream", "sea(noise=0.1)"]
    argv += ["--n-rows", "1500", "--folds", "3", "--learners", "ht(grace_period=50)", "nb"]
    argv += ["--scheme", "cv", "--forgetting", "fading", "--fading", "0.99", "--seed", "7"]
    code, _, err = run_cli(capsys, *argv, "--test-every", "500", "--output", str(first))
    assert code == 0, err
    again = tmp_path / "again"
    code, _, err = run_cli(
        capsys, "run", "--backend", "inprocess", "--no-progress",
        "--config", str(first / "config.json"), "--output", str(again),
    )
    assert code == 0, err
    a, b = (json.loads((d / "config.json").read_text()) for d in (first, again))
    assert a.pop("run_id") != b.pop("run_id")  # each run is its own
    assert a == b
    for name in ("folds.parquet", "tests.parquet", "q.parquet"):
        assert pq.read_table(first / name).equals(pq.read_table(again / name)), name
    # an option given next to --config overrides the saved value
    code, _, err = run_cli(
        capsys, "run", "--backend", "inprocess", "--no-progress", "--config", str(first),
        "--folds", "4", "--output", str(tmp_path / "four"),
    )
    assert code == 0, err
    four = json.loads((tmp_path / "four" / "config.json").read_text())
    assert four["n_folds"] == 4 and four["seed"] == 7 and four["fading"] == 0.99


def test_an_old_config_json_with_delta_sets_adwin_delta(tmp_path, capsys):
    """Runs saved before the rename wrote ADWIN's δ as ``delta``: --config still reads it."""
    old = {"stream": "sea", "n_rows": 600, "learners": ["nb", "majority"], "n_folds": 2,
           "test_every": 300, "forgetting": "adwin", "delta": 0.01}
    (tmp_path / "config.json").write_text(json.dumps(old))
    code, _, err = run_cli(
        capsys, "run", "--backend", "inprocess", "--no-progress", "--config",
        str(tmp_path / "config.json"), "--output", str(tmp_path / "again"),
    )
    assert code == 0, err
    saved = json.loads((tmp_path / "again" / "config.json").read_text())
    assert saved["adwin_delta"] == 0.01 and "delta" not in saved
    # the option given next to it wins, as for any saved value
    code, _, err = run_cli(
        capsys, "run", "--backend", "inprocess", "--no-progress", "--config",
        str(tmp_path / "config.json"), "--adwin-delta", "0.05", "--output", str(tmp_path / "b"),
    )
    assert code == 0, err
    assert json.loads((tmp_path / "b" / "config.json").read_text())["adwin_delta"] == 0.05
    assert distval.RunConfig.from_dict(old).adwin_delta == 0.01


def test_options_and_their_defaults_come_from_the_config_fields():
    import dataclasses

    from distval.cli import build_parser
    from distval.config import RunConfig

    parser = build_parser()
    run = parser._subparsers._group_actions[0].choices["run"]
    by_dest = {a.dest: a for a in run._actions}
    for f in dataclasses.fields(RunConfig):
        if "help" not in f.metadata:
            continue
        action = by_dest[f.name]
        shown = f.default if not isinstance(f.default, tuple) else " ".join(f.default)
        if f.default is not None:
            if isinstance(f.default, bool):
                shown = "yes" if f.default else "no"
            if f.name == "learners":  # the command line's default job: MOA's where it runs
                assert f"else {shown})" in action.help, action.help
                continue
            assert f"(default: {shown})" in action.help, f.name
    assert by_dest["n_folds"].option_strings == ["--folds"]


def test_a_configuration_that_cannot_reject_is_said_once(tmp_path, capsys):
    from scipy import stats

    code, _, err = run_cli(
        capsys, "run", "--backend", "inprocess", "--no-progress", "--stream", "sea",
        "--n-rows", "600", "--folds", "5", "--learners", "nb", "majority",
        "--test-every", "300", "--output", str(tmp_path / "w"),
    )
    assert code == 0, err
    warned = [line for line in err.splitlines() if line.startswith("distval: warning:")]
    assert len(warned) == 1
    floor = stats.binomtest(5, 5).pvalue  # 0.0625, scipy's exact sign test, all folds won
    assert f"smallest p-value is {floor:.4g}" in warned[0]
    need = next(k for k in range(2, 20) if stats.wilcoxon(range(1, k + 1)).pvalue <= 0.05)
    assert f"{need} folds or more" in warned[0]
    assert "Warning" not in err  # no Python warning on top of the line


def test_without_a_terminal_progress_comes_as_lines_and_the_path_is_absolute(
    tmp_path, capsys, monkeypatch
):
    from distval.engine.run import Run

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(Run.__init__, "__kwdefaults__",
                        Run.__init__.__kwdefaults__ | {"line_seconds": 0.0})
    code, out, err = run_cli(
        capsys, "run", "--backend", "inprocess", "--stream", "sea", "--n-rows", "900",
        "--folds", "2", "--learners", "nb", "majority", "--test-every", "300",
        "--batch-size", "300",
    )
    assert code == 0, err
    progress = [line for line in err.splitlines() if " rows (" in line]
    assert len(progress) == 3 and progress[-1].startswith("distval: 900/900 rows (100 %)")
    where = out.strip().splitlines()[-1].removeprefix("results: ")
    assert where.startswith(str(tmp_path)) and (Path(where) / "summary.json").exists()


def test_in_a_ray_job_results_default_to_a_findable_absolute_path(monkeypatch, tmp_path):
    from distval.cli.run import default_output

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(
        "RAY_JOB_CONFIG_JSON_ENV_VAR",
        json.dumps({"runtime_env": {}, "metadata": {"job_submission_id": "raysubmit_42"}}),
    )
    assert default_output() == tmp_path / "distval-results" / "raysubmit_42"
    monkeypatch.delenv("RAY_JOB_CONFIG_JSON_ENV_VAR")
    monkeypatch.chdir(tmp_path)
    assert default_output().is_absolute()
    assert default_output().parent == tmp_path / "distval-results"


def test_spending_on_a_stream_of_unknown_length_says_what_it_does(files, tmp_path, capsys):
    """A CSV's length is unknown before it is read: without --planned-rows, check k spends
    alpha * 6 / (pi^2 k^2), said in one line, and every decision is marked valid."""
    out_dir = tmp_path / "res"
    code, out, err = run_cli(
        capsys, "run", "--stream", str(files / "ok.csv"), "--backend", "inprocess",
        "--no-progress", "--folds", "10", "--learners", "nb", "majority", "--test-every", "300",
        "--sequential", "spending", "--output", str(out_dir), "--verbose",
    )
    assert code == 0, err
    notices = [x for x in err.splitlines() if "--planned-rows" in x]
    assert len(notices) == 1 and notices[0].startswith("distval: warning: --sequential spending")
    tests = pq.read_table(out_dir / "tests.parquet").to_pandas()
    assert tests["anytime_valid"].all()
    mc = tests[tests["test"] == "mcnemar"]
    k = np.arange(1, len(mc) + 1)
    assert mc["boundary"].to_numpy() == pytest.approx(0.05 * 6 / (np.pi**2 * k**2))
    assert "rule valid when watched" in out and "p limit" in out


def _one_error(capsys, *argv):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("distval: error: "), err
    return lines[0]


def test_resume_refuses_what_it_cannot_continue(tmp_path, capsys):
    """A missing directory, one without a checkpoint, settings beside --resume, a
    config.json changed since the checkpoint: one line each, exit 2."""
    assert "does not exist" in _one_error(capsys, "run", "--resume", str(tmp_path / "no"))
    (tmp_path / "empty").mkdir()
    assert "holds no checkpoint" in _one_error(capsys, "run", "--resume", str(tmp_path / "empty"))
    line = _one_error(capsys, "run", "--resume", str(tmp_path), "--folds", "5", "--overwrite")
    assert line.endswith("drop --folds, --overwrite")
    d = tmp_path / "run"
    opts = dict(stream="sea", n_rows=3000, learners=("nb", "majority"), n_folds=2,
                test_every=500, backend="inprocess")
    with pytest.raises(KeyboardInterrupt):  # stopped by the first check after a checkpoint
        distval.evaluate(**opts, output_dir=d, checkpoint_seconds=0.0,
                         source=StopAfter(distval.engine.loop.open_config_stream(
                             distval.RunConfig(**{k: v for k, v in opts.items()
                                                  if k != "backend"})), 1200))
    config = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps(config | {"n_folds": 3}))
    assert "is not the configuration its checkpoint" in _one_error(
        capsys, "run", "--resume", str(d))


def test_resume_continues_an_interrupted_run_and_leaves_a_finished_one(tmp_path, capsys):
    """In-process: a run interrupted mid-stream (a KeyboardInterrupt from its stream, as
    Ctrl-C would) resumes to the tables of the run never interrupted; resuming it again
    says it is finished (exit 0)."""
    opts = dict(stream="sea", n_rows=3000, learners=("nb", "majority"), n_folds=2,
                test_every=500)
    cfg = distval.RunConfig(**opts)
    d = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        distval.evaluate(cfg, output_dir=d, checkpoint_seconds=0.0,
                         source=StopAfter(distval.engine.loop.open_config_stream(cfg), 1700))
    partial = distval.load_results(d)
    assert partial.interrupted and 0 < partial.n_rows < 3000
    code, out, _ = run_cli(capsys, "run", "--resume", str(d), "--backend", "auto",
                           "--no-progress")
    assert code == 0 and f"results: {d}" in out
    ref = distval.evaluate(cfg, output_dir=tmp_path / "ref")
    for name in ("folds", "tests", "q", "paired", "verdicts"):
        assert pq.read_table(d / f"{name}.parquet").equals(
            pq.read_table(tmp_path / "ref" / f"{name}.parquet")), name
    assert distval.load_results(d).summary()["rows"] == ref.n_rows == 3000
    assert not (d / "checkpoint.pkl").exists()
    code, out, err = run_cli(capsys, "run", "--resume", str(d), "--no-progress")
    assert code == 0 and "holds a finished run; nothing to resume" in err


def test_the_final_text_wraps_at_word_boundaries_on_an_80_column_terminal(
    tmp_path, capsys, monkeypatch
):
    """COLUMNS=80 (what shutil.get_terminal_size reads): every sentence line of the final
    print fits 80 columns, and the wrapped verdict and baseline lines, joined again, are
    the lines summary.json holds word for word (no word was cut)."""
    monkeypatch.setenv("COLUMNS", "80")
    out_dir = tmp_path / "res"
    code, out, _ = run_cli(
        capsys, "run", "--backend", "inprocess", "--stream", "sea", "--n-rows", "1500",
        "--folds", "3", "--learners", "ht", "nb", "majority", "--test-every", "500",
        "--output", str(out_dir),
    )
    assert code == 0
    lines = out.splitlines()
    table = next(i for i, line in enumerate(lines) if line.startswith("learner "))
    sentences = lines[: table - 1] + lines[table + 5 :]
    # a path cannot wrap (the results line names the temp dir, longer under -n 2)
    sentences = [ln for ln in sentences if not ln.startswith("results: ")]
    assert all(len(line) <= 80 for line in sentences), [ln for ln in sentences if len(ln) > 80]
    summary = json.loads((out_dir / "summary.json").read_text())
    text = " ".join(line.strip() for line in lines[: table - 1])
    for v in [*summary["verdicts"], summary["baseline"]]:
        assert v["line"] in text


def test_measure_accuracy_in_a_regression_run_is_refused(capsys):
    """Before: --measure accuracy in a regression run compared RMSE without a word."""
    from distval.cli import main as _main

    code = _main(["run", "--stream", "friedman", "--task", "regression", "--learners", "htr",
                  "linreg", "--n-rows", "300", "--measure", "accuracy", "--backend",
                  "inprocess", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("distval: error: measure 'accuracy' is not one a regression run "
                             "compares; choose rmse, mae, r2")
