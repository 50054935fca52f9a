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
from what its result files give (``--write`` rewrites the pages).

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
    if stale and argv == ["--check"]:
        print(f"{stale} page(s) differ from their result files: "
              "python -m benchmarks.render --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
