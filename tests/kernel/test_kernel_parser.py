"""The tolerant parser: both forms, fallbacks, tool matching, never raising."""

from __future__ import annotations

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_helpers import obj

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import (
    ToolRegistry,
    ToolSpec,
    from_struct,
    parse_model_output,
)
from react_kernel.parser import FALLBACKS


def registry(*names: str) -> ToolRegistry:
    return ToolRegistry(
        [ToolSpec(n, "", obj({"query": {"type": "string"}}, ["query"])) for n in names]
    )


def test_action_with_thought(tools: ToolRegistry) -> None:
    result = parse_model_output(
        'Thought: add\nAction: calculator\nAction Input: {"expression": "1+2"}', tools
    )
    assert [s.step_type for s in result.steps] == [pb.STEP_TYPE_THOUGHT, pb.STEP_TYPE_ACTION]
    assert result.steps[0].content == "add"
    assert result.step.tool == "calculator"
    assert from_struct(result.step.arguments) == {"expression": "1+2"}
    assert result.fallbacks == [] and result.ok


def test_fallbacks_are_recorded_on_every_step_of_the_reply(tools: ToolRegistry) -> None:
    result = parse_model_output("Thought: sum\nAction: Calculator\nAction Input: 1+2", tools)
    assert result.fallbacks == ["tool_name_normalized", "input_single_string"]
    for step in result.steps:
        assert step.metadata["parser_fallbacks"] == "tool_name_normalized,input_single_string"
    assert set(result.fallbacks) <= set(FALLBACKS)


def test_error_step_says_what_was_wrong(tools: ToolRegistry) -> None:
    result = parse_model_output("Action: teleport\nAction Input: {}", tools)
    assert not result.ok
    assert result.step.step_type == pb.STEP_TYPE_ERROR
    assert "Unknown tool 'teleport'" in result.step.content
    assert "calculator" in result.step.content  # the available tools are listed
    assert result.step.metadata["parse_error"] == "unknown_tool"


def test_fuzzy_match_never_guesses_between_two_tools() -> None:
    tools = registry("set_timer", "get_timer", "calculator")
    assert tools.match("set_timer") == "set_timer"
    assert tools.match("SET TIMER") == "set_timer"
    assert tools.match("xet_timer") is None  # one edit from both
    assert tools.match("set_timr") is None  # best by one edit only: still a guess
    assert tools.match("calculatr") == "calculator"
    assert tools.match("cal") is None
    result = parse_model_output('Action: xet_timer\nAction Input: {"query": "x"}', tools)
    assert result.step.step_type == pb.STEP_TYPE_ERROR


def test_fuzzy_cut_off_grows_with_length() -> None:
    tools = registry("device_control", "add")
    assert tools.match("devise_contrl") == "device_control"
    assert tools.match("ad") is None
    assert tools.match("adx") is None  # short names need an exact (normalised) match


def test_action_input_fallback_order(tools: ToolRegistry) -> None:
    as_json = parse_model_output('Action: get_weather\nAction Input: {"city": "oslo"}', tools)
    as_lines = parse_model_output("Action: get_weather\nAction Input: city: oslo", tools)
    as_string = parse_model_output("Action: get_weather\nAction Input: oslo", tools)
    for result in (as_json, as_lines, as_string):
        assert from_struct(result.step.arguments) == {"city": "oslo"}
    assert "input_key_value" in as_lines.fallbacks
    assert "input_single_string" in as_string.fallbacks
    assert not as_json.fallbacks


def test_first_action_wins_and_invented_observations_are_dropped(tools: ToolRegistry) -> None:
    reply = (
        "Thought: a\nAction: calculator\nAction Input: 1+1\nObservation: 2\n"
        "Thought: b\nAction: calculator\nAction Input: 2+2\nFinal Answer: 4"
    )
    result = parse_model_output(reply, tools)
    assert from_struct(result.step.arguments) == {"expression": "1+1"}
    assert "hallucinated_observation" in result.fallbacks
    assert result.steps[0].content == "a"  # the invented later thought is dropped


def test_multi_line_final_answer_keeps_its_lines(tools: ToolRegistry) -> None:
    reply = "Thought: ok\nFinal Answer: first line\n\n```python\nprint(1)\n```\nlast line"
    result = parse_model_output(reply, tools)
    assert result.step.content == "first line\n\n```python\nprint(1)\n```\nlast line"


def test_parse_error_excerpt_is_bounded(tools: ToolRegistry) -> None:
    result = parse_model_output("Thought: " + "x" * 5000, tools)
    assert result.step.step_type == pb.STEP_TYPE_ERROR
    assert len(result.step.metadata["reply_excerpt"]) == 200


@pytest.mark.parametrize("reply", ["", " ", "\n\n", "```", "{", "}", "Action:", "Final Answer:"])
def test_degenerate_replies_give_error_steps(reply: str, tools: ToolRegistry) -> None:
    result = parse_model_output(reply, tools)
    assert result.step.step_type == pb.STEP_TYPE_ERROR


LABELS = [
    "Thought:",
    "Action:",
    "Action Input:",
    "Observation:",
    "Final Answer:",
    "**Action:**",
    "```json",
    "```",
    "<think>",
    "</think>",
    "{",
    "}",
    '{"action": "calculator", "action_input": ',
    '"expression": "1+1"',
    "calculator",
    "get_weather",
    "\n",
    "[",
    "]",
    "(",
    ")",
    "'",
    '"',
    ",",
    "key: value",
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(LABELS),
            st.text(alphabet=string.printable + "é°—🙂", max_size=30),
        ),
        max_size=25,
    )
)
def test_fuzz_never_raises_and_shapes_hold(parts: list[str]) -> None:
    from kernel_helpers import Calls, make_tools

    tools = make_tools(Calls())
    result = parse_model_output("".join(parts), tools)
    types = [s.step_type for s in result.steps]
    assert types[-1] in (pb.STEP_TYPE_ACTION, pb.STEP_TYPE_FINAL_ANSWER, pb.STEP_TYPE_ERROR)
    assert all(t == pb.STEP_TYPE_THOUGHT for t in types[:-1]) and len(types) <= 2
    step = result.step
    if step.step_type == pb.STEP_TYPE_ACTION:
        assert step.tool in tools.names()
        json.dumps(from_struct(step.arguments))
    if step.step_type == pb.STEP_TYPE_FINAL_ANSWER:
        assert step.content.strip()
    assert set(result.fallbacks) <= set(FALLBACKS)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_fuzz_arbitrary_text(text: str) -> None:
    from kernel_helpers import Calls, make_tools

    result = parse_model_output(text, make_tools(Calls()))
    assert result.steps


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8),
        st.recursive(
            st.none() | st.booleans() | st.floats(allow_nan=False) | st.text(max_size=10),
            lambda children: (
                st.lists(children, max_size=3)
                | st.dictionaries(st.text(max_size=5), children, max_size=3)
            ),
            max_leaves=8,
        ),
        max_size=5,
    )
)
def test_fuzz_json_inputs(payload: dict[str, object]) -> None:
    from kernel_helpers import Calls, make_tools

    reply = "Action: get_weather\nAction Input: " + json.dumps(payload)
    result = parse_model_output(reply, make_tools(Calls()))
    assert result.step.step_type in (pb.STEP_TYPE_ACTION, pb.STEP_TYPE_ERROR)
