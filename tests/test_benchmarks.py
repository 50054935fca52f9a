"""The benchmarks' harness and the tables the docs and the README draw from its results."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import render  # noqa: E402
from benchmarks.registry import REGISTRY  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def test_the_committed_pages_equal_their_result_files():
    """``python -m benchmarks --check``, as CI runs it: the README's Times table and every
    marked table of docs/ are what their result files give."""
    done = subprocess.run([sys.executable, "-m", "benchmarks", "--check"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readme_times_table_is_marked_and_drawn_from_its_rows():
    """The README's table is the one its result's rows give (wall rounded to seconds, the
    load from the first command's start to the last one's end)."""
    readme = (ROOT / "README.md").read_text()
    rows = json.loads((RESULTS / "readme_times.json").read_text())["data"]["rows"]
    default = next(r for r in rows if r["command"] == "distval run")
    assert "<!-- result: readme_times 2 -->" in readme
    line = (f"| `distval run` (the default job) | {round(default['wall s'])} s | "
            f"{default['load at start']:.1f} → {default['load at end']:.1f} |")
    assert line in readme


def test_a_number_that_drifts_from_its_file_is_redrawn_and_caught(tmp_path):
    readme = (ROOT / "README.md").read_text()
    row = re.search(r"\| `distval run` \(the default job\) \| (\d+) s \|", readme)
    assert row is not None
    wrong = f"| {int(row.group(1)) + 7} s |"
    drifted = readme[:row.start(1) - 2] + wrong + readme[row.end(1) + 4:]
    assert drifted != readme and wrong in drifted
    assert render.render_page(drifted) == readme


def test_a_missing_result_fails_the_page_and_the_docs_build():
    page = "<!-- result: no_such_benchmark 1 -->\n| a |\n|---|\n<!-- /result -->\n"
    with pytest.raises(render.MissingResult, match=r"no_such_benchmark\.json"):
        render.render_page(page)
    sys.path.insert(0, str(ROOT / "docs" / "hooks"))
    from mkdocs.exceptions import PluginError
    from results_tables import on_page_markdown

    with pytest.raises(PluginError, match=r"usage\.md"):
        on_page_markdown(page, SimpleNamespace(file=SimpleNamespace(src_path="usage.md")))


def test_results_hold_one_entry_per_named_benchmark():
    names = {n for n, b in REGISTRY.items() if b.result}
    on_disk = {p.stem for p in RESULTS.glob("*.json")}
    assert on_disk == names
    assert {p.stem for p in RESULTS.glob("*.md")} == names
    for name in names:
        data = json.loads((RESULTS / f"{name}.json").read_text())
        assert data["benchmark"] == name and data["date"], name
    for name, b in REGISTRY.items():
        assert (ROOT / "benchmarks" / b.script).is_file(), name


def test_every_quoted_benchmark_is_registered():
    assert set(render.quoted()) <= set(REGISTRY)


def test_an_unknown_benchmark_is_one_error_line_and_status_2():
    done = subprocess.run([sys.executable, "-m", "benchmarks", "nope"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("benchmarks: error: no benchmark 'nope'")


def test_the_harness_modules_examples_hold():
    """The docstring examples of the harness's own modules (outside the doctest paths)."""
    import doctest

    from benchmarks import common, registry

    for module in (common, registry, render):
        failed, _ = doctest.testmod(module)
        assert failed == 0, module.__name__


def test_a_summary_number_that_drifts_from_its_result_file_fails_the_check(tmp_path, monkeypatch,
                                                                          capsys):
    """docs/performance.md's Summary is hand-written: ``--check`` holds each of its numbers
    to the result files its row names, so a number edited away from its file fails."""
    page = render.SUMMARY_PAGE.read_text()
    assert render.summary_mismatches(page) == []
    best = json.loads((RESULTS / "overhead.json").read_text())
    assert "1.063" in json.dumps(best)  # the row's "best of 3", as the file holds it
    assert "(1.063 best of 3)" in page
    drifted = page.replace("(1.063 best of 3)", "(1.093 best of 3)", 1)
    wrong = render.summary_mismatches(drifted)
    assert len(wrong) == 1 and "1.093 is in none of overhead.md" in wrong[0]
    gone = page.replace("`overhead.md`", "`no_such_result.md`", 1)
    assert any("no result file benchmarks/results/no_such_result.json" in w
               for w in render.summary_mismatches(gone))
    copy = tmp_path / "performance.md"
    copy.write_text(drifted)
    monkeypatch.setattr(render, "SUMMARY_PAGE", copy)
    assert render.main(["--check"]) == 1
    assert "benchmarks: error: docs/performance.md Summary" in capsys.readouterr().err
