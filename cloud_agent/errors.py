"""The cloud's exception tree and the one place where errors become gRPC status codes.

    CloudError
    ├── InvalidRequestError      -> INVALID_ARGUMENT   (empty or oversized query, bad stream)
    ├── UnauthenticatedError     -> UNAUTHENTICATED    (no or unknown bearer token)
    ├── PermissionDeniedError    -> PERMISSION_DENIED  (another user's session or device)
    ├── RateLimitedError         -> RESOURCE_EXHAUSTED (with a ``retry-after-ms`` trailer)
    ├── InjectionRefusedError    -> FAILED_PRECONDITION (the query failed injection screening)
    ├── BackendUnavailableError  -> UNAVAILABLE        (every backend's breaker is open)
    └── ReasonerDeadlineError    -> DEADLINE_EXCEEDED  (the session ran past its deadline)

Anything else is a bug in the server and maps to INTERNAL with a generic message (the
details go to the log, not to the client).
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

RETRY_AFTER_KEY = "retry-after-ms"


class CloudError(Exception):
    """Base class of every error the cloud reasoner reports to a client."""


class InvalidRequestError(CloudError):
    """The request is malformed: empty or oversized query, wrong stream order."""


class UnauthenticatedError(CloudError):
    """No bearer token, or a token the server does not know."""


class PermissionDeniedError(CloudError):
    """The caller is authenticated but not allowed this device or session."""


class RateLimitedError(CloudError):
    """The device sent more requests than its rate allows."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class InjectionRefusedError(CloudError):
    """The query was refused by prompt-injection screening."""


class BackendUnavailableError(CloudError):
    """No reasoning backend can serve: every one's circuit breaker is open."""


class ReasonerDeadlineError(CloudError):
    """The session ran past its deadline before it finished."""


@dataclass(frozen=True)
class StatusMapping:
    """How one error is reported: status code, client-facing message, trailing metadata."""

    code: grpc.StatusCode
    message: str
    trailers: tuple[tuple[str, str], ...] = ()


_CODES: tuple[tuple[type[CloudError], grpc.StatusCode], ...] = (
    (InvalidRequestError, grpc.StatusCode.INVALID_ARGUMENT),
    (UnauthenticatedError, grpc.StatusCode.UNAUTHENTICATED),
    (PermissionDeniedError, grpc.StatusCode.PERMISSION_DENIED),
    (RateLimitedError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (InjectionRefusedError, grpc.StatusCode.FAILED_PRECONDITION),
    (BackendUnavailableError, grpc.StatusCode.UNAVAILABLE),
    (ReasonerDeadlineError, grpc.StatusCode.DEADLINE_EXCEEDED),
)


def status_for(error: BaseException) -> StatusMapping:
    """Map an exception to the gRPC status a client sees.

    >>> status_for(InvalidRequestError("query must not be empty")).code
    <StatusCode.INVALID_ARGUMENT: (3, 'invalid argument')>
    """
    for kind, code in _CODES:
        if isinstance(error, kind):
            trailers: tuple[tuple[str, str], ...] = ()
            if isinstance(error, RateLimitedError):
                trailers = ((RETRY_AFTER_KEY, str(max(1, round(error.retry_after_s * 1000)))),)
            return StatusMapping(code, str(error) or kind.__doc__ or code.name, trailers)
    if isinstance(error, TimeoutError):
        return StatusMapping(grpc.StatusCode.DEADLINE_EXCEEDED, "the session ran out of time")
    return StatusMapping(grpc.StatusCode.INTERNAL, "internal error in the cloud reasoner")
