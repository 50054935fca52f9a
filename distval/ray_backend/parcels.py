"""How many batches travel to the Ray actors in one parcel: about :data:`PARCEL_SECONDS` of
their work, at the rate of the last deliveries.

>>> ParcelSizer(batch_rows=1000).batches()
1
"""

from __future__ import annotations

import time
from collections import deque

__all__ = ["PARCEL_SECONDS", "ParcelSizer"]

#: The actors' work a parcel of batches aims at: Ray's round trip (16-30 ms on a 2-core
#: machine) and per-call work stay a few per cent of it.
PARCEL_SECONDS = 0.5

class ParcelSizer:
    """How many batches the next parcel takes: as many as the actors get through in
    :data:`PARCEL_SECONDS` at the rate of the last deliveries (the rows of the last
    ``window`` parcels over the time since the delivery before them: parcels that come back
    together after a stall do not look instant), at most twice the last parcel's and at
    most ``largest``.

    >>> sizer = ParcelSizer(batch_rows=1000)
    >>> sizer.batches()
    1
    >>> for t in (0.0, 0.01, 0.02, 0.03):  # parcels of 1,000 rows every 10 ms: 100k rows/s
    ...     sizer.delivered(1000, now=t)
    >>> [sizer.batches() for _ in range(7)]
    [2, 4, 8, 16, 32, 50, 50]
    >>> for t in (5.0, 5.01, 5.02, 5.03):  # a stall, then four parcels at once
    ...     sizer.delivered(1000, now=t)
    >>> round(sizer.rate), sizer.batches()  # 4,000 rows in the 5 s since the delivery before
    (800, 1)
    """

    def __init__(self, batch_rows: int, largest: int = 256, window: int = 4) -> None:
        self.batch_rows, self.largest = batch_rows, largest
        self.rate: float | None = None
        self._deliveries: deque[tuple[float, int]] = deque(maxlen=window + 1)
        self._last = 1

    def delivered(self, rows: int, now: float | None = None) -> None:
        """A parcel of ``rows`` rows came back (at time ``now``, default the clock's)."""
        now = time.perf_counter() if now is None else now
        self._deliveries.append((now, rows))
        (first, _), *later = self._deliveries
        if later and now > first:
            self.rate = sum(r for _, r in later) / (now - first)

    def batches(self) -> int:
        """The next parcel's size in batches."""
        want = 1
        if self.rate is not None:
            want = int(self.rate * PARCEL_SECONDS / self.batch_rows)
        self._last = max(1, min(want, 2 * self._last, self.largest))
        return self._last
