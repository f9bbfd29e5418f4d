"""A budgeted cache of per-user memory (open SQLite stores or loaded CRDT documents).

A server replica keeps each active user's memory in RAM; without a bound, every user
that ever synced stays resident (64 users took one server from 79 to 197 MB). This cache
holds at most ``max_entries`` entries and about ``max_bytes`` bytes, evicts the least
recently used first, also evicts entries idle for ``idle_s`` seconds, and reloads an
evicted user on demand.

Callers *lease* an entry for the length of one operation: a leased entry is never closed
under its user (it is evicted once released, if the budget still wants it gone), so the
budget may be exceeded only by entries in use at that moment.

Example:
    >>> closed = []
    >>> cache = BudgetCache(max_entries=1, max_bytes=1 << 20, idle_s=60, close=closed.append)
    >>> with cache.lease("alice", lambda: "alice's doc", lambda doc: 100) as doc:
    ...     doc
    "alice's doc"
    >>> with cache.lease("bob", lambda: "bob's doc", lambda doc: 100):
    ...     pass
    >>> closed
    ["alice's doc"]
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

DEFAULT_MAX_ENTRIES = 1_000
DEFAULT_MAX_MB = 256
DEFAULT_IDLE_S = 600.0


@dataclass(frozen=True)
class CacheBudget:
    """How much per-user memory one replica keeps loaded (the ``--memory-cache-*`` flags)."""

    max_entries: int = DEFAULT_MAX_ENTRIES
    """Users whose memory stays loaded at once."""
    max_mb: float = DEFAULT_MAX_MB
    """Megabytes of loaded memory (as each entry's size function counts it)."""
    idle_s: float = DEFAULT_IDLE_S
    """An entry unused this long is evicted even within the budget."""

    def __post_init__(self) -> None:
        if self.max_entries < 1:
            raise ValueError("the memory cache must hold at least one user")
        if self.max_mb <= 0:
            raise ValueError("the memory cache needs a positive byte budget")
        if self.idle_s <= 0:
            raise ValueError("the memory cache's idle time must be positive")

    @property
    def max_bytes(self) -> int:
        """The byte budget."""
        return int(self.max_mb * 1024 * 1024)


@dataclass
class _Entry(Generic[V]):
    value: V
    size: int
    used: float
    pins: int = 0
    held: bool = False  # handed out without a lease: never evicted (see BudgetCache.get)
    gone: bool = False  # evicted or discarded: close once the last lease ends
    lock: threading.RLock = field(default_factory=threading.RLock)


class BudgetCache(Generic[K, V]):
    """Least-recently-used entries within a count and byte budget, leased per operation.

    Args:
        max_entries, max_bytes, idle_s: the budget (see :class:`CacheBudget`).
        close: releases an evicted entry's resources (called without the cache's lock).
        clock: monotonic seconds, for tests.
    """

    def __init__(
        self,
        *,
        max_entries: int = DEFAULT_MAX_ENTRIES,
        max_bytes: int = DEFAULT_MAX_MB * 1024 * 1024,
        idle_s: float = DEFAULT_IDLE_S,
        close: Callable[[V], object] = lambda value: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.idle_s = idle_s
        self._close = close
        self._clock = clock
        self._entries: OrderedDict[K, _Entry[V]] = OrderedDict()
        self._loading: dict[K, threading.Event] = {}
        self._lock = threading.Lock()
        self._bytes = 0
        self.loads = 0
        """How many times an entry was loaded (a miss)."""
        self.evictions = 0
        """How many entries were evicted (budget or idle)."""

    @classmethod
    def from_budget(cls, budget: CacheBudget, close: Callable[[V], object]) -> BudgetCache[K, V]:
        """A cache with ``budget``'s limits."""
        return cls(
            max_entries=budget.max_entries,
            max_bytes=budget.max_bytes,
            idle_s=budget.idle_s,
            close=close,
        )

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    @property
    def bytes(self) -> int:
        """The summed sizes of the loaded entries."""
        with self._lock:
            return self._bytes

    def __contains__(self, key: K) -> bool:
        with self._lock:
            return key in self._entries

    @contextmanager
    def lease(self, key: K, load: Callable[[], V], size: Callable[[V], int]) -> Iterator[V]:
        """The entry of ``key`` (loaded on a miss), kept open until the block ends.

        Operations on one entry are serialised: the block holds the entry's own lock
        (re-entrant), so two threads never use one user's memory at once.
        """
        entry = self._acquire(key, load, size)
        try:
            with entry.lock:
                yield entry.value
        finally:
            self._release(key, entry, size)

    def get(self, key: K, load: Callable[[], V], size: Callable[[V], int]) -> V:
        """The entry of ``key`` without a lease: it stays loaded (outside the count
        and idle eviction) until :meth:`discard` or :meth:`close`. For tools and tests
        that hold a store for a while; servers lease."""
        entry = self._acquire(key, load, size)
        with self._lock:
            entry.held = True
            entry.pins -= 1
        return entry.value

    def resize(self, key: K, size: int) -> None:
        """Record a loaded entry's new size (after it grew); may evict others."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return
            self._bytes += size - entry.size
            entry.size = size
            victims = self._over_budget()
        self._close_all(victims)

    def discard(self, key: K) -> None:
        """Drop ``key``'s entry (its memory may be out of step): the next lease reloads it.
        A leased entry is closed when its last lease ends."""
        with self._lock:
            entry = self._entries.pop(key, None)
            if entry is None:
                return
            self._bytes -= entry.size
            entry.gone = True
            victims = [entry] if entry.pins == 0 else []
        self._close_all(victims)

    def evict_idle(self) -> int:
        """Evict every entry unused for ``idle_s`` seconds; return how many."""
        with self._lock:
            victims = self._idle()
        self._close_all(victims)
        return len(victims)

    def close(self) -> None:
        """Close every entry (call once no operation is running)."""
        with self._lock:
            victims = list(self._entries.values())
            self._entries.clear()
            self._bytes = 0
        for entry in victims:
            entry.gone = True
        self._close_all(victims)

    # ---- internals -----------------------------------------------------------------

    def _acquire(self, key: K, load: Callable[[], V], size: Callable[[V], int]) -> _Entry[V]:
        while True:
            with self._lock:
                entry = self._entries.get(key)
                if entry is not None:
                    entry.pins += 1
                    entry.used = self._clock()
                    self._entries.move_to_end(key)
                    return entry
                pending = self._loading.get(key)
                if pending is None:
                    pending = self._loading[key] = threading.Event()
                    break
            pending.wait()  # another thread is loading this key: use its result
        try:
            value = load()
            entry = _Entry(value, max(int(size(value)), 0), self._clock(), pins=1)
        except BaseException:
            with self._lock:
                del self._loading[key]
            pending.set()
            raise
        with self._lock:
            self._entries[key] = entry
            self._bytes += entry.size
            self.loads += 1
            del self._loading[key]
            victims = self._idle() + self._over_budget()
        pending.set()
        self._close_all(victims)
        return entry

    def _release(self, key: K, entry: _Entry[V], size: Callable[[V], int]) -> None:
        victims: list[_Entry[V]] = []
        with self._lock:
            entry.pins -= 1
            entry.used = self._clock()
            if entry.gone:
                if entry.pins == 0:
                    victims.append(entry)
            else:
                new_size = max(int(size(entry.value)), 0)
                self._bytes += new_size - entry.size
                entry.size = new_size
                victims = self._over_budget()
        self._close_all(victims)

    def _remove(self, key: K) -> _Entry[V]:
        entry = self._entries.pop(key)
        self._bytes -= entry.size
        entry.gone = True
        self.evictions += 1
        return entry

    def _idle(self) -> list[_Entry[V]]:
        """Under the lock: take out the idle, unused entries (oldest use first)."""
        cutoff = self._clock() - self.idle_s
        victims = []
        for key, entry in list(self._entries.items()):
            if entry.used > cutoff:
                break  # least recently used first: the rest were used later
            if entry.pins == 0 and not entry.held:
                victims.append(self._remove(key))
        return victims

    def _over_budget(self) -> list[_Entry[V]]:
        """Under the lock: take out least recently used, unused entries until within budget."""
        victims: list[_Entry[V]] = []
        if len(self._entries) <= self.max_entries and self._bytes <= self.max_bytes:
            return victims
        for key, entry in list(self._entries.items()):
            if len(self._entries) <= self.max_entries and self._bytes <= self.max_bytes:
                break
            if entry.pins == 0 and not entry.held:
                victims.append(self._remove(key))
        return victims

    def _close_all(self, victims: list[_Entry[V]]) -> None:
        for entry in victims:
            with entry.lock:
                self._close(entry.value)
