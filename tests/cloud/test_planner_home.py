"""The planner on alarms at a clock time, named lists and the new devices (issue 12)."""

from __future__ import annotations

import pytest

from cloud_agent.evaluation import run_query, scratch_memory
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.reasoner import PlannerReasoner
from cloud_agent.tools import local_registry
from understanding.requests import alarm_time, list_request


def calls(query: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.tool, c.args) for c in make_plan(query).calls]


@pytest.mark.parametrize(
    ("query", "at"),
    [
        ("wake me up at five thirty tomorrow", "05:30"),
        ("set an alarm for 7 pm", "19:00"),
        ("wake me up at 6:30 am", "06:30"),
        ("olly set an alarm for half past six", "06:30"),
        ("alarm at noon please", "12:00"),
        ("wake me at 10:45pm", "22:45"),
    ],
)
def test_alarms_at_a_clock_time(query: str, at: str) -> None:
    assert calls(query) == [("set_timer", {"at": at})]


@pytest.mark.parametrize(
    "query",
    [
        "set an alarm for 7 on monday",  # a weekday: not the next 7 o'clock
        "wake me up at 6.3",  # 6:30 or 6:03?
        "set an alarm for 7 every day",
    ],
)
def test_alarms_the_clock_cannot_say_are_not_set(query: str) -> None:
    assert alarm_time(query) is None
    assert all(tool != "set_timer" or "at" not in args for tool, args in calls(query))


def test_a_countdown_is_still_a_countdown() -> None:
    assert alarm_time("set an alarm for 20 minutes") is None
    assert calls("set a timer for 10 minutes") == [("set_timer", {"seconds": 600})]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("add milk to the shopping list", ("add_note", {"text": "milk", "list": "shopping"})),
        ("put eggs on my grocery list", ("add_note", {"text": "eggs", "list": "grocery"})),
        ("what's on my to do list", ("search_notes", {"list": "to do"})),
        ("read me my todo list", ("search_notes", {"list": "to do"})),
        (
            "take bread off the shopping list",
            ("remove_note", {"text": "bread", "list": "shopping"}),
        ),
    ],
)
def test_named_lists(query: str, expected: tuple[str, dict[str, object]]) -> None:
    assert calls(query) == [expected]


def test_a_note_is_still_a_note() -> None:
    assert list_request("add a note to buy milk") is None
    assert calls("add a note to buy milk") == [("add_note", {"text": "buy milk"})]


@pytest.mark.parametrize(
    ("query", "device", "action"),
    [
        ("start the robot vacuum", "vacuum", "on"),
        ("turn on the coffee machine", "coffee_machine", "on"),
        ("turn off the smart plug", "plug", "off"),
        ("turn the volume up", "speaker", "volume_up"),
        ("make the music quieter", "speaker", "volume_down"),
        ("mute the tv", "tv", "mute"),
    ],
)
def test_new_devices(query: str, device: str, action: str) -> None:
    ((tool, args),) = calls(query)
    assert tool == "device_control" and (args["device"], args["action"]) == (device, action)


def test_a_compound_home_request_runs_end_to_end() -> None:
    query = "will it rain in lisbon on friday and add umbrella to my packing list"
    assert calls(query) == [
        ("get_weather", {"city": "lisbon", "day": "friday"}),
        ("add_note", {"text": "umbrella", "list": "packing"}),
    ]
    with scratch_memory() as memory:
        outcome = run_query(PlannerReasoner(), local_registry(memory), query, "s")
        assert not outcome.refused
        assert "added 'umbrella' to the packing list" in outcome.answer
        assert [n["text"] for n in memory.notes()] == ["packing list: umbrella"]
