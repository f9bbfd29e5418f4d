"""Device commands for every room, at a time and for a while; device_status, list_timers,
cancel_timer and clear_list (issue 24 part 1/3, issue 29 part 2), on a real memory store."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from edge_agent.cli import app
from edge_agent.cloud_link import DEVICE_TOOLS
from sync.store import MemoryStore
from understanding.answers import tool_answer
from understanding.tools import (
    SIDE_EFFECT_TOOLS,
    TOOL_NAMES,
    builtin_tools,
    input_schemas,
    requires_approval,
    tool_catalogue,
)
from understanding.tools.devices import target_rooms
from understanding.tools.scheduled import run_due_action

NEW_TOOLS = ("device_status", "list_timers", "cancel_timer", "clear_list")


def call(memory: MemoryStore, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """Run a built-in tool as the agent does: its input schema first, then the tool."""
    errors = list(Draft202012Validator(input_schemas()[tool]).iter_errors(args))
    assert not errors, errors
    spec = builtin_tools(memory).get(tool)
    assert spec is not None and spec.func is not None
    output = dict(spec.func(args))
    assert not list(Draft202012Validator(spec.output_schema).iter_errors(output))
    assert spec.validator is None or spec.validator(output) is None
    return output


def power(memory: MemoryStore, device: str, room: str | None) -> Any:
    return (memory.get_device_state(device, room) or {}).get("power")


def test_new_tools_are_registered_everywhere() -> None:
    for name in NEW_TOOLS:
        assert name in TOOL_NAMES and name in input_schemas() and name in DEVICE_TOOLS
    assert {"cancel_timer", "clear_list"} <= SIDE_EFFECT_TOOLS
    assert not {"device_status", "list_timers"} & SIDE_EFFECT_TOOLS
    assert {t["name"] for t in tool_catalogue()} >= set(NEW_TOOLS)
    assert requires_approval("cancel_timer", {"all": True})
    assert not requires_approval("cancel_timer", {"label": "pasta"})
    assert requires_approval("clear_list", {"list": "shopping"})


def test_device_status_reads_the_kept_state_and_writes_nothing(memory: MemoryStore) -> None:
    unknown = call(memory, "device_status", {"device": "plug"})
    assert unknown["known"] is False and unknown["state"] == "unknown"
    assert "hasn't been used" in tool_answer("device_status", {"device": "plug"}, unknown)
    assert memory.device_states() == []  # a question switched nothing on
    call(memory, "device_control", {"device": "plug", "action": "on", "room": "kitchen"})
    before = memory.device_states()
    status = call(memory, "device_status", {"device": "plug", "room": "Kitchen"})
    assert status["known"] and status["state"] == "on" and status["room"] == "kitchen"
    assert tool_answer("device_status", {}, status) == "The kitchen plug is on."
    assert memory.device_states() == before
    call(memory, "device_control", {"device": "speaker", "action": "set", "value": 30})
    loud = call(memory, "device_status", {"device": "speaker"})
    assert loud["rooms"][0]["value"] == 30 and loud["state"] == "set to 30"


def test_all_lights_but_the_hall(memory: MemoryStore) -> None:
    for room in ("kitchen", "hall", "bedroom"):
        call(memory, "device_control", {"device": "light", "action": "on", "room": room})
    out = call(
        memory,
        "device_control",
        {"device": "light", "action": "off", "room": "all", "except": ["Hall"]},
    )
    assert [r["room"] for r in out["rooms"]] == ["bedroom", "kitchen"]
    assert power(memory, "light", "hallway") == "on"  # the device's name of the hall
    assert power(memory, "light", "kitchen") == power(memory, "light", "bedroom") == "off"
    answer = tool_answer("device_control", {}, out)
    assert answer == "Done: light off in the bedroom and the kitchen (not the hallway)."
    # "except" alone means every room but those.
    call(memory, "device_control", {"device": "light", "action": "on", "except": ["kitchen"]})
    assert power(memory, "light", "hallway") == "on" and power(memory, "light", "kitchen") == "off"


def test_all_with_no_known_room_is_the_house_wide_device(memory: MemoryStore) -> None:
    out = call(memory, "device_control", {"device": "fan", "action": "on", "room": "all"})
    assert out["rooms"] == [{"room": None, "state": "on"}]
    with pytest.raises(ValueError, match="which rooms have a tv"):
        call(memory, "device_control", {"device": "tv", "action": "off", "room": "all",
                                        "except": ["den"]})  # fmt: skip
    call(memory, "device_control", {"device": "tv", "action": "on", "room": "den"})
    call(memory, "device_control", {"device": "tv", "action": "on"})  # the house-wide one
    out = call(memory, "device_control", {"device": "tv", "action": "off", "room": "all"})
    assert [r["room"] for r in out["rooms"]] == [None, "den"]  # every one of them
    call(memory, "device_control", {"device": "tv", "action": "on", "room": "all"})
    with pytest.raises(ValueError, match="excepted"):
        call(memory, "device_control", {"device": "tv", "action": "off", "room": "all",
                                        "except": ["den"]})  # fmt: skip
    with pytest.raises(ValueError, match="room 'all' only"):
        call(memory, "device_control", {"device": "tv", "action": "off", "room": "den",
                                        "except": ["hall"]})  # fmt: skip


ROOMS = st.sampled_from(["kitchen", "hall", "bedroom", "office", "den", "bath"])


@settings(max_examples=40, deadline=None)
@given(known=st.sets(ROOMS, min_size=1), left=st.sets(ROOMS))
def test_all_covers_every_known_room_but_the_excepted(known: set[str], left: set[str]) -> None:
    with MemoryStore(":memory:") as memory:
        for room in known:
            memory.set_device_state("light", room, {"power": "on"})
        args = {"device": "light", "action": "off", "room": "all", "except": sorted(left)}
        if known <= left:
            with pytest.raises(ValueError):
                target_rooms(memory, args)
        else:
            assert set(target_rooms(memory, args)) == known - left
        memory.set_device_state("light", None, {"power": "on"})  # a house-wide light too
        everything = {**args, "except": []}
        assert set(target_rooms(memory, everything)) == {None, *known}


def test_a_command_at_a_time_is_a_timer_that_runs_it(tmp_path: Path) -> None:
    db = tmp_path / "edge.db"
    with MemoryStore(db) as memory:
        out = call(memory, "device_control",
                   {"device": "coffee_machine", "action": "on", "at": "07:00"})  # fmt: skip
        assert out["state"] == "scheduled" and out["fires_at"][11:16] == "07:00"
        assert memory.get_device_state("coffee_machine", None) is None  # not now
        assert tool_answer("device_control", {}, out).startswith("Scheduled: the coffee machine")
    runner = CliRunner()
    listed = runner.invoke(app, ["timers", "--memory", str(db)])
    assert out["timer_id"][:8] in listed.output and "coffee machine on" in listed.output
    with MemoryStore(db) as memory:  # a restart keeps it, with its action
        (timer,) = memory.timers(active_only=True)
        assert timer["action"] == {
            "tool": "device_control",
            "arguments": {"device": "coffee_machine", "action": "on"},
        }
        listing = call(memory, "list_timers", {})
        assert listing["timers"][0]["kind"] == "command"
        # When it is due, the runtime runs it through the device tools, once.
        first = run_due_action(memory, timer)
        assert first["state"] == "brewing"
        memory.set_device_state("coffee_machine", None, {"power": "off", "state": "off"})
        assert run_due_action(memory, timer) == first  # the same timer acts once
        assert power(memory, "coffee_machine", None) == "off"
    done = runner.invoke(app, ["timers", "--cancel", out["timer_id"][:8], "--memory", str(db)])
    assert done.exit_code == 0, done.output
    assert runner.invoke(app, ["timers", "--memory", str(db)]).output.strip() == "no timers"


def test_a_command_for_a_while_brings_the_previous_state_back(memory: MemoryStore) -> None:
    call(memory, "device_control", {"device": "speaker", "action": "unmute", "room": "den"})
    out = call(memory, "device_control",
               {"device": "speaker", "action": "mute", "room": "den", "for": 3600})  # fmt: skip
    assert out["state"] == "muted" and out["until"]
    assert tool_answer("device_control", {}, out).startswith("Done: the den speaker is muted until")
    (restore,) = memory.timers(active_only=True)
    assert restore["seconds"] == 3600
    assert run_due_action(memory, restore)["state"] == "unmuted"
    assert memory.get_device_state("speaker", "den") == {"muted": False, "state": "unmuted"}
    # A set for a while comes back to the value kept before it.
    call(memory, "device_control", {"device": "heater", "action": "set", "value": 19})
    call(memory, "device_control", {"device": "heater", "action": "set", "value": 24, "for": 60})
    back = [t for t in memory.timers() if t["action"]["arguments"]["device"] == "heater"]
    assert back[0]["action"]["arguments"] == {"device": "heater", "action": "set", "value": 19}


def test_run_due_action_refuses_a_plain_timer_and_other_tools(memory: MemoryStore) -> None:
    plain = memory.add_timer(60, "pasta")
    with pytest.raises(ValueError, match="no action"):
        run_due_action(memory, plain)
    odd = memory.add_timer(60, "x", action={"tool": "clear_list", "arguments": {"list": "a"}})
    with pytest.raises(ValueError, match="may not run"):
        run_due_action(memory, odd)
    wrong = {"device": "door_lock", "action": "on"}
    bad = memory.add_timer(60, "x", action={"tool": "device_control", "arguments": wrong})
    with pytest.raises(ValueError, match="cannot on"):
        run_due_action(memory, bad)


def test_cancel_timer_by_label_time_next_and_all(memory: MemoryStore) -> None:
    with pytest.raises(ValueError, match="no timers"):
        call(memory, "cancel_timer", {"next": True})
    call(memory, "set_timer", {"seconds": 600, "label": "pasta"})
    call(memory, "set_timer", {"seconds": 60, "label": "tea"})
    alarm = call(memory, "set_timer", {"at": "23:59"} if datetime.now(UTC).hour < 23 else
                 {"seconds": 7200})  # fmt: skip
    gone = call(memory, "cancel_timer", {"label": "the pasta timer"})
    assert [t["label"] for t in gone["cancelled"]] == ["pasta"]
    assert tool_answer("cancel_timer", {}, gone).startswith("Cancelled the timer “pasta” at")
    with pytest.raises(ValueError, match="labelled 'pasta'"):
        call(memory, "cancel_timer", {"label": "pasta"})
    assert call(memory, "cancel_timer", {"next": True})["cancelled"][0]["label"] == "tea"
    local = alarm["fires_at"]
    assert call(memory, "cancel_timer", {"at": local[11:16]})["count"] == 1
    for seconds in (100, 200):
        call(memory, "set_timer", {"seconds": seconds})
    assert call(memory, "list_timers", {})["count"] == 2
    assert call(memory, "cancel_timer", {"all": True})["count"] == 2
    empty = call(memory, "list_timers", {})
    assert tool_answer("list_timers", {}, empty) == "You have no timers or alarms set."
    schema = Draft202012Validator(input_schemas()["cancel_timer"])
    assert list(schema.iter_errors({})) and list(schema.iter_errors({"next": True, "all": True}))


def test_clear_list_matches_the_kept_list_and_keeps_it(memory: MemoryStore) -> None:
    for item in ("eggs", "bread"):
        call(memory, "add_note", {"text": item, "list": "shopping"})
    call(memory, "add_note", {"text": "call mom", "list": "to do"})
    out = call(memory, "clear_list", {"list": "shoping"})  # a typo names the nearest list
    assert out == {"list": "shopping", "removed": 2, "items": ["eggs", "bread"]}
    assert tool_answer("clear_list", {}, out) == "Cleared your shopping list (2 items)."
    lists = {e["name"]: e["count"] for e in call(memory, "search_notes", {"lists": True})["lists"]}
    assert lists == {"shopping": 0, "to do": 1}  # the list stays, empty; the other untouched
    with pytest.raises(ValueError, match="no groceries list"):
        call(memory, "clear_list", {"list": "groceries"})
    again = call(memory, "clear_list", {"list": "shopping"})
    assert again["removed"] == 0 and "already empty" in tool_answer("clear_list", {}, again)


def test_scheduled_commands_sync_with_their_action(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "a.db") as phone, MemoryStore(tmp_path / "b.db") as hub:
        call(phone, "device_control", {"device": "light", "action": "off", "at": "23:30"})
        hub.apply_update(phone.diff(hub.state_vector()))
        assert [t["action"] for t in hub.timers()] == [t["action"] for t in phone.timers()]
        call(hub, "cancel_timer", {"all": True})
        phone.apply_update(hub.diff(phone.state_vector()))
        assert phone.timers() == hub.timers() == []


def test_a_version_8_store_gains_timer_actions(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    with MemoryStore(db) as memory:
        memory.add_timer(120, "kept")
    conn = sqlite3.connect(db)
    conn.execute("ALTER TABLE timers DROP COLUMN action")
    conn.execute("PRAGMA user_version = 8")
    conn.commit()
    conn.close()
    with MemoryStore(db) as memory:
        (timer,) = memory.timers()
        assert timer["label"] == "kept" and timer["action"] is None
        assert call(memory, "list_timers", {})["count"] == 1


OPS = st.lists(
    st.tuples(st.booleans(), st.sampled_from(["on", "off", "mute", None]), st.booleans()),
    min_size=1,
    max_size=5,
)


@settings(max_examples=15, deadline=None)
@given(left=OPS, right=OPS, order=st.booleans())
def test_timer_actions_merge_the_same_whatever_the_order(
    left: list[tuple[bool, str | None, bool]],
    right: list[tuple[bool, str | None, bool]],
    order: bool,
) -> None:
    """Two replicas add timers (some carrying an action) and cancel some while apart;
    exchanging updates in either order leaves both with the same timers and actions."""
    with MemoryStore(":memory:") as a, MemoryStore(":memory:") as b:
        for store, ops in ((a, left), (b, right)):
            for speaker, action, cancel in ops:
                device = "speaker" if speaker else "tv"
                act = None if action is None else {
                    "tool": "device_control", "arguments": {"device": device, "action": action}
                }  # fmt: skip
                timer = store.add_timer(60, device, action=act)
                if cancel:
                    store.forget("timers", timer["timer_id"])
        first, second = (a, b) if order else (b, a)
        second.apply_update(first.diff(second.state_vector()))
        first.apply_update(second.diff(first.state_vector()))
        assert a.timers() == b.timers()
        kept = sum(not cancel for _s, _a, cancel in left + right)
        assert len(a.timers()) == kept
