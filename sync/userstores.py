"""The server side's memory: one MemoryStore per user, in a folder of SQLite files.

Open stores are kept in a :class:`sync.cache.BudgetCache` (a count and byte budget,
idle eviction): a server that has seen a million users keeps only the active ones open.
The sync servicer uses :meth:`UserStores.memory`, whose calls each lease the store for
their duration, so an eviction never closes a store in use.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sync.cache import BudgetCache, CacheBudget
from sync.errors import PermissionDeniedError
from sync.private import private_folder
from sync.recall import RecallHit
from sync.searchable import Embedder
from sync.store import MemoryStore

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def user_filename(user_id: str) -> str:
    """A file name for a user's store that no user id can steer outside the folder."""
    digest = hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:16]
    return f"{_SAFE.sub('_', user_id)[:48]}-{digest}.db"


def _check_user(user_id: str) -> str:
    if not user_id or len(user_id) > 256:
        raise PermissionDeniedError("a user id is required")
    return user_id


STORE_OVERHEAD_BYTES = 320 * 1024
"""An open store's RAM beyond its files: the SQLite connection, its schema and page
caches, the WAL index, the store's objects (measured: 450 KiB per open store of a few
records on a sync server, whose files hold about 180 KiB)."""


def _file_bytes(store: MemoryStore) -> int:
    """An open store's RAM as the cache's byte budget counts it: its database file and
    write-ahead log (SQLite's page cache and the document grow with them) plus a fixed
    overhead."""
    size = STORE_OVERHEAD_BYTES
    for path in (store.path, f"{store.path}-wal"):
        with contextlib.suppress(OSError):
            size += os.path.getsize(path)
    return size


class UserStores:
    """Opens (and caches, within a budget) ``<root>/<user>-<hash>.db`` for each user;
    a context manager.

    Args:
        root: the folder.
        node_id: the server's node id in every user's document.
        embedder, store_options: passed to each MemoryStore.
        budget: how many stores (and bytes) stay open at once.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        node_id: str = "cloud",
        embedder: Embedder | None = None,
        budget: CacheBudget | None = None,
        **store_options: Any,
    ) -> None:
        self.root = private_folder(root)  # every user's memory: 0700, files 0600
        self._node_id = node_id
        self._embedder = embedder
        self._options = store_options
        self.cache: BudgetCache[str, MemoryStore] = BudgetCache.from_budget(
            budget or CacheBudget(), close=MemoryStore.close
        )

    def _open(self, user_id: str) -> MemoryStore:
        return MemoryStore(
            self.root / user_filename(user_id),
            node_id=self._node_id,
            embedder=self._embedder,
            **self._options,
        )

    def __call__(self, user_id: str) -> MemoryStore:
        """The user's store, kept open until :meth:`close` (tools and tests; servers use
        :meth:`memory`, which the budget can evict between calls)."""
        _check_user(user_id)
        return self.cache.get(user_id, lambda: self._open(user_id), _file_bytes)

    @contextlib.contextmanager
    def lease(self, user_id: str) -> Iterator[MemoryStore]:
        """The user's store, open for the block (then subject to the budget)."""
        _check_user(user_id)
        with self.cache.lease(user_id, lambda: self._open(user_id), _file_bytes) as store:
            yield store

    def memory(self, user_id: str) -> LeasedUserStore:
        """The user's memory as the sync servicer uses it (each call leases the store)."""
        return LeasedUserStore(self, _check_user(user_id))

    def evict_idle(self) -> int:
        """Close the stores idle for longer than the budget allows; return how many."""
        return self.cache.evict_idle()

    def close(self) -> None:
        """Close every open store."""
        self.cache.close()

    def __enter__(self) -> UserStores:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LeasedUserStore:
    """One user's SQLite memory, opened from the cache for each call."""

    def __init__(self, stores: UserStores, user_id: str) -> None:
        self._stores = stores
        self.user_id = user_id

    def state_vector(self) -> bytes:
        """See :meth:`MemoryStore.state_vector`."""
        with self._stores.lease(self.user_id) as store:
            return store.state_vector()

    def diff(self, state_vector: bytes) -> bytes:
        """See :meth:`MemoryStore.diff`."""
        with self._stores.lease(self.user_id) as store:
            return store.diff(state_vector)

    def apply_update(self, update: bytes, *, writer: str | None = None) -> bool:
        """See :meth:`MemoryStore.apply_update`."""
        with self._stores.lease(self.user_id) as store:
            return store.apply_update(update, writer=writer)

    def document_json(self) -> dict[str, dict[str, str]]:
        """See :meth:`MemoryStore.document_json`."""
        with self._stores.lease(self.user_id) as store:
            return store.document_json()

    def search(self, query: str, limit: int = 5) -> list[RecallHit]:
        """See :meth:`MemoryStore.search`."""
        with self._stores.lease(self.user_id) as store:
            return store.search(query, limit)
