"""The device agent of issue 28: a pure decision with the settings passed in, the decision
travelling in the session's metadata (so a paused session resumes with it, in another
agent too), the approval hand-over in one call, and the exception guard of the qualifiers."""

from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st

from edge_agent.agent import EdgeAgent
from edge_agent.approvals import Approvals
from edge_agent.reasoner import DECISION_KEY, pack_decision, unpack_decision
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import to_struct
from sync.store import MemoryStore
from understanding.arguments.qualifiers import find_qualifiers, leaves_out_no_room
from understanding.decision import RouteDecision, ToolCall
from understanding.router import Router
from understanding.settings import Settings, save_setting


def test_decide_reads_the_settings_passed_and_keeps_none(stub_router: Router) -> None:
    assert stub_router.decide("what's the weather").route == "cloud"  # no home city
    at_home = stub_router.decide("what's the weather", Settings(home_city="berlin"))
    assert at_home.route == "edge" and (at_home.arguments or {})["city"] == "berlin"
    assert not hasattr(stub_router, "home")
    assert stub_router.decide("what's the weather").route == "cloud"  # nothing was kept


def test_the_agent_never_changes_its_router(memory: MemoryStore, stub_router: Router) -> None:
    save_setting(memory, "home_city", "berlin")
    agent = EdgeAgent(memory, stub_router)
    before = dict(vars(stub_router))
    assert "Berlin" in list(agent.ask("what's the weather like"))[-1].content
    assert dict(vars(stub_router)) == before


def test_a_decision_survives_its_trip_through_the_metadata() -> None:
    decision = RouteDecision(
        "edge",
        "add_note",
        {"text": "milk", "list": "shopping"},
        0.93,
        "2 calls: add_note, add_note",
        "add_note",
        {"add_note": 0.93, "oos": 0.02},
        (ToolCall("add_note", {"text": "milk"}), ToolCall("add_note", {"text": "eggs"})),
    )
    back = unpack_decision(pack_decision(decision))
    assert back == decision and back.scores == decision.scores


def test_a_paused_session_resumes_with_its_decision_in_another_agent(
    memory: MemoryStore, stub_router: Router
) -> None:
    """The decision is in the saved session, not in the agent: a new agent (another
    process, after a restart) resumes the unlock it never decided."""
    first = EdgeAgent(memory, stub_router)
    request = list(first.ask("unlock the front door"))[-1]
    assert request.step_type == pb.STEP_TYPE_APPROVAL_REQUEST
    saved = memory.load_session(request.session_id)
    assert saved is not None and DECISION_KEY in saved
    second = EdgeAgent(memory, Router(stub_router.model, threshold=0.5))
    after = second.approve(request.session_id, request.act_id, True, "it's me")
    assert after[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert memory.get_device_state("door_lock")["state"] == "unlocked"


def test_a_decision_from_another_thread_reaches_the_waiting_action(
    memory: MemoryStore, stub_router: Router
) -> None:
    """The page or the Approve RPC decides while the stream's reader waits."""
    agent = EdgeAgent(memory, stub_router)
    action = pb.ReactStep(
        step_type=pb.STEP_TYPE_ACTION,
        act_id="a9",
        tool="device_control",
        arguments=to_struct({"device": "door_lock", "action": "unlock"}),
    )
    steps = agent.run_device_tool(action, "s9")
    assert not isinstance(steps, pb.ReactStep)
    request = next(steps)
    decider = threading.Timer(0.05, agent.approve, (request.session_id, "a9", False, "no"))
    decider.start()
    observation = next(steps)
    decider.join()
    assert observation.status == pb.OBSERVATION_STATUS_REJECTED
    assert observation.content.endswith("no")
    assert not agent.awaiting_cloud_approval(request.session_id, "a9")


@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("xy"), st.booleans())))
def test_approvals_hand_each_decision_to_its_own_action(
    decisions: list[tuple[str, str, bool]],
) -> None:
    approvals = Approvals()
    opened = {(s, a) for s, a, _ in decisions[::2]}
    for key in opened:
        approvals.open(key)
    last: dict[tuple[str, str], bool] = {}
    for session, act, approved in decisions:
        handed = approvals.decide(session, act, approved, "r")
        assert handed == ((session, act) in opened)
        if handed:
            last[(session, act)] = approved
    for key in opened:
        decision = approvals.wait(key, 0)
        assert (decision is not None) == (key in last)
        if decision is not None:
            assert decision.approved == last[key]
    for session in "abc":
        approvals.forget(session)
    assert not any(approvals.waiting(s, a) for s, a in opened)


def test_an_exception_that_leaves_out_no_room_is_the_clouds() -> None:
    light = {"device": "light", "action": "off"}
    assert not leaves_out_no_room("turn off all the lights but the kitchen", light)
    assert not leaves_out_no_room("turn on the lights but dim them", light)
    assert not leaves_out_no_room("turn off the lights", light)
    assert leaves_out_no_room("turn off everything but the TV", light)
    assert leaves_out_no_room("turn off all the lights except the lamp", light)
    # "but only after nine" is no room left out: a condition, which the policy names.
    assert not leaves_out_no_room("turn off all the lights but only after nine", light)
    said = find_qualifiers("turn off all the lights but only after nine")
    assert "condition" in [q.kind for q in said]
