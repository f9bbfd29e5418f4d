"""The loop end to end: actions, observations, final answers, errors shown to the reasoner."""

from __future__ import annotations

from typing import Any

import pytest
from kernel_helpers import Calls

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import (
    AgentLoop,
    GuardConfig,
    ReasoningContext,
    ScriptedReasoner,
    SessionError,
    State,
    ToolRegistry,
    from_struct,
)

CALC = 'Thought: add\nAction: calculator\nAction Input: {"expression": "2+2"}'


def kinds(steps: list[pb.ReactStep]) -> list[str]:
    return [pb.StepType.Name(s.step_type).removeprefix("STEP_TYPE_") for s in steps]


def test_action_observation_final(make_loop: Any, calls: Calls) -> None:
    loop = make_loop([CALC, "Final Answer: 4"])
    session = loop.start("what is 2+2?", session_id="s1", trace_id="t1")
    steps = list(session.run())
    assert kinds(steps) == ["THOUGHT", "ACTION", "OBSERVATION", "FINAL_ANSWER"]
    action, obs, final = steps[1], steps[2], steps[3]
    assert len(action.act_id) == 32 and obs.act_id == action.act_id
    assert obs.status == pb.OBSERVATION_STATUS_OK and from_struct(obs.observation) == {"value": 4}
    assert [s.step_index for s in steps] == [0, 1, 2, 3]
    assert {s.session_id for s in steps} == {"s1"} and {s.trace_id for s in steps} == {"t1"}
    assert all(s.origin == pb.ORIGIN_EDGE and s.HasField("created_at") for s in steps)
    assert final.stop_reason == pb.STOP_REASON_FINAL_ANSWER and final.model == "scripted"
    assert final.receipt_id == session.receipt.receipt_id  # type: ignore[union-attr]
    assert session.state is State.FINISHED and calls.count("calculator") == 1
    assert list(session.run()) == []  # a finished session yields nothing more


def test_errors_are_shown_to_the_reasoner_next_turn(tools: ToolRegistry) -> None:
    seen: list[str] = []

    def look(ctx: ReasoningContext) -> str:
        seen.append(ctx.history[-1].content)
        return "Final Answer: ok"

    loop = AgentLoop(ScriptedReasoner(["Action: teleport\nAction Input: {}", look]), tools)
    steps = list(loop.start("go").run())
    assert kinds(steps) == ["ERROR", "FINAL_ANSWER"]
    assert "Unknown tool 'teleport'" in seen[0]


def test_invalid_input_becomes_an_error_observation(make_loop: Any, calls: Calls) -> None:
    loop = make_loop(['Action: calculator\nAction Input: {"expr": 1}', "Final Answer: sorry"])
    steps = list(loop.start("x").run())
    obs = steps[1]
    assert obs.status == pb.OBSERVATION_STATUS_ERROR and "invalid input" in obs.content
    assert calls.count("calculator") == 0


def test_business_rule_failure_reaches_the_reasoner(make_loop: Any) -> None:
    loop = make_loop(['Action: get_weather\nAction Input: {"city": "mars"}', "Final Answer: ?"])
    obs = list(loop.start("weather on mars").run())[1]
    assert obs.status == pb.OBSERVATION_STATUS_ERROR
    assert "temperature 500 out of range" in obs.content


def test_reasoner_returning_steps_directly(make_loop: Any) -> None:
    action = pb.ReactStep(step_type=pb.STEP_TYPE_ACTION, tool="Calculator")
    action.arguments.update({"expression": "1+1"})
    final = pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content="2")
    final.token_usage.prompt_tokens = 10
    final.token_usage.completion_tokens = 2
    loop = make_loop([[action], final])
    session = loop.start("1+1")
    steps = list(session.run())
    assert steps[0].tool == "calculator"  # tolerant name matching also for direct steps
    assert session.receipt is not None and session.receipt.token_usage.prompt_tokens == 10
    assert not action.act_id  # the script's steps are copied, never mutated


def test_a_reasoner_that_raises_fails_the_session(tools: ToolRegistry) -> None:
    class Broken:
        name = "broken"

        def next_steps(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
            raise RuntimeError("backend down")

    session = AgentLoop(Broken(), tools).start("x")
    steps = list(session.run())
    assert kinds(steps) == ["ERROR"] and "backend down" in steps[0].content
    assert session.state is State.FAILED and session.stop_reason == pb.STOP_REASON_ERROR


def test_cancel_and_follow_up(make_loop: Any) -> None:
    loop = make_loop(["Final Answer: one", "Final Answer: two"])
    session = loop.start("first")
    assert list(session.run())[-1].content == "one"
    session.follow_up("second")
    steps = list(session.run())
    assert steps[-1].content == "two" and steps[-1].turn_id == 1
    assert session.query_for_turn(0) == "first"
    other = loop.start("x")
    other.cancel("user left")
    assert other.state is State.CANCELED and other.steps[-1].stop_reason == pb.STOP_REASON_CANCELED
    with pytest.raises(SessionError):
        other.follow_up("again")


def test_thought_without_action_is_an_error_then_recovers(make_loop: Any) -> None:
    only_thought = pb.ReactStep(step_type=pb.STEP_TYPE_THOUGHT, content="hmm")
    loop = make_loop([[only_thought], "Final Answer: ok"])
    steps = list(loop.start("x").run())
    assert kinds(steps) == ["THOUGHT", "ERROR", "FINAL_ANSWER"]


def test_max_calls_per_tool(make_loop: Any, tools: ToolRegistry, calls: Calls) -> None:
    spec = tools.get("calculator")
    assert spec is not None
    spec.max_calls = 1
    loop = make_loop(
        [
            'Action: calculator\nAction Input: {"expression": "1+1"}',
            'Action: calculator\nAction Input: {"expression": "2+2"}',
            "Final Answer: done",
        ]
    )
    steps = list(loop.start("x").run())
    rejected = [s for s in steps if s.status == pb.OBSERVATION_STATUS_REJECTED]
    assert len(rejected) == 1 and "limit of 1 calls" in rejected[0].content
    assert calls.count("calculator") == 1


def test_guard_config_defaults() -> None:
    config = GuardConfig()
    assert config.max_steps > 0 and config.stall_jaccard == 0.95
