"""The cloud planner plans the everyday requests the device tools serve (issue 12): a
span of the forecast's week, a brightness or volume step with no value, the lists when
none is named, in compound queries too, with the model's parse and with the clause rules."""

from __future__ import annotations

from typing import Any

import pytest

from cloud_agent.planner.plan import make_plan
from examples.demo import load_router


@pytest.fixture(scope="module")
def router() -> Any:
    return load_router()[0]


@pytest.mark.parametrize(
    ("query", "calls"),
    [
        ("will it rain in lisbon this week and set an alarm for six",
         [("get_weather", {"city": "lisbon", "day": "week"}), ("set_timer", {"at": "06:00"})]),
        ("is it warmer in paris or rome this weekend",
         [("get_weather", {"city": "paris", "day": "weekend"}),
          ("get_weather", {"city": "rome", "day": "weekend"})]),
        # "it" is no speaker the words name: the plan check declines the whole plan
        # rather than turn up a device nobody mentioned (issue 25).
        ("dim the kitchen lights and turn it up", []),
        ("what lists do i have and what time is it in tokyo",
         [("search_notes", {"lists": True}), ("world_clock", {"city": "tokyo"})]),
    ],
)  # fmt: skip
def test_the_model_parse_plans_them(router: Any, query: str, calls: list[Any]) -> None:
    plan = make_plan(query, router=router)
    assert [(c.tool, c.args) for c in plan.calls] == calls, plan.refusal


@pytest.mark.parametrize(
    ("query", "calls"),
    [
        ("dim the lights in the kitchen and set a timer for 5 minutes",
         [("device_control", {"device": "light", "action": "brightness_down", "room": "kitchen"}),
          ("set_timer", {"seconds": 300})]),
        ("turn the lights up in the bedroom then lock the door",
         [("device_control", {"device": "light", "action": "brightness_up", "room": "bedroom"}),
          ("device_control", {"device": "door_lock", "action": "lock"})]),
        ("dim the lights to 30",
         [("device_control", {"device": "light", "action": "set", "value": 30})]),
        ("weather in oslo for the next few days",
         [("get_weather", {"city": "oslo", "day": "next_days"})]),
    ],
)  # fmt: skip
def test_the_clause_rules_plan_them(query: str, calls: list[Any]) -> None:
    plan = make_plan(query, split_with_model=False)
    assert [(c.tool, c.args) for c in plan.calls] == calls, plan.refusal


def test_a_span_beyond_the_week_is_declined_by_name(router: Any) -> None:
    for query, named in [
        ("will it rain in lisbon next weekend", "next weekend"),
        ("weather in oslo in two weeks", "in 2 weeks"),
    ]:
        plan = make_plan(query, router=router)
        assert plan.calls == [] and plan.refusal_kind == "unserved_day"
        assert f"a forecast for {named}:" in (plan.refusal or "")
