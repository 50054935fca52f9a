"""Tables of the docs and the README, rendered from the benchmarks' result files.

A page marks each table it takes from a result file::

    <!-- result: aggregator 1 -->
    ...the table, as committed...
    <!-- /result -->

(``aggregator``: the benchmark, ``benchmarks/results/aggregator.json``; ``1``: the key of
the table in its ``tables``.) :func:`render_page` replaces every marked block with the table
drawn from the file and a line naming the benchmark, its date and machine; the MkDocs hook
``docs/hooks/results_tables.py`` does so on every build (a missing result or table fails
the build), and ``python -m benchmarks.render --check`` fails when a committed page differs
from what its result files give (``--write`` rewrites the pages), or when a number of
docs/performance.md's Summary is in none of the result files its row names
(:func:`summary_mismatches`).

>>> page = "<!-- result: x 1 -->\\nold\\n<!-- /result -->"
>>> print(render_page(page, {"x": {"date": "2026-11-25 21:02", "machine": {"cpus": 2},
...     "tables": {"1": {"columns": ["a"], "rows": [["1"]]}}}}.__getitem__))
<!-- result: x 1 -->
| a |
|---|
| 1 |
<BLANKLINE>
*`python -m benchmarks x`, 2026-11-25 21:02, 2 CPUs (`benchmarks/results/x.json`)*
<!-- /result -->
"""

from __future__ import annotations

import difflib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
#: The pages whose tables come from result files.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"<!-- result: (\S+) (\S+) -->\n(.*?)<!-- /result -->", re.S)


class MissingResult(LookupError):
    """A page names a result file, or a table of it, that is not there."""


def load(name: str) -> dict[str, Any]:
    """``results/NAME.json``, read; :class:`MissingResult` when there is none."""
    path = RESULTS / f"{name}.json"
    if not path.is_file():
        raise MissingResult(f"no result file benchmarks/results/{name}.json")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def machine_words(machine: dict[str, Any]) -> str:
    """The machine in a few words: its kind where the benchmark recorded one, its CPUs."""
    words = [str(machine[k]) for k in ("kind", "machine_kind") if machine.get(k)]
    if machine.get("cpus"):
        words.append(f"{machine['cpus']} CPUs")
    return ", ".join(words) or "machine not recorded"


def table(name: str, key: str, result: dict[str, Any]) -> str:
    """Table ``key`` of a benchmark's result, as Markdown, with the line that names it."""
    try:
        t = result["tables"][key]
    except KeyError:
        raise MissingResult(f"benchmarks/results/{name}.json has no table {key!r}") from None
    lines = ["| " + " | ".join(t["columns"]) + " |", "|" + "---|" * len(t["columns"])]
    lines += ["| " + " | ".join(row) + " |" for row in t["rows"]]
    when = result.get("date") or "date not recorded"
    lines += ["", f"*`python -m benchmarks {name}`, {when}, "
              f"{machine_words(result.get('machine') or {})} (`benchmarks/results/{name}.json`)*"]
    return "\n".join(lines)


def render_page(text: str, results: Callable[[str], dict[str, Any]] = load) -> str:
    """``text`` with every marked block redrawn from its result file."""
    def block(m: re.Match[str]) -> str:
        name, key = m.group(1), m.group(2)
        return f"<!-- result: {name} {key} -->\n{table(name, key, results(name))}\n<!-- /result -->"

    return BLOCK.sub(block, text)


def quoted() -> dict[str, list[str]]:
    """Benchmark name -> the pages (relative paths) that render a table of its result."""
    out: dict[str, list[str]] = {}
    for page in PAGES:
        for m in BLOCK.finditer(page.read_text()):
            where = str(page.relative_to(ROOT))
            if where not in out.setdefault(m.group(1), []):
                out[m.group(1)].append(where)
    return out


#: The page whose Summary table names, in each row, the result files its numbers come from
#: (``overhead.md``; a file kept only in git's history is followed by ``(commit …)``).
SUMMARY_PAGE = ROOT / "docs" / "performance.md"
#: A number as the docs and the result files write it: ``2,158``, ``0.97``, ``−163``.
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|(?<![\w.,])\d+(?:\.\d+)?")


def _numbers(text: str) -> list[str]:
    """The numbers of ``text``, as written (links' targets and code spans left out)."""
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return NUMBER.findall(re.sub(r"`[^`]*`", "", text))


