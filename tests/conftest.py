"""Shared fixtures: a cloud reasoner on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


class BackgroundServer:
    """Runs an async gRPC server in its own event loop thread, for sync tests."""

    def __init__(self, start) -> None:  # type: ignore[no-untyped-def]
        from edgeloop.transport.loop import EventLoopThread

        self._loop = EventLoopThread()
        self.server, self.port = self._loop.run(start())

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        self._loop.run(self.server.stop(grace=None))
        self._loop.close()


@pytest.fixture
def cloud_server() -> Iterator[BackgroundServer]:
    """The cloud reasoner service on 127.0.0.1 with a free port (started the one way there
    is, ``cloud_agent.server.serve``; stopping its handle stops everything it started)."""
    from cloud_agent.config import CloudConfig
    from cloud_agent.server import serve

    async def start():  # type: ignore[no-untyped-def]
        cloud = await serve(CloudConfig(port=0))
        return cloud, cloud.port

    server = BackgroundServer(start)
    yield server
    server.stop()
