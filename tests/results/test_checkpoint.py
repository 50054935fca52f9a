"""What ``--resume`` trusts: a checkpoint is checked before anything in it is used (its
header, its run id against the directory's, its SHA-256 digest, then the types of what it
holds), and goes on only with the tables of the run that wrote it."""

from __future__ import annotations

import hashlib
import json
import shutil

import numpy as np
import pyarrow.parquet as pq
import pytest
from interrupted_stream import StopAfter

import distval
from distval.cli import main
from distval.engine.loop import open_config_stream
from distval.results.writer import CHECKPOINT, ResultWriter, checkpoint_header, read_checkpoint

OPTS = dict(stream="sea", n_rows=3000, learners=("nb", "majority"), n_folds=2, test_every=500)


def _interrupted(d, rows=1700, **opts):
    cfg = distval.RunConfig(**(OPTS | opts))
    with pytest.raises(KeyboardInterrupt):
        distval.evaluate(cfg, output_dir=d, checkpoint_seconds=0.0,
                         source=StopAfter(open_config_stream(cfg), rows))
    assert (d / CHECKPOINT).exists()
    return d


def _one_error(capsys, d):
    code = main(["run", "--resume", str(d), "--no-progress"])
    _, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("distval: error: "), err
    return lines[0]


def test_another_runs_checkpoint_is_refused_on_these_tables(tmp_path, capsys):
    """Before: another run's checkpoint and config.json resumed onto this run's tables
    (exit 0, tables half from each)."""
    a, b = _interrupted(tmp_path / "a"), _interrupted(tmp_path / "b", seed=7)
    mixed = tmp_path / "mixed"
    shutil.copytree(b, mixed)
    shutil.copy(a / CHECKPOINT, mixed / CHECKPOINT)
    assert "belongs to another run" in _one_error(capsys, mixed)
    shutil.copy(a / "config.json", mixed / "config.json")  # and its config too
    assert "was written by another run" in _one_error(capsys, mixed)
    assert json.loads((a / "config.json").read_text())["run_id"] == checkpoint_header(a)[
        "run_id"] != checkpoint_header(b)["run_id"]
    assert main(["run", "--resume", str(a), "--no-progress"]) == 0  # its own: goes on


def test_a_damaged_checkpoint_is_refused_before_it_is_unpickled(tmp_path, capsys):
    """Before: 64 flipped bytes unpickled and the resume crashed with ArrowInvalid; a cut
    file or a foreign one gave a traceback or a pickle error."""
    d = _interrupted(tmp_path / "run")
    data = (d / CHECKPOINT).read_bytes()
    header_end = data.index(b"\n", data.index(b"\n") + 1) + 1
    middle = header_end + (len(data) - header_end) // 2
    for damaged, why in [
        (data[:middle] + bytes(b ^ 0xFF for b in data[middle:middle + 64])
         + data[middle + 64:], "SHA-256 digest does not match"),
        (data[: len(data) - 10], "SHA-256 digest does not match"),
        (b"\x80\x04K\x05.", "is not a distval checkpoint"),
        (data[: data.index(b"\n") + 1] + b"{not json\n" + data[header_end:], "damaged header"),
    ]:
        (d / CHECKPOINT).write_bytes(damaged)
        assert why in _one_error(capsys, d)
    # a whole file with a good digest over a state that is not a run's
    run_id = json.loads((d / "config.json").read_text())["run_id"]
    for state in ("x", {"checkpoint": 3}, None):
        (d / CHECKPOINT).unlink()
        w = ResultWriter(d, run_id=run_id, resume={})
        w.checkpoint(state)
        w.close()
        assert "does not hold a run's state" in _one_error(capsys, d)
    # the digest: SHA-256 of the run id and rows (canonical JSON), a newline, the state
    (d / CHECKPOINT).write_bytes(data)
    header = checkpoint_header(d)
    told = json.dumps({"run_id": header["run_id"], "written": header["written"]},
                      sort_keys=True)
    assert header["sha256"] == hashlib.sha256(told.encode() + b"\n" + data[header_end:]
                                              ).hexdigest()
    # other rows in the header than the checkpoint was written with: refused, not cut back
    fewer = data.replace(b'"folds": ', b'"folds": 1', 1)
    (d / CHECKPOINT).write_bytes(fewer)
    assert "SHA-256 digest does not match" in _one_error(capsys, d)


