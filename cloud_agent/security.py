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
from collections import OrderedDict
from collections.abc import Callable

from cloud_agent.errors import InvalidRequestError, RateLimitedError
from edgeloop.limits import MAX_QUERY_CHARS
from edgeloop.transport.auth import LOCAL_USER, PrincipalLike
from edgeloop.transport.guards import peer_host

DEFAULT_MAX_QUERY_CHARS = MAX_QUERY_CHARS  # the device's limit too
#: Buckets kept; the least recently used goes first (a full bucket loses nothing).
MAX_BUCKETS = 100_000


def rate_key(principal: PrincipalLike, peer: str) -> str:
    """Whose bucket a call takes from: the device its token names, or, in open mode
    (no tokens), the caller's address; never a header the client chooses."""
    if principal.user_id == LOCAL_USER:
        return f"address {peer_host(peer) or 'unknown'}"
    return f"device {principal.device_id}"


class RateLimiter:
    """A token bucket per caller (:func:`rate_key`): ``rate_per_s`` sustained, ``burst``
    at once, for Converse, Reason and Sync alike.

    ``rate_per_s <= 0`` disables the limit. Thread-safe; at most ``MAX_BUCKETS`` kept.
    """

    def __init__(
        self, rate_per_s: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate_per_s = rate_per_s
        self.burst = max(1, burst)
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def acquire(self, key: str) -> None:
        """Take one token for ``key``; raise RateLimitedError with a retry hint if empty."""
        if self.rate_per_s <= 0:
            return
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.get(key, (float(self.burst), now))
            tokens = min(float(self.burst), tokens + (now - last) * self.rate_per_s)
            self._buckets[key] = (tokens - 1.0 if tokens >= 1.0 else tokens, now)
            self._buckets.move_to_end(key)
            if len(self._buckets) > MAX_BUCKETS:
                self._buckets.popitem(last=False)
            if tokens < 1.0:
                wait = (1.0 - tokens) / self.rate_per_s
                raise RateLimitedError(
                    f"{key} is over its rate of {self.rate_per_s:g} requests/s",
                    retry_after_s=wait,
                )


def check_query(query: str, max_chars: int = DEFAULT_MAX_QUERY_CHARS) -> str:
    """The query, stripped; raises InvalidRequestError when empty or longer than ``max_chars``."""
    text = query.strip()
    if not text:
        raise InvalidRequestError("query must not be empty")
    if len(query) > max_chars:
        raise InvalidRequestError(f"query is {len(query)} characters; the limit is {max_chars}")
    if "\x00" in query:  # never dropped silently: "Paris\0\0 and Berlin" is no query
        raise InvalidRequestError("query contains a NUL character")
    return text
