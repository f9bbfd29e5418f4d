"""Answers read as sentences on both sides: durations in words, clock times in the home
zone, no Python reprs, and a date asked about is counted in days from today."""

from __future__ import annotations

import json
from pathlib import Path

from cloud_agent.planner.answer import describe_call, render
from cloud_agent.planner.calls import PlannedCall
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import to_struct
from understanding.answers import tool_answer


def test_the_clouds_timer_answer_is_the_devices_sentence() -> None:
    action = pb.ReactStep(step_type=pb.STEP_TYPE_ACTION, tool="set_timer")
    action.arguments.CopyFrom(to_struct({"seconds": 1200}))
    output = {
        "timer_id": "t1",
        "fires_at": "2026-12-02T07:38:01+01:00",
        "seconds": 1200,
        "timezone": "Europe/Paris",
    }
    observation = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION, status=pb.OBSERVATION_STATUS_OK)
    observation.observation.CopyFrom(to_struct(output))
    said = render(action, observation)
    assert said == tool_answer("set_timer", {"seconds": 1200}, output)
    assert said == "Timer set for 20 minutes (it goes off at 07:38, Europe/Paris)."
    assert " s " not in describe_call(PlannedCall("set_timer", {"seconds": 1200}))
    assert "20 minutes" in describe_call(PlannedCall("set_timer", {"seconds": 1200}))


def test_a_device_observation_for_the_cloud_is_json_not_a_repr(tmp_path: Path) -> None:
    from edge_agent.agent import EdgeAgent
    from sync.store import MemoryStore
    from understanding.router import Router

    with MemoryStore(tmp_path / "edge.db") as store:
        agent = EdgeAgent(store, Router.load())
        action = pb.ReactStep(step_type=pb.STEP_TYPE_ACTION, tool="device_control", act_id="a1")
        action.arguments.CopyFrom(to_struct({"device": "light", "action": "on"}))
        observation = agent.run_device_tool(action, "s1")
    assert observation.status == pb.OBSERVATION_STATUS_OK
    assert json.loads(observation.content)["device"] == "light"
    assert "None" not in observation.content and "'" not in observation.content


def test_a_date_asked_about_is_counted_in_days() -> None:
    output = {
        "city": "london",
        "time": "10:00",
        "timezone": "Europe/London",
        "date": "2026-12-02",
        "weekday": "wednesday",
        "asked_date": "2026-12-25",
        "asked_weekday": "friday",
    }
    said = tool_answer("world_clock", {"city": "london", "date": "2026-12-25"}, output)
    assert said.startswith("December 25, 2026 is a Friday, 23 days from today")
