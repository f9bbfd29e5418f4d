"""The transport-free sync exchange: state vectors in, state-vector diffs out.

Both the gRPC service and the in-process :func:`sync_stores` use these functions, so the
property tests exercise exactly what goes over the wire. Only ever a diff computed from
the peer's state vector is shipped (``get_update(state)``), never a stored raw update:
pycrdt diverges when one client's updates arrive out of order (y-crdt issues 413, 582).

Updates larger than a gRPC message are split into :class:`UpdateChunk` messages, each
carrying the sha256 of the whole update, and reassembled by :class:`UpdateAssembler`,
which rejects gaps, mixed updates and digests that do not match.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from edgeloop.v1 import agent_pb2 as pb
from sync.budget import ByteBudget, SyncBusyError
from sync.document import decode_state_vector
from sync.errors import InvalidUpdateError, NotConvergedError

if TYPE_CHECKING:
    from sync.store import MemoryStore

CHUNK_BYTES = 1024 * 1024
"""Bytes of update per chunk: well under the 4 MiB message limit."""
MAX_UPDATE_BYTES = 1024 * 1024 * 1024
MAX_ROUNDS = 8
REJECTED_RECORD_KEY = "x-rejected-record"
"""Trailer of an INVALID_ARGUMENT status caused by one record: ``<kind>/<record id>|<node
id>`` (the kind's map and the entry's key), so that the writer can repair or drop it."""


def same_state(a: bytes, b: bytes) -> bool:
    """True when two encoded state vectors describe the same state (order-free)."""
    return a == b or decode_state_vector(a) == decode_state_vector(b)


def chunk_update(update: bytes, chunk_bytes: int = CHUNK_BYTES) -> list[pb.UpdateChunk]:
    """Split an update into chunks that share an id and the whole update's sha256."""
    update_id = uuid.uuid4().hex
    digest = hashlib.sha256(update).hexdigest()
    pieces = [update[i : i + chunk_bytes] for i in range(0, len(update), chunk_bytes)] or [b""]
    return [
        pb.UpdateChunk(update_id=update_id, index=i, total=len(pieces), data=p, sha256=digest)
        for i, p in enumerate(pieces)
    ]


class UpdateAssembler:
    """Collects the chunks of one update; :meth:`add` returns the update once complete.

    With a budget, each chunk is charged ``hold_factor`` times its size (the chunk, the
    joined update, the decode: ``sync.budget``), and the charge is kept after the update
    is returned, while it is applied, until :meth:`release`.

    Raises:
        InvalidUpdateError: out-of-order or foreign chunk, too large, or digest mismatch.
        SyncBusyError: the budget cannot take the next chunk (RESOURCE_EXHAUSTED).
    """

    def __init__(
        self,
        max_bytes: int = MAX_UPDATE_BYTES,
        *,
        max_chunks: int | None = None,
        budget: ByteBudget | None = None,
        hold_factor: int = 1,
        limit_name: str = "",
    ) -> None:
        self._max = max_bytes
        self._max_chunks = max_chunks
        self._budget = budget
        self._factor = max(1, hold_factor)
        self._limit = f" ({limit_name})" if limit_name else ""
        self._parts: list[bytes] = []
        self._first: pb.UpdateChunk | None = None
        self._size = 0
        self.held = 0
        """Bytes charged to the budget and not given back yet."""
        self.peak = 0
        """The most this assembler ever held charged."""

    def release(self) -> None:
        """Drop the chunks held so far and give every byte charged back to the budget."""
        if self._budget is not None and self.held:
            self._budget.give(self.held)
        self.held = 0
        self._first, self._parts, self._size = None, [], 0

    @property
    def received(self) -> int:
        """Chunks of the current update received so far."""
        return len(self._parts)

    @property
    def total(self) -> int:
        """Chunks the current update has (0 between updates)."""
        return self._first.total if self._first is not None else 0

    @property
    def in_progress(self) -> bool:
        """True between the first and the last chunk of an update."""
        return self._first is not None

    def _too_large(self, size: int) -> InvalidUpdateError:
        self.release()
        return InvalidUpdateError(
            f"an update of {size} bytes or more is over the limit of {self._max} bytes"
            f"{self._limit}: it is refused, not applied"
        )

    def add(self, chunk: pb.UpdateChunk) -> bytes | None:
        """Add the next chunk; the whole update when this was the last one."""
        first = self._first
        if first is None:
            if chunk.index != 0 or chunk.total < 1 or len(chunk.sha256) != 64:
                raise InvalidUpdateError("an update must start with chunk 0 of a valid total")
            if self._max_chunks is not None and chunk.total > self._max_chunks:
                raise InvalidUpdateError(
                    f"an update of {chunk.total} chunks is over the limit of {self._max} bytes"
                    f"{self._limit}"
                )
            self._first = first = chunk
        elif (
            chunk.update_id != first.update_id
            or chunk.total != first.total
            or chunk.sha256 != first.sha256
            or chunk.index != len(self._parts)
        ):
            raise InvalidUpdateError("chunk out of order or from another update")
        size = self._size + len(chunk.data)
        if size > self._max:
            raise self._too_large(size)
        charge = len(chunk.data) * self._factor
        if self._budget is not None:
            if not self._budget.take(charge):
                self.release()
                raise SyncBusyError(
                    "the server holds as many Sync bytes as it may; retry shortly", 1.0
                )
            self.held += charge
            self.peak = max(self.peak, self.held)
        self._size = size
        self._parts.append(chunk.data)
        if len(self._parts) < first.total:
            return None
        parts, self._parts, self._first, self._size = self._parts, [], None, 0
        update = b"".join(parts)
        del parts
        if hashlib.sha256(update).hexdigest() != first.sha256:
            del update  # the traceback keeps this frame: it must not keep the update too
            self.release()
            raise InvalidUpdateError("update digest mismatch (truncated or corrupted)")
        return update


@dataclass
class SyncStats:
    """What one exchange did."""

    rounds: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    changed: bool = False
    history: list[tuple[int, int]] = field(default_factory=list)


def sync_stores(a: MemoryStore, b: MemoryStore, max_rounds: int = MAX_ROUNDS) -> SyncStats:
    """Merge two stores both ways in-process, round after round, until their state
    vectors are equal (``a`` sends, ``b`` receives, in the stats)."""
    stats = SyncStats()
    for _ in range(max_rounds):
        state_a, state_b = a.state_vector(), b.state_vector()
        if same_state(state_a, state_b):
            return stats
        to_b = a.diff(state_b)
        to_a = b.diff(state_a)
        changed_b = b.apply_update(to_b)
        changed_a = a.apply_update(to_a)
        stats.rounds += 1
        stats.bytes_sent += len(to_b)
        stats.bytes_received += len(to_a)
        stats.changed = stats.changed or changed_a or changed_b
        stats.history.append((len(to_b), len(to_a)))
    if not same_state(a.state_vector(), b.state_vector()):
        raise NotConvergedError(f"no convergence after {max_rounds} rounds")
    return stats
