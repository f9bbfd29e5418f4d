"""Kinds of misplanning found by the eleventh own compound set (examples/
compound_own_25k.jsonl, written before any change for it: a family's routines, a small
office, a holiday rental's kiosk): a fraction after a unit cut off as a request of its
own, a second note folded into the first, "an hour one" read as 61 minutes, a heading
("goodnight routine: ...") or a room said first declined as a clause no tool serves,
items dictated under a list's name, "<word> room" rooms, "the status of" read as no
question (issue 25). The phrasings here are this file's own."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cloud_agent.planner.plan import make_plan
from understanding.arguments.units import fold_unit_fractions, unit_arguments


def calls(router: Any, words: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.tool, c.args) for c in make_plan(words, router=router).calls]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("what is a kilo and a half in pounds", {"value": 1.5, "from_unit": "kg", "to_unit": "lb"}),
        ("2 miles and a quarter in km", {"value": 2.25, "from_unit": "mi", "to_unit": "km"}),
        ("a litre and a half in gallons", {"value": 1.5, "from_unit": "l", "to_unit": "gal"}),
    ],
)
def test_a_fraction_after_a_unit_is_its_quantitys(words: str, expected: dict[str, Any]) -> None:
    assert unit_arguments(words) == expected


@given(st.integers(min_value=1, max_value=500), st.sampled_from(["half", "quarter"]))
def test_folding_a_fraction_keeps_the_whole(whole: int, fraction: str) -> None:
    folded = fold_unit_fractions([str(whole), "miles", "and", "a", fraction, "in", "km"])
    share = 0.5 if fraction == "half" else 0.25
    assert float(folded[0]) == whole + share
    assert folded[1:] == ["miles", "in", "km"]


def test_two_conversions_with_a_fraction_are_two(planner_router: Any) -> None:
    got = calls(planner_router, "a pound and a half in grams, and 3 pounds in grams too")
    assert got == [
        ("unit_convert", {"value": 1.5, "from_unit": "lb", "to_unit": "g"}),
        ("unit_convert", {"value": 3, "from_unit": "lb", "to_unit": "g"}),
    ]


def test_another_note_is_a_second_note(planner_router: Any) -> None:
    got = calls(
        planner_router,
        "make a note that the boiler was serviced and another that the bins go out monday",
    )
    assert got == [
        ("add_note", {"text": "the boiler was serviced"}),
        ("add_note", {"text": "the bins go out monday"}),
    ]


def test_an_hour_one_is_an_hour(planner_router: Any) -> None:
    got = calls(planner_router, "a 10 minute timer for the eggs and an hour one for the bread")
    assert got == [
        ("set_timer", {"seconds": 600, "label": "eggs"}),
        ("set_timer", {"seconds": 3600, "label": "bread"}),
    ]


def test_a_heading_asks_for_nothing(planner_router: Any) -> None:
    got = calls(planner_router, "leaving the house: lights off everywhere and lock the door")
    assert got == [
        ("device_control", {"device": "light", "action": "off", "room": "all"}),
        ("device_control", {"device": "door_lock", "action": "lock"}),
    ]


def test_a_room_said_first_is_every_commands_room(planner_router: Any) -> None:
    got = calls(planner_router, "in the study, blinds closed and the heater off")
    assert got == [
        ("device_control", {"device": "blinds", "action": "close", "room": "study"}),
        ("device_control", {"device": "heater", "action": "off", "room": "study"}),
    ]


def test_a_heading_that_is_a_request_is_no_heading(planner_router: Any) -> None:
    # "note:" opens a note; the words after it are the note, not requests framed by it.
    got = calls(planner_router, "note: the plumber comes at 3")
    assert got == [("add_note", {"text": "the plumber comes at 3"})]


def test_items_dictated_under_a_list(planner_router: Any) -> None:
    got = calls(planner_router, "to do list: um, renew passport, and book the vet")
    assert got == [
        ("add_note", {"text": "renew passport", "list": "to do"}),
        ("add_note", {"text": "book the vet", "list": "to do"}),
    ]


def test_a_question_under_a_list_is_no_item(planner_router: Any) -> None:
    got = calls(planner_router, "shopping list: what's on it")
    assert all(tool != "add_note" for tool, _ in got)


def test_a_word_room_is_a_room(planner_router: Any) -> None:
    got = calls(planner_router, "turn the ac off in the plant room and the boiler room")
    assert got == [
        ("device_control", {"device": "ac", "action": "off", "room": "plant room"}),
        ("device_control", {"device": "ac", "action": "off", "room": "boiler room"}),
    ]


def test_the_status_of_devices_is_a_read(planner_router: Any) -> None:
    got = calls(planner_router, "give me the status of the heater and the fan")
    assert got == [("device_status", {"device": "heater"}), ("device_status", {"device": "fan"})]


def test_the_things_looked_for_are_each_searched(planner_router: Any) -> None:
    got = calls(planner_router, "search my notes for the boiler code and also for the gate code")
    assert sorted(a["query"] for _, a in got) == ["boiler code", "gate code"]


@pytest.mark.parametrize(
    "words", ["what's my mortgage divided by 12", "work out our budget times 3"]
)
def test_an_operand_no_number_stands_for_is_declined(planner_router: Any, words: str) -> None:
    plan = make_plan(words, router=planner_router)
    assert plan.calls == [] and plan.refusal
