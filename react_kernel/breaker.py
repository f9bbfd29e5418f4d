"""A circuit breaker: fail fast after consecutive failures, probe again after a pause.

Used per tool by the kernel and, outside it, by the edge's cloud link and the cloud's
backend fallback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import StrEnum

from react_kernel.errors import CircuitOpenError

__all__ = ["BreakerState", "CircuitBreaker"]


class BreakerState(StrEnum):
    """Closed: calls pass. Open: calls are refused. Half-open: one probe call passes."""

    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


class CircuitBreaker:
    """Opens after ``failure_threshold`` consecutive failures; after ``reset_timeout_s``
    lets one probe call through (half-open): its success closes the breaker, its failure
    opens it again.

    Example:
        >>> breaker = CircuitBreaker(failure_threshold=2, reset_timeout_s=30)
        >>> breaker.record_failure(); breaker.record_failure()
        >>> breaker.allow()
        False
    """

    def __init__(
        self,
        failure_threshold: int = 5,
        reset_timeout_s: float = 30.0,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if failure_threshold < 1:
            raise ValueError("failure_threshold must be at least 1")
        self.failure_threshold = failure_threshold
        self.reset_timeout_s = reset_timeout_s
        self._clock = clock
        self._state = BreakerState.CLOSED
        self._failures = 0
        self._opened_at = 0.0
        self._probe_out = False

    @property
    def state(self) -> BreakerState:
        """The current state (an open breaker turns half-open once its timeout passed)."""
        if (
            self._state is BreakerState.OPEN
            and self._clock() - self._opened_at >= self.reset_timeout_s
        ):
            self._state = BreakerState.HALF_OPEN
            self._probe_out = False
        return self._state

    @property
    def failures(self) -> int:
        """Consecutive failures counted so far."""
        return self._failures

    def allow(self) -> bool:
        """Whether a call may go ahead now (in half-open state: only the first probe)."""
        state = self.state
        if state is BreakerState.CLOSED:
            return True
        if state is BreakerState.HALF_OPEN and not self._probe_out:
            self._probe_out = True
            return True
        return False

    def record_success(self) -> None:
        """A call succeeded: close the breaker and reset the failure count."""
        self._state = BreakerState.CLOSED
        self._failures = 0
        self._probe_out = False

    def record_failure(self) -> None:
        """A call failed: count it; open the breaker at the threshold or after a failed probe."""
        self._failures += 1
        if self._state is BreakerState.HALF_OPEN or self._failures >= self.failure_threshold:
            self._state = BreakerState.OPEN
            self._opened_at = self._clock()
            self._probe_out = False

    def release(self) -> None:
        """A call let through never reached the backend (e.g. no time was left): it counts
        neither way, and a half-open breaker lets the next call probe instead."""
        self._probe_out = False

    def guard(self) -> None:
        """Raise :class:`CircuitOpenError` unless :meth:`allow` says the call may go ahead."""
        if not self.allow():
            raise CircuitOpenError(f"circuit open after {self._failures} consecutive failures")

    def reset(self) -> None:
        """Close the breaker and forget past failures."""
        self.record_success()
