"""ARFF text tokens: quoted and unquoted values, comments, dense and sparse data lines.

The rules, as Weka's ARFF documentation gives them:

- a value is unquoted (no whitespace, comma, quote, brace or ``%``) or quoted with ``'`` or
  ``"``; inside quotes a backslash escapes ``\\\\ \\' \\" \\% \\t \\n \\r \\b \\f``, a
  digit ``\\d`` (character d), an octal code ``\\ddd`` or ``\\uXXXX``;
- an unquoted ``?`` (or nothing between two commas) is a missing value; a quoted ``'?'`` is
  the text ``?``;
- ``%`` outside quotes starts a comment that runs to the end of the line;
- a dense row is values separated by commas; a sparse row is ``{index value, ...}`` with
  0-based attribute indices.

Errors are :class:`ArffSyntaxError` (a ``ValueError``) without a location; the reader adds
the file and line.

>>> split_dense("1.5, 'a b', \\"c\\\\\\"d\\", ? % comment")
['1.5', 'a b', 'c"d', None]
>>> split_sparse("{0 1, 2 '?'} % comment")
{0: '1', 2: '?'}
"""

from __future__ import annotations

import re

__all__ = [
    "ArffSyntaxError",
    "ends_with_empty_field",
    "split_braced",
    "split_dense",
    "split_sparse",
    "token",
    "unescape",
]


class ArffSyntaxError(ValueError):
    """A malformed ARFF line (the message says what, not where)."""


_VALUE = re.compile(
    r"""\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|([^,\s'"{}%]*))\s*""", re.S
)
_ESCAPE = re.compile(r"\\([0-9]{1,3}|u[0-9a-f]{4}|.)", re.S)
_SIMPLE = {
    "\\": "\\",
    '"': '"',
    "'": "'",
    "t": "\t",
    "n": "\n",
    "r": "\r",
    "b": "\b",
    "f": "\f",
    "%": "%",
}
_INDEX = re.compile(r"\s*([0-9]+)\s+")
_CLOSE = re.compile(r"\s*\}")


def _escaped(m: re.Match[str]) -> str:
    s = m.group(1)
    if len(s) == 1:
        if s.isdigit():
            return chr(int(s))
        if s in _SIMPLE:
            return _SIMPLE[s]
        raise ArffSyntaxError(f"unsupported escape sequence \\{s}")
    if s[0] == "u":
        return chr(int(s[1:], 16))
    try:
        return chr(int(s, 8))
    except ValueError:
        raise ArffSyntaxError(f"bad octal escape \\{s}") from None


def unescape(text: str) -> str:
    """The text of a quoted value, escapes resolved.

    >>> unescape(r"it\\'s\\t\\u0041\\101")
    "it's\\tAA"
    """
    return _ESCAPE.sub(_escaped, text) if "\\" in text else text


def token(text: str, pos: int) -> tuple[str, bool, int]:
    """One value at ``pos`` (surrounding whitespace skipped): (text, quoted, end position).
    An unquoted value may be empty."""
    m = _VALUE.match(text, pos)
    assert m is not None  # every group may be empty: the pattern matches anywhere
    if m.group(1) is not None:
        return unescape(m.group(1)), True, m.end()
    if m.group(2) is not None:
        return unescape(m.group(2)), True, m.end()
    return m.group(3), False, m.end()


def _unexpected(text: str, pos: int) -> ArffSyntaxError:
    c = text[pos]
    if c in "'\"":
        return ArffSyntaxError(f"unterminated or misplaced quote {c} at column {pos + 1}")
    return ArffSyntaxError(
        f"unexpected {c!r} at column {pos + 1} (values with spaces, commas, quotes, braces or "
        "% must be quoted)"
    )


def _rest_is_comment(text: str, pos: int) -> bool:
    rest = text[pos:].lstrip()
    return not rest or rest[0] == "%"


def split_dense(text: str) -> list[str | None]:
    """The values of a dense data line (``None`` = missing)."""
    out: list[str | None] = []
    pos, n = 0, len(text)
    while True:
        value, quoted, pos = token(text, pos)
        out.append(value if quoted or value not in ("", "?") else None)
        if pos == n or text[pos] == "%":
            return out
        if text[pos] != ",":
            raise _unexpected(text, pos)
        pos += 1


def ends_with_empty_field(text: str) -> bool:
    """Whether a dense data line ends with a comma and nothing after it (comments aside):
    the empty last field MOA's ``WriteStreamToARFFFile`` writes, which Weka and MOA ignore.

    >>> ends_with_empty_field("1,2,a,"), ends_with_empty_field("1,2,a, % c")
    (True, True)
    >>> [ends_with_empty_field(t) for t in ("1,2,a", "1,2,?", "1,'a,'")]
    [False, False, False]
    """
    pos, n = 0, len(text)
    last_empty = False
    while True:
        value, quoted, pos = token(text, pos)
        last_empty = not quoted and value == ""
        if pos == n or text[pos] == "%" or text[pos] != ",":
            return last_empty and pos > 0 and text[:pos].rstrip().endswith(",")
        pos += 1


def split_braced(text: str, pos: int) -> tuple[list[str], int]:
    """The values of ``{a, 'b c', ...}`` whose ``{`` is at ``pos``; and the position after
    ``}``. Used for nominal declarations."""
    values: list[str] = []
    pos += 1
    while True:
        value, quoted, pos = token(text, pos)
        if not quoted and value == "":
            raise ArffSyntaxError(f"empty value in {{...}} at column {pos + 1}")
        values.append(value)
        if pos < len(text) and text[pos] == ",":
            pos += 1
        elif pos < len(text) and text[pos] == "}":
            return values, pos + 1
        elif pos >= len(text):
            raise ArffSyntaxError("'{' without a closing '}'")
        else:
            raise _unexpected(text, pos)


def split_sparse(text: str) -> dict[int, str | None]:
    """The ``{index: value}`` of a sparse data line (``None`` = missing)."""
    pos = text.index("{") + 1
    out: dict[int, str | None] = {}
    m = _CLOSE.match(text, pos)
    if m:
        pos = m.end()
    else:
        while True:
            m = _INDEX.match(text, pos)
            if not m:
                raise ArffSyntaxError(
                    f"expected 'index value' at column {pos + 1} of a sparse row"
                )
            index = int(m.group(1))
            value, quoted, pos = token(text, m.end())
            if not quoted and value == "":
                raise ArffSyntaxError(f"index {index} of a sparse row has no value")
            if index in out:
                raise ArffSyntaxError(f"index {index} appears twice in a sparse row")
            out[index] = value if quoted or value != "?" else None
            if pos < len(text) and text[pos] == ",":
                pos += 1
            elif pos < len(text) and text[pos] == "}":
                pos += 1
                break
            elif pos >= len(text):
                raise ArffSyntaxError("a sparse row must end with '}'")
            else:
                raise _unexpected(text, pos)
    if not _rest_is_comment(text, pos):
        raise ArffSyntaxError(f"unexpected text after '}}' at column {pos + 1}")
    return out


def rest_is_comment(text: str, pos: int) -> bool:
    """Whether only whitespace or a ``%`` comment follows ``pos``."""
    return _rest_is_comment(text, pos)
