"""A stream wrapper that stops as Ctrl-C would, for the resume and checkpoint tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class StopAfter:
    """A stream that raises KeyboardInterrupt once ``rows`` rows were read (as Ctrl-C)."""

    def __init__(self, stream: Any, rows: int) -> None:
        self._stream, self._rows = stream, rows

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def chunks(self, size: int) -> Iterator[Any]:
        for chunk in self._stream.chunks(size):
            if chunk.start >= self._rows:
                raise KeyboardInterrupt
            yield chunk
