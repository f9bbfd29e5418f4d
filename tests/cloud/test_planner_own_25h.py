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


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("how many km longer is a 15 mile route than a 20 km one", 4.14016),
        ("whats the difference in centimeters between 6 feet and 180 cm", 2.88),
        ("if i buy 2 lb of flour and 500 g of sugar, how many grams is that altogether", 1407.185),
        ("i ran 5 miles this morning and 8 km this evening, how many km is that in total", 16.047),
    ],
)
def test_a_difference_or_sum_of_two_units_converts_then_computes(
    planner_router: Any, words: str, value: float
) -> None:
    from cloud_agent.evaluation import local_registry, run_query, scratch_memory
    from cloud_agent.planner.reasoner import PlannerReasoner

    assert [tool for tool, _ in calls(planner_router, words)] == ["unit_convert", "calculator"]
    with scratch_memory() as memory:
        outcome = run_query(
            PlannerReasoner(router=planner_router), local_registry(memory), words, "s"
        )
    expression = str(outcome.calls[-1][1]["expression"])
    assert evaluate(expression) == pytest.approx(value, abs=0.01)


@pytest.mark.parametrize("model", [True, False])
@pytest.mark.parametrize(
    ("words", "planned"),
    [
        (
            "are the lights on in the garage, on the porch and in the garden?",
            [
                ("device_status", {"device": "light", "room": r})
                for r in ("garage", "porch", "garden")
            ],
        ),
        (
            "convert each of these to kg: 5 lb, 12 lb and 30 lb",
            [
                ("unit_convert", {"value": v, "from_unit": "lb", "to_unit": "kg"})
                for v in (5, 12, 30)
            ],
        ),
        (
            "convert 5 lb and 2500 g both to kilograms",
            [
                ("unit_convert", {"value": 5, "from_unit": "lb", "to_unit": "kg"}),
                ("unit_convert", {"value": 2500, "from_unit": "g", "to_unit": "kg"}),
            ],
        ),
        (
            "cancel the pizza timer and the laundry timer",
            [("cancel_timer", {"label": "pizza"}), ("cancel_timer", {"label": "laundry"})],
        ),
    ],
)
def test_every_item_of_a_list_is_read_none_dropped_none_borrowed(
    planner_router: Any, model: bool, words: str, planned: list[tuple[str, dict[str, Any]]]
) -> None:
    assert calls(planner_router, words, model=model) == planned


def test_a_timer_said_after_a_cancel_with_a_verb_of_its_own_is_not_cancelled(
    planner_router: Any,
) -> None:
    planned = calls(planner_router, "cancel the pizza timer and set one for the laundry")
    assert ("cancel_timer", {"label": "laundry"}) not in planned


def test_a_city_of_everyday_words_is_read_whole_in_a_list() -> None:
    from understanding.gazetteer import find_cities

    said = "please compare tomorrow's weather in denver and salt lake city for me"
    assert [city for _, city in find_cities(said)] == ["denver", "salt lake city"]


@pytest.mark.parametrize(
    ("words", "value"),
    [
        ("i sleep 7.5 hours a night, how many hours is that in a week", 52.5),
        ("my car gets 38 miles per gallon and the trip is 420 miles, how many gallons", 420 / 38),
        ("I'm saving 350 a month toward 5000. How many months will that take", 5000 / 350),
    ],
)
def test_a_rate_over_a_span_or_an_amount_over_a_rate_is_one_calculation(
    planner_router: Any, words: str, value: float
) -> None:
    planned = calls(planner_router, words)
    assert [tool for tool, _ in planned] == ["calculator"]
    assert evaluate(str(planned[0][1]["expression"])) == pytest.approx(value)


def test_a_rate_beside_a_count_of_people_is_no_rate_shape() -> None:
    from cloud_agent.planner.rates import rate_calls

    said = "3 kids each drinking 2.5 liters of water a day, how much water for a 4 day trip"
    assert rate_calls(said) is None


@pytest.mark.parametrize("model", [True, False])
def test_a_remark_typed_without_its_apostrophe_is_still_a_remark(
    planner_router: Any, model: bool
) -> None:
    words = "ok im going to bed, turn off the tv in the living room and lock the door"
    assert calls(planner_router, words, model=model) == [
        ("device_control", {"device": "tv", "action": "off", "room": "living room"}),
        ("device_control", {"device": "door_lock", "action": "lock"}),
    ]


@pytest.mark.parametrize(
    ("words", "calls_", "ok"),
    [
        ("set an alarm for 6:15 and another for 6:30", [("set_timer", {"at": "06:15"})], False),
        (
            "set an alarm for 6:15 and another for 6:30",
            [("set_timer", {"at": "06:15"}), ("set_timer", {"at": "06:30"})],
            True,
        ),
        (
            "remind me at 6:30 pm to call mum",
            [("set_timer", {"at": "18:30", "label": "call mum"})],
            True,
        ),
        ("add a note: meeting at 6:30", [("add_note", {"text": "meeting at 6:30"})], True),
        ("timer for 1.25 hours", [("set_timer", {"seconds": 4500})], True),
    ],
)
def test_a_plan_that_drops_a_clock_time_said_fails_the_check(
    words: str, calls_: list[tuple[str, dict[str, Any]]], ok: bool
) -> None:
    from cloud_agent.planner.plan_check import check_plan

    assert check_plan(words, calls_).ok is ok


@pytest.mark.parametrize("model", [True, False])
def test_several_alarms_in_one_clause_are_several(planner_router: Any, model: bool) -> None:
    planned = calls(planner_router, "set alarms at 6, 6:15 and 6:30", model=model)
    assert planned == [("set_timer", {"at": at}) for at in ("06:00", "06:15", "06:30")]


def test_a_clock_time_alone_after_a_reminder_is_the_reminder_again(planner_router: Any) -> None:
    planned = calls(planner_router, "remind me to take my pills at 8 am and 20:00")
    assert planned == [
        ("set_timer", {"at": "08:00", "label": "take my pills"}),
        ("set_timer", {"at": "20:00", "label": "take my pills"}),
    ]
    other = calls(planner_router, "remind me to call mum at 6 pm and set an alarm for 7 am")
    assert other[1] == ("set_timer", {"at": "07:00"})
