"""The cloud's page bounded by bytes (issue 26): it remembers a bounded number of devices
and shows them a page at a time, sends a panel only when its HTML changed, keeps a bounded
number of event streams, and refuses a large request body before reading it."""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any

import httpx
import pytest

from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer
from cloud_agent.ui import CloudConsole, render_cloud_panel, serve_page
from cloud_agent.ui.console import DEVICES_PER_PAGE, MAX_DEVICES, MAX_USERS
from edgeloop.transport.auth import Principal
from webui.access import MAX_BODY_BYTES
from webui.events import MAX_STREAMS, Broadcaster, PollErrors, panel_stream


def _start(console: CloudConsole, device: str, user: str = "local") -> None:
    console.session_started(Principal(device, user), f"s-{device}", "q" * 4000, "t")


def test_the_console_keeps_a_bounded_fleet_and_pages_it() -> None:
    cloud = CloudServer(CloudConfig(port=0))
    console = CloudConsole(cloud)
    for n in range(MAX_DEVICES + 300):
        _start(console, f"device-{n:05d}", f"user-{n}")
    assert len(console.devices) == MAX_DEVICES and len(console.users) == MAX_USERS
    assert f"device-{MAX_DEVICES + 299:05d}" in console.devices  # the newest are kept
    assert "device-00000" not in console.devices
    first = render_cloud_panel(console, "devices")
    assert first.count("<tr>") == DEVICES_PER_PAGE + 1  # the header and one page
    assert f"device-{MAX_DEVICES + 299:05d}" in first and "older" in first
    assert len(first) < 20_000  # the last queries are cut
    last = render_cloud_panel(console, "devices", page=10**6)
    assert "newer" in last and "device-00300" in last


def test_a_panel_is_sent_only_when_its_html_changed() -> None:
    async def main() -> None:
        broadcaster = Broadcaster()
        broadcaster.bind(asyncio.get_running_loop())
        html = {"a": "<p>1</p>"}

        async def render(name: str) -> str:
            return html[name]

        stream = panel_stream(broadcaster, ["a"], render)
        assert await anext(stream) == "retry: 2000\n\n"
        assert "<p>1</p>" in await anext(stream)
        broadcaster.publish("a")  # same HTML: nothing is sent
        html["a"] = "<p>2</p>"
        await asyncio.sleep(0.05)
        broadcaster.publish("a")
        assert "<p>2</p>" in await asyncio.wait_for(anext(stream), 5)
        await stream.aclose()

    asyncio.run(main())


def test_open_event_streams_are_capped() -> None:
    broadcaster = Broadcaster(max_streams=2)
    held = [broadcaster.subscribe(), broadcaster.subscribe()]
    assert all(q is not None for q in held) and broadcaster.subscribe() is None
    queue = held[0]
    assert queue is not None
    broadcaster.unsubscribe(queue)
    assert broadcaster.subscribe() is not None
    assert MAX_STREAMS <= 64


def _raw(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        return sock.recv(4096)


def test_the_page_refuses_large_bodies_and_too_many_streams() -> None:
    async def main() -> None:
        cloud = CloudServer(CloudConfig(port=0))
        await cloud.start()
        page = await serve_page(cloud, 0)
        try:
            head = (
                f"POST /receipts/s1/verify HTTP/1.1\r\nHost: 127.0.0.1:{page.port}\r\n"
                f"Content-Length: {10**9}\r\n\r\n"
            ).encode()
            answer = await asyncio.to_thread(_raw, page.port, head)  # no body sent at all
            assert answer.startswith(b"HTTP/1.1 413")
            async with httpx.AsyncClient(base_url=page.url, timeout=10) as client:

                async def chunks() -> Any:
                    for _ in range(40):
                        yield b"x" * 4096

                streamed = await client.post("/receipts/s1/verify", content=chunks())
                assert streamed.status_code in (400, 404, 413)
                console = cloud.handler.watchers[0]
                streams = []
                for _ in range(console.broadcaster.max_streams):
                    request = client.build_request("GET", "/events")
                    streams.append(await client.send(request, stream=True))
                refused = await client.get("/events")
                assert refused.status_code == 503
                for response in streams:
                    await response.aclose()
        finally:
            await page.stop()
            await cloud.stop(0)

    assert MAX_BODY_BYTES == 64 * 1024
    asyncio.run(main())


def test_a_polling_loop_failure_is_logged_once_not_swallowed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    errors = PollErrors("the memory watch")
    with caplog.at_level(logging.INFO):
        for _ in range(3):
            errors.failed(OSError("database is locked"))
        errors.succeeded()
    messages = [r.getMessage() for r in caplog.records]
    assert sum("database is locked" in m for m in messages) == 1
    assert any("works again" in m for m in messages)


def test_memory_cells_are_cut() -> None:
    from sync.store import MemoryStore
    from webui.memory_view import CELL_CHARS, read_memory

    with MemoryStore(":memory:", node_id="d") as store:
        store.add_note("x" * 50_000)
        view = read_memory(store)
    (row,) = view["notes"]["rows"]
    assert len(row["text"]) == CELL_CHARS + 1


def test_a_huge_step_is_kept_trimmed() -> None:
    from cloud_agent.ui.console import STEP_BYTES, kept_step
    from edgeloop.v1 import agent_pb2 as pb

    small = pb.ReactStep(content="ok")
    assert kept_step(small) is small
    huge = pb.ReactStep(content="x" * 100_000, step_type=pb.STEP_TYPE_OBSERVATION)
    huge.observation.update({"blob": "y" * 1_000_000})
    kept = kept_step(huge)
    assert kept.ByteSize() <= STEP_BYTES and "page_trimmed" in kept.metadata
    assert huge.observation["blob"]  # the session's own step is untouched
