"""The error kinds a server reports, one per gRPC status code it uses.

Each package's own errors derive from one of these kinds as well as from the package's
base class (``CloudError``, ``MemoryStoreError``), so :mod:`edgeloop.transport.status`
maps every package's errors with one table. Authentication errors are shared outright:
the cloud and the memory sync check the same tokens::

    StatusError
    ├── InvalidArgumentError     INVALID_ARGUMENT
    ├── NotFoundError            NOT_FOUND
    ├── AuthError
    │   ├── UnauthenticatedError UNAUTHENTICATED   (no or unknown bearer token)
    │   └── PermissionDeniedError PERMISSION_DENIED (another user's memory or session)
    ├── ResourceExhaustedError   RESOURCE_EXHAUSTED (with a retry-after-ms trailer)
    ├── FailedPreconditionError  FAILED_PRECONDITION
    ├── AbortedError             ABORTED
    ├── UnavailableError         UNAVAILABLE
    └── DeadlineExceededError    DEADLINE_EXCEEDED

This module does not import grpc: the device's offline paths raise these errors too.
"""

from __future__ import annotations


class StatusError(Exception):
    """An error a server reports to its caller with a specific status code."""


class InvalidArgumentError(StatusError):
    """The request is malformed."""


class NotFoundError(StatusError):
    """What the request names does not exist."""


class AuthError(StatusError):
    """Base class of authentication and authorisation failures."""


class UnauthenticatedError(AuthError):
    """No bearer token, or a token that no device owns."""


class PermissionDeniedError(AuthError):
    """The caller is authenticated but may not touch that user's data or session."""


class ResourceExhaustedError(StatusError):
    """The caller is over a limit; ``retry_after_s`` says when to try again."""

    def __init__(self, message: str, retry_after_s: float) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class FailedPreconditionError(StatusError):
    """The request is well-formed but cannot be served in the current state."""


class AbortedError(StatusError):
    """The operation gave up part-way (e.g. a sync that did not converge); retry it."""


class UnavailableError(StatusError):
    """The server cannot serve right now."""


class DeadlineExceededError(StatusError):
    """The operation ran past its deadline."""


class ExposureError(ValueError):
    """A server would listen beyond loopback without the protection it needs."""
