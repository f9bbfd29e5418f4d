"""Alarms at a clock time, timers listed and cancelled, named lists, and the new devices
(issue 12), on a real memory store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from edge_agent.cli import app
from sync.store import MemoryStore
from understanding.answers import tool_answer
from understanding.settings import save_setting
from understanding.tools import (
    builtin_tools,
    devices,
    input_schemas,
    notes,
    requires_approval,
    timers,
)

NOW = datetime(2026, 12, 1, 22, 0, tzinfo=UTC)  # 23:00 in Oslo, 22:00 in London


def valid(tool: str, args: dict[str, object]) -> bool:
    return not list(Draft202012Validator(input_schemas()[tool]).iter_errors(args))


def test_alarm_at_a_local_clock_time(memory: MemoryStore) -> None:
    save_setting(memory, "home_city", "oslo")
    run = timers.make_run(memory, lambda: NOW)
    assert run({"at": "2026-12-02T05:30"})["seconds"] == 6 * 3600 + 30 * 60  # from 23:00
    assert run({"at": "05:30"})["seconds"] == 6 * 3600 + 30 * 60  # its next occurrence
    assert run({"at": "23:30"})["seconds"] == 30 * 60
    # Against the real clock, the stored timer fires at that local time.
    oslo = ZoneInfo("Europe/Oslo")
    target = (datetime.now(oslo) + timedelta(hours=2)).strftime("%Y-%m-%dT%H:%M")
    out = timers.make_run(memory)({"at": target, "label": "wake up"})
    assert out["timezone"] == "Europe/Oslo" and out["fires_at"].startswith(target)
    answer = tool_answer("set_timer", {"at": target}, out)
    assert answer == f"Alarm set for {target[11:]} on {target[:10]} (Europe/Oslo)."
    with pytest.raises(ValueError, match="already passed"):
        run({"at": "2026-12-01T20:00"})
    with pytest.raises(ValueError, match="7 days"):
        run({"at": "2026-12-20T08:00"})
    assert valid("set_timer", {"at": "2026-12-02T05:30"})
    assert valid("set_timer", {"seconds": 60, "label": "tea"})
    assert not valid("set_timer", {"seconds": 60, "at": "2026-12-02T05:30"})
    assert not valid("set_timer", {"at": "half past five"})
    assert not valid("set_timer", {})


def test_timers_are_listed_and_cancelled_in_local_time(memory: MemoryStore) -> None:
    save_setting(memory, "home_city", "tokyo")
    run = timers.make_run(memory)
    first = run({"seconds": 600, "label": "pasta"})
    second = run({"seconds": 1200})
    listed = timers.list_timers(memory)
    assert [t["timer_id"] for t in listed] == [first["timer_id"], second["timer_id"]]
    assert all(t["fires_at"].endswith("+09:00") for t in listed)
    with pytest.raises(ValueError, match="at least 4"):
        timers.cancel_timer(memory, "ab")
    with pytest.raises(ValueError, match="no timer"):
        timers.cancel_timer(memory, "zzzzzz")
    gone = timers.cancel_timer(memory, first["timer_id"][:8])
    assert gone["label"] == "pasta"
    assert gone["fires_at"] == listed[0]["fires_at"]  # local time, as listed
    assert [t["timer_id"] for t in timers.list_timers(memory)] == [second["timer_id"]]


def test_timers_cli(tmp_path: Path) -> None:
    db = str(tmp_path / "edge.db")
    runner = CliRunner()
    assert runner.invoke(app, ["timers", "--memory", db]).output.strip() == "no timers"
    store = MemoryStore(db)
    try:
        timer = timers.make_run(store)({"seconds": 300, "label": "eggs"})
    finally:
        store.close()
    listed = runner.invoke(app, ["timers", "--memory", db])
    assert timer["timer_id"][:8] in listed.output and "eggs" in listed.output
    bad = runner.invoke(app, ["timers", "--cancel", "nope-nope", "--memory", db])
    assert bad.exit_code == 2 and bad.output.startswith("error: no timer")
    done = runner.invoke(app, ["timers", "--cancel", timer["timer_id"][:6], "--memory", db])
    assert done.exit_code == 0 and done.output.startswith("cancelled")
    assert runner.invoke(app, ["timers", "--memory", db]).output.strip() == "no timers"


def test_named_lists(memory: MemoryStore) -> None:
    add, search = notes.make_add(memory), notes.make_search(memory)
    remove = notes.make_remove(memory)
    assert add({"text": "milk", "list": "Shopping List"})["list"] == "shopping"
    add({"text": "oat milk", "list": "shopping"})
    add({"text": "call the plumber", "list": "to-do"})
    add({"text": "milk is in the fridge"})  # a note, on no list
    shopping = search({"list": "shopping"})
    assert [r["text"] for r in shopping["results"]] == ["milk", "oat milk"]
    assert tool_answer("search_notes", {"list": "shopping"}, shopping) == (
        "Your shopping list: milk; oat milk."
    )
    assert [r["text"] for r in search({"list": "todo"})["results"]] == ["call the plumber"]
    assert search({"list": "packing"})["count"] == 0
    # Words match exactly first: "milk" is the item "milk", not "oat milk".
    removed = remove({"text": "Milk", "list": "shopping"})
    assert removed["text"] == "milk" and removed["list"] == "shopping"
    with pytest.raises(ValueError, match="not on the shopping list"):
        remove({"text": "bread", "list": "shopping"})
    remove({"text": "oat", "list": "shopping"})  # the one item with that word
    assert search({"list": "shopping"})["count"] == 0
    # The note outside the list is still there, found by a search.
    assert any("fridge" in r["text"] for r in search({"query": "fridge"})["results"])
    assert valid("search_notes", {"list": "shopping"})
    assert not valid("search_notes", {})
    assert valid("remove_note", {"text": "milk", "list": "shopping"})


def test_the_lists_themselves_when_none_is_named(memory: MemoryStore) -> None:
    """search_notes {lists: true}: "what lists do I have", "what's on my list" (issue 12)."""
    add, search = notes.make_add(memory), notes.make_search(memory)
    empty = search({"lists": True})
    assert empty == {"lists": [], "count": 0, "results": []}
    assert tool_answer("search_notes", {"lists": True}, empty) == "You have no lists yet."
    add({"text": "milk", "list": "shopping"})
    add({"text": "bread", "list": "shopping"})
    add({"text": "the shopping list is on the fridge"})  # a note, on no list
    one = search({"lists": True})  # the one list there is: its items
    assert one["list"] == "shopping" and [r["text"] for r in one["results"]] == ["milk", "bread"]
    assert tool_answer("search_notes", {"lists": True}, one) == (
        "Your shopping list (your only list): milk; bread."
    )
    add({"text": "call the plumber", "list": "To-Do List"})
    both = search({"lists": True})
    assert both["lists"] == [{"name": "shopping", "count": 2}, {"name": "to do", "count": 1}]
    assert both["count"] == 2 and notes.validate_search(both) is None
    assert tool_answer("search_notes", {"lists": True}, both) == (
        "You have 2 lists: shopping (2 items) and to do (1 item)."
    )
    assert Draft202012Validator(notes.SEARCH_OUTPUT_SCHEMA).is_valid(both)
    assert valid("search_notes", {"lists": True})
    assert not valid("search_notes", {"lists": False})  # an explicit mode, not a default


def test_a_removal_that_names_several_items_removes_nothing(memory: MemoryStore) -> None:
    add, remove = notes.make_add(memory), notes.make_remove(memory)
    add({"text": "oat milk", "list": "shopping"})
    add({"text": "soy milk", "list": "shopping"})
    with pytest.raises(ValueError, match="several items"):
        remove({"text": "milk", "list": "shopping"})
    assert len(notes.list_items(memory, "shopping")) == 2


@pytest.mark.parametrize(
    ("args", "state", "value"),
    [
        ({"device": "plug", "action": "on", "room": "office"}, "on", None),
        ({"device": "vacuum", "action": "on"}, "cleaning", None),
        ({"device": "vacuum", "action": "off"}, "docked", None),
        ({"device": "coffee_machine", "action": "on", "room": "kitchen"}, "brewing", None),
        ({"device": "speaker", "action": "volume_up"}, "volume 60", 60),
        ({"device": "speaker", "action": "volume_down", "value": 25}, "volume 25", 25),
        ({"device": "tv", "action": "mute"}, "muted", None),
        ({"device": "tv", "action": "unmute"}, "unmuted", None),
    ],
)
def test_new_devices(
    memory: MemoryStore, args: dict[str, object], state: str, value: float | None
) -> None:
    run = devices.make_run(memory)
    out = run(args)
    assert out["state"] == state and out["value"] == value
    assert valid("device_control", args)


def test_volume_steps_stay_in_range(memory: MemoryStore) -> None:
    run = devices.make_run(memory)
    run({"device": "speaker", "action": "set", "value": 95, "room": "kitchen"})
    assert run({"device": "speaker", "action": "volume_up", "room": "kitchen"})["value"] == 100
    run({"device": "speaker", "action": "mute", "room": "kitchen"})
    assert memory.get_device_state("speaker", "kitchen")["muted"] is True  # type: ignore[index]
    down = run({"device": "speaker", "action": "volume_down", "room": "kitchen", "value": 30})
    assert down["value"] == 70
    assert memory.get_device_state("speaker", "kitchen")["muted"] is False  # type: ignore[index]


def test_brightness_steps_from_the_kept_state(memory: MemoryStore) -> None:
    """ "Dim the lights" with no value: 20 points down from the light's kept brightness
    (a light never set is at 100), never below 10; brightening an off light switches it
    on at 20; dimming an off light is refused (issue 12)."""
    run = devices.make_run(memory)
    dim = {"device": "light", "action": "brightness_down", "room": "kitchen"}
    assert run(dim) == {"device": "light", "room": "kitchen", "state": "brightness 80", "value": 80}
    assert run(dim)["value"] == 60  # from the kept state, not from scratch
    run({"device": "light", "action": "set", "value": 25, "room": "kitchen"})
    assert run(dim)["value"] == 10 and run(dim)["value"] == 10  # stops at the floor
    assert run({**dim, "action": "brightness_up", "value": 50})["value"] == 60
    run({"device": "light", "action": "off", "room": "hall"})
    with pytest.raises(ValueError, match="nothing to dim"):
        run({"device": "light", "action": "brightness_down", "room": "hall"})
    up = run({"device": "light", "action": "brightness_up", "room": "hall"})
    assert up["value"] == devices.BRIGHTNESS_STEP
    assert memory.get_device_state("light", "hallway")["power"] == "on"  # type: ignore[index]
    answer = tool_answer("device_control", {"device": "light", "action": "brightness_up"}, up)
    assert answer == "Done: the hallway light brightness is 20%."
    assert valid("device_control", {"device": "light", "action": "brightness_down"})
    assert not valid("device_control", {"device": "light", "action": "dim"})


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ({"device": "plug", "action": "set", "value": 3}, "a plug cannot set"),
        ({"device": "vacuum", "action": "mute"}, "a vacuum cannot mute"),
        ({"device": "light", "action": "volume_up"}, "a light cannot volume_up"),
        ({"device": "speaker", "action": "volume_up", "value": 500}, "between 1 and 100"),
        ({"device": "speaker", "action": "mute", "value": 3}, "takes no value"),
        ({"device": "speaker", "action": "brightness_up"}, "a speaker cannot brightness_up"),
        ({"device": "light", "action": "brightness_down", "value": 0}, "between 1 and 100"),
    ],
)
def test_device_rules(args: dict[str, object], problem: str) -> None:
    assert problem in (devices.check_arguments(args) or "")


def test_unlocking_still_needs_approval(memory: MemoryStore) -> None:
    assert requires_approval("device_control", {"device": "door_lock", "action": "unlock"})
    assert not requires_approval("device_control", {"device": "vacuum", "action": "on"})
    registry = builtin_tools(memory)
    assert registry.get("remove_note") is not None
    assert registry.get("remove_note").side_effects  # type: ignore[union-attr]


def test_timer_by_duration_answers_in_the_home_zone(memory: MemoryStore) -> None:
    """A timer of N seconds says when it goes off in the home city's local time (issue 14)."""
    save_setting(memory, "home_city", "tokyo")
    out = timers.make_run(memory)({"seconds": 600, "label": "tea"})
    fires = datetime.fromisoformat(out["fires_at"])
    assert out["timezone"] == "Asia/Tokyo" and fires.utcoffset() == timedelta(hours=9)
    expected = datetime.now(ZoneInfo("Asia/Tokyo")) + timedelta(seconds=600)
    assert abs((fires - expected).total_seconds()) < 120
    answer = tool_answer("set_timer", {"seconds": 600}, out)
    clock = out["fires_at"][11:16]
    assert answer == f"Timer set for 10 minutes (it goes off at {clock}, Asia/Tokyo)."
    assert "UTC" not in answer


def test_timer_without_home_city_answers_in_the_machines_zone(
    memory: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setenv("TZ", "America/Lima")  # UTC-5 all year, no daylight saving
    time.tzset()
    try:
        out = timers.make_run(memory)({"seconds": 60})
    finally:
        monkeypatch.undo()
        time.tzset()
    assert datetime.fromisoformat(out["fires_at"]).utcoffset() == timedelta(hours=-5)
    assert "UTC" not in tool_answer("set_timer", {"seconds": 60}, out)