def _csv(path, n, flip=None):
    rng = np.random.default_rng(3)
    x = rng.random((n, 3))
    labels = np.where(x[:, 0] + x[:, 1] > 1.0, "a", "b")
    if flip is not None:
        labels[flip] = "b" if labels[flip] == "a" else "a"
    lines = ["x1,x2,x3,y"] + [f"{a:.6f},{b:.6f},{c:.6f},{y}" for (a, b, c), y in zip(x, labels)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_resume_on_other_data_is_refused(tmp_path, capsys):
    """Before: a killed run resumed after its CSV was cut to 1,000 rows (exit 0, "1000
    rows", checks at rows of the old file kept), and on a file of the same length but other
    content, silently. The checkpoint keeps the stream's fingerprint; a touched but equal
    file goes on, to the uninterrupted run's numbers."""
    data = _csv(tmp_path / "s.csv", 3000)
    d = _interrupted(tmp_path / "run", stream=str(data), n_rows=None)
    _csv(data, 1000)
    assert "its size changed" in _one_error(capsys, d)
    _csv(data, 3000, flip=2500)  # same size, one label changed
    assert "its content changed" in _one_error(capsys, d)
    _csv(data, 3000)  # the same data again (a newer modification time)
    assert main(["run", "--resume", str(d), "--no-progress"]) == 0
    ref = distval.evaluate(distval.RunConfig(**(OPTS | {"stream": str(data), "n_rows": None})))
    got = pq.read_table(d / "folds.parquet").to_pandas()
    assert got.drop(columns="run_id", errors="ignore").equals(
        ref.folds().drop(columns="run_id", errors="ignore"))


def test_a_checkpoint_row_beyond_the_streams_end_is_refused(tmp_path, capsys):
    """Before: a checkpoint at a row past the stream's end was resumed (exit 0)."""
    d = _interrupted(tmp_path / "run")
    state, written = read_checkpoint(d)
    run_id = checkpoint_header(d)["run_id"]
    state["checkpoint"] = state["checkpoint"]._replace(rows=5000)  # the stream has 3000
    w = ResultWriter(d, run_id=run_id, resume=written)
    w.checkpoint(state)
    w.close()
    assert "beyond the end of the stream" in _one_error(capsys, d)
    # a stream of unknown length (a CSV) found to end before the checkpoint's row, with
    # no fingerprint to tell (a checkpoint of an older version)
    data = _csv(tmp_path / "s.csv", 3000)
    e = _interrupted(tmp_path / "csv", stream=str(data), n_rows=None)
    state, written = read_checkpoint(e)
    del state["stream"]
    state["checkpoint"] = state["checkpoint"]._replace(rows=4000)
    w = ResultWriter(e, run_id=checkpoint_header(e)["run_id"], resume=written)
    w.checkpoint(state)
    w.close()
    assert "ends at row 3000, before the checkpoint's row 4000" in _one_error(capsys, e)


def test_a_run_killed_right_after_its_row_0_checkpoint_resumes(tmp_path):
    """A checkpoint at row 0 (a Ray run's first) leaves each table's stream created and
    empty (Arrow writes a stream's schema with its first batch); killed then, the run goes
    on from the checkpoint, and the tables it then writes are whole."""
    d = tmp_path / "run"
    w = ResultWriter(d)
    w.checkpoint({"row": 0})
    assert (d / "folds.arrows").exists() and (d / "folds.arrows").stat().st_size == 0
    for sink, _ in w._streams.values():  # SIGKILL: the kernel closes the files, no more
        sink.close()
    w._lock.release()
    state, written = read_checkpoint(d, w.run_id)
    assert state == {"row": 0} and set(written.values()) == {0}
    again = ResultWriter(d, run_id=w.run_id, resume=written)
    again.close()
    folds = pq.read_table(d / "folds.parquet")
    assert folds.num_rows == 0 and folds.schema.metadata[b"run_id"] == w.run_id.encode()
