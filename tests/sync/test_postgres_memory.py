"""The PostgreSQL memory backend on its own: recall kept in step, bad updates refused
without a trace, documents evicted and reloaded within the cache budget, health while
the database is unreachable, and the cloud's --memory-url."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
import psycopg
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer
from sync import MemoryStore
from sync.cache import CacheBudget
from sync.client import sync_with
from sync.errors import InvalidUpdateError, MemoryUnavailableError
from sync.pgmemory import PostgresMemory


def _push(memory: PostgresMemory, user: str, device: MemoryStore) -> None:
    """One device -> server round of the exchange, in process."""
    handle = memory.memory(user)
    handle.apply_update(device.diff(handle.state_vector()))
    device.apply_update(handle.diff(device.state_vector()))


def _head(url: str, user: str) -> int:
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT head FROM edgeloop_users WHERE user_id = %s", [user]).fetchone()
    return 0 if row is None else int(row[0])


def test_recall_is_full_text_search_kept_in_step_with_the_log(pg_url: str) -> None:
    device = MemoryStore(":memory:", node_id="phone")
    with PostgresMemory(pg_url) as memory:
        note = device.add_note("The dentist is on Friday at 9")
        device.add_note("Buy oat milk")
        odd = device.add_note("a NUL\x00inside")  # SQLite keeps it; PostgreSQL text cannot
        device.record_session("s1", query="capital of France?", final_answer="Paris")
        _push(memory, "alice", device)
        hits = memory.search("alice", "dentist friday")
        assert [(h.kind, h.record_id) for h in hits] == [("note", note)]
        assert [h.kind for h in memory.search("alice", "capital france")] == ["answer"]
        assert memory.search("bob", "dentist") == []  # another user's memory
        assert [h.record_id for h in memory.search("alice", "inside")] == [odd]
        device.update_note(note, "The dentist moved to Monday")
        _push(memory, "alice", device)
        assert memory.search("alice", "friday") == []
        assert [h.text for h in memory.search("alice", "monday")] == ["The dentist moved to Monday"]
        device.delete_note(note)
        _push(memory, "alice", device)
        assert memory.search("alice", "dentist") == []
        # Any replica reads the same index: it lives in the database.
        with PostgresMemory(pg_url) as other:
            assert [h.text for h in other.memory("alice").search("oat milk")] == ["Buy oat milk"]
    device.close()


def test_a_bad_update_is_refused_and_leaves_nothing_behind(pg_url: str) -> None:
    device = MemoryStore(":memory:", node_id="phone")
    device.add_note("kept")
    with PostgresMemory(pg_url) as memory:
        _push(memory, "alice", device)
        head, before = _head(pg_url, "alice"), memory.memory("alice").document_json()
        bad = MemoryStore(":memory:", node_id="evil")
        bad.doc.maps["notes"]["nokey"] = "not a record"  # a key without a node
        with pytest.raises(InvalidUpdateError):
            memory.memory("alice").apply_update(bad.diff(b"\x00"))
        with pytest.raises(InvalidUpdateError):
            memory.memory("alice").apply_update(b"\x01\x02 garbage")
        assert _head(pg_url, "alice") == head
        assert memory.memory("alice").document_json() == before
        bad.close()
    device.close()


def test_documents_stay_within_the_budget_and_reload_on_demand(pg_url: str) -> None:
    budget = CacheBudget(max_entries=3, max_mb=64, idle_s=3600)
    devices = {f"user{i}": MemoryStore(":memory:", node_id="phone") for i in range(10)}
    with PostgresMemory(pg_url, budget=budget) as memory:
        for user, device in devices.items():
            device.add_note(f"a note of {user} " + "x" * 2000)
            _push(memory, user, device)
            assert len(memory.cache) <= 3
        assert memory.cache.evictions >= 7
        loads = memory.cache.loads
        for user, device in devices.items():  # evicted users reload from the database
            assert memory.memory(user).document_json() == device.document_json()
        assert memory.cache.loads > loads
        assert len(memory.cache) <= 3
    small = CacheBudget(max_entries=100, max_mb=0.001, idle_s=3600)  # about 1 KB
    with PostgresMemory(pg_url, budget=small) as memory:
        for user in devices:
            memory.memory(user).state_vector()
        # Each document alone is over the byte budget: unloaded as soon as it is released.
        assert len(memory.cache) == 0
        assert memory.cache.evictions == len(devices)
    for device in devices.values():
        device.close()


def test_idle_documents_are_evicted(pg_url: str) -> None:
    with PostgresMemory(pg_url, budget=CacheBudget(idle_s=0.05)) as memory:
        memory.memory("alice").state_vector()
        assert len(memory.cache) == 1
        time.sleep(0.1)
        assert memory.evict_idle() == 1
        assert len(memory.cache) == 0


def test_unreachable_database_is_one_clear_error() -> None:
    with pytest.raises(MemoryUnavailableError, match="cannot reach PostgreSQL"):
        PostgresMemory("postgresql://nobody:secret@127.0.0.1:1/none", connect_timeout_s=1).open()


def _health(port: int, service: str = "") -> Any:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status


def test_cloud_on_postgres_syncs_and_is_not_serving_while_the_database_is_away(
    pg_url: str, pg_cluster: Any
) -> None:
    from edgeloop.transport.loop import EventLoopThread

    database = pg_url.rsplit("/", 1)[1]
    loop = EventLoopThread()
    cloud = CloudServer(CloudConfig(port=0, memory_url=pg_url))
    cloud.memory_check_s = 0.1
    port = loop.run(cloud.start())
    admin = psycopg.connect(pg_cluster.url(), autocommit=True)
    try:
        device = MemoryStore(":memory:", node_id="phone")
        device.add_note("synced through the cloud")
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            sync_with(channel, device)
        with PostgresMemory(pg_url) as memory:
            assert memory.memory("local").document_json() == device.document_json()
        serving = health_pb2.HealthCheckResponse.SERVING
        assert _health(port) == serving
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS false')
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
            [database],
        )
        sync_service = "edgeloop.v1.MemorySyncService"
        deadline = time.monotonic() + 20
        while _health(port, sync_service) == serving and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _health(port, sync_service) == health_pb2.HealthCheckResponse.NOT_SERVING
        assert _health(port) == health_pb2.HealthCheckResponse.NOT_SERVING
        assert _health(port, "edgeloop.v1.CloudReasonerService") == serving
        device.add_note("while the database is away")
        with (
            grpc.insecure_channel(f"127.0.0.1:{port}") as channel,
            pytest.raises(grpc.RpcError) as refused,
        ):
            sync_with(channel, device, timeout=20)
        assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        deadline = time.monotonic() + 20
        while _health(port, sync_service) != serving and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _health(port) == serving
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            sync_with(channel, device)
        with PostgresMemory(pg_url) as memory:
            assert memory.memory("local").document_json() == device.document_json()
        device.close()
    finally:
        admin.execute(f'ALTER DATABASE "{database}" ALLOW_CONNECTIONS true')
        admin.close()
        loop.run(cloud.stop(0))
        loop.close()


def test_config_refuses_both_memories_and_a_bad_url() -> None:
    with pytest.raises(ValueError, match="not both"):
        CloudConfig(memory_dir="x", memory_url="postgresql://h/db")
    with pytest.raises(ValueError, match="postgresql://"):
        CloudConfig(memory_url="mysql://h/db")
    with pytest.raises(ValueError, match="budget"):
        CloudConfig(memory_cache_users=0)


def test_cloud_start_fails_with_one_line_when_the_database_is_down() -> None:
    cloud = CloudServer(CloudConfig(port=0, memory_url="postgresql://u@127.0.0.1:1/none"))
    with pytest.raises(OSError, match=r"cannot reach PostgreSQL at postgresql://u@127\.0\.0\.1:1/"):
        asyncio.run(cloud.start())


def test_history_a_device_retires_stays_recallable_in_the_cloud(pg_url: str) -> None:
    device = MemoryStore(":memory:", node_id="phone")
    device.record_session(
        "old", query="capital of Peru?", final_answer="Lima", created_at="2020-01-01T00:00:00Z"
    )
    with PostgresMemory(pg_url) as memory:
        _push(memory, "alice", device)
        with psycopg.connect(pg_url) as conn:
            rows = conn.execute("SELECT record_id FROM edgeloop_recall").fetchall()
        assert rows == [("old",)]
        device.retire(history_days=30)  # the session leaves the synced document
        _push(memory, "alice", device)
        assert "old|phone" not in memory.memory("alice").document_json()["sessions"]
        with psycopg.connect(pg_url) as conn:  # the cloud's archive keeps it
            rows = conn.execute("SELECT record_id FROM edgeloop_recall").fetchall()
        assert rows == [("old",)]
    device.close()
