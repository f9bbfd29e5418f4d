"""Fixtures for the cloud tests: a real cloud server on 127.0.0.1 (port 0), in its own
event-loop thread so that sync clients (the edge's CloudLink) can call it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer


class RunningCloud:
    """A CloudServer running in a background event loop."""

    def __init__(self, config: CloudConfig, reasoner: Any = None) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()
        self.cloud = CloudServer(config, reasoner=reasoner)
        self.port = self.call(self.cloud.start())
        self.stopped = False

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(30)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self, grace: float | None = 0) -> None:
        if not self.stopped:
            self.stopped = True
            self.call(self.cloud.stop(grace))

    def close(self) -> None:
        self.stop()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


@pytest.fixture
def make_cloud() -> Iterator[Callable[..., RunningCloud]]:
    """Start cloud servers with a given config; all are stopped at the end of the test."""
    started: list[RunningCloud] = []

    def make(config: CloudConfig | None = None, reasoner: Any = None, **kw: Any) -> RunningCloud:
        cloud = RunningCloud(config or CloudConfig(port=0, **kw), reasoner)
        started.append(cloud)
        return cloud

    yield make
    for cloud in started:
        cloud.close()


@pytest.fixture
def cloud(make_cloud: Callable[..., RunningCloud]) -> RunningCloud:
    """The default cloud: planner backend, plaintext, open localhost mode."""
    return make_cloud()


@pytest.fixture
def device_memory(tmp_path: Path) -> Iterator[Any]:
    """The device's memory store in a temp folder."""
    from sync.store import MemoryStore

    store = MemoryStore(tmp_path / "device.db")
    yield store
    store.close()


@pytest.fixture(scope="session")
def planner_router() -> Any:
    """The shipped edge router the planner asks, loaded once for the session."""
    from cloud_agent.planner.reasoner import load_edge_router

    return load_edge_router()
