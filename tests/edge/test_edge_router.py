"""The router's gates (with a stub intent model) and the structural checks."""

from __future__ import annotations

import pytest

from understanding.router import Router
from understanding.structure import compound_reason, second_request


@pytest.mark.parametrize(
    ("text", "intent", "compound"),
    [
        ("turn off the lights and lock the front door", "device_control", True),
        ("set a timer for 10 minutes and then add a note to check the oven", "set_timer", True),
        ("check the weather in london, then set a timer for 5 minutes", "get_weather", True),
        ("what's 15% of 80 and convert it to kg", "calculator", True),
        ("add a note: buy milk and eggs", "add_note", False),
        ("what is 5 and 7", "calculator", False),
        ("an hour and a half timer", "set_timer", False),
        ("I'm cooking dinner tonight and set a timer for 20 minutes", "set_timer", False),
        ("hey, what's the weather in paris", "get_weather", False),
    ],
)
def test_second_request(text: str, intent: str, compound: bool) -> None:
    assert second_request(text, intent) is compound


@pytest.mark.parametrize(
    ("text", "intent", "cloud"),
    [
        ("is it colder in Moscow than in Stockholm", "get_weather", True),
        # Weather gear on a forecast day is a lookup (issue 12); a trip is the cloud's.
        ("should I bring an umbrella for my trip to Paris tomorrow", "get_weather", True),
        ("should I bring an umbrella in Paris tomorrow", "get_weather", False),
        ("what's the time difference between London and Tokyo", "world_clock", True),
        ("what's the population of Mumbai", "get_weather", True),
        ("weather in Rome tomorrow", "get_weather", False),
        ("what time is it in Seoul", "world_clock", False),
    ],
)
def test_compound_reason(text: str, intent: str, cloud: bool) -> None:
    assert (compound_reason(text, intent) is not None) is cloud


def test_edge_decision_carries_tool_and_arguments(stub_router: Router) -> None:
    decision = stub_router.decide("convert 5 kg to lb")
    assert decision.route == "edge"
    assert decision.tool == "unit_convert"
    assert decision.arguments == {"value": 5, "from_unit": "kg", "to_unit": "lb"}
    assert decision.confidence == pytest.approx(0.95)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("write a poem about rain", "scope"),
        ("unsure 2 + 2", "low confidence"),
        ("weather in Paris and Berlin", "compound"),
        ("weather in Paris next week", "cannot fill"),
        ("turn off the light and lock the door", "compound"),
        ("weather in Narnia", "cannot fill"),
        ("   ", "empty"),
    ],
)
def test_cloud_gates(stub_router: Router, text: str, reason: str) -> None:
    decision = stub_router.decide(text)
    assert decision.route == "cloud"
    assert decision.tool is None and decision.arguments is None
    assert reason in decision.reason


def test_smalltalk_stays_on_device(stub_router: Router) -> None:
    decision = stub_router.decide("hello there")
    assert (decision.route, decision.tool, decision.arguments) == ("edge", None, None)


def test_decide_is_pure(stub_router: Router) -> None:
    first = stub_router.decide("set a timer for an hour and a half")
    second = stub_router.decide("set a timer for an hour and a half")
    assert first == second
    assert first.to_dict()["arguments"] == {"seconds": 5400}
