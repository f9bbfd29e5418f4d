"""A question is a read, arguments are whole (issue 25): the planner with the shipped router."""

from __future__ import annotations

import pytest

from cloud_agent.planner.reasoner import PlannerReasoner, load_edge_router
from cloud_agent.tools import cloud_registry, local_registry

PLANNER = PlannerReasoner(router=load_edge_router())


def _calls(query: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.tool, c.args) for c in PLANNER.plan(query).calls]


@pytest.mark.parametrize(
    ("query", "device", "room"),
    [
        ("is the plug on?", "plug", None),
        ("are my bedroom lights still on", "light", "bedroom"),
        ("did I leave the front door unlocked", "door_lock", None),
        ("what is the thermostat set to", "thermostat", None),
        ("check whether the fan in the office is running", "fan", "office"),
        # The device named first, then asked about.
        ("the coffee machine, is it on?", "coffee_machine", None),
        ("the lights in the kitchen, are they on", "light", "kitchen"),
        ("the back door, did i lock it", "door_lock", None),
    ],
)
def test_a_question_about_a_device_is_a_read(query: str, device: str, room: str | None) -> None:
    calls = _calls(query)
    assert [tool for tool, _ in calls] == ["device_status"]
    assert calls[0][1]["device"] == device
    assert calls[0][1].get("room") == room


@pytest.mark.parametrize(
    "query", ["is coffee bad for you", "what's the difference between a heater and a fan"]
)
def test_a_general_question_is_no_device_call(query: str) -> None:
    assert not any(tool.startswith("device_") for tool, _ in _calls(query))


def test_a_question_beside_a_command() -> None:
    calls = _calls("is the heater on in the kitchen and turn off the hallway light")
    assert calls == [
        ("device_status", {"device": "heater", "room": "kitchen"}),
        ("device_control", {"device": "light", "action": "off", "room": "hallway"}),
    ]


@pytest.mark.parametrize(
    ("query", "seconds"),
    [
        ("set a timer for seven and a half hours", 27000),
        ("start a timer for an hour and a half", 5400),
        ("a ninety second timer please", 90),
        ("timer for 2.5 minutes and turn off the tv", 150),
    ],
)
def test_durations_read_whole(query: str, seconds: int) -> None:
    assert ("set_timer", {"seconds": seconds}) in _calls(query)


def test_note_text_is_entire() -> None:
    calls = _calls("add a note soak ohdydzxtqd and set a timer for 10 minutes")
    assert calls == [("add_note", {"text": "soak ohdydzxtqd"}), ("set_timer", {"seconds": 600})]


def test_device_status_is_offered_to_the_planner() -> None:
    assert cloud_registry(["device_status"]).get("device_status") is not None
    assert cloud_registry([]).get("device_status") is None


def test_device_status_reads_without_changing(tmp_path: object) -> None:
    from pathlib import Path

    from sync.store import MemoryStore

    store = MemoryStore(Path(str(tmp_path)) / "m.db")
    try:
        tools = local_registry(store)
        assert tools.get("device_status").func({"device": "plug"})["state"] == "unknown"
        tools.get("device_control").func({"device": "plug", "action": "off"})
        assert tools.get("device_status").func({"device": "plug"})["state"] == "off"
        assert store.get_device_state("plug", None) == {"state": "off", "power": "off"}
    finally:
        store.close()


def test_a_device_asked_about_after_naming_it_is_one_read_with_the_rest() -> None:
    assert _calls("the coffee machine, is it on? and what time is it in Tokyo") == [
        ("device_status", {"device": "coffee_machine"}),
        ("world_clock", {"city": "tokyo"}),
    ]
    assert not any(tool == "device_control" for tool, _ in _calls("the tv, turn it on? why"))
