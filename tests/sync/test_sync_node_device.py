"""A second implementation as the proof of docs/sync-protocol.md: a Node.js device
(tests/node/sync_device.mjs, grpc-js + yjs, written from the spec alone) keeps notes and
syncs them both ways with a Python cloud (the sync server) and a Python device: adds,
edits, deletes, concurrent edits of one note, and a record the server rejects."""

from __future__ import annotations

import json
import queue
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from pycrdt import Doc

from edgeloop.transport.auth import Principal
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from sync import MemoryStore
from sync.client import rejected_record, sync_with
from sync.exchange import chunk_update
from sync.server import SyncServerThread

NODE = shutil.which("node")
SCRIPT = Path(__file__).resolve().parents[1] / "node" / "sync_device.mjs"
TOKENS = {"tok-py": Principal("py", "alice"), "tok-js": Principal("js-device", "alice")}
pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(NODE is None, reason="Node.js (`node`) is not installed"),
]


class NodeDevice:
    """The Node.js device, one command per process; its memory persists in a folder."""

    def __init__(self, folder: Path, target: str) -> None:
        self.folder, self.target = folder, target

    def __call__(self, *args: str) -> dict[str, Any]:
        assert NODE is not None
        out = subprocess.run(
            [NODE, str(SCRIPT), str(self.folder), "js-device", *args],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert out.returncode == 0, out.stderr
        return dict(json.loads(out.stdout.strip().splitlines()[-1]))

    def sync(self) -> dict[str, Any]:
        return self("sync", self.target, "tok-js")

    def notes(self) -> dict[str, str]:
        return dict(self("notes")["notes"])


def py_notes(store: MemoryStore) -> dict[str, str]:
    return {note_id: data["text"] for note_id, data in store.records("notes").items()}


@pytest.fixture
def world(
    tmp_path: Path, make_store: Callable[..., MemoryStore]
) -> Iterator[tuple[SyncServerThread, MemoryStore, NodeDevice, Callable[[], None]]]:
    store = make_store("py")
    with SyncServerThread(tmp_path / "cloud", tokens=TOKENS) as server:
        node = NodeDevice(tmp_path / "js", server.target)

        def py_sync() -> None:
            with grpc.insecure_channel(server.target) as channel:
                sync_with(channel, store, "tok-py")

        yield server, store, node, py_sync


def test_notes_sync_both_ways_with_edits_deletes_and_concurrent_edits(
    world: tuple[SyncServerThread, MemoryStore, NodeDevice, Callable[[], None]],
) -> None:
    server, store, node, py_sync = world
    milk = store.add_note("milk")
    py_sync()
    eggs = node("add", "eggs")["id"]
    node.sync()
    assert node.notes() == {milk: "milk", eggs: "eggs"}
    py_sync()
    assert py_notes(store) == {milk: "milk", eggs: "eggs"}
    assert store.search("eggs")[0].record_id == eggs  # the Node note is a real note here

    # Edits on each side, of the other side's note.
    node("edit", milk, "oat milk")
    store.update_note(eggs, "brown eggs")
    node.sync()
    py_sync()
    node.sync()
    assert node.notes() == py_notes(store) == {milk: "oat milk", eggs: "brown eggs"}

    # Deletes on each side.
    store.delete_note(milk)
    node("delete", eggs)
    py_sync()
    node.sync()
    py_sync()
    assert node.notes() == py_notes(store) == {}

    # Concurrent edits of one note: both replicas read the same winner, the later edit.
    bread = store.add_note("bread")
    py_sync()
    node.sync()
    store.update_note(bread, "white bread")
    node("edit", bread, "rye bread")  # after the Python edit: the later one
    node.sync()
    py_sync()
    node.sync()
    assert node.notes() == py_notes(store) == {bread: "rye bread"}
    # The loser's entry is gone from both documents (1.5): the documents are identical.
    assert server.stores("alice").document_json() == store.document_json()


def test_a_rejected_record_is_named_and_recovered_from(
    world: tuple[SyncServerThread, MemoryStore, NodeDevice, Callable[[], None]],
) -> None:
    _, store, node, py_sync = world
    node("add", "kept")
    bad = node("corrupt")["id"]
    result = node.sync()
    assert [r["id"] for r in result["rejected"]] == [bad]
    assert "field 'text' must be a string" in result["rejected"][0]["message"]
    assert result["rejected"][0]["node"] == "js-device"
    py_sync()
    assert list(py_notes(store).values()) == ["kept"]
    assert node.notes() == py_notes(store)


def test_the_python_client_reads_the_rejected_record(
    world: tuple[SyncServerThread, MemoryStore, NodeDevice, Callable[[], None]],
) -> None:
    server, _, node, _ = world
    bad = node("corrupt")["id"]
    node("add", "fine")
    # The Node device's whole document, sent up by a raw client: refused, and named.
    raw = (node.folder / "doc.bin").read_bytes()
    doc: Doc[Any] = Doc()
    doc.apply_update(raw)
    with grpc.insecure_channel(server.target) as channel:
        stub = pb_grpc.MemorySyncServiceStub(channel)
        requests = [
            pb.SyncRequest(hello=pb.SyncHello(device_id="js-device")),
            pb.SyncRequest(state_vector=pb.StateVector(vector=doc.get_state())),
            *[pb.SyncRequest(update=chunk) for chunk in chunk_update(raw)],
            pb.SyncRequest(done=pb.SyncDone(round=0)),
        ]
        call = stub.Sync(iter(requests), metadata=[("authorization", "Bearer tok-js")], timeout=20)
        with pytest.raises(grpc.RpcError) as caught:
            list(call)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert rejected_record(caught.value) == ("notes", bad, "js-device")
    assert server.stores("alice").records("notes") == {}  # nothing of the update stored


def test_a_client_may_leave_out_an_empty_update(
    world: tuple[SyncServerThread, MemoryStore, NodeDevice, Callable[[], None]],
) -> None:
    server, store, _, py_sync = world
    store.add_note("from python")
    py_sync()
    outbox: queue.Queue[pb.SyncRequest | None] = queue.Queue()

    def requests() -> Iterator[pb.SyncRequest]:
        while (item := outbox.get()) is not None:
            yield item

    empty = MemoryStore(Path(store.path).parent / "empty.db", node_id="fresh")
    try:
        with grpc.insecure_channel(server.target) as channel:
            stub = pb_grpc.MemorySyncServiceStub(channel)
            outbox.put(pb.SyncRequest(hello=pb.SyncHello(device_id="py")))
            outbox.put(pb.SyncRequest(state_vector=pb.StateVector(vector=empty.state_vector())))
            responses = stub.Sync(
                requests(), metadata=[("authorization", "Bearer tok-py")], timeout=20
            )
            chunks = []
            for response in responses:
                kind = response.WhichOneof("event")
                if kind == "state_vector":
                    if chunks:
                        continue
                    outbox.put(pb.SyncRequest(done=pb.SyncDone(round=0)))  # no update at all
                elif kind == "update":
                    chunks.append(response.update.data)
                elif kind == "done":
                    empty.apply_update(b"".join(chunks))
                    outbox.put(
                        pb.SyncRequest(state_vector=pb.StateVector(vector=empty.state_vector()))
                    )
                elif kind == "complete":
                    outbox.put(None)
                    break
        assert py_notes(empty) == py_notes(store)
    finally:
        empty.close()
