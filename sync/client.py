"""The sync client: merge a local store with a sync server, both ways, until equal.

``sync_with`` (blocking, ``grpc.Channel``) and ``sync_with_async`` (``grpc.aio.Channel``)
speak the exchange described in ``sync.service``: send the local state vector, read the
server's; if they differ send ``diff(server state)`` in chunks, apply the server's diff,
and start another round; stop when the server says ``complete``.

Example:
    >>> with grpc.insecure_channel("127.0.0.1:50052") as channel:  # doctest: +SKIP
    ...     result = sync_with(channel, store, token="s3cret")
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
from grpc.aio import EOF  # type: ignore[attr-defined]

from edgeloop.transport.metadata import call_metadata, metadata_value
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from sync.document import SEPARATOR
from sync.errors import InvalidUpdateError, ProtocolError
from sync.exchange import (
    CHUNK_BYTES,
    REJECTED_RECORD_KEY,
    UpdateAssembler,
    chunk_update,
    same_state,
)
from sync.store import MemoryStore


def rejected_record(error: grpc.RpcError) -> tuple[str, str, str] | None:
    """The ``(kind, record id, node id)`` of the entry the server refused an update for
    (its ``x-rejected-record`` trailer), or None. Its writer repairs it (writes the record
    again, valid) or drops it (``store.forget``), then syncs again."""
    trailers = getattr(error, "trailing_metadata", None)
    value = metadata_value(trailers() if callable(trailers) else None, REJECTED_RECORD_KEY)
    if not value or "/" not in value:
        return None
    kind, _, key = value.partition("/")
    record_id, _, node = key.partition(SEPARATOR)
    return kind, record_id, node


@dataclass(frozen=True)
class SyncResult:
    """What one exchange did."""

    rounds: int
    bytes_sent: int
    bytes_received: int


class _Round:
    """The client's side of the exchange, fed one server message at a time."""

    def __init__(self, store: MemoryStore, send: Callable[[pb.SyncRequest], None], chunk: int):
        self.store, self.send, self.chunk = store, send, chunk
        self.round = 0
        self.sent = self.received = 0
        self.local_state = b""
        self.assembler = UpdateAssembler()
        self.update: bytes | None = None
        self.phase = "state"
        self.result: SyncResult | None = None

    def start(self) -> None:
        self.local_state = self.store.state_vector()
        self.send(pb.SyncRequest(state_vector=pb.StateVector(vector=self.local_state)))

    def on(self, message: pb.SyncResponse) -> bool:
        """Handle one message; True when the exchange is complete."""
        kind = message.WhichOneof("event")
        if self.phase == "state":
            if kind != "state_vector":
                raise ProtocolError(f"expected the server's state vector, got {kind}")
            server_state = message.state_vector.vector
            if same_state(self.local_state, server_state):
                self.phase = "complete"
                return False
            diff = self.store.diff(server_state)
            self.sent += len(diff)
            for chunk in chunk_update(diff, self.chunk):
                self.send(pb.SyncRequest(update=chunk))
            self.send(pb.SyncRequest(done=pb.SyncDone(round=self.round)))
            self.phase = "updates"
            self.update = None
            return False
        if self.phase == "complete":
            if kind != "complete":
                raise ProtocolError(f"expected complete, got {kind}")
            self.result = SyncResult(self.round, self.sent, self.received)
            return True
        if kind == "update":
            if self.update is not None:
                raise ProtocolError("one update per round")
            self.update = self.assembler.add(message.update)
            return False
        if kind == "done":
            if self.assembler.in_progress:
                raise InvalidUpdateError(
                    f"round ended inside an update: chunk {self.assembler.received} of "
                    f"{self.assembler.total} was the last to arrive"
                )
            if self.update:  # a peer with nothing we lack may leave its update out
                self.received += len(self.update)
                self.store.apply_update(self.update)
            self.round += 1
            self.phase = "state"
            self.start()
            return False
        raise ProtocolError(f"unexpected {kind} inside a round")


def sync_with(
    channel: grpc.Channel,
    store: MemoryStore,
    token: str | None = None,
    *,
    user_id: str = "",
    device_id: str | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    timeout: float | None = 120.0,
) -> SyncResult:
    """Merge ``store`` with the server behind ``channel`` (blocking).

    ``device_id`` is sent in the hello: None sends the store's node id; with a token, ""
    lets the token name the device (a hello naming another device than the token's is
    PERMISSION_DENIED).

    Raises:
        grpc.RpcError: the server refused (UNAUTHENTICATED, PERMISSION_DENIED,
            INVALID_ARGUMENT...) or could not be reached.
        InvalidUpdateError: the server sent a malformed update (the store is unchanged).
    """
    device = store.node_id if device_id is None else device_id
    outbox: queue.Queue[pb.SyncRequest | None] = queue.Queue()

    def requests() -> Iterator[pb.SyncRequest]:
        while True:
            item = outbox.get()
            if item is None:
                return
            yield item

    stub = pb_grpc.MemorySyncServiceStub(channel)
    outbox.put(pb.SyncRequest(hello=pb.SyncHello(device_id=device, user_id=user_id)))
    state = _Round(store, outbox.put, chunk_bytes)
    state.start()
    responses: Any = stub.Sync(
        requests(), metadata=call_metadata(token=token, device_id=device), timeout=timeout
    )
    try:
        for message in responses:
            if state.on(message):
                break
    finally:
        outbox.put(None)
        responses.cancel()
    if state.result is None:
        raise ProtocolError("the server ended the exchange before it was complete")
    result = state.result
    store.note_synced(result.rounds, result.bytes_sent, result.bytes_received)
    return result


async def sync_with_async(
    channel: grpc.aio.Channel,
    store: MemoryStore,
    token: str | None = None,
    *,
    user_id: str = "",
    device_id: str | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    timeout: float | None = 120.0,
) -> SyncResult:
    """Merge ``store`` with the server behind an asyncio channel (see :func:`sync_with`)."""
    device = store.node_id if device_id is None else device_id
    stub = pb_grpc.MemorySyncServiceStub(channel)
    metadata = call_metadata(token=token, device_id=device)
    call: Any = stub.Sync(metadata=metadata, timeout=timeout)
    pending: list[pb.SyncRequest] = []
    state = _Round(store, pending.append, chunk_bytes)
    await call.write(pb.SyncRequest(hello=pb.SyncHello(device_id=device, user_id=user_id)))
    state.start()
    try:
        while True:
            for message in pending:
                await call.write(message)
            pending.clear()
            response = await call.read()
            if response is EOF:
                raise ProtocolError("the server ended the exchange before it was complete")
            if state.on(response):
                break
        await call.done_writing()
    finally:
        call.cancel()
    assert state.result is not None
    result = state.result
    store.note_synced(result.rounds, result.bytes_sent, result.bytes_received)
    return result
