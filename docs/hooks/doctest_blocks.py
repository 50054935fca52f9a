"""A griffe extension for the API reference: docstring examples render as Python code.

distval's docstrings carry runnable examples (``>>>`` lines, run by pytest as doctests)
outside any ``Examples`` section, and Sphinx roles such as :class:`~distval.RunConfig`.
Markdown would read an example's ``x["nb"]`` as a link and print the roles as text, so this
extension, loaded by mkdocstrings (``mkdocs.yml``), fences each example block as ``pycon``
and turns a role into inline code of its name. The docstrings themselves are unchanged.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|const):`~?([^`]+)`")
SECTION = re.compile(r"^\s*Examples\s*$")


def fence_examples(text: str) -> str:
    """Wrap every run of ``>>>`` lines and their output in a ``pycon`` fence.

    >>> fence_examples("Adds.\\n\\n>>> 1 + 1\\n2").split("\\n")
    ['Adds.', '', '```pycon', '>>> 1 + 1', '2', '```']
    """
    lines, out, i = text.split("\n"), [], 0
    while i < len(lines):
        line = lines[i]
        if SECTION.match(line) and i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}:
            return "\n".join(out + lines[i:])  # griffe parses a numpy Examples section itself
        if line.lstrip().startswith(">>>") and not (out and out[-1].lstrip().startswith("```")):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out += [f"{indent}```pycon", *block, f"{indent}```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def short_role(match: re.Match[str]) -> str:
    """Inline code of a Sphinx role's target: its last part when the target starts with ~."""
    target = match.group(1)
    shown = target.rsplit(".", 1)[-1] if match.group(0).split("`")[1].startswith("~") else target
    return f"`{shown}`"


class DoctestBlocks(griffe.Extension):
    """Fences doctest examples and shortens Sphinx roles in every docstring."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_examples(ROLE.sub(short_role, obj.docstring.value))
