"""Kinds of misplanning found by the eighth own compound set (examples/compound_own_25h
.jsonl, written before any change for it): timers' names said after their durations
dropped, a stated-sum shape read out of "what is 30% of 150", a reading the model's split
left out beside a side effect, and a comparison with "here" answered with its other side
alone (issue 25)."""

from __future__ import annotations

from typing import Any

import pytest

from cloud_agent.planner.plan import make_plan
from understanding.settings import Settings
from understanding.tools.calculator import evaluate

LONDON = Settings(home_city="london")


def plan_of(router: Any, words: str, *, model: bool = True, home: Any = None) -> Any:
    return make_plan(words, router=router, split_with_model=model, home=home)


def calls(router: Any, words: str, **kw: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(c.tool, c.args) for c in plan_of(router, words, **kw).calls]


@pytest.mark.parametrize(
    ("words", "labels"),
    [
        ("timer 5 min for the tea and 12 min for the eggs pls", ["tea", "eggs"]),
        ("timers: pasta 11 minutes, sauce 20 minutes", ["pasta", "sauce"]),
        ("set a 30 minute timer for bedtime", ["bedtime"]),
        ("set a timer for twenty minutes for bedtime", ["bedtime"]),
    ],
)
def test_every_timer_keeps_the_name_said_with_it(
    planner_router: Any, words: str, labels: list[str]
) -> None:
    planned = calls(planner_router, words)
    assert [args.get("label") for tool, args in planned if tool == "set_timer"] == labels


@pytest.mark.parametrize("model", [True, False])
def test_a_percentage_of_a_number_is_that_percentage(planner_router: Any, model: bool) -> None:
    words = "send a whatsapp to dave saying happy birthday and whats 30% of 150"
    planned = calls(planner_router, words, model=model)
    assert [tool for tool, _ in planned] == ["calculator"]
    assert evaluate(str(planned[0][1]["expression"])) == pytest.approx(45)


@pytest.mark.parametrize("model", [True, False])
def test_a_reading_left_out_beside_a_side_effect_runs_nothing(
    planner_router: Any, model: bool
) -> None:
    plan = plan_of(
        planner_router,
        "convert 100 dollars to euros and add exchange money to my to do list",
        model=model,
    )
    assert plan.calls == [] and plan.refusal
    assert "convert 100 dollars to euros" in plan.refusal


@pytest.mark.parametrize(
    "words",
    [
        "hey so is it gonna be warmer here or in chicago on friday",
        "is it colder here than in reykjavik today?",
        "what's the weather in dublin on tuesday, and will it be warmer here that day?",
        "weather in paris and the time here",
    ],
)
def test_here_with_no_home_city_is_declined_not_read_as_another_place(
    planner_router: Any, words: str
) -> None:
    plan = plan_of(planner_router, words)
    assert plan.calls == [] and "here" in str(plan.refusal)


def test_here_with_a_home_city_is_the_home_on_the_other_sides_day(planner_router: Any) -> None:
    words = "what's the weather in dublin on tuesday, and will it be warmer here that day?"
    plan = plan_of(planner_router, words, home=LONDON)
    assert [(c.tool, c.args) for c in plan.calls] == [
        ("get_weather", {"city": "dublin", "day": "tuesday"}),
        ("get_weather", {"city": "london", "day": "tuesday"}),
    ]
    assert plan.compare == "warmer"


def test_here_in_a_named_city_is_that_city(planner_router: Any) -> None:
    plan = plan_of(planner_router, "Will tomorrow be any cooler than today here in Madrid?")
    assert {c.args.get("city") for c in plan.calls} == {"madrid"}


def test_the_same_device_command_twice_fails_the_plan_check() -> None:
    from cloud_agent.planner.plan_check import check_plan

    hall = ("device_control", {"device": "light", "action": "on", "room": "hallway"})
    words = "turn on the lights in the dinning room and the hall"
    assert not check_plan(words, [hall, hall]).ok
    up = ("device_control", {"device": "speaker", "action": "volume_up"})
    assert check_plan("turn it up, and up again", [up, up]).ok


@pytest.mark.parametrize("model", [True, False])
def test_a_misspelt_room_is_read_as_the_room(planner_router: Any, model: bool) -> None:
    planned = calls(
        planner_router, "turn on the lights in the dinning room and the hall", model=model
    )
    assert [args["room"] for _, args in planned] == ["dining room", "hallway"]
