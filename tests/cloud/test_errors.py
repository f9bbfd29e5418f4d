"""The cloud's errors through the transport's one error -> status table."""

from __future__ import annotations

import grpc
import pytest

from cloud_agent import errors
from edgeloop.transport.metadata import RETRY_AFTER_KEY
from edgeloop.transport.status import status_for

CASES = [
    (errors.InvalidRequestError("query must not be empty"), grpc.StatusCode.INVALID_ARGUMENT),
    (errors.UnauthenticatedError("missing token"), grpc.StatusCode.UNAUTHENTICATED),
    (errors.PermissionDeniedError("another user's"), grpc.StatusCode.PERMISSION_DENIED),
    (errors.RateLimitedError("slow down", retry_after_s=0.25), grpc.StatusCode.RESOURCE_EXHAUSTED),
    (errors.InjectionRefusedError("flagged"), grpc.StatusCode.FAILED_PRECONDITION),
    (errors.BackendUnavailableError("all open"), grpc.StatusCode.UNAVAILABLE),
    (errors.ReasonerDeadlineError("late"), grpc.StatusCode.DEADLINE_EXCEEDED),
    (TimeoutError(), grpc.StatusCode.DEADLINE_EXCEEDED),
    (RuntimeError("secret detail"), grpc.StatusCode.INTERNAL),
    (KeyError("x"), grpc.StatusCode.INTERNAL),
]


@pytest.mark.parametrize(("error", "code"), CASES, ids=[type(e).__name__ for e, _ in CASES])
def test_status_for(error: BaseException, code: grpc.StatusCode) -> None:
    mapping = status_for(error, internal_message=errors.INTERNAL_MESSAGE)
    assert mapping.code == code
    assert mapping.message


def test_internal_errors_hide_details() -> None:
    mapping = status_for(RuntimeError("secret detail"), internal_message=errors.INTERNAL_MESSAGE)
    assert "secret" not in mapping.message
    assert mapping.message == errors.INTERNAL_MESSAGE


def test_rate_limit_carries_retry_hint() -> None:
    mapping = status_for(errors.RateLimitedError("slow", retry_after_s=0.25))
    assert mapping.trailers == ((RETRY_AFTER_KEY, "250"),)
