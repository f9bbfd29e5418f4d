"""The device page keeps time: timers in words and local clock time, a ringing timer with
its dismiss and snooze buttons, and the last sync whoever ran it."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from edge_agent.agent import EdgeAgent
from edge_agent.runtime import DeviceRuntime
from edge_agent.ui import DeviceConsole, UiAccess, UiServer, device_app
from edge_agent.ui.device import timer_rows
from sync.store import MemoryStore
from sync.views import iso
from understanding.router import Router


def test_timers_show_their_length_in_words_never_raw_seconds(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "edge.db") as store:
        store.add_timer(427541, "long one")
        store.add_timer(300, "")
        rows = timer_rows(store)
    assert {row["length"] for row in rows} == {
        "4 days 22 hours 45 minutes 41 seconds",
        "5 minutes",
    }
    assert all("427541" not in str(value) for row in rows for value in row.values())
    assert {row["state"] for row in rows} == {"waiting"}


def test_the_last_sync_shows_when_another_process_synced(tmp_path: Path) -> None:
    path = tmp_path / "edge.db"
    with MemoryStore(path) as page_store:
        console = DeviceConsole(EdgeAgent(page_store, Router.load()), cloud="127.0.0.1:1")
        assert console.sync.last_at is None
        with MemoryStore(path) as cli_store:  # `edge-agent sync` in another process
            cli_store.note_synced(2, 300, 400)
        console._update_sync_state()
        assert console.sync.last_at is not None
        assert (console.sync.rounds, console.sync.bytes_received) == (2, 400)


def test_a_ringing_timer_is_on_the_page_and_dismissed_from_it(tmp_path: Path) -> None:
    async def main() -> None:
        store = MemoryStore(tmp_path / "edge.db")
        runtime = DeviceRuntime(EdgeAgent(store, Router.load()))
        console = DeviceConsole(runtime.agent, runtime=runtime)
        server = UiServer(device_app(console), UiAccess.checked("127.0.0.1", None), 0)
        await server.start()
        try:
            timer = store.add_timer(60, "pasta")
            data = store.get_record("timers", timer["timer_id"]) or {}
            due = iso(datetime.now(UTC) - timedelta(seconds=1))
            store.put_record("timers", timer["timer_id"], {**data, "fires_at": due})
            await asyncio.to_thread(runtime.ringer.tick)
            async with httpx.AsyncClient(base_url=server.url, timeout=20) as client:
                page = (await client.get("/")).text
                assert f'data-ring="{timer["timer_id"]}"' in page
                assert "Time&#39;s up: the pasta timer is done" in page or "pasta" in page
                done = await client.post(
                    "/timers/settle", data={"timer_id": timer["timer_id"], "answer": "dismiss"}
                )
                assert done.status_code == 200 and done.text == "Dismissed the pasta timer."
                again = await client.post(
                    "/timers/settle", data={"timer_id": timer["timer_id"], "answer": "dismiss"}
                )
                assert again.status_code == 404
                page = (await client.get("/")).text
                assert f'data-ring="{timer["timer_id"]}"' not in page
        finally:
            await server.stop()
            store.close()

    asyncio.run(main())


def test_steps_are_numbered_in_the_order_the_page_shows_them() -> None:
    import re

    from edge_agent.ui.app import verify_url
    from edgeloop.v1 import agent_pb2 as pb
    from webui.live import LiveSession
    from webui.pages import make_environment

    session = LiveSession("s1", "turn on the lights and what's the weather")
    kinds = [
        pb.STEP_TYPE_THOUGHT,
        pb.STEP_TYPE_ACTION,
        pb.STEP_TYPE_OBSERVATION,
        pb.STEP_TYPE_FINAL_ANSWER,
    ]
    for index, kind in zip([0, 1, 0, 3], kinds, strict=True):  # as the cloud's steps came
        session.add(pb.ReactStep(step_type=kind, step_index=index, content="x"))
    html = (
        make_environment()
        .get_template("_sessions.html")
        .render(sessions=[session], verify_url=verify_url)
    )
    numbers = re.findall(r'<tr class="step [^"]*">\s*<td[^>]*>(\d+)</td>', html)
    assert numbers == ["0", "1", "2", "3"]
