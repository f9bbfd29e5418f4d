"""The device_status tool: what a device is doing, read from the state the device keeps.

"Is the plug on?", "how loud is the speaker?", "what's the vacuum doing?" are questions:
this tool reads ``device_control``'s kept state and changes nothing. With a room it reads
that room's device; without one (or with ``all``) every room it knows of that device.
A device the home never commanded is ``unknown``: the device knows only what it was told.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from understanding.tools.devices import ALL_ROOMS, DEVICES, room_key
from understanding.tools.memory import ToolMemory

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "device": {"type": "string", "enum": list(DEVICES), "x-edgeloop-slots": ["device_type"]},
        "room": {
            "type": "string",
            "minLength": 1,
            "maxLength": 40,
            "x-edgeloop-slots": ["house_place"],
        },
    },
    "required": ["device"],
    "additionalProperties": False,
}
_READING: dict[str, Any] = {
    "type": "object",
    "properties": {
        "room": {"type": ["string", "null"]},
        "state": {"type": "string"},
        "power": {"type": "string"},
        "value": {"type": ["number", "null"]},
        "muted": {"type": "boolean"},
        "updated_at": {"type": "string"},
    },
    "required": ["room", "state"],
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "device": {"type": "string", "enum": list(DEVICES)},
        "room": {"type": ["string", "null"]},
        # False when the device was never commanded here: its state is unknown.
        "known": {"type": "boolean"},
        "state": {"type": "string"},
        "rooms": {"type": "array", "items": _READING},
    },
    "required": ["device", "known", "state", "rooms"],
}


def _reading(entry: dict[str, Any]) -> dict[str, Any]:
    state = dict(entry["state"])
    reading: dict[str, Any] = {
        "room": entry["room"],
        "state": str(state.get("state") or state.get("power") or "unknown"),
        "updated_at": str(entry.get("updated_at", "")),
    }
    if state.get("power") in ("on", "off"):
        reading["power"] = state["power"]
    if isinstance(state.get("value"), int | float):
        reading["value"] = state["value"]
    if isinstance(state.get("muted"), bool):
        reading["muted"] = state["muted"]
    return reading


def make_run(memory: ToolMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The tool function: reads ``memory``'s device states, never writes."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        device = str(args["device"])
        if device not in DEVICES:
            raise ValueError(f"unknown device {device!r}")
        asked = args.get("room")
        room = None if asked in (None, "", ALL_ROOMS) else room_key(asked)
        kept = [e for e in memory.device_states() if e["device"] == device]
        if room is not None:
            kept = [e for e in kept if e["room"] == room]
        readings = [_reading(e) for e in kept]
        states = {r["state"] for r in readings}
        state = states.pop() if len(states) == 1 else ("mixed" if states else "unknown")
        return {
            "device": device,
            "room": room,
            "known": bool(readings),
            "state": state,
            "rooms": readings,
        }

    return run


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: a known device reports each room's state."""
    if observation.get("known") and not observation.get("rooms"):
        return "a known device reported no room"
    return None
