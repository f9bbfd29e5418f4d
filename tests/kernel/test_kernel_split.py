"""Split execution: an ACTION for the other side pauses until its observation comes back."""

from __future__ import annotations

from typing import Any

import pytest

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import SessionError, State, UnknownActError, from_struct

SEARCH = 'Action: web_search\nAction Input: {"query": "edgeloop"}'


def observation(act_id: str, hits: Any) -> pb.ReactStep:
    step = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION, act_id=act_id)
    step.observation.update({"hits": hits})
    return step


def test_awaiting_observation_then_provided(make_loop: Any) -> None:
    session = make_loop([SEARCH, "Final Answer: 3 hits"]).start("search")
    steps = list(session.run())
    action = steps[-1]
    assert action.step_type == pb.STEP_TYPE_ACTION and action.executor == pb.ORIGIN_CLOUD
    assert session.state is State.AWAITING_OBSERVATION
    with pytest.raises(SessionError):
        list(session.run())
    with pytest.raises(UnknownActError):
        session.provide_observation(observation("other", 3))
    session.provide_observation(observation(action.act_id, 3))
    rest = list(session.run())
    obs = rest[0]
    assert obs.status == pb.OBSERVATION_STATUS_OK and obs.origin == pb.ORIGIN_CLOUD
    assert from_struct(obs.observation) == {"hits": 3} and obs.tool == "web_search"
    assert rest[-1].content == "3 hits"
    assert session.tool_calls == {"web_search": 1}


def test_provided_observation_is_schema_checked(make_loop: Any) -> None:
    session = make_loop([SEARCH, "Final Answer: ?"]).start("search")
    act_id = list(session.run())[-1].act_id
    session.provide_observation(observation(act_id, "many"))
    obs = session.run_to_end()[0]
    assert obs.status == pb.OBSERVATION_STATUS_ERROR and "schema" in obs.content


def test_cloud_loop_pauses_for_device_tools(make_loop: Any) -> None:
    loop = make_loop(
        ['Action: calculator\nAction Input: {"expression": "1+1"}', SEARCH, "Final Answer: x"],
        origin=pb.ORIGIN_CLOUD,
    )
    session = loop.start("q")
    steps = list(session.run())
    assert steps[-1].tool == "calculator" and steps[-1].executor == pb.ORIGIN_EDGE
    assert all(s.origin == pb.ORIGIN_CLOUD for s in steps)
    assert session.state is State.AWAITING_OBSERVATION
    reply = pb.ReactStep(
        step_type=pb.STEP_TYPE_OBSERVATION, act_id=steps[-1].act_id, origin=pb.ORIGIN_EDGE
    )
    reply.observation.update({"value": 2})
    session.provide_observation(reply)
    rest = list(session.run())
    assert rest[0].origin == pb.ORIGIN_EDGE
    assert rest[1].tool == "web_search"  # a cloud tool, run here (web_search has no func)
