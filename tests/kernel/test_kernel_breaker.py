"""The reusable circuit breaker."""

from __future__ import annotations

import pytest

from react_kernel import BreakerState, CircuitBreaker, CircuitOpenError


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_opens_after_consecutive_failures_and_half_opens_after_timeout() -> None:
    clock = Clock()
    breaker = CircuitBreaker(failure_threshold=3, reset_timeout_s=10, clock=clock)
    breaker.record_failure()
    breaker.record_failure()
    breaker.record_success()  # not consecutive any more
    assert breaker.failures == 0
    for _ in range(3):
        assert breaker.allow()
        breaker.record_failure()
    assert breaker.state is BreakerState.OPEN and not breaker.allow()
    with pytest.raises(CircuitOpenError):
        breaker.guard()
    clock.now = 10.0
    assert breaker.state.value == "half_open"
    assert breaker.allow() and not breaker.allow()  # one probe only
    breaker.record_failure()
    assert breaker.state.value == "open"
    clock.now = 25.0
    assert breaker.allow()
    breaker.record_success()
    assert breaker.state.value == "closed" and breaker.allow()


def test_reset_and_bad_threshold() -> None:
    breaker = CircuitBreaker(1, 60)
    breaker.record_failure()
    assert not breaker.allow()
    breaker.reset()
    assert breaker.allow()
    with pytest.raises(ValueError):
        CircuitBreaker(0)
