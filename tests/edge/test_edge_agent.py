"""EdgeAgent: the step stream, approvals, memory effects, the cloud hand-off and offline."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest

from edge_agent.agent import EdgeAgent
from edge_agent.device_actions import DeviceOutcome
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import verify_receipt
from react_kernel.steps import from_struct, step_to_json, to_struct
from sync.store import MemoryStore
from understanding.router import Router

T, A, OB, F, AR = (
    pb.STEP_TYPE_THOUGHT,
    pb.STEP_TYPE_ACTION,
    pb.STEP_TYPE_OBSERVATION,
    pb.STEP_TYPE_FINAL_ANSWER,
    pb.STEP_TYPE_APPROVAL_REQUEST,
)


@pytest.fixture
def agent(memory: MemoryStore, stub_router: Router, fixed_now: datetime) -> EdgeAgent:
    return EdgeAgent(memory, stub_router, now=lambda: fixed_now)


def kinds(steps: list[pb.ReactStep]) -> list[int]:
    return [s.step_type for s in steps]


def test_simple_query_streams_the_react_steps(agent: EdgeAgent, memory: MemoryStore) -> None:
    steps = list(agent.ask("what's the weather in Paris tomorrow"))
    assert kinds(steps) == [T, A, OB, F]
    thought, action, observation, final = steps
    assert thought.metadata["route"] == "edge"
    assert float(thought.metadata["confidence"]) == pytest.approx(0.95)
    assert action.tool == "get_weather"
    assert from_struct(action.arguments) == {"city": "paris", "day": "tomorrow"}
    assert observation.status == pb.OBSERVATION_STATUS_OK
    assert observation.act_id == action.act_id
    assert final.content.startswith("Tomorrow it'll be ") and "in Paris" in final.content
    assert all(s.session_id == final.session_id and s.origin == pb.ORIGIN_EDGE for s in steps)
    assert [s.step_index for s in steps] == sorted(s.step_index for s in steps)
    assert '"stepType":"STEP_TYPE_FINAL_ANSWER"' in step_to_json(final)
    stored = memory.steps(final.session_id)
    assert kinds(stored) == [T, A, OB, F]
    receipt = memory.get_receipt(final.receipt_id)
    assert receipt is not None and verify_receipt(receipt, stored) == []


def test_tools_change_memory(agent: EdgeAgent, memory: MemoryStore) -> None:
    final = list(agent.ask("add a note: buy oat milk"))[-1]
    assert final.content == "Noted: “buy oat milk”."
    assert [n["text"] for n in memory.notes()] == ["buy oat milk"]
    final = list(agent.ask("find my notes about oat milk"))[-1]
    assert "buy oat milk" in final.content
    list(agent.ask("set a timer for an hour and a half"))
    assert [t["seconds"] for t in memory.timers()] == [5400]
    final = list(agent.ask("switch the lamp off in the lounge"))[-1]
    assert final.content == "Done: the living room light is off."
    assert memory.get_device_state("light", "living room")["state"] == "off"


def test_smalltalk_has_no_tool(agent: EdgeAgent) -> None:
    steps = list(agent.ask("hello"))
    assert kinds(steps) == [T, F]
    assert "Hi" in steps[-1].content


def test_unlocking_waits_for_approval(agent: EdgeAgent, memory: MemoryStore) -> None:
    steps = list(agent.ask("unlock the front door"))
    assert kinds(steps) == [T, A, AR]
    request = steps[-1]
    assert request.requires_approval
    assert memory.get_device_state("door_lock", None) is None
    after = agent.approve(request.session_id, request.act_id, True, "it's me")
    assert kinds(after) == [OB, F]
    assert memory.get_device_state("door_lock", None)["state"] == "unlocked"


def test_denied_unlock_does_nothing(agent: EdgeAgent, memory: MemoryStore) -> None:
    request = list(agent.ask("unlock the front door"))[-1]
    after = agent.approve(request.session_id, request.act_id, False, "not now")
    assert after[-1].step_type == F
    assert "nobody approved unlocking it" in after[-1].content
    assert memory.get_device_state("door_lock", None) is None


def test_offline_cloud_query_is_pending(agent: EdgeAgent, memory: MemoryStore) -> None:
    steps = list(agent.ask("write a poem about rain"))
    assert kinds(steps) == [T, F]
    assert steps[0].metadata["route"] == "cloud"
    assert "cloud isn't reachable" in steps[-1].content
    pending = memory.pending()
    assert [p["query"] for p in pending] == ["write a poem about rain"]
    assert steps[-1].metadata["pending_id"] == pending[0]["pending_id"]


class FakeCloud:
    """Plans like the cloud would: asks the device for a tool, then answers."""

    def __init__(self, action: pb.ReactStep | None = None, fail: bool = False) -> None:
        self.action = action
        self.fail = fail
        self.observations: list[pb.ReactStep] = []
        self.last_receipt: pb.DecisionReceipt | None = None

    def run(
        self,
        query: str,
        *,
        session_id: str,
        trace_id: str,
        history: Any = (),
        run_device_tool: Callable[[pb.ReactStep], DeviceOutcome],
        turn_id: int = 0,
    ) -> Iterator[pb.ReactStep]:
        if self.fail:
            from edge_agent.cloud_link import CloudUnavailableError

            raise CloudUnavailableError("down")
        yield pb.ReactStep(step_type=T, content="plan", origin=pb.ORIGIN_CLOUD)
        if self.action is not None:
            yield self.action
            outcome = run_device_tool(self.action)
            assert isinstance(outcome, pb.ReactStep)  # (no approval asked here)
            self.observations.append(outcome)
            yield outcome
        yield pb.ReactStep(step_type=F, content="cloud answer", origin=pb.ORIGIN_CLOUD)


def test_cloud_runs_device_tools_here(memory: MemoryStore, stub_router: Router) -> None:
    action = pb.ReactStep(
        step_type=A,
        act_id="a1",
        tool="device_control",
        arguments=to_struct({"device": "light", "action": "on", "room": "kitchen"}),
        origin=pb.ORIGIN_CLOUD,
        executor=pb.ORIGIN_EDGE,
    )
    cloud = FakeCloud(action)
    agent = EdgeAgent(memory, stub_router, cloud)
    steps = list(agent.ask("write a poem about rain"))
    assert kinds(steps) == [T, T, A, OB, F]
    assert steps[-1].content == "cloud answer"
    assert cloud.observations[0].status == pb.OBSERVATION_STATUS_OK
    assert memory.get_device_state("light", "kitchen")["state"] == "on"
    assert memory.pending() == []


def test_cloud_cannot_unlock_without_a_human(memory: MemoryStore, stub_router: Router) -> None:
    agent = EdgeAgent(memory, stub_router)
    action = pb.ReactStep(
        step_type=A,
        act_id="a2",
        tool="device_control",
        arguments=to_struct({"device": "door_lock", "action": "unlock"}),
    )
    steps = agent.run_device_tool(action, "s1")  # the device asks its person first
    assert not isinstance(steps, pb.ReactStep)
    request = next(steps)
    assert request.step_type == pb.STEP_TYPE_APPROVAL_REQUEST and request.act_id == "a2"
    assert agent.awaiting_cloud_approval("s1", "a2")
    agent.approval_timeout_s = 0.0  # and no one answers
    observation = next(steps)
    assert observation.status == pb.OBSERVATION_STATUS_REJECTED
    assert not agent.awaiting_cloud_approval("s1", "a2")
    assert memory.get_device_state("door_lock") is None
    unknown = agent.run_device_tool(pb.ReactStep(step_type=A, act_id="a3", tool="nope"), "s1")
    assert isinstance(unknown, pb.ReactStep)
    assert unknown.status == pb.OBSERVATION_STATUS_ERROR


def test_a_person_approves_a_cloud_action_in_the_one_call(
    memory: MemoryStore, stub_router: Router
) -> None:
    """The runner's one call gives the request, the reader decides, the action runs."""
    agent = EdgeAgent(memory, stub_router)
    action = pb.ReactStep(
        step_type=A,
        act_id="a4",
        tool="device_control",
        arguments=to_struct({"device": "door_lock", "action": "unlock"}),
    )
    steps = agent.run_device_tool(action, "s2")
    assert not isinstance(steps, pb.ReactStep)
    request = next(steps)
    assert agent.approve(request.session_id, request.act_id, True, "it's me") == []
    observation = next(steps)
    assert observation.status == pb.OBSERVATION_STATUS_OK
    assert memory.get_device_state("door_lock")["state"] == "unlocked"


def test_unreachable_cloud_falls_back_to_pending(memory: MemoryStore, stub_router: Router) -> None:
    agent = EdgeAgent(memory, stub_router, FakeCloud(fail=True))
    steps = list(agent.ask("what is the capital of peru"))
    assert steps[-1].metadata["offline"] == "true"
    assert len(memory.pending()) == 1


def test_empty_query_is_rejected(agent: EdgeAgent) -> None:
    with pytest.raises(ValueError, match="empty"):
        list(agent.ask("  "))
