"""Interop: the memory document is plain Yjs v1; Node.js (the yjs npm package) reads the
same records and writes one back that Python reads, from a file and over gRPC."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from edgeloop.transport.auth import Principal
from edgeloop.v1 import agent_pb2 as pb
from sync import MemoryStore
from sync.client import sync_with
from sync.server import SyncServerThread

NODE = shutil.which("node")
SCRIPT = Path(__file__).resolve().parents[1] / "node" / "yjs_interop.mjs"
pytestmark = [
    pytest.mark.node,
    pytest.mark.skipif(NODE is None, reason="Node.js (`node`) is not installed"),
]


def _fill(store: MemoryStore) -> str:
    store.add_note("Python wrote this note — ünïcode ok")
    gone = store.add_note("to be forgotten")
    store.delete_note(gone)
    store.add_fact("user", "lucky_number", 2**52 + 7)  # JSON.parse is exact below 2**53
    store.set_device_state("light", "kitchen", {"state": "on", "brightness": 40})
    store.save_steps(
        "s1",
        [pb.ReactStep(session_id="s1", step_type=pb.STEP_TYPE_FINAL_ANSWER, content="42")],
    )
    return gone


def _node(*args: str) -> dict[str, object]:
    assert NODE is not None
    out = subprocess.run(
        [NODE, str(SCRIPT), *args], capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _expected(store: MemoryStore) -> dict[str, dict[str, object]]:
    from sync.document import KINDS

    return {kind: store.records(kind) for kind in KINDS}


def test_node_reads_python_records_and_writes_one_back(
    tmp_path: Path, make_store: Callable[..., MemoryStore]
) -> None:
    store = make_store("py")
    gone = _fill(store)
    (tmp_path / "doc.bin").write_bytes(store.diff(b"\x00"))
    result = _node("file", str(tmp_path / "doc.bin"), str(tmp_path / "back.bin"), "hello from js")
    records = result["records"]
    assert records == _expected(store)
    assert gone not in records["notes"]  # type: ignore[index]
    assert records["facts"]["user/lucky_number"]["value"] is not None  # type: ignore[index]
    assert store.apply_update((tmp_path / "back.bin").read_bytes())
    written = str(result["written"])
    assert store.get_record("notes", written)["text"] == "hello from js"  # type: ignore[index]
    assert store.search("hello from js")[0].record_id == written


def test_node_syncs_over_grpc(tmp_path: Path, make_store: Callable[..., MemoryStore]) -> None:
    tokens = {"tok-py": Principal("py", "alice"), "tok-js": Principal("node-js", "alice")}
    store = make_store("py")
    _fill(store)
    with SyncServerThread(tmp_path / "server", tokens=tokens) as server:
        with grpc.insecure_channel(server.target) as channel:
            sync_with(channel, store, "tok-py")
        result = _node("grpc", server.target, "tok-js", "js over grpc")
        assert result["records"] == _expected(store)
        with grpc.insecure_channel(server.target) as channel:
            sync_with(channel, store, "tok-py")
        written = str(result["written"])
        assert store.get_record("notes", written)["text"] == "js over grpc"  # type: ignore[index]
        assert server.stores("alice").document_json() == store.document_json()
