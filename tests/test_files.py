"""Nothing distval writes goes through a link planted under the name (distval.files), and
``distval report`` / ``distval export`` of a directory someone else prepared write only
into it."""

from __future__ import annotations

import json
import os
import stat

import pytest

import distval
from distval.cli import main
from distval.errors import DistvalError
from distval.files import make_dir, open_append, open_new, read_json, replacing, write_file


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "victim.txt"
    path.write_text("the victim's own words\n")
    return path


def _replace(path):
    with replacing(path) as fh:
        fh.write(b"new")


def test_each_writer_replaces_a_planted_link_and_leaves_its_target_alone(tmp_path, victim):
    for i, write in enumerate((
        lambda p: write_file(p, "new"),
        _replace,
        lambda p: open_new(p).close(),
    )):
        name = tmp_path / f"file{i}"
        name.symlink_to(victim)
        write(name)
        assert victim.read_text() == "the victim's own words\n"
    for i in (0, 1):
        assert (tmp_path / f"file{i}").read_text() == "new"
        assert not (tmp_path / f"file{i}").is_symlink()
    assert not (tmp_path / "file2").is_symlink() and (tmp_path / "file2").stat().st_size == 0


def test_appending_refuses_a_symbolic_or_a_hard_link(tmp_path, victim):
    (tmp_path / "soft.jsonl").symlink_to(victim)
    os.link(victim, tmp_path / "hard.jsonl")
    for name in ("soft.jsonl", "hard.jsonl"):
        with pytest.raises(DistvalError, match="link"):
            open_append(tmp_path / name)
    assert victim.read_text() == "the victim's own words\n"
    with pytest.raises(DistvalError, match="symbolic link"):
        make_dir(tmp_path / "soft.jsonl")


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path):
    path = write_file(tmp_path / "a.md", "old")
    with pytest.raises(RuntimeError), replacing(path) as fh:
        fh.write(b"half")
        raise RuntimeError
    assert path.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["a.md"]
    assert stat.S_IMODE(path.stat().st_mode) & 0o022 == 0


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("run")
    distval.evaluate(stream="sea", n_rows=1500, learners=("nb", "majority"), n_folds=2,
                     test_every=500, output_dir=d, overwrite=True)
    return d


def test_report_of_a_directory_with_planted_links_writes_only_into_it(run_dir, victim):
    """``distval report DIR`` where DIR's report files and a figure are links to a file
    elsewhere: the report is written, the file elsewhere keeps its words."""
    assert main(["report", str(run_dir)]) == 0  # learn the names of the figures
    pngs = sorted(p.name for p in run_dir.glob("*.png"))
    assert pngs
    for name in ("report.html", "report.md", pngs[0]):
        (run_dir / name).unlink()
        (run_dir / name).symlink_to(victim)
    assert main(["report", str(run_dir)]) == 0
    assert victim.read_text() == "the victim's own words\n"
    for name in ("report.html", "report.md", pngs[0]):
        assert not (run_dir / name).is_symlink() and (run_dir / name).stat().st_size > 100
    assert "<html" in (run_dir / "report.html").read_text()


def test_export_through_a_planted_csv_link_writes_only_into_the_directory(run_dir, victim,
                                                                          tmp_path):
    (run_dir / "csv").mkdir(exist_ok=True)
    (run_dir / "csv" / "folds.csv").unlink(missing_ok=True)
    (run_dir / "csv" / "folds.csv").symlink_to(victim)
    assert main(["export", str(run_dir)]) == 0
    assert victim.read_text() == "the victim's own words\n"
    assert (run_dir / "csv" / "folds.csv").read_text().startswith("\"")
    linked = tmp_path / "elsewhere"
    linked.mkdir()
    other = run_dir.parent / "other-run"
    other.mkdir()
    for f in run_dir.iterdir():
        if f.is_file():
            (other / f.name).write_bytes(f.read_bytes())
    (other / "csv").symlink_to(linked, target_is_directory=True)
    assert main(["export", str(other)]) == 2
    assert list(linked.iterdir()) == []


def test_read_json_refuses_each_bad_file_in_one_line(tmp_path):
    good = tmp_path / "good.json"
    good.write_text('{"a": [1, 2.5, null]}')
    assert read_json(good) == json.loads(good.read_text())
    with pytest.raises(DistvalError, match=r"^cannot read .*nosuch\.json: No such file"):
        read_json(tmp_path / "nosuch.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1,}')
    try:
        json.loads(bad.read_text())
    except ValueError as exc:
        why = str(exc)  # json's own words for the fault
    with pytest.raises(DistvalError) as err:
        read_json(bad)
    assert str(err.value) == f"{bad} is not valid JSON: {why}"
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DistvalError, match=r"nests too deeply to be a suite$"):
        read_json(deep, "a suite")
