"""The cloud's exception tree; each error is also one of the transport's status kinds, so
``edgeloop.transport.status`` maps it to its gRPC status code (the one table)::

    CloudError
    ├── InvalidRequestError      -> INVALID_ARGUMENT   (empty or oversized query, bad stream)
    ├── RateLimitedError         -> RESOURCE_EXHAUSTED (with a ``retry-after-ms`` trailer)
    ├── InjectionRefusedError    -> FAILED_PRECONDITION (the query failed injection screening)
    ├── StreamClosedError        -> FAILED_PRECONDITION (Converse half-closed while a device
    │                                                    action waited for its observation)
    ├── BackendUnavailableError  -> UNAVAILABLE        (every backend's breaker is open)
    ├── ReasonerDeadlineError    -> DEADLINE_EXCEEDED  (the session ran past its deadline)
    ├── BackendRequestError      (cloud_agent.openai_backend: a chat endpoint failed after
    │                             retries; the backend chain falls back, callers never see it)
    ├── ForecastError            the forecast service gave no forecast (the tool fails with
    │                            the reason as its observation; never a status)
    └── EvalFileError            a ``cloud-agent eval`` file is unusable (the CLI: one line,
                                 exit 2; also a ValueError)

    edgeloop.transport.errors (shared with the memory sync: one pair for both)
    ├── UnauthenticatedError     -> UNAUTHENTICATED    (no or unknown bearer token)
    └── PermissionDeniedError    -> PERMISSION_DENIED  (another user's session or device)

Anything else is a bug in the server and maps to INTERNAL with a generic message
(:data:`INTERNAL_MESSAGE`; the details go to the log, not to the client).

Example:
    >>> from edgeloop.transport.status import status_for
    >>> status_for(InvalidRequestError("query must not be empty")).code
    <StatusCode.INVALID_ARGUMENT: (3, 'invalid argument')>
"""

from __future__ import annotations

from edgeloop.transport.errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
)

INTERNAL_MESSAGE = "internal error in the cloud reasoner"


class CloudError(Exception):
    """Base class of every error the cloud reasoner raises on purpose."""


class InvalidRequestError(CloudError, InvalidArgumentError):
    """The request is malformed: empty or oversized query, wrong stream order."""


class RateLimitedError(CloudError, ResourceExhaustedError):
    """The device sent more requests than its rate allows."""


class InjectionRefusedError(CloudError, FailedPreconditionError):
    """The query was refused by prompt-injection screening."""


class StreamClosedError(CloudError, FailedPreconditionError):
    """The device half-closed Converse while an action of its waited for an observation."""


class BackendUnavailableError(CloudError, UnavailableError):
    """No reasoning backend can serve: every one's circuit breaker is open."""


class ReasonerDeadlineError(CloudError, DeadlineExceededError):
    """The session ran past its deadline before it finished."""


class ForecastError(CloudError, RuntimeError):
    """The forecast service could not give a forecast (its reason in the message)."""


class EvalFileError(CloudError, ValueError):
    """The eval file cannot be read or a line is not in the expected format."""


__all__ = [
    "INTERNAL_MESSAGE",
    "BackendRequestError",
    "BackendUnavailableError",
    "BudgetExhaustedError",
    "CloudError",
    "EvalFileError",
    "ForecastError",
    "InjectionRefusedError",
    "InvalidRequestError",
    "PermissionDeniedError",
    "RateLimitedError",
    "ReasonerDeadlineError",
    "RetryAfterPendingError",
    "StreamClosedError",
    "UnauthenticatedError",
]


class BackendRequestError(CloudError):
    """The endpoint failed (HTTP error, timeout, unusable reply) within the budget."""


class BudgetExhaustedError(BackendRequestError):
    """No time left in the session for a call: not the endpoint's fault (no breaker count)."""

    counts_against_backend = False


class RetryAfterPendingError(BackendRequestError):
    """The server asked (Retry-After) not to be called before an instant past the budget;
    the 429 that said so already counted against the breaker."""

    counts_against_backend = False
