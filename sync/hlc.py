"""Hybrid logical clock: the order of concurrent edits to the same record.

A timestamp is the wall-clock time in milliseconds plus a counter that breaks ties within
one millisecond, encoded as 16 lower-case hex digits (12 for the milliseconds, 4 for the
counter) so that string order is time order, in Python, in SQL and in JavaScript alike.
Two edits compare by ``(timestamp, node_id)``: the later one wins, a tie goes to the
greater node id. The Yjs client id plays no part.

Example:
    >>> clock = HybridLogicalClock(now_ms=lambda: 1_000)
    >>> clock.now()
    '0000000003e80000'
    >>> clock.now()
    '0000000003e80001'
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

_COUNTER_LIMIT = 0xFFFF
_WALL_LIMIT = 16**12 - 1


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


def encode_hlc(wall_ms: int, counter: int) -> str:
    """Encode a wall time and counter as a sortable 16-hex-digit string."""
    return f"{wall_ms:012x}{counter:04x}"


is_hlc: Callable[[str], object] = re.compile(r"[0-9a-fA-F]{16}").fullmatch
"""Truthy if a string is a timestamp: 16 hex digits (we write lower case; upper case from
another writer is read too). TypeError for a non-string."""


def decode_hlc(value: str) -> tuple[int, int]:
    """Decode a timestamp into ``(wall_ms, counter)``; ValueError if it is not one."""
    if not isinstance(value, str) or not is_hlc(value):
        raise ValueError(f"not a hybrid logical clock timestamp: {value!r}")
    return int(value[:12], 16), int(value[12:], 16)


def hlc_wall_ms(value: str) -> int:
    """The wall-clock part of a timestamp, in milliseconds since the epoch."""
    return decode_hlc(value)[0]


class HybridLogicalClock:
    """A monotonic clock that never runs behind any timestamp it has seen.

    Args:
        now_ms: the physical clock, in milliseconds (tests pass a fake one).
    """

    def __init__(self, now_ms: Callable[[], int] | None = None) -> None:
        self._now_ms = now_ms or _wall_ms
        self._wall = 0
        self._counter = 0

    def physical_ms(self) -> int:
        """The physical clock this HLC reads, in milliseconds (tests pass their own)."""
        return min(self._now_ms(), _WALL_LIMIT)

    def now(self) -> str:
        """A new timestamp, greater than every one issued or observed before."""
        physical = min(self._now_ms(), _WALL_LIMIT)
        if physical > self._wall:
            self._wall, self._counter = physical, 0
        elif self._counter < _COUNTER_LIMIT:
            self._counter += 1
        else:
            self._wall, self._counter = self._wall + 1, 0
        return encode_hlc(self._wall, self._counter)

    def last(self) -> str:
        """The greatest timestamp issued or observed so far (does not tick)."""
        return encode_hlc(self._wall, self._counter)

    def observe(self, timestamp: str) -> None:
        """Move the clock past a timestamp seen on another replica."""
        wall, counter = decode_hlc(timestamp)
        if (wall, counter) > (self._wall, self._counter):
            self._wall, self._counter = wall, counter
