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
        # A fan's or a heater's run is its being on, for as long as said.
        ("run the fan for 45 minutes and set the thermostat to 19",
         [("device_control", {"device": "fan", "action": "on", "for": 2700}),
          ("device_control", {"device": "thermostat", "action": "set", "value": 19})]),
        ("get the heater going and lock the door",
         [("device_control", {"device": "heater", "action": "on"}),
          ("device_control", {"device": "door_lock", "action": "lock"})]),
        # A part whose words alone set a timer is a timer of its own; one duration in two
        # units is one timer.
        ("timer for two and a half minutes and another for forty five seconds",
         [("set_timer", {"seconds": 150}), ("set_timer", {"seconds": 45})]),
        ("set a timer for 5 minutes and 30 seconds", [("set_timer", {"seconds": 330})]),
        ("what lists do i have and what time is it in tokyo",
         [("search_notes", {"lists": True}), ("world_clock", {"city": "tokyo"})]),
        # The reads the model finds are requests of their own, never small talk.
        ("is it snowing in oslo? and is the garage light on",
         [("get_weather", {"city": "oslo", "day": "today"}),
          ("device_status", {"device": "light", "room": "garage"})]),
        ("what timers are running and how hot is it in rome",
         [("list_timers", {}), ("get_weather", {"city": "rome", "day": "today"})]),
        # Rooms listed before their device are each a command of it.
        ("turn off the kitchen and hallway lights",
         [("device_control", {"device": "light", "action": "off", "room": "kitchen"}),
          ("device_control", {"device": "light", "action": "off", "room": "hallway"})]),
        # A tool's name, then its arguments, is one request.
        ("timer: 7 minutes. note: the oven is on",
         [("set_timer", {"seconds": 420}), ("add_note", {"text": "the oven is on"})]),
        ("add two notes: ring the dentist, and pick up the dry cleaning",
         [("add_note", {"text": "ring the dentist"}),
          ("add_note", {"text": "pick up the dry cleaning"})]),
        # "it" after a question is the device asked about; a command on a condition is
        # no command now.
        ("is the fan on? turn it off",
         [("device_status", {"device": "fan"}),
          ("device_control", {"device": "fan", "action": "off"})]),
        ("is the fan on? if so turn it off", []),
        ("is the heater on? if not, switch it on", []),
    ],
)  # fmt: skip
def test_the_model_parse_plans_them(router: Any, query: str, calls: list[Any]) -> None:
    plan = make_plan(query, router=router)
    assert [(c.tool, c.args) for c in plan.calls] == calls, plan.refusal


def test_a_unit_said_once_serves_the_durations_after_it(router: Any) -> None:
    for query in (
        "a timer for 6 minutes for the eggs and 9 for the toast",
        "two timers: 6 minutes for the eggs and 9 for the toast",
    ):
        for split in (True, False):
            plan = make_plan(query, router=router, split_with_model=split)
            assert [c.args["seconds"] for c in plan.calls] == [360, 540], (query, plan.refusal)
    # A number with a unit of its own, or a step on a number, takes no unit.
    plan = make_plan("set a timer for 5 minutes and another one for 2 hours", router=router)
    assert [c.args["seconds"] for c in plan.calls] == [300, 7200]


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
