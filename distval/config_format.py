"""The saved run configuration's format (``config.json``): its number, the keys older formats
named otherwise, the keys a run adds, and the one upgrade to today's format.

:func:`distval.config.read_config` is the entry point; it passes the fields of
:class:`~distval.config.RunConfig`, the keys a configuration may hold besides :data:`RUN_KEYS`.

>>> upgrade_config({"delta": 0.01}, "config.json", ["adwin_delta"])
{'adwin_delta': 0.01, 'format': 2}
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from distval.errors import DistvalError

__all__ = ["CONFIG_FORMAT", "RENAMED", "RUN_KEYS", "current_keys", "upgrade_config"]

#: Format number of the ``config.json`` written today (its ``"format"`` key); 1 is the
#: unnumbered file of earlier versions. :func:`read_config` upgrades every older format.
CONFIG_FORMAT = 2

#: Keys of older saved configurations (``config.json``) -> today's field names.
RENAMED = {"delta": "adwin_delta"}

#: Keys a run adds to its ``config.json`` besides the fields of :class:`RunConfig`: the
#: format number, the backend and the stream's display name, the provenance (versions, git
#: commit), what a permuted copy of ``--permute`` adds, the run id of its tables and the
#: fingerprint of the stream it read (a suite stream's, a copy's).
RUN_KEYS = frozenset(
    {"format", "backend", "stream_name", "provenance", "permutation", "copy", "permutation_seed",
     "run_id", "stream_fingerprint"}
)


def current_keys(data: Mapping[str, Any]) -> dict[str, Any]:
    """A saved configuration with today's key names (:data:`RENAMED`); a key given under
    both names keeps today's.

    >>> current_keys({"delta": 0.01, "alpha": 0.05})
    {'alpha': 0.05, 'adwin_delta': 0.01}
    """
    out = {k: v for k, v in data.items() if k not in RENAMED}
    for old, new in RENAMED.items():
        if old in data:
            out.setdefault(new, data[old])
    return out


def upgrade_config(
    data: object, source: str, fields: Iterable[str], *, strict: bool = True
) -> dict[str, Any]:
    """:func:`distval.config.read_config`'s work, given the configuration's ``fields``."""
    import difflib

    if not isinstance(data, Mapping):
        raise DistvalError(f"{source} does not hold a run configuration (a JSON object)")
    version = data.get("format", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise DistvalError(f"{source}: `format` must be a positive integer, got {version!r}")
    if version > CONFIG_FORMAT:
        raise DistvalError(
            f"{source} has format {version}, newer than this distval reads ({CONFIG_FORMAT}): "
            "upgrade distval"
        )
    out = dict(data)
    if version < 2:  # 1 -> 2: today's key names, a format number
        out = current_keys(out)
    out["format"] = CONFIG_FORMAT
    known = sorted(set(fields) | RUN_KEYS)
    for key in out if strict else ():
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise DistvalError(f"{source}: unknown key {key!r}{hint}")
    return out
