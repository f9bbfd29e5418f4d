"""The one place where errors become gRPC status codes.

Every servicer ends a failed call with :func:`abort_with`. Errors of the transport's
kinds (:mod:`edgeloop.transport.errors`) map by kind; a ``TimeoutError`` is
DEADLINE_EXCEEDED; a servicer may pass ``extra`` rows for errors of a transport-free
layer (the kernel's). Anything else is a bug in the server: INTERNAL with a generic
message (the details go to the log, not to the caller).

Example:
    >>> from edgeloop.transport.errors import InvalidArgumentError
    >>> status_for(InvalidArgumentError("query must not be empty")).code
    <StatusCode.INVALID_ARGUMENT: (3, 'invalid argument')>
    >>> status_for(RuntimeError("secret")).message
    'internal error'
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from edgeloop.transport.errors import (
    AbortedError,
    DeadlineExceededError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
)
from edgeloop.transport.metadata import retry_after_trailer

log = logging.getLogger(__name__)

StatusRows = Sequence[tuple[type[BaseException], grpc.StatusCode]]

STATUS_TABLE: StatusRows = (
    (InvalidArgumentError, grpc.StatusCode.INVALID_ARGUMENT),
    (NotFoundError, grpc.StatusCode.NOT_FOUND),
    (UnauthenticatedError, grpc.StatusCode.UNAUTHENTICATED),
    (PermissionDeniedError, grpc.StatusCode.PERMISSION_DENIED),
    (ResourceExhaustedError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (FailedPreconditionError, grpc.StatusCode.FAILED_PRECONDITION),
    (AbortedError, grpc.StatusCode.ABORTED),
    (UnavailableError, grpc.StatusCode.UNAVAILABLE),
    (DeadlineExceededError, grpc.StatusCode.DEADLINE_EXCEEDED),
)
INTERNAL_MESSAGE = "internal error"
TIMEOUT_MESSAGE = "the call ran out of time"


@dataclass(frozen=True)
class StatusMapping:
    """How one error is reported: status code, caller-facing message, trailing metadata."""

    code: grpc.StatusCode
    message: str
    trailers: tuple[tuple[str, str], ...] = ()


def status_for(
    error: BaseException, *, extra: StatusRows = (), internal_message: str = INTERNAL_MESSAGE
) -> StatusMapping:
    """Map an exception to the status a caller sees (``extra`` rows are checked first)."""
    for kind, code in (*extra, *STATUS_TABLE):
        if isinstance(error, kind):
            trailers: tuple[tuple[str, str], ...] = ()
            if isinstance(error, ResourceExhaustedError):
                trailers = (retry_after_trailer(error.retry_after_s),)
            message = str(error) or (type(error).__doc__ or "").strip() or code.name
            return StatusMapping(code, message, trailers)
    if isinstance(error, TimeoutError):
        return StatusMapping(grpc.StatusCode.DEADLINE_EXCEEDED, TIMEOUT_MESSAGE)
    return StatusMapping(grpc.StatusCode.INTERNAL, internal_message)


async def abort_with(
    context: grpc.aio.ServicerContext[Any, Any],
    error: BaseException,
    *,
    extra: StatusRows = (),
    internal_message: str = INTERNAL_MESSAGE,
) -> None:
    """End the call with the status that ``error`` maps to; log it when it is a bug."""
    mapping = status_for(error, extra=extra, internal_message=internal_message)
    if mapping.code == grpc.StatusCode.INTERNAL:
        log.error("internal error", exc_info=error)
    if mapping.trailers:
        context.set_trailing_metadata(mapping.trailers)
    await context.abort(mapping.code, mapping.message)
