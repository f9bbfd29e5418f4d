"""The real edge agent against the real cloud on 127.0.0.1: split execution, an outage
before the stream, a cloud that dies mid-stream, and the pending query resolved later."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from edge_agent.agent import EdgeAgent
from edge_agent.cloud_link import CloudLink
from edgeloop.v1 import agent_pb2 as pb
from examples.demo import load_router

COMPOUND = "turn off the kitchen lights and lock the front door, then is Tokyo warmer than Seoul?"


@pytest.fixture
def router() -> Any:
    return load_router()[0]


@pytest.fixture
def link_to(make_cloud: Any) -> Iterator[Any]:
    links: list[CloudLink] = []

    def make(target: str) -> CloudLink:
        link = CloudLink(target, deadline_s=5, retries=1, backoff_s=0.01, device_id="phone")
        links.append(link)
        return link

    yield make
    for link in links:
        link.close()


def test_split_execution_through_the_edge_agent(
    cloud: Any, device_memory: Any, router: Any, link_to: Any
) -> None:
    agent = EdgeAgent(device_memory, router, cloud=link_to(cloud.target))
    steps = list(agent.ask(COMPOUND))
    assert steps[0].metadata["route"] == "cloud"
    device_obs = [
        s for s in steps if s.step_type == pb.STEP_TYPE_OBSERVATION and s.origin == pb.ORIGIN_EDGE
    ]
    assert [o.tool for o in device_obs] == ["device_control", "device_control"]
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert steps[-1].origin == pb.ORIGIN_CLOUD
    assert device_memory.get_device_state("light", "kitchen") is not None
    assert not device_memory.pending()


def test_outage_before_the_stream_keeps_the_query_pending(
    make_cloud: Any, device_memory: Any, router: Any, link_to: Any
) -> None:
    cloud = make_cloud()
    target = cloud.target
    cloud.stop()
    agent = EdgeAgent(device_memory, router, cloud=link_to(target))
    steps = list(agent.ask(COMPOUND))
    assert steps[-1].metadata["offline"] == "true"
    assert [p["query"] for p in device_memory.pending()] == [COMPOUND]
    # The device keeps answering what it can.
    local = list(agent.ask("what's 2 + 2"))
    assert local[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert all(s.origin == pb.ORIGIN_EDGE for s in local)


def test_cloud_dying_mid_stream_leaves_a_clear_state(
    make_cloud: Any, device_memory: Any, router: Any, link_to: Any
) -> None:
    cloud = make_cloud()
    agent = EdgeAgent(device_memory, router, cloud=link_to(cloud.target))
    run_here = agent.run_device_tool

    def run_then_die(action: pb.ReactStep, session_id: str = "") -> pb.ReactStep:
        observation = run_here(action, session_id)
        cloud.stop(grace=0)
        return observation

    agent.run_device_tool = run_then_die  # type: ignore[method-assign]
    steps = list(agent.ask(COMPOUND))
    assert steps[-1].metadata["offline"] == "true"
    assert len(device_memory.pending()) == 1
    # The device action that ran before the outage is kept, and it ran exactly once.
    assert device_memory.get_device_state("light", "kitchen") is not None


def test_pending_query_resolved_on_reconnect(
    make_cloud: Any, device_memory: Any, router: Any, link_to: Any
) -> None:
    from cloud_agent.config import CloudConfig

    first = make_cloud()
    port = first.port
    first.stop()
    link = link_to(f"127.0.0.1:{port}")
    agent = EdgeAgent(device_memory, router, cloud=link)
    list(agent.ask(COMPOUND))
    assert not link.healthy(timeout_s=0.2)
    assert agent.resolve_pending() == []  # still offline: the query stays pending
    assert [p["query"] for p in device_memory.pending()] == [COMPOUND]
    make_cloud(CloudConfig(port=port))
    assert link.healthy()
    resolved = agent.resolve_pending()
    assert [pending["query"] for pending, _ in resolved] == [COMPOUND]
    steps = resolved[0][1]
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert steps[-1].origin == pb.ORIGIN_CLOUD
    assert not device_memory.pending()
    answered = device_memory.get_record("pending", resolved[0][0]["pending_id"])
    assert answered is not None and answered["answer"] == steps[-1].content
