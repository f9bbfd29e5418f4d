"""The sync package's exceptions.

Every error raised on purpose by ``sync`` derives from :class:`MemoryStoreError`, except
the authentication pair, which is the transport's (the cloud checks the same tokens)::

    MemoryStoreError
    ├── InvalidRecordError        bad input for a record (also a ValueError)
    ├── RecordNotFoundError       no record with that id (also a KeyError)
    ├── InvalidUpdateError        a malformed, truncated or inconsistent CRDT update
    ├── MemoryUnavailableError    the memory database (PostgreSQL) cannot be reached
    ├── ProtocolError             a peer broke the sync exchange's message order
    └── NotConvergedError         the replicas still differ after the maximum of rounds

    edgeloop.transport.errors.AuthError
    ├── UnauthenticatedError      no token, or an unknown one
    └── PermissionDeniedError     the device may not sync that user's memory

Each is also one of the transport's status kinds, so the servicer maps it with the one
table (``edgeloop.transport.status``): INVALID_ARGUMENT for bad input and protocol
errors, ABORTED for no convergence, UNAVAILABLE while the memory database is away,
UNAUTHENTICATED / PERMISSION_DENIED for auth.
"""

from __future__ import annotations

from edgeloop.transport.errors import (
    AbortedError,
    AuthError,
    InvalidArgumentError,
    PermissionDeniedError,
    ResourceExhaustedError,
    UnauthenticatedError,
    UnavailableError,
)


class MemoryStoreError(Exception):
    """Base class of the sync package's errors."""


class InvalidRecordError(MemoryStoreError, InvalidArgumentError, ValueError):
    """Bad input for a record; nothing was stored."""


class RecordNotFoundError(MemoryStoreError, KeyError):
    """No record with that id."""


class InvalidUpdateError(MemoryStoreError, InvalidArgumentError, ValueError):
    """A malformed, truncated or inconsistent CRDT update; the store is unchanged.

    ``record`` names the entry that made it fail, when one did: ``(kind, record id, node
    id)``, so that the peer that wrote it can repair or drop it (docs/sync-protocol.md).
    """

    def __init__(self, message: str, *, record: tuple[str, str, str] | None = None) -> None:
        super().__init__(message)
        self.record = record


class ProtocolError(MemoryStoreError, InvalidArgumentError):
    """A peer broke the sync exchange's message order."""


class NotConvergedError(MemoryStoreError, AbortedError):
    """The replicas still differ after the maximum number of rounds."""


class MemoryUnavailableError(MemoryStoreError, UnavailableError):
    """The memory database cannot be reached (PostgreSQL down); nothing was stored."""


__all__ = [
    "AuthError",
    "InvalidRecordError",
    "InvalidUpdateError",
    "MemoryStoreError",
    "MemoryUnavailableError",
    "NotConvergedError",
    "PermissionDeniedError",
    "ProtocolError",
    "RecordNotFoundError",
    "SyncBusyError",
    "UnauthenticatedError",
]


class SyncBusyError(MemoryStoreError, ResourceExhaustedError):
    """The server holds as many buffered updates as it may: come back later."""
