"""SIGKILL in the middle of writing and in the middle of a sync: every acknowledged
write survives, the document matches the tables, and the next sync converges."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from edgeloop.transport.auth import Principal
from sync import MemoryStore
from sync.client import sync_with
from sync.server import SyncServerThread

TOKENS = {"tok-a": Principal("dev-a", "alice"), "tok-b": Principal("dev-b", "alice")}

HELPER = str(Path(__file__).with_name("crash_helper.py"))
ROOT = str(Path(__file__).resolve().parents[2])


def _spawn(*args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen(
        [sys.executable, HELPER, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def _read_until(proc: subprocess.Popen[str], count: int, marker: str | None = None) -> list[str]:
    lines: list[str] = []
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"helper died: {proc.stderr.read() if proc.stderr else ''}")
        line = line.strip()
        if marker is not None and line == marker:
            return lines
        lines.append(line)
        if marker is None and len(lines) >= count:
            return lines


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _check_consistent(store: MemoryStore) -> None:
    """The document (rebuilt from snapshot + log) and the tables agree."""
    from_doc = {i: d["text"] for i, d in store.records("notes").items()}
    from_table = {r["id"]: r["text"] for r in store.table_rows("notes")}
    assert from_doc == from_table


def test_sigkill_while_writing_keeps_every_acknowledged_write(tmp_path: Path) -> None:
    path = str(tmp_path / "edge.db")
    for attempt in range(3):
        proc = _spawn("write", path, "edge")
        acked = _read_until(proc, 40 + 25 * attempt)
        _kill(proc)
        with MemoryStore(path) as store:
            _check_consistent(store)
            stored = set(store.records("notes"))
            assert set(acked) <= stored
            last_acked = set(acked)
    assert last_acked


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SyncServerThread]:
    with SyncServerThread(tmp_path / "server", tokens=TOKENS) as srv:
        yield srv


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.2])
def test_sigkill_client_mid_sync_then_sync_converges(
    tmp_path: Path, server: SyncServerThread, delay: float
) -> None:
    path = str(tmp_path / "a.db")
    proc = _spawn("bulk_sync", path, "dev-a", "3000", server.target, "tok-a")
    acked = _read_until(proc, 0, marker="syncing")
    time.sleep(delay)
    _kill(proc)
    with MemoryStore(path) as store:
        _check_consistent(store)
        assert set(acked) <= set(store.records("notes"))
        with grpc.insecure_channel(server.target) as channel:
            sync_with(channel, store, "tok-a")
        cloud = server.stores("alice")
        assert cloud.document_json() == store.document_json()
        assert cloud.table_rows("notes") == store.table_rows("notes")
        assert set(acked) <= set(cloud.records("notes"))


@pytest.mark.parametrize("delay", [0.02, 0.1])
def test_sigkill_server_mid_sync_then_sync_converges(tmp_path: Path, delay: float) -> None:
    root = str(tmp_path / "server")
    server = _spawn("serve", root)
    port = _read_until(server, 1)[0]
    store = MemoryStore(tmp_path / "b.db", node_id="dev-b", synchronous="NORMAL")
    for start in range(0, 4000, 1000):
        with store.batch():
            for i in range(start, start + 1000):
                store.add_note(f"from b {i} " + "z" * 100)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                sync_with(channel, store, "tok-b", chunk_bytes=64 * 1024, timeout=30)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(delay)
    _kill(server)
    thread.join(30)
    _check_consistent(store)
    assert len(store.records("notes")) == 4000
    server = _spawn("serve", root)
    port = _read_until(server, 1)[0]
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            sync_with(channel, store, "tok-b")
            again = sync_with(channel, store, "tok-b")
        assert again.rounds == 0
    finally:
        _kill(server)
    user_db = next(Path(root).glob("alice-*.db"))
    with MemoryStore(user_db) as cloud:
        _check_consistent(cloud)
        assert cloud.document_json() == store.document_json()
        assert len(cloud.records("notes")) == 4000
    store.close()
