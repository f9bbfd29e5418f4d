"""How much a server holds for Sync streams: one update's size, and all streams together.

A Sync stream buffers an update's chunks until the last one arrives. Without limits a
client could announce ``total = 10**9`` chunks and send them forever, and three such
streams took a server to 2 GB. :class:`SyncLimits` bounds each update (an announced
``total`` that could only carry more is refused at its first chunk) and every stream's
buffered chunks together (:class:`ByteBudget`: past it a stream is told to come back
later with RESOURCE_EXHAUSTED and a retry hint); a stream gives its bytes back as soon as
its update is complete or it fails.

Example:
    >>> budget = ByteBudget(10)
    >>> budget.take(8), budget.take(4), budget.held
    (True, False, 8)
    >>> budget.give(8); budget.held
    0
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sync.errors import SyncBusyError as SyncBusyError  # re-exported

# The transport's auth imports grpc, which a device that only stores memory never loads.
if TYPE_CHECKING:
    from edgeloop.transport.auth import PrincipalLike

MIB = 1024 * 1024
DEFAULT_MAX_UPDATE_BYTES = 256 * MIB
DEFAULT_BUDGET_BYTES = 512 * MIB
#: The smallest average chunk an announced total may imply: a total above
#: ``max_update_bytes // MIN_CHUNK_BYTES`` is refused at the first chunk.
MIN_CHUNK_BYTES = 1024


class ByteBudget:
    """Bytes that many holders share, taken and given back. Thread-safe."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.held = 0
        self.peak = 0
        self._lock = threading.Lock()

    def take(self, n: int) -> bool:
        """Take ``n`` bytes; False (nothing taken) when that would pass the maximum."""
        with self._lock:
            if self.held + n > self.max_bytes:
                return False
            self.held += n
            self.peak = max(self.peak, self.held)
            return True

    def give(self, n: int) -> None:
        """Give back ``n`` bytes taken earlier."""
        with self._lock:
            self.held = max(0, self.held - n)


Admit = Callable[["PrincipalLike", str], None]
"""``admit(principal, peer)`` before a Sync starts: raises to refuse it (a rate limit)."""


@dataclass
class SyncLimits:
    """A Sync server's limits (``cloud-agent serve --sync-update-mb / --sync-budget-mb``)."""

    max_update_bytes: int = DEFAULT_MAX_UPDATE_BYTES
    budget: ByteBudget = field(default_factory=lambda: ByteBudget(DEFAULT_BUDGET_BYTES))
    admit: Admit | None = None

    @property
    def max_chunks(self) -> int:
        """The largest ``total`` an update may announce."""
        return max(1, self.max_update_bytes // MIN_CHUNK_BYTES)
