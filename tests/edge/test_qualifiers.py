"""Qualifiers read from the words (understanding.arguments.qualifiers) and the newer tools'
arguments (understanding.arguments.newer_tools)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from understanding.arguments.bare_hours import ambiguous_hour
from understanding.arguments.newer_tools import (
    cancel_arguments,
    clear_arguments,
    item_calls,
    known_list,
    status_arguments,
)
from understanding.arguments.qualifiers import (
    device_qualifiers,
    find_qualifiers,
    is_question,
    without_times,
)
from understanding.arguments.timer_labels import reminder_label
from understanding.slu.model import Slot


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("turn off all the lights", {"room": "all"}),
        ("lights off everywhere", {"room": "all"}),
        ("switch off every light but the hallway's", {"room": "all", "except": ["hallway"]}),
        (
            "close all the blinds other than the kitchen ones",
            {"room": "all", "except": ["kitchen"]},
        ),
        (
            "turn off all lights except the kitchen and the hallway",
            {"room": "all", "except": ["kitchen", "hallway"]},
        ),
        ("open all blinds but not the bedroom", {"room": "all", "except": ["bedroom"]}),
        ("all but the hallway light off please", {"room": "all", "except": ["hallway"]}),
        ("start the coffee machine at 6:45", {"at": "06:45"}),
        ("turn the tv off at half past ten tonight", {"at": "22:30"}),
        ("switch the heater on at 5:30 in the morning", {"at": "05:30"}),
        ("start the vacuum at 2 in the afternoon", {"at": "14:00"}),
        ("turn off the living room lights at 11 pm", {"at": "23:00"}),
        ("mute the speaker for an hour", {"for": 3600}),
        ("ac on for an hour and a half", {"for": 5400}),
        ("put the heater on for 2 hours in the office", {"for": 7200}),
        ("turn on the light in the kitchen", {}),
    ],
)
def test_device_qualifiers(words: str, expected: dict[str, object]) -> None:
    assert device_qualifiers(words) == expected


@pytest.mark.parametrize(
    ("words", "kinds"),
    [
        ("if it snows tomorrow remind me to take boots", ["condition", "time"]),
        ("when i get home turn on the lights", ["condition"]),
        ("when is my next alarm", []),
        ("turn on the light if you can", []),
        ("lock the door when you get a chance", []),
        ("turn on the coffee machine every day at 7", ["recurring", "time"]),
        ("don't turn off the kitchen light", ["negation"]),
        ("turn the lights off until morning", ["time", "time"]),
        ("save this for later: the gate code", []),
        ("put eggs and bread on the shopping list", []),
    ],
)
def test_find_qualifiers(words: str, kinds: list[str]) -> None:
    assert [q.kind for q in find_qualifiers(words)] == kinds


def test_a_bare_hour_is_ambiguous() -> None:
    assert ambiguous_hour("start the coffee at three")
    assert ambiguous_hour("turn the fan on at 4")
    assert not ambiguous_hour("turn the fan on at 4 pm")
    assert not ambiguous_hour("start the coffee machine at 6:45")


def test_times_are_no_levels() -> None:
    assert without_times("turn off the lights at 11 pm") == "turn off the lights"


@pytest.mark.parametrize(
    ("words", "asks"),
    [
        ("is the plug on?", True),
        ("what's the vacuum doing", True),
        ("did i leave the heater on in the office", True),
        ("check whether the plug in the office is off", True),
        ("hey is the hallway light off", True),
        ("can you turn on the light", False),
        ("turn on the light", False),
        ("do a coffee for me please", False),
    ],
)
def test_is_question(words: str, asks: bool) -> None:
    assert is_question(words) is asks


def test_newer_tools_arguments() -> None:
    plug = [Slot("device_type", "plug", 2, 3), Slot("house_place", "office", 6, 7)]
    assert status_arguments(plug, "is the plug in the office on").arguments == {
        "device": "plug",
        "room": "office",
    }
    assert status_arguments([], "is the kitchen light on").arguments == {
        "device": "light",
        "room": "kitchen",
    }
    assert cancel_arguments([], "cancel all my alarms").arguments == {"all": True}
    assert cancel_arguments([], "cancel my next alarm").arguments == {"next": True}
    pasta = [Slot("timer_name", "pasta", 2, 3)]
    assert cancel_arguments(pasta, "cancel the pasta timer").arguments == {"label": "pasta"}
    assert "'label'" in cancel_arguments([], "cancel the timer").reason
    assert clear_arguments([], "clear my shoping list").arguments == {"list": "shopping"}


def test_list_names_and_items() -> None:
    assert known_list("shoping") == "shopping"
    assert known_list("grocerys") == "grocery"
    assert known_list("camping") == "camping"  # no kept list within reach: as said
    words = ("add", "eggs", "and", "bread", "to", "the", "shopping", "list")
    slots = [Slot("note_text", "eggs", 1, 2), Slot("note_text", "bread", 3, 4)]
    args = {"text": "eggs and bread", "list": "shopping"}
    assert item_calls(args, slots, words) == [
        {"text": "eggs", "list": "shopping"},
        {"text": "bread", "list": "shopping"},
    ]
    apart = ("add", "eggs", "for", "the", "party", "bread")
    slots = [Slot("note_text", "eggs", 1, 2), Slot("note_text", "bread", 5, 6)]
    assert item_calls(args, slots, apart) == [args]


@pytest.mark.parametrize(
    ("words", "label"),
    [
        ("remind me in 2 hours to call mom", "call mom"),
        ("in 45 minutes remind me to move the car", "move the car"),
        ("remind me to call dad at 5 pm", "call dad"),
        ("timer for 25 minutes called laundry", "laundry"),
        ("set a timer for 5 minutes", None),
    ],
)
def test_reminder_label(words: str, label: str | None) -> None:
    assert reminder_label(words) == label


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz :'’,.-0123456789", max_size=60))
def test_readers_never_fail(words: str) -> None:
    found = find_qualifiers(words)
    assert all(0 <= q.start < q.end for q in found)
    assert [q.start for q in found] == sorted(q.start for q in found)
    device_qualifiers(words)
    is_question(words)
    reminder_label(words)


def test_comma_enumerations_are_items_and_a_bare_and_is_not() -> None:
    from understanding.arguments.newer_tools import enumerated

    words = ("add", "apples", ",", "bananas", "and", "yoghurt", "to", "my", "shopping", "list")
    assert enumerated("apples bananas and yoghurt", words) == ["apples", "bananas", "yoghurt"]
    oxford = ("add", "milk", ",", "eggs", ",", "and", "bread", "to", "the", "list")
    assert enumerated("milk eggs and bread", oxford) == ["milk", "eggs", "bread"]
    dish = ("add", "mac", "and", "cheese", ",", "eggs", "and", "milk")
    assert enumerated("mac and cheese eggs and milk", dish) == ["mac and cheese", "eggs", "milk"]
    assert enumerated("mac and cheese", ("add", "mac", "and", "cheese")) is None
    args = {"text": "apples bananas and yoghurt", "list": "shopping"}
    assert [c["text"] for c in item_calls(args, [], words)] == ["apples", "bananas", "yoghurt"]


@given(st.lists(st.sampled_from(["eggs", "red apples", "oat milk", "tea"]), min_size=3, max_size=5))
def test_any_written_enumeration_gives_back_its_items(items: list[str]) -> None:
    from understanding.arguments.newer_tools import enumerated

    said = ", ".join(items[:-1]) + " and " + items[-1]
    words = tuple(said.replace(",", " ,").split())
    assert enumerated(" ".join(said.replace(",", "").split()), words) == items