def _shown_as(doc: str, found: float) -> bool:
    """Whether ``found`` (a result file's number, or it in millions or thousands) rounds to
    ``doc`` at the decimals ``doc`` shows."""
    digits = len(doc.split(".")[1]) if "." in doc else 0
    want = float(doc.replace(",", ""))
    return any(abs(round(v, digits) - want) < 1e-9 for v in (found, found / 1e6, found / 1e3))


def result_text(name: str, commit: str | None = None) -> str | None:
    """``results/NAME.md`` and ``NAME.json`` as text (at ``commit``, from git, for a file
    kept only in history); None where there is neither."""
    got = []
    for ext in (".md", ".json"):
        if commit is None:
            path = RESULTS / f"{name}{ext}"
            if path.is_file():
                got.append(path.read_text())
            continue
        shown = subprocess.run(["git", "show", f"{commit}:benchmarks/results/{name}{ext}"],
                               cwd=ROOT, capture_output=True, text=True)
        if shown.returncode == 0:
            got.append(shown.stdout)
    return "\n".join(got) if got else None


def summary_mismatches(
    text: str, files: Callable[[str, str | None], str | None] = result_text
) -> list[str]:
    r"""Each number of the Summary table in ``text`` that none of its row's result files
    holds (at the decimals the table shows), and each result file it names that is missing.

    ``files(name, commit)`` gives ``results/NAME.md`` and ``NAME.json`` as text (None: no
    such file); a file followed by ``(commit …)`` in the table is read at that commit.

    >>> page = "## Summary\n\n| what | number | benchmark, result | date |\n|---|---|---|---|\n"
    >>> row = "| HT | 0.97–1.06× (2,158 rows/s) | `python -m benchmarks x`, `x.md` | Nov 22 |\n"
    >>> files = {"x": "ratio 0.9712 1.0581, 2158.4 rows/s"}
    >>> summary_mismatches(page + row, lambda name, commit: files.get(name))
    []
    >>> summary_mismatches(page + row.replace("1.06", "1.08"), lambda name, commit: files[name])
    ['docs/performance.md Summary, HT: 1.08 is in none of x.md']
    """
    section = text.split("## Summary\n", 1)[-1].split("\n## ", 1)[0]
    out: list[str] = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if len(cells) != 4 or cells[0] == "what" or set(cells[0]) <= set("-"):
            continue
        what, number, where, _ = cells
        names = re.findall(r"`(\w+)\.md`(?: \(commit (\w+)\))?", where)
        found: list[float] = []
        for name, commit in names:
            got = files(name, commit or None)
            if got is None:
                at = f" at commit {commit}" if commit else ""
                out.append(f"docs/performance.md Summary, {what}: no result file "
                           f"benchmarks/results/{name}.json{at}")
            found += [float(n.replace(",", "")) for n in NUMBER.findall(got or "")]
        for n in _numbers(number):
            if not any(_shown_as(n, v) for v in found):
                named = ", ".join(f"{name}.md" for name, _ in names)
                out.append(f"docs/performance.md Summary, {what}: {n} is in none of {named}")
    return out


def main(argv: list[str]) -> int:
    """``--check``: exit 1 (with a diff) when a page differs from its results; ``--write``:
    rewrite the pages that differ."""
    if argv not in (["--check"], ["--write"]):
        print("usage: python -m benchmarks.render --check | --write", file=sys.stderr)
        return 2
    stale = 0
    for page in PAGES:
        text = page.read_text()
        try:
            new = render_page(text)
        except MissingResult as e:
            print(f"benchmarks: error: {page.relative_to(ROOT)}: {e}", file=sys.stderr)
            return 1
        if new != text:
            stale += 1
            if argv == ["--write"]:
                page.write_text(new)
                print(f"rewrote {page.relative_to(ROOT)}")
            else:
                sys.stdout.writelines(difflib.unified_diff(
                    text.splitlines(True), new.splitlines(True),
                    str(page.relative_to(ROOT)), "rendered from benchmarks/results"))
    if argv == ["--check"]:
        wrong = summary_mismatches(SUMMARY_PAGE.read_text())
        for line in wrong:
            print(f"benchmarks: error: {line}", file=sys.stderr)
        if wrong:
            return 1
    if stale and argv == ["--check"]:
        print(f"{stale} page(s) differ from their result files: "
              "python -m benchmarks.render --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
