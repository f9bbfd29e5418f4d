"""Memory: SQLite store, CRDT document and the gRPC sync that merges offline edits.

Public names (each from the module that defines it)::

    MemoryStore, RecallHit                  the store and its search results
    MemoryDocument, KINDS                   the CRDT document and its record kinds
    HybridLogicalClock                      orders concurrent edits
    sync_stores, SyncStats                  merge two stores in-process
    UserStores                              one store per user (the server side)
    MemorySyncServicer, add_sync_service    the gRPC service
    sync_with, sync_with_async, SyncResult  the gRPC client
    MemoryStoreError and subclasses         the errors (see sync.errors)

Bearer tokens and principals are the transport's (``edgeloop.transport.auth``). The
stand-alone server (``sync.server``) is not imported here, and the gRPC client and service
are imported on first use, so that a device that only stores memory (``edge-agent ask``)
never loads grpc.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sync.document import KINDS, MemoryDocument
from sync.errors import (
    InvalidRecordError,
    InvalidUpdateError,
    MemoryStoreError,
    NotConvergedError,
    PermissionDeniedError,
    ProtocolError,
    RecordNotFoundError,
    UnauthenticatedError,
)
from sync.exchange import SyncStats, sync_stores
from sync.hlc import HybridLogicalClock
from sync.recall import RecallHit
from sync.store import MemoryStore
from sync.userstores import UserStores

if TYPE_CHECKING:
    from sync.client import SyncResult, sync_with, sync_with_async
    from sync.service import MemorySyncServicer, add_sync_service

_LAZY = {
    "SyncResult": "sync.client",
    "sync_with": "sync.client",
    "sync_with_async": "sync.client",
    "MemorySyncServicer": "sync.service",
    "add_sync_service": "sync.service",
}


def __getattr__(name: str) -> Any:
    """Import the gRPC side of the package when one of its names is first used."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'sync' has no attribute {name!r}")


__all__ = [
    "KINDS",
    "HybridLogicalClock",
    "InvalidRecordError",
    "InvalidUpdateError",
    "MemoryDocument",
    "MemoryStore",
    "MemoryStoreError",
    "MemorySyncServicer",
    "NotConvergedError",
    "PermissionDeniedError",
    "ProtocolError",
    "RecallHit",
    "RecordNotFoundError",
    "SyncResult",
    "SyncStats",
    "UnauthenticatedError",
    "UserStores",
    "add_sync_service",
    "sync_stores",
    "sync_with",
    "sync_with_async",
]
