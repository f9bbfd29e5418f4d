"""Pending that asks first (docs/edge.md, "Offline and late"): a compound query of device
requests runs on the device while offline; a pending query answered later keeps its
countdowns anchored at when it was asked, and its side effects are confirmed first."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from edge_agent.agent import EdgeAgent
from edge_agent.cloud_link import CloudLink
from edgeloop.v1 import agent_pb2 as pb
from examples.demo import load_router
from sync.store import MemoryStore


@pytest.fixture
def router() -> Any:
    return load_router()[0]


@pytest.fixture
def links() -> Iterator[list[CloudLink]]:
    made: list[CloudLink] = []
    yield made
    for link in made:
        link.close()


def test_device_requests_run_on_the_device_while_offline(tmp_path: Path, router: Any) -> None:
    with MemoryStore(tmp_path / "edge.db") as memory:
        agent = EdgeAgent(memory, router)  # no cloud
        steps = list(agent.ask("turn on the lights and set a 5 minute timer"))
        assert "pending_id" not in steps[-1].metadata
        assert memory.pending() == []
        assert (memory.get_device_state("light", None) or {})["state"] == "on"
        assert [t["seconds"] for t in memory.timers()] == [300]
        assert "Timer set for 5 minutes" in steps[-1].content


def _resolve_later(
    make_cloud: Any, links: list[CloudLink], memory: MemoryStore, router: Any, later: float,
    approve: Any = None,
) -> list[pb.ReactStep]:  # fmt: skip
    cloud = make_cloud()
    links.append(CloudLink(cloud.target, deadline_s=20, retries=0))
    clock = datetime.now(UTC) + timedelta(seconds=later)
    agent = EdgeAgent(memory, router, cloud=links[-1], now=lambda: clock)
    resolved = agent.resolve_pending(approve)
    assert len(resolved) == 1
    return resolved[0][1]


def test_a_countdown_that_ran_out_while_pending_is_not_set_again(
    make_cloud: Any, links: list[CloudLink], tmp_path: Path, router: Any
) -> None:
    with MemoryStore(tmp_path / "edge.db") as memory:
        memory.add_pending("set a timer for 5 minutes", "s1")
        asked: list[pb.ReactStep] = []
        steps = _resolve_later(make_cloud, links, memory, router, 600, asked.append)
        assert memory.timers() == []  # fired already: no new one
        assert asked == []  # nothing to confirm: nothing is set
        assert "would have gone off" in steps[-1].content
        assert "didn't set a new one" in steps[-1].content


def test_late_side_effects_are_confirmed_first_and_countdowns_keep_their_start(
    make_cloud: Any, links: list[CloudLink], tmp_path: Path, router: Any
) -> None:
    with MemoryStore(tmp_path / "edge.db") as memory:
        memory.add_pending("add a note buy milk and set a timer for 10 minutes", "s1")
        asked: list[str] = []

        def yes(step: pb.ReactStep) -> bool:
            asked.append(step.content)
            return True

        _resolve_later(make_cloud, links, memory, router, 240, yes)
        assert len(asked) == 2 and all("ago, while offline" in a for a in asked)
        assert [n["text"] for n in memory.notes()] == ["buy milk"]
        [timer] = memory.timers()
        assert 355 <= timer["seconds"] <= 361  # 10 minutes from when it was asked


def test_late_side_effects_not_confirmed_do_not_run(
    make_cloud: Any, links: list[CloudLink], tmp_path: Path, router: Any
) -> None:
    with MemoryStore(tmp_path / "edge.db") as memory:
        memory.add_pending("add a note buy milk and set a timer for 10 minutes", "s1")
        _resolve_later(make_cloud, links, memory, router, 240, lambda step: False)
        assert memory.notes() == [] and memory.timers() == []


def test_a_late_side_effect_is_confirmed_on_the_page(
    make_cloud: Any, links: list[CloudLink], tmp_path: Path, router: Any
) -> None:
    import asyncio

    from edge_agent.runtime import DeviceRuntime
    from edge_agent.ui import DeviceConsole

    cloud = make_cloud()
    links.append(CloudLink(cloud.target, deadline_s=20, retries=0))
    clock = datetime.now(UTC) + timedelta(seconds=240)
    with MemoryStore(tmp_path / "edge.db") as memory:
        memory.add_pending("add a note buy milk", "s1")
        agent = EdgeAgent(memory, router, cloud=links[-1], now=lambda: clock)
        runtime = DeviceRuntime(agent)
        heard: list[pb.DeviceEvent] = []
        runtime.hub.subscribe(heard.append)
        console = DeviceConsole(agent, runtime=runtime)

        async def main() -> int:
            resolving = asyncio.ensure_future(console.resolve_pending())
            for _ in range(400):
                if console.book.waiting():
                    break
                await asyncio.sleep(0.05)
            [(session, step)] = console.book.waiting()
            assert "while offline" in step.content
            console.approve(session.session_id, step.act_id, True)
            return await resolving

        assert asyncio.run(main()) == 1
        assert [n["text"] for n in memory.notes()] == ["buy milk"]
        kinds = [e.kind for e in heard]
        assert pb.DEVICE_EVENT_KIND_APPROVAL_WAITING in kinds  # WatchEvents heard it too
        assert kinds[-1] == pb.DEVICE_EVENT_KIND_PENDING_RESOLVED
