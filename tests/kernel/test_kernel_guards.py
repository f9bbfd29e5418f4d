"""Guards end the loop with a best-effort FINAL_ANSWER, each with its own stop reason."""

from __future__ import annotations

import itertools
from typing import Any

from kernel_helpers import Calls

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import GuardConfig, ToolRegistry, ToolSpec, best_effort_answer, jaccard


def weather(city: str) -> str:
    return f'Action: get_weather\nAction Input: {{"city": "{city}"}}'


def final_of(loop: Any, query: str = "weather in paris and oslo") -> pb.ReactStep:
    steps: list[pb.ReactStep] = list(loop.start(query).run())
    final = steps[-1]
    assert final.step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert final.metadata["best_effort"] == "true" and final.receipt_id
    return final


def test_max_steps(make_loop: Any) -> None:
    replies = [
        weather("paris"),
        weather("oslo"),
        *[f"Action: calculator\nAction Input: {i}+1" for i in range(10)],
    ]
    final = final_of(make_loop(replies, guards=GuardConfig(max_steps=3)))
    assert final.stop_reason == pb.STOP_REASON_MAX_STEPS
    assert "maximum number of steps" in final.content
    assert "get_weather" in final.content and "21" in final.content  # key facts quoted


def test_repeated_action(make_loop: Any, calls: Calls) -> None:
    final = final_of(make_loop([weather("paris"), weather("paris"), "Final Answer: never"]))
    assert final.stop_reason == pb.STOP_REASON_REPEATED_ACTION
    assert calls.count("get_weather") == 1
    assert "21" in final.content


def test_stalled_observations(make_loop: Any) -> None:
    page = " ".join(f"word{i}" for i in range(60))  # the same long page every time

    tools = ToolRegistry(
        [
            ToolSpec(
                "search",
                "Web search.",
                {"type": "object", "properties": {"query": {"type": "string"}}},
                func=lambda args: {"page": page},
            )
        ]
    )
    replies = [
        'Action: search\nAction Input: {"query": "edgeloop release date"}',
        'Action: search\nAction Input: {"query": "edgeloop release day"}',
        "Final Answer: never",
    ]
    final = final_of(make_loop(replies, tools=tools), "when is the edgeloop release")
    assert final.stop_reason == pb.STOP_REASON_STALLED
    assert "stopped telling me anything new" in final.content


def test_same_result_for_different_arguments_is_not_a_stall(make_loop: Any) -> None:
    # Two unknown cities get the same forecast: two facts, not a stall.
    loop = make_loop([weather("lyon"), weather("nice"), "Final Answer: same weather"])
    steps = list(loop.start("compare lyon and nice").run())
    assert steps[-1].stop_reason == pb.STOP_REASON_FINAL_ANSWER


def test_time_budget(make_loop: Any) -> None:
    ticks = itertools.count(step=10.0)
    loop = make_loop(
        [weather("paris"), weather("oslo"), "Final Answer: late"],
        guards=GuardConfig(time_budget_s=25),
        clock=lambda: next(ticks),
    )
    final = final_of(loop)
    assert final.stop_reason == pb.STOP_REASON_TIME_BUDGET and "ran out of time" in final.content


def test_consecutive_errors(make_loop: Any) -> None:
    final = final_of(make_loop(["Thought: hmm"] * 5, guards=GuardConfig(max_consecutive_errors=2)))
    assert final.stop_reason == pb.STOP_REASON_ERROR
    assert "did not find anything conclusive" in final.content


def test_best_effort_ranks_relevant_observations() -> None:
    def obs(tool: str, content: str) -> pb.ReactStep:
        return pb.ReactStep(
            step_type=pb.STEP_TYPE_OBSERVATION,
            tool=tool,
            content=content,
            status=pb.OBSERVATION_STATUS_OK,
        )

    history = [
        obs("calculator", '{"value": 3}'),
        obs("get_weather", '{"city": "paris", "temperature": 21}'),
        pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION, content="error: x"),
    ]
    text = best_effort_answer(
        "temperature in paris", history, pb.STOP_REASON_MAX_STEPS, max_facts=1
    )
    assert "temperature" in text and "calculator" not in text and "error" not in text


def test_jaccard() -> None:
    assert jaccard("a b c", "a b c") == 1.0
    assert jaccard("a b", "c d") == 0.0
    assert jaccard("", "") == 1.0
    assert 0.5 < jaccard("The light is on", "the light is ON now") < 1.0
