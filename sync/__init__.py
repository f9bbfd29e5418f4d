"""Memory: SQLite store, CRDT document and the gRPC sync that merges offline edits.

Public names::

    MemoryStore                      the store (sync.store)
    RecallHit                        one search result (sync.recall)
    MemoryDocument, KINDS            the CRDT document (sync.document)
    HybridLogicalClock               the clock that orders concurrent edits (sync.hlc)
    sync_stores                      merge two stores in-process (sync.exchange)
    errors                           MemoryStoreError and its subclasses (sync.errors)
"""

from sync.document import KINDS, MemoryDocument
from sync.errors import (
    InvalidRecordError,
    InvalidUpdateError,
    MemoryStoreError,
    PermissionDeniedError,
    RecordNotFoundError,
    SyncAuthError,
    UnauthenticatedError,
)
from sync.hlc import HybridLogicalClock
from sync.recall import RecallHit
from sync.store import MemoryStore

__all__ = [
    "KINDS",
    "HybridLogicalClock",
    "InvalidRecordError",
    "InvalidUpdateError",
    "MemoryDocument",
    "MemoryStore",
    "MemoryStoreError",
    "PermissionDeniedError",
    "RecallHit",
    "RecordNotFoundError",
    "SyncAuthError",
    "UnauthenticatedError",
]
