"""The device page over HTTP (no browser): its forms, its errors and its event stream."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from edge_agent.agent import EdgeAgent
from edge_agent.ui import Broadcaster, DeviceConsole, UiAccess, UiServer, device_app, sse_event
from edgeloop.v1 import agent_pb2 as pb
from sync.store import MemoryStore
from understanding.router import Router


@pytest.fixture(scope="module")
def router() -> Router:
    return Router.load()


async def _until(condition: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the page never got there"
        await asyncio.sleep(0.05)


async def _device(tmp_path: Path, router: Router) -> tuple[DeviceConsole, UiServer]:
    agent = EdgeAgent(MemoryStore(tmp_path / "device.db"), router)
    console = DeviceConsole(agent)
    server = UiServer(
        device_app(console),
        UiAccess.checked("127.0.0.1", None),
        0,
        before_stop=console.broadcaster.close,
    )
    await server.start()
    return console, server


def run(tmp_path: Path, router: Router, check: Any) -> None:
    async def main() -> None:
        console, server = await _device(tmp_path, router)
        try:
            async with httpx.AsyncClient(base_url=server.url, timeout=20) as client:
                await check(console, client)
        finally:
            await server.stop()
            console.agent.memory.close()

    asyncio.run(main())


def test_deny_from_the_page_takes_the_approve_path(tmp_path: Path, router: Router) -> None:
    async def check(console: DeviceConsole, client: httpx.AsyncClient) -> None:
        asked = await client.post("/ask", data={"query": "unlock the front door"})
        assert asked.status_code == 202
        session = console.book.get(asked.text)
        assert session is not None
        await _until(lambda: session.waiting is not None)
        act_id = session.waiting.act_id
        page = (await client.get("/")).text
        assert act_id in page and "Approve" in page
        wrong = await client.post(
            "/approve", data={"session_id": session.session_id, "act_id": "x", "decision": "deny"}
        )
        assert wrong.status_code == 404
        bad = await client.post(
            "/approve", data={"session_id": session.session_id, "act_id": act_id, "decision": "?"}
        )
        assert bad.status_code == 400
        denied = await client.post(
            "/approve",
            data={"session_id": session.session_id, "act_id": act_id, "decision": "deny"},
        )
        assert denied.status_code == 202
        await _until(lambda: session.state == "finished")
        assert console.agent.memory.get_device_state("door_lock") is None  # nothing unlocked
        again = await client.post(
            "/approve",
            data={"session_id": session.session_id, "act_id": act_id, "decision": "approve"},
        )
        assert again.status_code == 404  # decided once

    run(tmp_path, router, check)


def test_bad_requests_get_clear_errors(tmp_path: Path, router: Router) -> None:
    async def check(console: DeviceConsole, client: httpx.AsyncClient) -> None:
        empty = await client.post("/ask", data={"query": "   "})
        assert empty.status_code == 400 and "empty" in empty.text
        assert (await client.post("/receipts/nope/verify")).status_code == 404
        no_cloud = await client.post("/sync")
        assert no_cloud.status_code == 409 and "--cloud" in no_cloud.text
        huge = await client.post(
            "/ask",
            content=b"query=" + b"a" * 70_000,
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        assert huge.status_code == 413  # refused by its Content-Length, never read
        assert console.book.recent() == []
        assert (await client.get("/static/vendor/htmx.min.js")).status_code == 200

    run(tmp_path, router, check)


def test_the_event_stream_sends_every_panel_then_each_change(
    tmp_path: Path, router: Router
) -> None:
    async def check(console: DeviceConsole, client: httpx.AsyncClient) -> None:
        async with client.stream("GET", "/events") as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            lines: AsyncIterator[str] = stream.aiter_lines()
            seen: list[str] = []
            async for line in lines:
                if line.startswith("event: "):
                    seen.append(line.removeprefix("event: "))
                if len(seen) == 4:
                    break
            assert seen == ["sessions", "approvals", "sync", "memory"]
            await client.post("/ask", data={"query": "convert 5 miles to km"})
            text = ""
            async for line in lines:
                text += line + "\n"
                if "8.04" in text:
                    break
            assert "event: sessions" in text and "unit_convert" in text

    run(tmp_path, router, check)


def test_memory_written_by_another_process_shows_up(tmp_path: Path, router: Router) -> None:
    async def check(console: DeviceConsole, client: httpx.AsyncClient) -> None:
        assert not await console.memory_changed()  # the first look sets the mark
        other = MemoryStore(tmp_path / "device.db")  # another writer of the same file
        other.add_note("from the other process")
        other.add_note("<img src=x onerror=alert(1)>")
        other.close()
        assert await console.memory_changed()
        page = (await client.get("/")).text
        assert "from the other process" in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page and "<img src=x" not in page

    run(tmp_path, router, check)


def test_a_session_paused_by_another_process_is_shown_and_approved_here(
    tmp_path: Path, router: Router
) -> None:
    """`edge-agent serve` (or any agent on the same memory) left an unlock waiting: the page
    reads it from memory, and its Approve button resumes it through ``agent.approve``."""

    async def check(console: DeviceConsole, client: httpx.AsyncClient) -> None:
        other = EdgeAgent(MemoryStore(tmp_path / "device.db"), router)
        asked = list(other.ask("unlock the front door"))
        assert asked[-1].step_type == pb.STEP_TYPE_APPROVAL_REQUEST
        other.memory.close()
        await console.adopt_stored()  # (the page's own watcher may have been first)
        (session,) = console.book.recent()
        assert session.source == "memory" and session.waiting is not None
        assert session.waiting.act_id == asked[-1].act_id
        page = (await client.get("/")).text
        assert "from memory" in page and asked[-1].act_id in page
        approved = await client.post(
            "/approve",
            data={
                "session_id": session.session_id,
                "act_id": asked[-1].act_id,
                "decision": "approve",
            },
        )
        assert approved.status_code == 202
        await _until(lambda: session.state == "finished")
        assert session.final is not None and "unlocked" in session.final.content
        state = console.agent.memory.get_device_state("door_lock")
        assert state is not None and state["state"] == "unlocked"
        assert not await console.adopt_stored()  # nothing new: it is shown already

    run(tmp_path, router, check)


def test_sse_event_framing() -> None:
    assert sse_event("x", "") == "event: x\ndata: \n\n"
    assert sse_event("x", "a\r\nb") == "event: x\ndata: a\ndata: b\n\n"


def test_broadcaster_coalesces_changes_and_ends_on_close() -> None:
    async def main() -> list[set[str]]:
        hub = Broadcaster()
        hub.bind(asyncio.get_running_loop())
        queue = hub.subscribe()
        got: list[set[str]] = []

        async def read() -> None:
            async for changed in hub.changes(queue):
                got.append(changed)

        reader = asyncio.ensure_future(read())
        hub.publish("a", "b")
        hub.publish("a")
        await asyncio.sleep(0.05)
        hub.close()
        await asyncio.wait_for(reader, 5)
        hub.unsubscribe(queue)
        return got

    assert asyncio.run(main()) == [{"a", "b"}]


def test_the_page_shows_a_question_and_its_answer_completes_the_request(
    tmp_path: Path, router: Router
) -> None:
    async def check(console: DeviceConsole, client: httpx.AsyncClient) -> None:
        asked = await client.post("/ask", data={"query": "set a timer"})
        sid = asked.text
        await _until(lambda: (s := console.book.get(sid)) is not None and s.question is not None)
        page = (await client.get("/")).text
        assert "For how long?" in page and f'name="session_id" value="{sid}"' in page
        wrong = await client.post("/ask", data={"query": "ten minutes", "session_id": "nope"})
        assert wrong.status_code == 400 and "not waiting for an answer" in wrong.text
        answered = await client.post("/ask", data={"query": "ten minutes", "session_id": sid})
        assert answered.status_code == 202 and answered.text == sid
        await _until(lambda: console.book.get(sid).final is not None)  # type: ignore[union-attr]
        assert console.book.get(sid).final.content.startswith("Timer set for 10 minutes")  # type: ignore[union-attr]
        assert [t["seconds"] for t in console.agent.memory.timers()] == [600]

    run(tmp_path, router, check)
