"""The check that bad input ends in one line ``distval: error: ...`` and exit status 2."""

from __future__ import annotations

import re
from typing import Any

from distval.cli import main

#: A run's plain-text progress line (no terminal): ``distval: 0/400 rows ...``.
PROGRESS = re.compile(r"distval: \d+(/\d+)? rows\b")


def one_line_error(capsys: Any, *argv: str) -> str:
    """Run ``distval *argv``; assert it exits 2 with one error line (warnings and the
    plain-text progress lines of a run that had started aside) and return that line."""
    code = main(list(argv))
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines()
             if not x.startswith("distval: warning:") and not PROGRESS.match(x)]
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("distval: error: "), err
    return lines[0]
