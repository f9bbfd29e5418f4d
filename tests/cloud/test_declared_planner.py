"""The planner with a declared tool, without a server: whatever a device proposes, a call
of a declared tool with side effects is planned only with the person's own words, and a
clause is matched by the tool's examples only when it says what they say."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cloud_agent.declared_tools import Proposal
from cloud_agent.planner.declared import fill_declared, grounded, plan_with_declared
from cloud_agent.planner.plan import make_plan
from cloud_agent.tools import cloud_registry
from react_kernel import ToolRegistry
from tests.cloud.water_plants import QUERY, SPAN, water_plants_spec
from understanding.tools.catalogue import DEVICE_TOOLS

SPEC = water_plants_spec(func=None)


def _registry() -> ToolRegistry:
    return ToolRegistry([*cloud_registry(DEVICE_TOOLS), SPEC])


REGISTRY = _registry()


def plan(query: str, proposals: list[Proposal]) -> Any:
    return plan_with_declared(query, [SPEC], proposals, REGISTRY, make_plan)


_plants = st.sampled_from(["fern", "basil", "the fern", "Fern", "oslo", "", "fern tree"])
_amounts = st.one_of(st.sampled_from([200, 100, 5000, 0]), st.integers(-5, 3000))
_spans = st.sampled_from([SPAN, "water the fern", "water the basil with 200 ml", QUERY, "ml"])


@settings(max_examples=60, deadline=None)
@given(plant=_plants, ml=_amounts, span=_spans)
def test_a_planned_watering_is_always_in_the_persons_words(plant: str, ml: int, span: str) -> None:
    proposal = Proposal("water_plants", {"plant": plant, "ml": ml}, span, 0.9)
    result = plan(QUERY, [proposal])
    assert result is not None
    for call in result.calls:
        if call.tool == "water_plants":
            assert grounded(call.args, SPAN)
            assert 1 <= call.args["ml"] <= 2000
    if result.refusal is None:
        assert [c.tool for c in result.calls] == ["water_plants", "get_weather"]


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("water the fern with 200 ml", {"plant": "fern", "ml": 200}),
        ("give the ficus 50 ml", {"plant": "ficus", "ml": 50}),
        ("water the tomatoes", None),  # no amount
        ("water the big old fern in the hall with 20 ml", None),  # two runs of words
    ],
)
def test_arguments_are_read_only_when_unambiguous(clause: str, expected: Any) -> None:
    args, missing = fill_declared(SPEC, clause)
    assert args == expected
    assert (missing == "") == (expected is not None)


@pytest.mark.parametrize(
    "query",
    ["what's the weather in Oslo", "set a timer for 5 minutes", "turn on the kitchen light"],
)
def test_other_requests_are_not_taken_for_the_declared_tool(query: str) -> None:
    assert plan(query, []) is None  # the usual plan serves
