"""Shared fixtures: a cloud reasoner on a free loopback port."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest


class BackgroundServer:
    """Runs an async gRPC server in its own event loop thread, for sync tests."""

    def __init__(self, start) -> None:  # type: ignore[no-untyped-def]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self.server, self.port = asyncio.run_coroutine_threadsafe(start(), self._loop).result(30)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(grace=None), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


@pytest.fixture
def cloud_server() -> Iterator[BackgroundServer]:
    """The cloud reasoner service on 127.0.0.1 with a free port."""
    from cloud_agent.service import start_server

    server = BackgroundServer(lambda: start_server("127.0.0.1", 0))
    yield server
    server.stop()
