"""The cloud's own limits on what a caller may send: a rate per device and a query size.

Tokens, TLS and the auth interceptor are the transport's (``edgeloop.transport.auth`` and
``edgeloop.transport.channels``): the memory sync uses the same ones.

Example:
    >>> check_query("  what's the weather in Paris ")
    "what's the weather in Paris"
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from cloud_agent.errors import InvalidRequestError, RateLimitedError

DEFAULT_MAX_QUERY_CHARS = 4000


class RateLimiter:
    """A token bucket per device: ``rate_per_s`` sustained, ``burst`` at once.

    ``rate_per_s <= 0`` disables the limit. Thread-safe.
    """

    def __init__(
        self, rate_per_s: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate_per_s = rate_per_s
        self.burst = max(1, burst)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def acquire(self, device_id: str) -> None:
        """Take one token for ``device_id``; raise RateLimitedError with a retry hint if empty."""
        if self.rate_per_s <= 0:
            return
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(device_id, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate_per_s)
            if tokens < 1.0:
                self._buckets[device_id] = (tokens, now)
                wait = (1.0 - tokens) / self.rate_per_s
                raise RateLimitedError(
                    f"device {device_id!r} is over its rate of {self.rate_per_s:g} requests/s",
                    retry_after_s=wait,
                )
            self._buckets[device_id] = (tokens - 1.0, now)


def check_query(query: str, max_chars: int = DEFAULT_MAX_QUERY_CHARS) -> str:
    """The query, stripped; raises InvalidRequestError when empty or longer than ``max_chars``."""
    text = query.strip()
    if not text:
        raise InvalidRequestError("query must not be empty")
    if len(query) > max_chars:
        raise InvalidRequestError(f"query is {len(query)} characters; the limit is {max_chars}")
    return text
