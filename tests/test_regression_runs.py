"""Regression runs as long experiments: progress on stderr, tables appended to the results
directory as they are produced, checkpoints and ``--resume``, ``distval export`` and
``distval compare`` — each checked against an independent computation (an uninterrupted
run, pyarrow's reading of the Parquet tables, pandas over the fold table)."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from cli_errors import one_line_error
from interrupted_stream import StopAfter
from screen_tables import check_first_table

import distval
from distval.cli import main as cli_main
from distval.engine.loop import iter_inprocess, open_config_stream
from distval.engine.run import Run
from distval.evaluation import resume
from distval.results.saved import comparison, export_csv
from distval.results.schema import TABLES

OPTS = dict(stream="friedman", n_rows=6000, learners=("htr", "linreg"), task="regression",
            n_folds=3, test_every=500, batch_size=250)

#: Summary entries that differ between two runs of one configuration.
_RUN_OWN = {"elapsed_seconds", "rows_per_second", "evaluated_by", "backend",
            "cost"}  # cost: CPU seconds differ run to run


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted regression run written to a directory."""
    d = tmp_path_factory.mktemp("ref")
    return d, distval.evaluate(**OPTS, output_dir=d)


def test_an_interrupted_regression_run_kept_its_tables_and_resumes_to_the_uninterrupted_one(
        reference, tmp_path):
    ref_dir, ref = reference
    cfg = distval.RunConfig(**OPTS)
    d = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        distval.evaluate(cfg, output_dir=d, checkpoint_seconds=0.0,
                         source=StopAfter(open_config_stream(cfg), 3300))
    # appended as produced: the checks before the interruption are on disk, equal to the
    # first rows of the uninterrupted run's tables
    partial = pq.read_table(d / "folds.parquet")
    want = pq.read_table(ref_dir / "folds.parquet")
    assert 0 < partial.num_rows < want.num_rows
    assert partial.equals(want.slice(0, partial.num_rows))
    assert max(partial["position"].to_pylist()) < 6000
    assert json.loads((d / "summary.json").read_text())["interrupted"] is True
    assert (d / "checkpoint.pkl").exists()
    got = resume(d)
    for name in ("folds", "tests", "paired", "verdicts"):
        a, b = pq.read_table(d / f"{name}.parquet"), pq.read_table(ref_dir / f"{name}.parquet")
        assert a.num_rows == b.num_rows > 0 and a.equals(b), name
    assert sorted(p.name for p in d.iterdir()) == sorted(p.name for p in ref_dir.iterdir())
    assert not (d / "checkpoint.pkl").exists()
    assert pq.read_table(d / "q.parquet").num_rows == 0  # the file of every run, no Q here
    s_got, s_want = ({k: v for k, v in json.loads((x / "summary.json").read_text()).items()
                      if k not in _RUN_OWN} for x in (d, ref_dir))
    assert s_got == s_want and s_got["rows"] == 6000 and s_got["interrupted"] is False
    def untimed(res):  # the print but its timing line and its cost (CPU seconds)
        lines = res.to_text().splitlines()
        cost = next(i for i, x in enumerate(lines) if x.startswith("What each learner cost"))
        end = lines.index("", cost)
        return [x for x in lines[:cost] + lines[end:]
                if " rows in " not in x and not x.lstrip().startswith(("cost:", "RAM-hours"))]

    assert untimed(got) == untimed(ref)
    assert got.folds().equals(ref.folds())
    # a finished run resumes as it is, read back from its directory
    back = resume(d)
    assert back.folds().equals(want.to_pandas()) and back.n_rows == 6000


