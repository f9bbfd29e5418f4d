"""Kinds of misplanning found by the ninth and tenth own compound sets (examples/
compound_own_25i.jsonl and compound_own_25j.jsonl): a conversion and the arithmetic on its
result read as the conversion alone (``word_problems``); several items for one list, or an
item moved between lists, declined (``listed_items``); a room the planner's vocabulary does
not know dropped from a command (issue 25). The phrasings here are this file's own."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cloud_agent.planner.listed_items import listed_calls
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.word_problems import word_problem_calls

PREV = "{prev}"


@pytest.mark.parametrize(
    ("words", "conversion", "expression"),
    [
        (
            "i weigh 180 lb, whats that in kg, my target is 75 kg so how much is left to lose",
            (180, "lb", "kg"),
            f"abs({PREV} - 75)",
        ),
        (
            "the tank takes 4 gallons, how many litres is that, how many 2 litre jugs fill it",
            (4, "gal", "l"),
            f"{PREV} / 2",
        ),
        (
            "the sign says 50 mph, whats that in kph and how far do i get in 3 hours at that",
            (50, "mph", "kph"),
            f"{PREV} * 3",
        ),
        (
            "the flour is 2 kg, how many lb is that? it costs 1.20 per lb, what do i pay",
            (2, "kg", "lb"),
            f"{PREV} * 1.2",
        ),
        (
            "i paid 30 dollars for 4 lb of coffee, how many kg is that and the price per kilo",
            (4, "lb", "kg"),
            f"30 / {PREV}",
        ),
        ("convert 400 f to c and take 25 off that", (400, "f", "c"), f"{PREV} - 25"),
        ("how many ml is a gallon, and share that between 5 cups", (1, "gal", "ml"), f"{PREV} / 5"),
        ("whats 10 miles in km and 15 percent of that", (10, "mi", "km"), f"{PREV} * 15 / 100"),
        (
            "a lap is 400 yards, how many meters is that and how far are 12 laps",
            (400, "yd", "m"),
            f"{PREV} * 12",
        ),
        (
            "i cycle at 20 kph, whats that in mph and how many minutes does a 5 mile ride take",
            (20, "kph", "mph"),
            f"5 / {PREV} * 60",
        ),
    ],
)
def test_a_conversion_and_the_arithmetic_on_its_result(
    words: str, conversion: tuple[float, str, str], expression: str
) -> None:
    calls = word_problem_calls(words)
    assert calls is not None
    value, source, target = conversion
    assert [c.tool for c in calls] == ["unit_convert", "calculator"]
    assert calls[0].args == {"value": value, "from_unit": source, "to_unit": target}
    assert calls[1].args == {"expression": expression}


@pytest.mark.parametrize(
    "words",
    [
        "convert 5 lb and 3 kg to grams",  # two conversions, no arithmetic
        "whats 10 miles in km and set a timer for 5 minutes",  # another tool's request
        "how many kg is 12 lb and how about 20 lb",  # a second quantity to convert
        "convert 30 c to f, add 5 and split it between 2",  # two operations
        "whats 6 feet in cm",  # one request
    ],
)
def test_what_is_no_word_problem_is_left_to_the_clause_rules(words: str) -> None:
    assert word_problem_calls(words) is None


@given(
    value=st.integers(min_value=1, max_value=500),
    other=st.integers(min_value=1, max_value=99),
    pair=st.sampled_from(
        [("miles", "km"), ("pounds", "kg"), ("gallons", "liters"), ("feet", "cm")]
    ),
    said=st.sampled_from(
        [
            ("take {n} off that", "-"),
            ("add {n} to that", "+"),
            ("split that between {n}", "/"),
            ("times that by {n}", "*"),
        ]
    ),
)
def test_any_count_operation_on_a_conversion(
    value: int, other: int, pair: tuple[str, str], said: tuple[str, str]
) -> None:
    source, target = pair
    words = f"convert {value} {source} to {target} and then {said[0].format(n=other)}"
    calls = word_problem_calls(words)
    assert calls is not None and calls[0].args["value"] == value
    assert calls[1].args == {"expression": f"{PREV} {said[1]} {other}"}


def test_the_word_problem_is_the_plan(planner_router: Any) -> None:
    plan = make_plan("convert 350 f to c, then take 20 off that", router=planner_router)
    assert [c.tool for c in plan.calls] == ["unit_convert", "calculator"]


@pytest.mark.parametrize(
    ("words", "tool", "items", "name"),
    [
        (
            "put rice, lentils, onions and garlic on the shopping list",
            "add_note",
            ["rice", "lentils", "onions", "garlic"],
            "shopping",
        ),
        (
            "stick sunscreen, towels and a hat on my packing list for the beach",
            "add_note",
            ["sunscreen", "towels", "a hat"],
            "packing",
        ),
        (
            "take butter and cheese off my shopping list, we got them yesterday",
            "remove_note",
            ["butter", "cheese"],
            "shopping",
        ),
        (
            "add a pound and a half of mince and onions to the shopping list",
            "add_note",
            ["a pound and a half of mince", "onions"],
            "shopping",
        ),
    ],
)
def test_several_items_for_one_list(
    planner_router: Any, words: str, tool: str, items: list[str], name: str
) -> None:
    plan = make_plan(words, router=planner_router)
    assert [(c.tool, c.args) for c in plan.calls] == [
        (tool, {"text": item, "list": name}) for item in items
    ]


def test_an_item_moved_between_lists(planner_router: Any) -> None:
    plan = make_plan(
        "move light bulbs from my to do list to the shopping list", router=planner_router
    )
    assert [(c.tool, c.args) for c in plan.calls] == [
        ("remove_note", {"text": "light bulbs", "list": "to do"}),
        ("add_note", {"text": "light bulbs", "list": "shopping"}),
    ]


def test_the_request_after_a_list_is_planned_on_its_own(planner_router: Any) -> None:
    plan = make_plan(
        "add soap and bleach to the shopping list and lock the door", router=planner_router
    )
    assert ("device_control", {"device": "door_lock", "action": "lock"}) in [
        (c.tool, c.args) for c in plan.calls
    ]
    declined = make_plan(
        "add soap and bleach to the shopping list and email my landlord", router=planner_router
    )
    assert declined.calls == [] and declined.refusal


@given(
    st.lists(
        st.sampled_from(["milk", "tea", "jam", "oats", "rice", "kiwis", "eggs"]),
        min_size=2,
        max_size=5,
        unique=True,
    )
)
def test_any_list_of_items_is_one_call_each(items: list[str]) -> None:
    said = ", ".join(items[:-1]) + " and " + items[-1]
    calls = listed_calls(f"put {said} on the shopping list")
    assert calls is not None
    assert [c.args["text"] for c in calls] == items


def test_a_room_the_planner_does_not_know_is_kept(planner_router: Any) -> None:
    plan = make_plan(
        "is the plug in the workshop on? turn off the workshop fan too", router=planner_router
    )
    assert ("device_control", {"device": "fan", "action": "off", "room": "workshop"}) in [
        (c.tool, c.args) for c in plan.calls
    ]


@pytest.mark.parametrize(
    "words",
    ["text my brother the weather in oslo", "call dad and tell him what time it is in lima"],
)
def test_a_reading_for_someone_else_is_declined(planner_router: Any, words: str) -> None:
    plan = make_plan(words, router=planner_router)
    assert plan.calls == [] and plan.refusal


def test_a_reading_for_me_is_answered(planner_router: Any) -> None:
    plan = make_plan("tell me the weather in oslo", router=planner_router)
    assert [c.tool for c in plan.calls] == ["get_weather"]


def test_a_name_several_big_cities_share_is_asked_in_a_plan(planner_router: Any) -> None:
    plan = make_plan("whats the weather in springfield and lock the door", router=planner_router)
    assert plan.calls == [] and "Springfield, Massachusetts" in str(plan.refusal)
    said = make_plan("weather in springfield, illinois and in paris", router=planner_router)
    assert [c.args["city"] for c in said.calls] == ["springfield, illinois", "paris"]
