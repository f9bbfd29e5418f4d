"""The server side's memory: one MemoryStore per user, in a folder of SQLite files."""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Any

from sync.errors import PermissionDeniedError
from sync.store import MemoryStore
from sync.views import Embedder

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def user_filename(user_id: str) -> str:
    """A file name for a user's store that no user id can steer outside the folder."""
    digest = hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:16]
    return f"{_SAFE.sub('_', user_id)[:48]}-{digest}.db"


class UserStores:
    """Opens (and caches) ``<root>/<user>-<hash>.db`` for each user; a context manager.

    Args:
        root: the folder.
        node_id: the server's node id in every user's document.
        embedder, store_options: passed to each MemoryStore.
    """

    def __init__(
        self,
        root: str | Path,
        *,
        node_id: str = "cloud",
        embedder: Embedder | None = None,
        **store_options: Any,
    ) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._node_id = node_id
        self._embedder = embedder
        self._options = store_options
        self._stores: dict[str, MemoryStore] = {}
        self._lock = threading.Lock()

    def __call__(self, user_id: str) -> MemoryStore:
        """The user's store (the ``store_for_user`` callable of the servicer)."""
        if not user_id or len(user_id) > 256:
            raise PermissionDeniedError("a user id is required")
        with self._lock:
            store = self._stores.get(user_id)
            if store is None:
                store = MemoryStore(
                    self.root / user_filename(user_id),
                    node_id=self._node_id,
                    embedder=self._embedder,
                    **self._options,
                )
                self._stores[user_id] = store
            return store

    def close(self) -> None:
        """Close every open store."""
        with self._lock:
            for store in self._stores.values():
                store.close()
            self._stores.clear()

    def __enter__(self) -> UserStores:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
