"""Sync over real gRPC on 127.0.0.1: convergence, chunking, auth, bad updates, health."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from edgeloop.transport.auth import Principal
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from sync import MemoryStore
from sync.client import sync_with
from sync.exchange import chunk_update
from sync.server import SyncServerThread
from sync.service import SERVICE_NAME

TOKENS = {
    "tok-phone": Principal("phone", "alice"),
    "tok-laptop": Principal("laptop", "alice"),
    "tok-bob": Principal("bobphone", "bob"),
}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SyncServerThread]:
    with SyncServerThread(tmp_path / "server", tokens=TOKENS) as srv:
        yield srv


def test_two_devices_converge_through_the_server(
    server: SyncServerThread, make_store: Callable[..., MemoryStore]
) -> None:
    phone, laptop = make_store("phone"), make_store("laptop")
    with phone.batch():
        for i in range(30):
            phone.add_note(f"phone note {i}")
    laptop.add_pending("compare oslo and rome", "s1")
    laptop.set_device_state("light", "kitchen", {"state": "on"})
    with grpc.insecure_channel(server.target) as channel:
        first = sync_with(channel, phone, "tok-phone")
        assert first.rounds >= 1 and first.bytes_sent > 0
        sync_with(channel, laptop, "tok-laptop")
        sync_with(channel, phone, "tok-phone")
        again = sync_with(channel, laptop, "tok-laptop")
    assert again.rounds == 0
    cloud = server.stores("alice")
    assert phone.document_json() == laptop.document_json() == cloud.document_json()
    for kind in ("notes", "pending", "device_state"):
        assert phone.table_rows(kind) == laptop.table_rows(kind) == cloud.table_rows(kind)
    assert laptop.search("phone note 7")
    assert phone.pending()[0]["query"] == "compare oslo and rome"


def test_big_update_is_chunked(tmp_path: Path, make_store: Callable[..., MemoryStore]) -> None:
    phone = make_store("phone")
    with phone.batch():
        for i in range(200):
            phone.add_note(f"note {i} " + "x" * 200)
    with SyncServerThread(tmp_path / "srv", tokens=TOKENS) as srv:
        with grpc.insecure_channel(srv.target) as channel:
            result = sync_with(channel, phone, "tok-phone", chunk_bytes=4096)
        assert result.bytes_sent > 4096 * 5
        assert len(srv.stores("alice").notes()) == 200


@pytest.mark.parametrize(
    ("token", "user", "code"),
    [
        (None, "", grpc.StatusCode.UNAUTHENTICATED),
        ("wrong", "", grpc.StatusCode.UNAUTHENTICATED),
        ("tok-phone", "bob", grpc.StatusCode.PERMISSION_DENIED),
        ("tok-bob", "alice", grpc.StatusCode.PERMISSION_DENIED),
    ],
)
def test_auth(
    server: SyncServerThread,
    make_store: Callable[..., MemoryStore],
    token: str | None,
    user: str,
    code: grpc.StatusCode,
) -> None:
    store = make_store("phone")
    store.add_note("private")
    with grpc.insecure_channel(server.target) as channel, pytest.raises(grpc.RpcError) as err:
        sync_with(channel, store, token, user_id=user)
    assert err.value.code() == code
    assert server.stores("bob").notes() == []


def _raw_exchange(target: str, messages: list[pb.SyncRequest]) -> list[pb.SyncResponse]:
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.MemorySyncServiceStub(channel)
        call = stub.Sync(iter(messages), metadata=[("authorization", "Bearer tok-phone")])
        return list(call)


@pytest.mark.parametrize("damage", ["truncated", "garbage", "no-done-chunks"])
def test_malformed_update_is_invalid_argument_and_store_unchanged(
    server: SyncServerThread, make_store: Callable[..., MemoryStore], damage: str
) -> None:
    phone = make_store("phone")
    phone.add_note("first")
    with grpc.insecure_channel(server.target) as channel:
        sync_with(channel, phone, "tok-phone")
    cloud = server.stores("alice")
    before = (cloud.document_json(), cloud.table_rows("notes"), cloud.log_length())
    phone.add_note("second")
    update = phone.diff(cloud.state_vector())
    hello = pb.SyncRequest(hello=pb.SyncHello(device_id="phone", user_id="alice"))
    state = pb.SyncRequest(state_vector=pb.StateVector(vector=phone.state_vector()))
    if damage == "truncated":
        chunks = chunk_update(update, 64)
        chunks[-1].data = chunks[-1].data[:-5]
    elif damage == "garbage":
        chunks = chunk_update(b"\x07not a yjs update at all")
    else:
        chunks = chunk_update(update, 64)[:-1]
    messages = [hello, state, *[pb.SyncRequest(update=c) for c in chunks]]
    messages.append(pb.SyncRequest(done=pb.SyncDone(round=0)))
    with pytest.raises(grpc.RpcError) as err:
        _raw_exchange(server.target, messages)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (cloud.document_json(), cloud.table_rows("notes"), cloud.log_length()) == before


def test_hello_must_come_first(server: SyncServerThread) -> None:
    with pytest.raises(grpc.RpcError) as err:
        _raw_exchange(server.target, [pb.SyncRequest(done=pb.SyncDone())])
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_health_and_reflection(server: SyncServerThread) -> None:
    with grpc.insecure_channel(server.target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
            ProtoReflectionDescriptorDatabase,
        )

        services = ProtoReflectionDescriptorDatabase(channel).get_services()
        assert SERVICE_NAME in services


def test_open_mode_without_tokens(tmp_path: Path, make_store: Callable[..., MemoryStore]) -> None:
    store = make_store("hub")
    store.add_note("open mode")
    with SyncServerThread(tmp_path / "open") as srv:
        with grpc.insecure_channel(srv.target) as channel:
            sync_with(channel, store)
        assert srv.stores("local").notes()[0]["text"] == "open mode"


def test_async_client(server: SyncServerThread, make_store: Callable[..., MemoryStore]) -> None:
    import asyncio

    from sync.client import sync_with_async

    phone, laptop = make_store("phone"), make_store("laptop")
    phone.add_note("from the async client")

    async def run(store: MemoryStore, token: str) -> int:
        async with grpc.aio.insecure_channel(server.target) as channel:
            return (await sync_with_async(channel, store, token)).rounds

    assert asyncio.run(run(phone, "tok-phone")) >= 1
    asyncio.run(run(laptop, "tok-laptop"))
    assert laptop.notes()[0]["text"] == "from the async client"


@pytest.mark.parametrize("client", ["blocking", "asyncio"])
def test_big_updates_cross_both_ways_at_once(
    tmp_path: Path, make_store: Callable[..., MemoryStore], client: str
) -> None:
    """Both sides hold megabytes the other lacks, sent at the same time in many chunks."""
    import asyncio

    from sync.client import sync_with_async
    from sync.userstores import UserStores

    phone = make_store("phone")
    stores = UserStores(tmp_path / "srv")
    with phone.batch():
        for i in range(3000):
            phone.add_note(f"phone {i} " + "p" * 1000)
    with stores("alice").batch():
        for i in range(3000):
            stores("alice").add_note(f"cloud {i} " + "c" * 1000)
    with SyncServerThread(stores, tokens=TOKENS) as srv:
        if client == "blocking":
            with grpc.insecure_channel(srv.target) as channel:
                result = sync_with(channel, phone, "tok-phone", timeout=60)
            sent = result.bytes_sent
        else:

            async def run() -> int:
                async with grpc.aio.insecure_channel(srv.target) as channel:
                    result = await sync_with_async(channel, phone, "tok-phone", timeout=60)
                    return result.bytes_sent

            sent = asyncio.run(run())
        assert sent > 3_000_000
        assert phone.document_json() == srv.stores("alice").document_json()
    assert len(phone.notes()) == 6000
