"""The MemorySyncService servicer (grpc.aio): a thin adapter over the sync exchange.

One ``Sync`` call, the client speaking first::

    client: hello(device_id, user_id)
    round r:  client: state_vector          server: state_vector
              (equal?)                      server: complete -> end
              client: update chunks, done   server: update chunks, done (and applies
              client: applies, next round           the client's meanwhile)

Each side only ever sends ``diff(peer's state vector)``; a client with nothing the server
lacks may leave its update out (``done`` alone). The full specification, for
implementers in other languages, is docs/sync-protocol.md. An update refused because of
one record names it (message and the ``x-rejected-record`` trailer), so that its writer
can repair or drop it. Errors map to status codes with
the transport's one table (``edgeloop.transport.status``; the kinds are listed in
``sync.errors``): a malformed or truncated update is INVALID_ARGUMENT and leaves the store
unchanged; no or an unknown token is UNAUTHENTICATED; another user's memory, another
device's id, or entries under another device's node id (``sync.node_claims``) is
PERMISSION_DENIED; no convergence is ABORTED.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol

import grpc

from edgeloop.transport.auth import Authorize, PrincipalLike, TokenAuth
from edgeloop.transport.errors import StatusError
from edgeloop.transport.services import service_full_name
from edgeloop.transport.status import abort_with
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from sync.budget import (
    HOLD_FACTOR,
    TRIM_AFTER_BYTES,
    SyncBusyError,
    SyncLimits,
    give_back_memory,
)
from sync.document import SEPARATOR
from sync.errors import (
    InvalidUpdateError,
    MemoryStoreError,
    NotConvergedError,
    PermissionDeniedError,
    ProtocolError,
    UnauthenticatedError,
)
from sync.exchange import (
    CHUNK_BYTES,
    MAX_ROUNDS,
    REJECTED_RECORD_KEY,
    UpdateAssembler,
    chunk_update,
    same_state,
)

SERVICE_NAME = service_full_name("MemorySyncService")
MAX_HELLO_ID = 256
"""The longest user or device id a hello may carry (a node id's limit), checked before
either is compared, quoted in an error or logged."""


class SyncableMemory(Protocol):
    """What the servicer syncs with: a MemoryStore, a ``UserStores.memory(user)`` handle
    or a ``PostgresMemory`` user's handle."""

    def state_vector(self) -> bytes: ...

    def diff(self, state_vector: bytes) -> bytes: ...

    def apply_update(self, update: bytes, *, writer: str | None = None) -> bool: ...


class MemorySyncServicer(pb_grpc.MemorySyncServiceServicer):
    """Serves ``Sync`` for every user's memory.

    Args:
        store_for_user: user id -> that user's memory (``sync.UserStores.memory``, a
            ``sync.pgmemory.PostgresMemory``, or anything returning a MemoryStore).
        authorize: ``authorize(context) -> Principal``; default: open localhost mode. Any
            exception it raises refuses the call as UNAUTHENTICATED (PermissionDeniedError:
            PERMISSION_DENIED).
        chunk_bytes: bytes per UpdateChunk (< 4 MiB).
        limits: an update's largest size, the bytes all streams may buffer together, and
            ``admit(principal, peer)`` (the cloud's rate limit) before each Sync.
    """

    def __init__(
        self,
        store_for_user: Callable[[str], SyncableMemory],
        authorize: Authorize | None = None,
        *,
        chunk_bytes: int = CHUNK_BYTES,
        max_rounds: int = MAX_ROUNDS,
        limits: SyncLimits | None = None,
    ) -> None:
        self.limits = limits or SyncLimits()
        self._store_for_user = store_for_user
        self._authorize: Authorize = authorize or TokenAuth().authorize
        self._check_writers = _names_devices(self._authorize)
        self._chunk_bytes = chunk_bytes
        self._max_rounds = max_rounds

    async def Sync(
        self,
        request_iterator: AsyncIterator[pb.SyncRequest],
        context: grpc.aio.ServicerContext[pb.SyncRequest, pb.SyncResponse],
    ) -> AsyncIterator[pb.SyncResponse]:
        try:
            principal = self._principal(context)
            if self.limits.admit is not None:
                self.limits.admit(principal, context.peer() or "")
            async for response in self._exchange(principal, request_iterator):
                yield response
        except (MemoryStoreError, StatusError, ValueError) as exc:
            record = getattr(exc, "record", None)
            if record is not None:
                kind, record_id, node = record
                context.set_trailing_metadata(
                    ((REJECTED_RECORD_KEY, f"{kind}/{record_id}{SEPARATOR}{node}"),)
                )
            await abort_with(context, exc)

    def _principal(self, context: Any) -> PrincipalLike:
        try:
            return self._authorize(context)
        except PermissionDeniedError:
            raise
        except Exception as exc:
            if isinstance(exc, grpc.aio.AbortError):
                raise
            raise UnauthenticatedError(str(exc) or "unauthenticated") from exc

    async def _exchange(
        self, principal: PrincipalLike, requests: AsyncIterator[pb.SyncRequest]
    ) -> AsyncIterator[pb.SyncResponse]:
        incoming = aiter(requests)
        first = await anext(incoming, None)
        if first is None or first.WhichOneof("event") != "hello":
            raise ProtocolError("the first message must be hello")
        hello = first.hello
        if len(hello.user_id) > MAX_HELLO_ID or len(hello.device_id) > MAX_HELLO_ID:
            raise ProtocolError(f"the hello's user and device ids are at most {MAX_HELLO_ID} chars")
        user = hello.user_id or principal.user_id
        if user != principal.user_id:
            raise PermissionDeniedError(
                f"device {principal.device_id!r} may not sync the memory of user {user!r}"
            )
        if hello.device_id and principal.device_id not in ("", hello.device_id, "local"):
            raise PermissionDeniedError("the hello's device id does not match the token")
        store = await asyncio.to_thread(self._store_for_user, user)
        # The device whose node ids the update's entries must be (sync.node_claims);
        # open mode has one caller for everything: nothing to tell apart.
        writer = principal.device_id if self._check_writers and principal.device_id else None
        received = sent = 0
        for round_no in range(self._max_rounds + 1):
            message = await anext(incoming, None)
            if message is None:
                return
            if message.WhichOneof("event") != "state_vector":
                raise ProtocolError("each round starts with the client's state vector")
            client_state = message.state_vector.vector
            server_state = await asyncio.to_thread(store.state_vector)
            yield pb.SyncResponse(state_vector=pb.StateVector(vector=server_state))
            if same_state(client_state, server_state):
                yield pb.SyncResponse(
                    complete=pb.SyncComplete(
                        rounds=round_no, bytes_received=received, bytes_sent=sent
                    )
                )
                return
            if round_no == self._max_rounds:
                raise NotConvergedError(f"no convergence after {self._max_rounds} rounds")
            # The diff the client lacks depends only on its state vector, so the server
            # sends it while it receives the client's update (a task of its own: a client
            # that writes its whole update before reading must not wait on us), then
            # applies the client's update while the client applies the server's: both
            # sides merge at the same time. (The sending is done before the merge starts:
            # a merge holds the GIL, and the event loop that streams the chunks would only
            # get it between the merge's bytecodes.) The next round starts after the apply
            # has finished (or failed, which aborts the call with INVALID_ARGUMENT and
            # leaves the store unchanged).
            assembler = self._assembler()
            receiving = asyncio.ensure_future(self._assemble(assembler, incoming, round_no))
            sending = 0
            diff = update = b""
            try:
                diff = await asyncio.to_thread(store.diff, client_state)
                sending = self._hold_diff(len(diff))
                sent += len(diff)
                for chunk in chunk_update(diff, self._chunk_bytes):
                    yield pb.SyncResponse(update=chunk)
                diff = b""
                yield pb.SyncResponse(done=pb.SyncDone(round=round_no))
                update = await receiving
                received += len(update)
                if update:
                    await asyncio.to_thread(self._apply, store, update, writer)
            finally:
                # An error's traceback keeps this frame: it must not keep the bytes too.
                diff = update = b""
                if not receiving.done():
                    receiving.cancel()
                self.limits.budget.give(sending)
                assembler.release()  # applied, refused or canceled: the bytes go at once
                self._trim(max(assembler.peak, sending))

    @staticmethod
    def _apply(store: SyncableMemory, update: bytes, writer: str | None) -> bool:
        """Apply the client's update as ``writer``'s (None: no node-id check)."""
        if writer is None:
            return store.apply_update(update)
        return store.apply_update(update, writer=writer)

    def _hold_diff(self, size: int) -> int:
        """Charge the diff being sent (it and its chunks: twice its size); the charge."""
        charge = 2 * size
        if not self.limits.budget.take(charge):
            raise SyncBusyError("the server holds as many Sync bytes as it may; retry shortly", 1.0)
        return charge

    def _assembler(self) -> UpdateAssembler:
        limits = self.limits
        # One stream holds one update at a time, charged HOLD_FACTOR times: an update
        # that could never fit the budget is refused by name, not told to retry.
        largest = min(limits.max_update_bytes, limits.budget.max_bytes // HOLD_FACTOR)
        return UpdateAssembler(
            largest,
            max_chunks=limits.max_chunks,
            budget=limits.budget,
            hold_factor=HOLD_FACTOR,
            limit_name="sync_update_mb, and sync_budget_mb / 8 per stream",
        )

    def _trim(self, held: int) -> None:
        """After a large round, hand the freed memory back (see ``give_back_memory``)."""
        if held >= TRIM_AFTER_BYTES:
            give_back_memory()

    @staticmethod
    async def _assemble(
        assembler: UpdateAssembler, incoming: AsyncIterator[pb.SyncRequest], round_no: int
    ) -> bytes:
        update: bytes | None = None
        while True:
            message = await anext(incoming, None)
            if message is None:
                raise ProtocolError("stream ended inside a round")
            kind = message.WhichOneof("event")
            if kind == "update":
                if update is not None:
                    raise ProtocolError("one update per round")
                update = assembler.add(message.update)
            elif kind == "done":
                if assembler.in_progress:
                    raise InvalidUpdateError(
                        "round ended inside an update: chunk "
                        f"{assembler.received} of {assembler.total} was the last to arrive"
                    )
                if message.done.round != round_no:
                    raise ProtocolError(
                        f"done for round {message.done.round} inside round {round_no}"
                    )
                return update or b""  # no update: the client had nothing the server lacks
            else:
                raise ProtocolError(f"unexpected {kind} inside a round")


def _names_devices(authorize: Authorize) -> bool:
    """False for open mode's ``TokenAuth`` (every caller is ``local``, and the device id
    is whatever the caller says); True for tokens and custom authorizers."""
    auth = getattr(authorize, "__self__", authorize)
    return not (isinstance(auth, TokenAuth) and auth.open_mode)


def add_sync_service(
    server: grpc.aio.Server,
    store_for_user: Callable[[str], SyncableMemory],
    authorize: Authorize | None = None,
    *,
    limits: SyncLimits | None = None,
) -> MemorySyncServicer:
    """Mount a MemorySyncServicer on a server (the cloud's, or a stand-alone one)."""
    servicer = MemorySyncServicer(store_for_user, authorize, limits=limits)
    pb_grpc.add_MemorySyncServiceServicer_to_server(servicer, server)
    return servicer
