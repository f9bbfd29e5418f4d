"""A sync whose server is killed mid-upload (docs/sync-protocol.md, section 3): the client
sees UNAVAILABLE from the transport, the restarted server kept nothing of the half-sent
update, and the retry -- a new call from the hello -- sends the whole diff again and
converges. The server is a real process on 127.0.0.1, killed with SIGKILL."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc

from edgeloop.transport.metadata import call_metadata
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from sync import MemoryStore
from sync.client import sync_with
from sync.exchange import chunk_update
from sync.userstores import UserStores

HELPER = str(Path(__file__).with_name("crash_helper.py"))
ROOT = str(Path(__file__).resolve().parents[2])


def _serve(root: Path) -> tuple[subprocess.Popen[str], int]:
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen(
        [sys.executable, HELPER, "serve", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    assert line.isdigit(), proc.stderr.read() if proc.stderr else line
    return proc, int(line)


def _kill(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def test_a_server_killed_mid_upload_is_unavailable_and_the_retry_resends_the_diff(
    tmp_path: Path,
) -> None:
    store = MemoryStore(tmp_path / "a.db", node_id="node-a")
    with store.batch():
        for i in range(300):
            store.add_note(f"note {i} " + "x" * 200)
    server, port = _serve(tmp_path / "server")
    outbox: queue.Queue[pb.SyncRequest | None] = queue.Queue()

    def requests() -> Iterator[pb.SyncRequest]:
        while (item := outbox.get()) is not None:
            yield item

    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        stub = pb_grpc.MemorySyncServiceStub(channel)
        responses = stub.Sync(requests(), metadata=call_metadata(token="tok-a"), timeout=30)
        outbox.put(pb.SyncRequest(hello=pb.SyncHello(device_id="")))
        outbox.put(pb.SyncRequest(state_vector=pb.StateVector(vector=store.state_vector())))
        first = next(responses)
        assert first.WhichOneof("event") == "state_vector"
        diff = store.diff(first.state_vector.vector)
        chunks = chunk_update(diff, len(diff) // 2 + 1)
        assert len(chunks) == 2
        outbox.put(pb.SyncRequest(update=chunks[0]))  # half the update, then the crash
        for message in responses:  # the server's own diff, up to its done
            if message.WhichOneof("event") == "done":
                break
        _kill(server)
        try:
            next(responses)
            raise AssertionError("the call went on after the server died")
        except grpc.RpcError as exc:
            assert exc.code() == grpc.StatusCode.UNAVAILABLE, exc
        outbox.put(None)
    finally:
        channel.close()
    with UserStores(tmp_path / "server") as stores:
        assert stores("alice").notes() == []  # nothing of the half-sent update was kept
    server, port = _serve(tmp_path / "server")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as retry:
            result = sync_with(retry, store, "tok-a", device_id="")
        assert result.bytes_sent >= len(diff)  # the whole diff, sent again
    finally:
        _kill(server)
    with UserStores(tmp_path / "server") as stores:
        cloud = stores("alice")
        assert len(cloud.notes()) == 300
        assert cloud.document_json() == store.document_json()
    store.close()
