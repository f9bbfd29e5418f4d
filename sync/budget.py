"""How much a server holds for Sync streams: every byte of a stream, one stream, all of them.

A Sync stream's memory is not only the chunks it buffers: when the last chunk arrives they
are joined into one update, and applying the update decodes it into a document several
times its size (about six times, measured on a 24 MB update of notes). A budget that counts
only the chunks in flight and gives them back at the join let four streams of 256 MiB take
a server past a gigabyte. So each chunk is charged :data:`HOLD_FACTOR` times its size when
it arrives, covering its share of the joined update and of the decode, and the charge is
given back only once the update is applied (or refused, or the stream fails):

- :class:`SyncLimits.max_update_bytes` bounds one update (and so one stream: a stream holds
  one update at a time, at most ``HOLD_FACTOR`` times that many bytes); a larger update is
  refused by name (INVALID_ARGUMENT naming ``sync_update_mb``);
- :class:`ByteBudget` bounds every stream together: a chunk that does not fit is refused at
  once with RESOURCE_EXHAUSTED and a retry hint, and the stream's bytes go back at once;
- the diff a server sends back is charged while it is being sent;
- :func:`give_back_memory` returns freed memory to the system after a large stream (glibc
  keeps freed heap pages otherwise, and the RSS stayed high a minute later).

Example:
    >>> budget = ByteBudget(10)
    >>> budget.take(8), budget.take(4), budget.held
    (True, False, 8)
    >>> budget.give(8); budget.held
    0
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sync.errors import SyncBusyError as SyncBusyError  # re-exported

# The transport's auth imports grpc, which a device that only stores memory never loads.
if TYPE_CHECKING:
    from edgeloop.transport.auth import PrincipalLike

MIB = 1024 * 1024
HOLD_FACTOR = 8
"""Bytes a stream is charged per byte of update it receives: the chunk, its share of the
joined update, and of the decode when the update is applied (measured at about six)."""
DEFAULT_MAX_UPDATE_BYTES = 32 * MIB
DEFAULT_BUDGET_BYTES = 512 * MIB
TRIM_AFTER_BYTES = 4 * MIB
"""A stream that held at least this many bytes gives the freed memory back when it ends."""
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
    def max_stream_bytes(self) -> int:
        """The most one stream may hold: its update, joined and decoded."""
        return self.max_update_bytes * HOLD_FACTOR

    @property
    def max_chunks(self) -> int:
        """The largest ``total`` an update may announce."""
        return max(1, self.max_update_bytes // MIN_CHUNK_BYTES)


def _libc(function: str) -> Any:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return getattr(ctypes.CDLL(name), function)
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to tune
        return None


_TRIM = _libc("malloc_trim")
_MALLOPT = _libc("mallopt")
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
MMAP_THRESHOLD_BYTES = 256 * 1024
"""Allocations at least this large get pages of their own, returned on free."""
ARENA_MAX = 2


def bound_heap() -> bool:
    """Keep freed memory returnable (glibc ``mallopt``; False where there is none): every
    allocation of ``MMAP_THRESHOLD_BYTES`` or more gets pages of its own (glibc otherwise
    raises that threshold after the first large free, and later megabyte-sized messages
    land in the heap), and threads share ``ARENA_MAX`` heaps instead of one each (freed
    memory spread over many heaps stayed resident: 100 calls with 3 MB ids kept 100 MB).
    Call it early, before the server's threads start."""
    if _MALLOPT is None:
        return False
    _MALLOPT(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    _MALLOPT(M_ARENA_MAX, ARENA_MAX)
    return True


def give_back_memory() -> bool:
    """Return freed heap pages to the system (glibc ``malloc_trim``); False where there is
    no such call. Freed memory otherwise stays in the process, so a server that took
    hundreds of megabytes for a minute of Sync keeps them for good."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
