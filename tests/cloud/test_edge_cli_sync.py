"""`edge-agent sync` and `edge-agent pending --cloud` against a real cloud on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer
from edge_agent.cli import app
from edgeloop.transport.loop import EventLoopThread
from sync import MemoryStore, UserStores

TOKEN = "s3cret-phone"


@pytest.fixture
def cloud(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A cloud with per-user memory and one device token (phone of alice)."""
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tokens": {TOKEN: {"device_id": "phone", "user_id": "alice"}}}))
    memory_dir = tmp_path / "cloud"
    loop = EventLoopThread()
    server = CloudServer(CloudConfig(port=0, memory_dir=str(memory_dir), tokens_file=str(tokens)))
    port = loop.run(server.start())
    try:
        yield f"127.0.0.1:{port}", memory_dir
    finally:
        loop.run(server.stop(0.5))
        loop.close()


def _device_with_note(tmp_path: Path, text: str) -> Path:
    """The phone's memory file, holding one note written offline."""
    device_db = tmp_path / "phone.db"
    with MemoryStore(device_db, node_id="phone") as device:
        device.add_note(text)
    return device_db


def _cloud_notes(memory_dir: Path) -> list[str]:
    with UserStores(memory_dir, node_id="cloud") as stores:
        return [n["text"] for n in stores("alice").notes()]


def test_sync_merges_the_device_memory_with_the_cloud_both_ways(
    cloud: tuple[str, Path], tmp_path: Path
) -> None:
    target, memory_dir = cloud
    device_db = _device_with_note(tmp_path, "buy oat milk")
    result = CliRunner().invoke(
        app, ["sync", "--cloud", target, "--memory", str(device_db), "--token", TOKEN, "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["synced"] and report["rounds"] >= 1 and report["bytes_sent"] > 0
    assert _cloud_notes(memory_dir) == ["buy oat milk"]

    with UserStores(memory_dir, node_id="cloud") as stores:
        stores("alice").add_note("dentist on friday")  # written in the cloud meanwhile
    again = CliRunner().invoke(
        app, ["sync", "--cloud", target, "--memory", str(device_db), "--token", TOKEN]
    )
    assert again.exit_code == 0 and again.output.startswith("memory synced in")
    with MemoryStore(device_db) as device:
        assert sorted(n["text"] for n in device.notes()) == ["buy oat milk", "dentist on friday"]


def test_sync_errors_are_one_line_and_leave_memory_alone(
    cloud: tuple[str, Path], tmp_path: Path
) -> None:
    target, memory_dir = cloud
    device_db = _device_with_note(tmp_path, "private")
    for args, expected in [
        ([], "UNAUTHENTICATED"),
        (["--token", "wrong"], "UNAUTHENTICATED"),
    ]:
        result = CliRunner().invoke(
            app, ["sync", "--cloud", target, "--memory", str(device_db), *args]
        )
        assert result.exit_code == 1
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0]
    bad = CliRunner().invoke(app, ["sync", "--cloud", "nohostport", "--memory", str(device_db)])
    assert bad.exit_code == 2
    assert _cloud_notes(memory_dir) == []
    with MemoryStore(device_db) as device:
        assert [n["text"] for n in device.notes()] == ["private"]


def test_pending_with_the_cloud_syncs_memory_and_says_when_the_cloud_keeps_none(
    cloud: tuple[str, Path], tmp_path: Path
) -> None:
    target, memory_dir = cloud
    device_db = _device_with_note(tmp_path, "synced after the pending queries")
    result = CliRunner().invoke(
        app, ["pending", "--cloud", target, "--memory", str(device_db), "--token", TOKEN]
    )
    assert result.exit_code == 0, result.output
    assert "memory synced" in result.output
    assert _cloud_notes(memory_dir) == ["synced after the pending queries"]

    loop = EventLoopThread()
    plain = CloudServer(CloudConfig(port=0))  # no --memory-dir: no sync service
    port = loop.run(plain.start())
    try:
        result = CliRunner().invoke(
            app, ["pending", "--cloud", f"127.0.0.1:{port}", "--memory", str(device_db)]
        )
        # `sync` itself fails there, saying why (was gRPC's "UNIMPLEMENTED: Method not found!").
        synced = CliRunner().invoke(
            app, ["sync", "--cloud", f"127.0.0.1:{port}", "--memory", str(device_db)]
        )
    finally:
        loop.run(plain.stop(0.5))
        loop.close()
    assert result.exit_code == 0, result.output
    assert "memory not synced: the cloud keeps no memory" in result.output
    assert synced.exit_code == 1
    assert "the cloud keeps no memory (start it with --memory-dir" in synced.output


def test_ask_with_a_token_is_the_tokens_device(cloud: tuple[str, Path], tmp_path: Path) -> None:
    """README: --token goes with ask, chat, pending, serve and sync. The token names the
    device ("phone" here); ask sent the id "edge" and was refused with PERMISSION_DENIED."""
    target, _ = cloud
    base = ["--cloud", target, "--memory", str(tmp_path / "phone.db"), "--token", TOKEN]
    result = CliRunner().invoke(app, ["ask", "is Tokyo warmer than Seoul today", *base])
    assert result.exit_code == 0, result.output
    assert "warmer" in result.output
    result = CliRunner().invoke(app, ["pending", *base])
    assert result.exit_code == 0, result.output
