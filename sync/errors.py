"""The sync package's exceptions.

Every error raised on purpose by ``sync`` derives from :class:`MemoryStoreError`::

    MemoryStoreError
    ├── InvalidRecordError        bad input for a record (also a ValueError)
    ├── RecordNotFoundError       no record with that id (also a KeyError)
    ├── InvalidUpdateError        a malformed, truncated or inconsistent CRDT update
    └── SyncAuthError
        ├── UnauthenticatedError  no token, or an unknown one
        └── PermissionDeniedError the device may not sync that user's memory

The gRPC servicer maps them to status codes in one place (``sync.service.status_for``).
"""

from __future__ import annotations


class MemoryStoreError(Exception):
    """Base class of the sync package's errors."""


class InvalidRecordError(MemoryStoreError, ValueError):
    """Bad input for a record; nothing was stored."""


class RecordNotFoundError(MemoryStoreError, KeyError):
    """No record with that id."""


class InvalidUpdateError(MemoryStoreError, ValueError):
    """A malformed, truncated or inconsistent CRDT update; the store is unchanged."""


class SyncAuthError(MemoryStoreError):
    """Base class of authentication and authorisation failures."""


class UnauthenticatedError(SyncAuthError):
    """No token, or a token that no device owns."""


class PermissionDeniedError(SyncAuthError):
    """The device may not sync that user's memory."""
