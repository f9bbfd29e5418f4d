"""Serialising sessions and resuming them; session stores."""

from __future__ import annotations

import json
from typing import Any

import pytest

from react_kernel import InMemorySessionStore, ResumeError, Session, State


def test_round_trip_mid_approval(make_loop: Any) -> None:
    loop = make_loop(
        [
            'Thought: t\nAction: device_control\nAction Input: {"device": "fan", "action": "on"}',
            "Final Answer: on",
        ]
    )
    session = loop.start("fan on")
    list(session.run())
    text = session.to_json()
    restored = Session.from_json(text, loop)
    assert restored.state is State.AWAITING_APPROVAL
    assert restored.steps == session.steps
    assert restored.transitions == session.transitions
    assert restored.pending_act_id == session.pending_act_id
    assert json.loads(restored.to_json())["steps"] == json.loads(text)["steps"]


def test_unsent_steps_are_yielded_after_resume(make_loop: Any) -> None:
    loop = make_loop(['Action: device_control\nAction Input: {"device": "fan", "action": "on"}'])
    session = loop.start("fan on")
    act_id = list(session.run())[-1].act_id
    session.deny(act_id, "no")
    restored = Session.from_json(session.to_json(), loop)
    first = next(iter(restored.run()))
    assert first.content == "denied by the user: no"


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"version": 99}',
        '{"version": 1}',
        '{"version": 1, "session_id": "s", "trace_id": "t", "query": "q", "turn_id": 0,'
        ' "state": "bogus", "steps": [], "transitions": [], "tool_calls": {},'
        ' "action_counts": {}}',
        '{"version": 1, "session_id": "s", "trace_id": "t", "query": "q", "turn_id": 0,'
        ' "state": "acting", "steps": [], "transitions": [], "tool_calls": {},'
        ' "action_counts": {}, "pending_act_id": "x"}',
    ],
)
def test_bad_serialised_sessions(make_loop: Any, text: str) -> None:
    with pytest.raises(ResumeError):
        Session.from_json(text, make_loop([]))


def test_session_store_saves_at_pauses_and_end(make_loop: Any) -> None:
    store = InMemorySessionStore()
    loop = make_loop(
        [
            'Action: device_control\nAction Input: {"device": "tv", "action": "off"}',
            "Final Answer: off",
        ],
        session_store=store,
    )
    session = loop.start("tv off", session_id="abc")
    list(session.run())
    assert json.loads(store.sessions["abc"])["state"] == "awaiting_approval"
    resumed = loop.resume("abc")
    assert resumed.pending_act_id is not None
    resumed.approve(resumed.pending_act_id)
    list(resumed.run())
    assert json.loads(store.sessions["abc"])["state"] == "finished"
    assert [s.step_index for s in store.steps["abc"]] == list(range(len(resumed.steps)))
    with pytest.raises(ResumeError):
        loop.resume("missing")


def test_resume_with_a_loop_that_lacks_the_tool(make_loop: Any) -> None:
    from react_kernel import AgentLoop, ScriptedReasoner, ToolRegistry

    loop = make_loop(['Action: device_control\nAction Input: {"device": "fan", "action": "on"}'])
    session = loop.start("fan on")
    act_id = list(session.run())[-1].act_id
    session.approve(act_id)
    bare = AgentLoop(ScriptedReasoner(["Final Answer: could not"]), ToolRegistry())
    resumed = Session.from_json(session.to_json(), bare)
    steps = list(resumed.run())
    assert steps[0].status == 2 and "not available" in steps[0].content  # ERROR
    assert steps[-1].content == "could not"
