"""A real cloud (gRPC reasoner + memory sync + its page) and a real device (edge agent with
its cloud link + its page) on 127.0.0.1, and headless Debian chromium driven by Playwright.

The browser is the system's ``/usr/bin/chromium`` (apt package ``chromium``); Playwright
never downloads one. Without it the browser tests are skipped, except under CI, where
.ci/run installs it and its absence is a failure.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("EDGELOOP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class Stack:
    """The running cloud and device with their pages."""

    cloud_url: str
    device_url: str
    cloud_target: str
    console: Any  # the device's DeviceConsole
    cloud_console: Any
    loop: Any


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Cloud and device on free loopback ports, each serving its page."""
    from cloud_agent.config import CloudConfig
    from cloud_agent.service import CloudServer
    from cloud_agent.ui import serve_page
    from edge_agent.agent import EdgeAgent
    from edge_agent.cloud_link import CloudLink
    from edge_agent.ui import DeviceConsole, serve_device_page
    from edgeloop.transport.loop import EventLoopThread
    from sync.store import MemoryStore
    from understanding.router import Router

    root = tmp_path_factory.mktemp("ui")
    loop = EventLoopThread()
    cloud = CloudServer(CloudConfig(port=0, memory_dir=str(root / "cloud")))
    port = loop.run(cloud.start())
    target = f"127.0.0.1:{port}"
    cloud_page = loop.run(serve_page(cloud, 0))
    memory = MemoryStore(root / "device.db")
    link = CloudLink(target, deadline_s=20, retries=1, backoff_s=0.1, device_id="test-phone")
    agent = EdgeAgent(memory, Router.load(), cloud=link)
    console = DeviceConsole(agent, cloud=target)

    device_page = loop.run(serve_device_page(console))
    from cloud_agent.ui import CloudConsole  # noqa: F401 - the page's console type

    cloud_console = cloud.handler.watchers[0]
    try:
        yield Stack(cloud_page.url, device_page.url, target, console, cloud_console, loop)
    finally:
        loop.run(device_page.stop())
        loop.run(cloud_page.stop())
        loop.run(cloud.stop(0.5))
        link.close()
        memory.close()
        loop.close()


@pytest.fixture(scope="module")
def browser_context() -> Iterator[Any]:
    """A headless chromium with a fresh profile, shared by a module's tests."""
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs the apt package chromium")
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="edgeloop-chromium-")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000},
        )
        context.set_default_timeout(20_000)
        try:
            yield context
        finally:
            context.close()
            shutil.rmtree(profile, ignore_errors=True)
