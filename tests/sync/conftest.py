"""Shared fixtures for the sync tests: fresh stores on disk."""

from __future__ import annotations

import contextlib
import hashlib
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sync import MemoryStore


@pytest.fixture
def embedder() -> Callable[[str], np.ndarray]:
    """A deterministic bag-of-words embedder: each word hashes to one of 64 buckets."""
    return hashing_embedder


def hashing_embedder(text: str) -> np.ndarray:
    vec = np.zeros(64, dtype=np.float32)
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=4).digest()
        vec[int.from_bytes(digest, "little") % 64] += 1.0
    return vec


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    s = MemoryStore(tmp_path / "memory.db", node_id="edge")
    yield s
    s.close()


@pytest.fixture
def make_store(tmp_path: Path) -> Iterator[Callable[..., MemoryStore]]:
    opened: list[MemoryStore] = []

    def make(name: str, **kwargs: Any) -> MemoryStore:
        kwargs.setdefault("node_id", name)
        s = MemoryStore(tmp_path / f"{name}.db", **kwargs)
        opened.append(s)
        return s

    yield make
    for s in opened:
        with contextlib.suppress(Exception):
            s.close()


# ---- PostgreSQL (tests/sync/test_postgres*.py) -------------------------------------


def _load_pg_cluster() -> Any:
    """scripts/pg_cluster.py, loaded by path (scripts/ is not a package)."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "scripts" / "pg_cluster.py"
    spec = importlib.util.spec_from_file_location("edgeloop_pg_cluster", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """A PostgreSQL server of its own on 127.0.0.1 for this test session (skipped, saying
    why, only where no PostgreSQL server is installed: .ci/run installs one)."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install -e .[dev])")
    module = _load_pg_cluster()
    try:
        cluster = module.TempCluster().start()
    except module.ClusterUnavailable as exc:
        pytest.skip(f"no PostgreSQL server: {exc}")
    yield cluster
    cluster.stop()


_databases = iter(range(1_000_000))


@pytest.fixture
def pg_url(pg_cluster: Any) -> str:
    """The URL of a fresh, empty database on the session's PostgreSQL server."""
    return str(pg_cluster.create_database(f"edgeloop_test_{next(_databases)}"))


class TokenAsPrincipal:
    """Test authorisation: the bearer token ``<user>:<device>`` names the caller."""

    def __call__(self, context: Any) -> Any:
        from edgeloop.transport.auth import Principal

        for key, value in context.invocation_metadata() or ():
            if key == "authorization":
                user, _, device = str(value).removeprefix("Bearer ").partition(":")
                return Principal(device, user)
        raise PermissionError("no token")


class SyncReplica:
    """One cloud replica in this process: a sync server on a free port over a
    PostgresMemory of its own (its own connections and document cache)."""

    def __init__(self, url: str, **options: Any) -> None:
        import grpc

        from edgeloop.transport.loop import EventLoopThread
        from edgeloop.transport.options import SERVER_OPTIONS
        from sync.pgmemory import PostgresMemory
        from sync.service import add_sync_service

        self.memory = PostgresMemory(url, **options).open()
        self._loop = EventLoopThread()

        async def start() -> tuple[Any, int]:
            server = grpc.aio.server(options=SERVER_OPTIONS)
            add_sync_service(server, self.memory.memory, TokenAsPrincipal())
            port = server.add_insecure_port("127.0.0.1:0")
            await server.start()
            return server, port

        self.server, self.port = self._loop.run(start())

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._loop.run(self.server.stop(None))
        self._loop.close()
        self.memory.close()


@pytest.fixture
def make_replicas(pg_url: str) -> Iterator[Callable[..., list[SyncReplica]]]:
    """``make_replicas(n, **PostgresMemory options)``: n replicas on one fresh database."""
    started: list[SyncReplica] = []

    def make(count: int, **options: Any) -> list[SyncReplica]:
        replicas = [SyncReplica(pg_url, **options) for _ in range(count)]
        started.extend(replicas)
        return replicas

    yield make
    for replica in started:
        with contextlib.suppress(Exception):
            replica.stop()