def test_resume_from_the_command_line_refuses_a_changed_config(reference, tmp_path, capsys):
    cfg = distval.RunConfig(**OPTS)
    d = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        distval.evaluate(cfg, output_dir=d, checkpoint_seconds=0.0,
                         source=StopAfter(open_config_stream(cfg), 2000))
    config = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps(config | {"n_folds": 4}))
    assert cli_main(["run", "--resume", str(d), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not the configuration its checkpoint" in err[0]
    (d / "config.json").write_text(json.dumps(config))
    assert cli_main(["run", "--resume", str(d), "--no-progress"]) == 0
    ref_dir, _ = reference
    assert pq.read_table(d / "verdicts.parquet").equals(pq.read_table(ref_dir / "verdicts.parquet"))


def test_progress_lines_on_stderr_name_rows_the_verdict_and_the_recent_windows(capsys):
    cfg = distval.RunConfig(**OPTS)
    stream = open_config_stream(cfg)
    run = Run(cfg, stream, progress="lines", line_seconds=0.0)
    for step in iter_inprocess(cfg, stream):
        run.feed(step)
    res = run.close()
    lines = [x for x in capsys.readouterr().err.splitlines() if x.startswith("distval: ")]
    assert lines
    rows = [int(re.match(r"distval: (\d+)/6000 rows", x).group(1)) for x in lines]
    assert rows == sorted(rows) and rows[-1] == 6000
    # the leader and both RMSEs over the rows both learners were tested on, as pandas
    # computes them from the last check's paired table (the folds where both have a value)
    paired = pd.DataFrame(res.final.paired).dropna(subset=["value_a", "value_b"])
    rmse = {"htr": paired["value_a"].mean(), "linreg": paired["value_b"].mean()}
    assert paired["learner_a"].eq("htr").all() and len(paired) == 3
    verdict = res.summary()["verdicts"][0]
    winner = {"A": "htr", "B": "linreg"}.get(verdict["decision"], min(rmse, key=rmse.get))
    loser = next(k for k in rmse if k != winner)
    assert rmse[winner] <= rmse[loser]  # the verdict and the same-row errors agree here
    parts = lines[-1].split("; ", 1)[1].split(" | ")
    # the verdict first, on its basis (a share of the rows), then the recent windows' RMSEs,
    # each named as such
    assert parts[0].startswith(f"{winner}>{loser} closer on +") and "% of rows" in parts[0]
    assert parts[1] == (f"recent windows: {winner} RMSE {rmse[winner]:.3f} "
                        f"{loser} RMSE {rmse[loser]:.3f}")


def test_export_writes_the_parquet_tables_as_csv(reference, tmp_path, capsys):
    ref_dir, _ = reference
    assert cli_main(["export", str(ref_dir), "--output", str(tmp_path / "cli")]) == 0
    assert capsys.readouterr().out.split() == [
        str(tmp_path / "cli" / f"{n}.csv") for n in TABLES]
    paths = export_csv(ref_dir, tmp_path / "csv")
    assert [p.name for p in paths] == [f"{n}.csv" for n in TABLES]
    for p in paths:
        got = pd.read_csv(p, keep_default_na=False, na_values=[""])
        if p.name in ("q.csv", "events.csv"):  # a regression run has no Q or drift events
            assert len(got) == 0 and len(got.columns) > 3
            continue
        want = pq.read_table(ref_dir / p.name.replace(".csv", ".parquet")).to_pandas()
        assert list(got.columns) == list(want.columns) and len(got) == len(want) > 0
        for col in want.columns:
            w = want[col]
            if pd.api.types.is_numeric_dtype(w) and not pd.api.types.is_bool_dtype(w):
                np.testing.assert_allclose(got[col].to_numpy(float), w.to_numpy(float),
                                           rtol=1e-12, equal_nan=True, err_msg=col)
            else:
                assert got[col].astype(str).where(got[col].notna(), None).tolist() == (
                    w.astype(str).where(w.notna(), None).tolist()), col


def test_compare_puts_two_regression_runs_side_by_side(reference, tmp_path, capsys):
    ref_dir, _ = reference
    other = tmp_path / "other"
    distval.evaluate(**(OPTS | {"learners": ("linreg", "htr")}), output_dir=other)
    tables = comparison(ref_dir, other)
    (_, _, verdicts, _), (_, _, tests, _) = tables[0], tables[-1]
    (_, cols, rows, _) = next(t for t in tables if t[0].startswith("Each learner"))
    # as for classification runs: each run's verdict, its price and baseline sentence lead
    assert [v[0] for v in verdicts] == ["A", "A", "A", "B", "B", "B"]
    assert verdicts[1][1].startswith("cost: ")
    assert verdicts[2][1].startswith("baseline: ") and "mean predictor" in verdicts[2][1]
    for tag, d in (("A", ref_dir), ("B", other)):
        folds = pq.read_table(d / "folds.parquet").to_pandas()
        last = folds[(folds["position"] == 6000) & (folds["forgetting"] == "adwin")]
        for label, g in last.groupby("learner"):
            row = next(r for r in rows if r[:2] == [tag, label])
            mean, sd = g["rmse"].mean(), g["rmse"].std(ddof=1)
            digits = 3 - int(np.floor(np.log10(mean)))  # four significant digits, sd alike
            want = f"{mean:.{digits}f} ±{sd:.{digits}f}"
            assert row[cols.index("RMSE (own window)")] == want
    assert {t[0] for t in tests} == {"sign", "wilcoxon"}
    assert cli_main(["compare", str(ref_dir), str(other)]) == 0
    assert "RMSE, all rows" in capsys.readouterr().out
    cls = tmp_path / "cls"
    distval.evaluate(stream="sea", n_rows=400, learners=("nb", "majority"), n_folds=2,
                     test_every=200, output_dir=cls)
    assert cli_main(["compare", str(ref_dir), str(cls)]) == 2
    assert "one is a regression run, the other a classification run" in capsys.readouterr().err


def test_load_results_reads_back_an_interrupted_regression_runs_streams(tmp_path):
    cfg = distval.RunConfig(**OPTS)
    d = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        distval.evaluate(cfg, output_dir=d, source=StopAfter(open_config_stream(cfg), 1200))
    back = distval.load_results(d)
    assert type(back).__name__ == "EvaluationResult" and back.task.name == "regression"
    assert back.interrupted and back.final is not None and 0 < back.final.position < 6000
    assert back.folds().equals(pq.read_table(d / "folds.parquet").to_pandas())


def test_the_progress_bar_shows_on_stderr_and_counts_every_row(capsys):
    res = distval.evaluate(**OPTS, progress=True)
    err = capsys.readouterr().err
    assert "6000/6000" in err and res.n_rows == 6000
    assert "friedman" in err and "htr" in err


def test_the_live_status_leads_with_the_lowest_error_without_a_verdict():
    """Without verdicts the leader is the lowest mean RMSE (an error), the highest R²."""
    from distval.aggregator.snapshot import Snapshot
    from distval.engine.run import live_status

    folds = {"learner": np.array(["htr", "htr", "linreg", "linreg"], dtype=object),
             "forgetting": np.array(["adwin"] * 4, dtype=object),
             "rmse": np.array([3.0, 2.0, 1.0, 1.5]), "r2": np.array([0.9, 0.8, 0.2, 0.1])}
    snap = Snapshot(100, folds, {"test": np.array([], dtype=object)})
    for measure in ("rmse", "r2"):
        cfg = distval.RunConfig(learners=("htr", "linreg"), task="regression", measure=measure)
        values = pd.Series(folds[measure]).groupby(folds["learner"]).mean()
        want = values.idxmin() if measure == "rmse" else values.idxmax()
        line = live_status(snap, cfg)
        assert line.startswith("own windows: ") and line.split(" ")[2] == want, (measure, line)


def test_the_screen_leads_with_the_rmse_on_the_same_rows_the_verdict_compares(reference):
    """The end-of-run screen's first table: each pair's RMSE over all rows and over the
    recent paired windows, pandas' means of the saved tables, the verdict's winner first and
    its share of rows closer as the verdict's running mean."""
    _, res = reference
    decided = check_first_table(res, higher_is_better=False, scale=1.0, tolerance=5e-4 + 1e-9)
    assert decided == 1


def _as_killed(ref_dir, d, cut):
    """``d`` as a SIGKILL at row ``cut`` leaves a run's directory: its config, each table
    as the Arrow stream the writer appends to (one batch per check, no end-of-stream
    marker) up to ``cut`` and then half of the next batch (torn mid-write), no summary;
    ``cut=None``: killed before its first write (the config alone)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    d.mkdir()
    (d / "config.json").write_bytes((ref_dir / "config.json").read_bytes())
    for name in TABLES:
        if cut is None or not (ref_dir / f"{name}.parquet").exists():
            continue
        table = pq.read_table(ref_dir / f"{name}.parquet")
        sink = pa.BufferOutputStream()
        writer = pa.ipc.new_stream(sink, table.schema)
        end = sink.tell()  # the end of the last whole check's batch
        for pos in sorted(set(table["position"].to_pylist())):
            writer.write_table(table.filter(pc.equal(table["position"], pos)))
            if pos > cut:  # the batch being written when the kill came: half of it
                end = (end + sink.tell()) // 2
                break
            end = sink.tell()
        # no close(): a killed writer writes no end-of-stream marker
        (d / f"{name}.arrows").write_bytes(sink.getvalue().to_pybytes()[:end])


def test_a_killed_regression_run_is_reported_up_to_its_last_whole_check(
        reference, tmp_path, capsys):
    """Before (the audit of 88745bf): `distval report` could not report a regression run
    killed with SIGKILL. Now it reports what was written, marked interrupted at the last
    whole check, as for classification (tests/cli/test_interrupt.py kills a real run)."""
    ref_dir, _ = reference
    d = tmp_path / "killed"
    _as_killed(ref_dir, d, 3000)
    back = distval.load_results(d)
    assert back.task.name == "regression" and back.interrupted and back.final.position == 3000
    want = pq.read_table(ref_dir / "folds.parquet").to_pandas()
    assert back.folds().equals(want[want["position"] <= 3000].reset_index(drop=True))
    assert cli_main(["report", str(d)]) == 0
    title = (d / "report.md").read_text().splitlines()[0]
    assert "regression" in title and "interrupted at row 3000" in title
    for cut in (0, None):  # killed in its first check's write, or before any
        bare = tmp_path / f"bare-{cut}"
        _as_killed(ref_dir, bare, cut)
        line = one_line_error(capsys, "report", str(bare))
        assert "stopped before its first check" in line, line
