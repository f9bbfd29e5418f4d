"""Node ids belong to devices (docs/sync-protocol.md 1.2): over real gRPC on 127.0.0.1,
the server refuses entries written under another device's node id, stores nothing of
such an update, and never refuses a legitimate device (its own node ids, several
replicas, a restore from its own backup, edits of other devices' records)."""

from __future__ import annotations

import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pycrdt import Doc, Map

from edgeloop.transport.auth import Principal
from sync import MemoryStore
from sync.client import sync_with
from sync.document import encode_entry
from sync.errors import PermissionDeniedError
from sync.exchange import same_state
from sync.server import SyncServerThread

TOKENS = {
    "tok-a": Principal("phone-a", "alice"),
    "tok-b": Principal("phone-b", "alice"),
}
NOTE = {"text": "", "source_act_id": None, "created_at": "2026-12-01T14:03:07.123Z"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[SyncServerThread]:
    with SyncServerThread(tmp_path / "server", tokens=TOKENS) as srv:
        yield srv


def _sync(server: SyncServerThread, store: Any, token: str) -> None:
    with grpc.insecure_channel(server.target) as channel:
        sync_with(channel, store, token, device_id="")  # the token names the device


def _refused(server: SyncServerThread, store: Any, token: str) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        _sync(server, store, token)
    return caught.value


def _backup(store: MemoryStore, to: Path) -> None:
    """A copy of the store's file as SQLite's online backup makes it."""
    with sqlite3.connect(to) as copy:
        store.db.conn.backup(copy)


def _open(path: Path, node: str) -> MemoryStore:
    return MemoryStore(path, node_id=node)


def test_entries_under_another_devices_node_id_are_refused_and_nothing_is_stored(
    server: SyncServerThread, tmp_path: Path
) -> None:
    a = _open(tmp_path / "a.db", "node-a")
    a.add_note("buy milk")
    _sync(server, a, "tok-a")
    cloud = server.stores("alice")
    before = cloud.document_json()
    # Device B's memory, writing under A's node id.
    forger = _open(tmp_path / "forger.db", "node-a")
    forger.add_note("forged in A's name")
    error = _refused(server, forger, "tok-b")
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    details = error.details() or ""
    assert "'node-a'" in details and "'phone-a'" in details and "'phone-b'" in details
    assert "nothing was stored" in details
    assert cloud.document_json() == before
    assert [n["text"] for n in cloud.notes()] == ["buy milk"]
    assert cloud.node_claims() == {"node-a": "phone-a"}


def test_an_edit_in_place_of_another_nodes_entry_is_refused(
    server: SyncServerThread, tmp_path: Path
) -> None:
    """The update whose item replaces A's entry (a Yjs item with an origin: the server
    must integrate it to see its key) is refused all the same, and the store reloads."""
    a = _open(tmp_path / "a.db", "node-a")
    note_id = a.add_note("the dentist is on friday")
    _sync(server, a, "tok-a")
    cloud = server.stores("alice")
    before = cloud.document_json()
    raw = _RawReplica(cloud.diff(b"\x00"))
    raw.set("notes", f"{note_id}|node-a", encode_entry("f" * 16, {**NOTE, "text": "forged"}))
    error = _refused(server, raw, "tok-b")
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "'node-a'" in (error.details() or "")
    assert cloud.document_json() == before
    assert cloud.get_record("notes", note_id)["text"] == "the dentist is on friday"  # type: ignore[index]


def test_the_servers_own_node_id_is_no_devices(server: SyncServerThread, tmp_path: Path) -> None:
    forger = _open(tmp_path / "c.db", "cloud")
    forger.add_note("as if the cloud said it")
    error = _refused(server, forger, "tok-a")
    assert error.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "the server's own" in (error.details() or "")
    assert server.stores("alice").notes() == []


def test_legitimate_devices_are_never_refused(server: SyncServerThread, tmp_path: Path) -> None:
    a = _open(tmp_path / "a.db", "node-a")
    b = _open(tmp_path / "b.db", "node-b")
    first = a.add_note("milk")
    _sync(server, a, "tok-a")
    _backup(a, tmp_path / "a-backup.db")  # A's backup, same node id
    _sync(server, b, "tok-b")
    # B edits and deletes A's records: written under B's own node id, allowed.
    b.update_note(first, "oat milk")
    second = a.add_note("eggs")
    _sync(server, a, "tok-a")
    _sync(server, b, "tok-b")
    b.delete_note(second)
    _sync(server, b, "tok-b")
    # A second replica of device A (another memory file, another node id).
    a2 = _open(tmp_path / "a2.db", "node-a2")
    a2.add_note("from the tablet")
    _sync(server, a2, "tok-a")
    # A edits its own note again (an update whose item has an origin).
    _sync(server, a, "tok-a")
    a.update_note(first, "oat milk, two cartons")
    _sync(server, a, "tok-a")
    a.close()
    # A restored from its backup: older state, the same node id, a fresh Yjs client.
    restored = _open(tmp_path / "a-backup.db", "ignored")
    assert restored.node_id == "node-a"
    restored.add_note("written after the restore")
    _sync(server, restored, "tok-a")
    _sync(server, b, "tok-b")
    _sync(server, a2, "tok-a")
    _sync(server, restored, "tok-a")
    cloud = server.stores("alice")
    assert restored.document_json() == b.document_json() == cloud.document_json()
    texts = sorted(n["text"] for n in cloud.notes())
    assert texts == ["from the tablet", "oat milk, two cartons", "written after the restore"]
    assert cloud.node_claims() == {"node-a": "phone-a", "node-a2": "phone-a", "node-b": "phone-b"}


def test_open_mode_checks_nothing(tmp_path: Path) -> None:
    """Without tokens every caller is the ``local`` user: there is no device to tell
    apart, and replicas sync as before."""
    with SyncServerThread(tmp_path / "open") as srv:
        one, two = _open(tmp_path / "1.db", "n1"), _open(tmp_path / "2.db", "n2")
        one.add_note("one")
        two.add_note("two")
        for store in (one, two, one):
            with grpc.insecure_channel(srv.target) as channel:
                sync_with(channel, store)
        assert one.document_json() == two.document_json()
        assert srv.stores("local").node_claims() == {}


class _RawReplica:
    """A replica built with pycrdt alone (as another language's device would be), so a
    test can write any key: state_vector, diff and apply_update for ``sync_with``."""

    def __init__(self, update: bytes) -> None:
        self.doc: Doc[Any] = Doc()
        self.doc.apply_update(update)
        self.node_id = "raw"

    def set(self, kind: str, key: str, value: str) -> None:
        with self.doc.transaction():
            self.doc.get(kind, type=Map)[key] = value

    def state_vector(self) -> bytes:
        return bytes(self.doc.get_state())

    def diff(self, state_vector: bytes) -> bytes:
        return bytes(self.doc.get_update(state_vector))

    def apply_update(self, update: bytes) -> bool:
        self.doc.apply_update(update)
        return True

    def note_synced(self, *args: Any) -> None:
        pass


# ---- a property: legitimate devices are never refused, a forger always is ----------

DEVICES = {"a1": "phone-a", "a2": "phone-a", "b1": "phone-b"}  # node id -> device
OPS = st.lists(
    st.tuples(
        st.sampled_from(sorted(DEVICES)),
        st.sampled_from(["add", "edit", "delete", "sync", "backup", "restore"]),
        st.integers(0, 5),
    ),
    min_size=1,
    max_size=14,
)


def _exchange(server: MemoryStore, replica: MemoryStore, device: str) -> None:
    """One sync round trip in-process, the server applying as the servicer does."""
    for _ in range(4):
        ours, theirs = replica.state_vector(), server.state_vector()
        if same_state(ours, theirs):
            return
        replica.apply_update(server.diff(ours))
        server.apply_update(replica.diff(theirs), writer=device)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_legitimate_devices_are_never_refused_and_a_forger_always_is(
    ops: list[tuple[str, str, int]],
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        server = MemoryStore(root / "server.db", node_id="cloud")
        replicas = {n: MemoryStore(root / f"{n}.db", node_id=n) for n in DEVICES}
        backups: dict[str, Path] = {}
        try:
            for node, op, pick in ops:
                store = replicas[node]
                notes = store.notes()
                if op == "add":
                    store.add_note(f"{node} {pick}")
                elif op == "edit" and notes:  # any note, another device's too
                    store.update_note(notes[pick % len(notes)]["note_id"], f"edited by {node}")
                elif op == "delete" and notes:
                    store.delete_note(notes[pick % len(notes)]["note_id"])
                elif op == "backup":
                    backups[node] = root / f"{node}-{len(backups)}-backup.db"
                    _backup(store, backups[node])
                elif op == "restore" and node in backups:
                    store.close()
                    replicas[node] = _open(backups[node], node)
                _exchange(server, replicas[node], DEVICES[node])  # never refused
            for node in sorted(DEVICES) * 2:
                _exchange(server, replicas[node], DEVICES[node])
            assert all(r.document_json() == server.document_json() for r in replicas.values())
            claimed = server.node_claims()
            assert {n: DEVICES[n] for n in claimed} == claimed
            # Device B writing as any node of A's that A has claimed is refused, unchanged.
            for node in [n for n, d in claimed.items() if d == "phone-a"]:
                forger = MemoryStore(root / f"forger-{node}.db", node_id=node)
                forger.add_note("forged")
                before = server.document_json()
                with pytest.raises(PermissionDeniedError):
                    server.apply_update(forger.diff(server.state_vector()), writer="phone-b")
                assert server.document_json() == before
                forger.close()
        finally:
            server.close()
            for replica in replicas.values():
                replica.close()


def test_postgres_replicas_share_the_claims(
    make_replicas: Callable[..., list[Any]], tmp_path: Path
) -> None:
    """Two cloud replicas on one PostgreSQL database: a node id claimed through one is
    refused to another device through the other, and nothing of that update is stored."""
    first, second = make_replicas(2)
    a = _open(tmp_path / "a.db", "node-a")
    a.add_note("milk")
    with grpc.insecure_channel(first.target) as channel:
        sync_with(channel, a, "alice:phone-a", device_id="")
    forger = _open(tmp_path / "forger.db", "node-a")
    forger.add_note("forged")
    with grpc.insecure_channel(second.target) as channel, pytest.raises(grpc.RpcError) as caught:
        sync_with(channel, forger, "alice:phone-b", device_id="")
    assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "'phone-a'" in (caught.value.details() or "")
    b = _open(tmp_path / "b.db", "node-b")
    with grpc.insecure_channel(second.target) as channel:
        sync_with(channel, b, "alice:phone-b", device_id="")
    assert [n["text"] for n in b.notes()] == ["milk"]
    with grpc.insecure_channel(first.target) as channel:
        sync_with(channel, a, "alice:phone-a", device_id="")
    assert a.document_json() == b.document_json()
