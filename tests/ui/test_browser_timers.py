"""A timer rings on the device page in a real browser: the Timers panel shows it live,
the browser gets a notification, and Dismiss stops it (headless chromium)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

# Notifications, as the page sees them: allowed, and each one recorded.
RECORD_NOTIFICATIONS = """
window.__rung = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(text) { window.__rung.push(text); }
};
"""


@pytest.fixture(scope="module")
def timed_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """The device page of a runtime that rings timers; its URL and the runtime."""
    from edge_agent.agent import EdgeAgent
    from edge_agent.runtime import DeviceRuntime
    from edge_agent.ui import DeviceConsole, UiAccess, UiServer, device_app
    from edgeloop.transport.loop import EventLoopThread
    from sync.store import MemoryStore
    from understanding.router import Router

    memory = MemoryStore(Path(tmp_path_factory.mktemp("timers")) / "device.db")
    runtime = DeviceRuntime(EdgeAgent(memory, Router.load()))
    console = DeviceConsole(runtime.agent, runtime=runtime)
    loop = EventLoopThread()

    async def start() -> UiServer:
        server = UiServer(
            device_app(console),
            UiAccess.checked("127.0.0.1", None),
            0,
            before_stop=console.broadcaster.close,
        )
        await server.start()
        return server

    server = loop.run(start())
    runtime.start()
    try:
        yield server.url, runtime
    finally:
        runtime.stop()
        loop.run(server.stop())
        memory.close()
        loop.close()


def test_a_timer_rings_on_the_page_and_is_dismissed(
    timed_page: tuple[str, Any], browser_context: Any
) -> None:
    url, runtime = timed_page
    page = browser_context.new_page()
    page.add_init_script(RECORD_NOTIFICATIONS)
    page.goto(url)
    page.wait_for_selector("#live.on")
    page.evaluate("window.__noReload = true")
    runtime.agent.memory.add_timer(1, "pasta")
    ringing = page.locator("#ringing .ringing", has_text="pasta")
    ringing.wait_for()
    assert "is ringing" in ringing.inner_text()
    page.wait_for_function("window.__rung.length > 0")
    assert page.evaluate("window.__rung") == ["Time is up: pasta"]
    assert "Time's up: the pasta timer is done" in page.locator(".device-events").inner_text()
    ringing.locator("button.dismiss").click()
    page.locator("#ringing .empty", has_text="No timer is ringing").wait_for()
    assert page.evaluate("window.__rung") == ["Time is up: pasta"]  # rang once
    assert page.evaluate("window.__noReload") is True
    page.close()
