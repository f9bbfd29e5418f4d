"""The device_control tool: switch, set, lock and open the home's devices.

Devices: lights (brightness up/down by 20 points or a given step, set 0-100), AC, heater,
fan, TV, speaker (volume up/down by 10 points or a given step, set 0-100, mute/unmute),
door lock, thermostat, blinds, smart plug (on/off), robot vacuum (on = clean, off = back to
the dock) and coffee machine (on = brew, off). A step ("dim the lights", "turn it up") is
taken from the device's state as kept in memory, so "dim" twice dims twice.

Device state lives in the memory store (``set_device_state``), so it survives restarts and
syncs with the user's other replicas. Which actions a device accepts, and the range of
its value, are business rules checked before anything changes (``check_arguments``), and
the argument extractor runs the same check so an impossible request goes to the cloud
instead of failing on the device.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from understanding.tools.memory import ToolMemory

DEVICES = (
    "light",
    "ac",
    "heater",
    "fan",
    "tv",
    "speaker",
    "door_lock",
    "thermostat",
    "blinds",
    "plug",
    "vacuum",
    "coffee_machine",
)
ACTIONS = (
    "on",
    "off",
    "set",
    "lock",
    "unlock",
    "open",
    "close",
    "volume_up",
    "volume_down",
    "mute",
    "unmute",
    "brightness_up",
    "brightness_down",
)
VOLUME_ACTIONS = frozenset({"volume_up", "volume_down", "mute", "unmute"})
VOLUME_STEP = 10
BRIGHTNESS_ACTIONS = frozenset({"brightness_up", "brightness_down"})
BRIGHTNESS_STEP = 20
"""Points of brightness (of 100) that "dim" / "brighten" with no value move a light."""
MIN_DIMMED = 10
"""Dimming stops here: "dim the lights" never switches them off ("turn off" does)."""
STEP_ACTIONS = frozenset({"volume_up", "volume_down"}) | BRIGHTNESS_ACTIONS

# Actions each device accepts.
DEVICE_ACTIONS: dict[str, frozenset[str]] = {
    "light": frozenset({"on", "off", "set"}) | BRIGHTNESS_ACTIONS,
    "ac": frozenset({"on", "off", "set"}),
    "heater": frozenset({"on", "off", "set"}),
    "fan": frozenset({"on", "off", "set"}),
    "tv": frozenset({"on", "off", "set"}) | VOLUME_ACTIONS,
    "speaker": frozenset({"on", "off", "set"}) | VOLUME_ACTIONS,
    "door_lock": frozenset({"lock", "unlock"}),
    "thermostat": frozenset({"on", "off", "set"}),
    "blinds": frozenset({"open", "close", "set"}),
    # A smart plug switches what is plugged in; the vacuum "on" starts a clean and "off"
    # sends it back to its dock; the coffee machine "on" brews.
    "plug": frozenset({"on", "off"}),
    "vacuum": frozenset({"on", "off"}),
    "coffee_machine": frozenset({"on", "off"}),
}
# What ``set`` sets and its allowed range (inclusive).
SET_RANGES: dict[str, tuple[str, float, float]] = {
    "light": ("brightness %", 0, 100),
    "ac": ("temperature °C", 10, 32),
    "heater": ("temperature °C", 5, 35),
    "fan": ("speed %", 0, 100),
    "tv": ("volume %", 0, 100),
    "speaker": ("volume %", 0, 100),
    "thermostat": ("temperature °C", 5, 35),
    "blinds": ("position %", 0, 100),
}
TEMPERATURE_DEVICES = frozenset({"ac", "heater", "thermostat"})
FAHRENHEIT_SETPOINTS = (50.0, 86.0)
"""A temperature device's set value above its °C range and within these is °F: "set the
thermostat to 68" is 20 °C, as nobody sets a room to 68 °C (the indoor setpoints people use,
10-30 °C; the two scales' ranges do not overlap, so no value reads both ways)."""
ALL_ROOMS = "all"
"""``room: "all"``: every room the device knows of that kind."""
# Actions that change something a burglar would want changed: a human approves them.
SENSITIVE: frozenset[tuple[str, str]] = frozenset({("door_lock", "unlock")})

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "device": {"type": "string", "enum": list(DEVICES), "x-edgeloop-slots": ["device_type"]},
        # No slot: the action is read from the words of the request (SLURP puts it in
        # its intent and leaves the words unannotated).
        "action": {"type": "string", "enum": list(ACTIONS), "x-edgeloop-slots": []},
        "room": {
            "type": "string",
            "minLength": 1,
            "maxLength": 40,
            "x-edgeloop-slots": ["house_place"],
        },
        "value": {"type": "number", "x-edgeloop-slots": ["change_amount"]},
        # Rooms left out of ``room: "all"`` ("every light but the hall's").
        "except": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 40},
            "maxItems": 20,
            "x-edgeloop-slots": [],
        },
        # Run then: "HH:MM" (its next occurrence) or a local ISO date-time, within 7 days.
        "at": {
            "type": "string",
            "pattern": r"^(\d{4}-\d{2}-\d{2}[T ])?\d{2}:\d{2}(:\d{2})?$",
            "x-edgeloop-slots": [],
        },
        # Seconds; then the previous state comes back.
        "for": {"type": "integer", "minimum": 1, "maximum": 7 * 24 * 3600, "x-edgeloop-slots": []},
    },
    "required": ["device", "action"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "device": {"type": "string", "enum": list(DEVICES)},
        "room": {"type": ["string", "null"]},
        "state": {"type": "string"},
        "value": {"type": ["number", "null"]},
        # The °F value a temperature set was asked in ("to 68"), beside the °C it set.
        "fahrenheit": {"type": "number"},
        # room "all": each room's new state, and the rooms left out.
        "rooms": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"room": {"type": ["string", "null"]}, "state": {"type": "string"}},
                "required": ["room", "state"],
            },
        },
        "except": {"type": "array", "items": {"type": "string"}},
        # A scheduled command (``at``): the timer that runs it, and when (local time).
        "timer_id": {"type": "string"},
        "fires_at": {"type": "string"},
        "timezone": {"type": "string"},
        # A command ``for`` a while: when the previous state comes back (local time).
        "until": {"type": "string"},
    },
    "required": ["device", "state"],
}


def check_arguments(args: dict[str, Any]) -> str | None:
    """Why these arguments break a business rule, or None when they are fine."""
    device, action = args.get("device"), args.get("action")
    if device not in DEVICE_ACTIONS:
        return f"unknown device {device!r}"
    if action not in DEVICE_ACTIONS[device]:
        return f"a {device} cannot {action}"
    value = args.get("value")
    if action in STEP_ACTIONS and value is not None:
        if not 1 <= float(value) <= 100:
            what = "volume" if action in VOLUME_ACTIONS else "brightness"
            return f"a {what} step must be between 1 and 100"
    elif action in ("mute", "unmute") and value is not None:
        return f"{action} takes no value"
    if action == "set":
        if value is None:
            return f"setting the {device} needs a value"
        what, low, high = SET_RANGES[device]
        if not low <= celsius_setpoint(device, float(value)) <= high:
            return f"{device} {what} must be between {low:g} and {high:g}"
    return None


def celsius_setpoint(device: str, value: float) -> float:
    """The value a ``set`` means on the device's own scale: for a temperature device, a
    value above its °C range within :data:`FAHRENHEIT_SETPOINTS` is °F, converted (to the
    half degree); any other value is as given.

    >>> celsius_setpoint("thermostat", 68), celsius_setpoint("thermostat", 21)
    (20.0, 21)
    """
    if device not in TEMPERATURE_DEVICES:
        return value
    high = SET_RANGES[device][2]
    low_f, high_f = FAHRENHEIT_SETPOINTS
    if value > high and low_f <= value <= high_f:
        return round((value - 32) * 5 / 9 * 2) / 2
    return value


def is_sensitive(args: dict[str, Any]) -> bool:
    """True for actions that need a human's approval (unlocking a door)."""
    return (args.get("device"), args.get("action")) in SENSITIVE


def _state_word(device: str, action: str, value: float | None) -> str:
    if device == "vacuum" and action in ("on", "off"):
        return "cleaning" if action == "on" else "docked"
    if device == "coffee_machine" and action == "on":
        return "brewing"
    return {
        "on": "on",
        "off": "off",
        "lock": "locked",
        "unlock": "unlocked",
        "open": "open",
        "close": "closed",
        "mute": "muted",
        "unmute": "unmuted",
    }.get(action, f"set to {value:g}" if value is not None else "set")


def _volume(previous: dict[str, Any], action: str, step: float | None) -> float:
    """The volume after a step up or down (default 10 points), within 0..100; a device
    never set starts at 50."""
    current = float(previous.get("volume", previous.get("value", 50)))
    delta = float(step if step is not None else VOLUME_STEP)
    return max(0.0, min(100.0, current + (delta if action == "volume_up" else -delta)))


def _brightness(previous: dict[str, Any], action: str, step: float | None) -> float:
    """A light's brightness after a step (default :data:`BRIGHTNESS_STEP` points) from the
    kept state: its last brightness, else 100 when it is on or never switched, 0 when it
    is off; brightening switches it on, dimming stops at :data:`MIN_DIMMED`."""
    if previous.get("power") == "off":
        current = 0.0
    else:
        current = float(previous.get("brightness", previous.get("value", 100)))
    delta = float(step if step is not None else BRIGHTNESS_STEP)
    if action == "brightness_up":
        return min(100.0, current + delta)
    if current <= 0:
        raise ValueError("the light is off: there is nothing to dim")
    return max(float(MIN_DIMMED), min(current, current - delta))


def _apply(memory: ToolMemory, args: dict[str, Any], room: str | None) -> dict[str, Any]:
    """Run one command on one room's device now; the observation of that room."""
    device, action = str(args["device"]), str(args["action"])
    value = float(args["value"]) if args.get("value") is not None else None
    said = value
    if action == "set" and value is not None:
        value = celsius_setpoint(device, value)
    previous = memory.get_device_state(device, room) or {}
    state = dict(previous)
    state["state"] = _state_word(device, action, value)
    result_value = value if action == "set" else None
    if action == "set":
        state["value"] = value
        if device in ("tv", "speaker"):
            state["volume"] = value
        if device == "light":
            state["brightness"] = value
        if device != "blinds":
            state["power"] = "on"
    elif action in ("volume_up", "volume_down"):
        result_value = _volume(previous, action, value)
        state["volume"] = state["value"] = result_value
        state["muted"] = False
        state["state"] = f"volume {result_value:g}"
    elif action in BRIGHTNESS_ACTIONS:
        result_value = _brightness(previous, action, value)
        state["brightness"] = state["value"] = result_value
        state["power"] = "on"
        state["state"] = f"brightness {result_value:g}"
    elif action in ("mute", "unmute"):
        state["muted"] = action == "mute"
    elif action in ("on", "off"):
        state["power"] = action
    memory.set_device_state(device, room, state)
    if result_value is not None and result_value.is_integer():
        result_value = int(result_value)
    observed = {"device": device, "room": room, "state": state["state"], "value": result_value}
    if said is not None and value != said:
        observed["fahrenheit"] = int(said) if said.is_integer() else said
    return observed


def make_run(
    memory: ToolMemory, now: Callable[[], datetime] | None = None
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The tool function, writing device state to ``memory``: now, in every room
    (``room: "all"``, but ``except``), at a clock time (``at``: a scheduled command on
    the timer machinery) or for a while (``for``: a timer brings the previous state
    back), see :mod:`understanding.tools.scheduled`."""
    from understanding.tools import scheduled

    clock = now or (lambda: datetime.now(UTC))

    def run(args: dict[str, Any]) -> dict[str, Any]:
        problem = check_arguments(args)
        if problem:
            raise ValueError(problem)
        if args.get("except") and not args.get("room"):  # "everything but the hall"
            args = {**args, "room": ALL_ROOMS}
        if args.get("at"):
            return scheduled.schedule(memory, args, clock())
        rooms = target_rooms(memory, args)
        before = {room: memory.get_device_state(str(args["device"]), room) for room in rooms}
        results = [_apply(memory, args, room) for room in rooms]
        if len(results) == 1 and args.get("room") != ALL_ROOMS:
            observed = results[0]
        else:
            observed = _all_rooms(args, results)
        if args.get("for"):
            observed["until"] = scheduled.restore_later(memory, args, before, clock())
        return observed

    return run


def _all_rooms(args: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    """One observation for a command run in several rooms."""
    states = {str(r["state"]) for r in results}
    return {
        "device": str(args["device"]),
        "room": ALL_ROOMS,
        "state": states.pop() if len(states) == 1 else "mixed",
        "value": results[0].get("value") if results else None,
        "rooms": [{"room": r["room"], "state": r["state"]} for r in results],
        "except": [room_key(r) for r in args.get("except") or []],
    }


def room_key(room: Any) -> str:
    """A room as device state keeps it: trimmed, lower case, and by the vocabulary's name
    for it ("lounge" is the living room, "hall" the hallway), so that a call from the
    cloud's plan or a gRPC client names the room the device's own reading keeps."""
    from understanding.arguments.devices import ROOM_NAMES  # the vocabulary, data only

    said = " ".join(str(room).split()).lower()
    return ROOM_NAMES.get(said, said)


def same_rooms(expected: Any, given: Any) -> bool:
    """Whether two rooms, or two lists of rooms, are the same to the device (by
    :func:`room_key`, in any order): what an evaluation compares."""
    if isinstance(expected, str) and isinstance(given, str):
        return room_key(expected) == room_key(given)
    if isinstance(expected, list) and isinstance(given, list):
        return sorted(map(room_key, expected)) == sorted(map(room_key, given))
    return bool(expected == given)


def known_rooms(memory: ToolMemory, device: str) -> list[str | None]:
    """The rooms the device keeps a state of ``device`` for (None: the house-wide one)."""
    rooms = {entry["room"] for entry in memory.device_states() if entry["device"] == device}
    return sorted(rooms, key=lambda room: room or "")


def target_rooms(memory: ToolMemory, args: dict[str, Any]) -> list[str | None]:
    """The rooms a command covers: its room; with ``room: "all"``, every room the device
    knows of that kind (the house-wide one too; only it when the device knows no room);
    with ``except``, every named room but those (the house-wide device may light the
    excepted rooms too, so it is left as it is).

    Raises:
        ValueError: ``except`` without ``all``, no named room known to leave one out of,
            or every known room excepted.
    """
    room = args.get("room")
    left_out = {room_key(r) for r in args.get("except") or []}
    if room != ALL_ROOMS:
        if left_out:
            raise ValueError("'except' leaves rooms out of room 'all' only")
        return [room_key(room) if room else None]
    device = str(args["device"]).replace("_", " ")
    known = known_rooms(memory, str(args["device"]))
    if not left_out:
        return known or [None]
    named = [r for r in known if r is not None]
    if not named:
        raise ValueError(f"I don't know which rooms have a {device} yet, so none can be left out")
    chosen: list[str | None] = [r for r in named if room_key(r) not in left_out]
    if not chosen:
        raise ValueError(f"every {device} I know of is excepted")
    return chosen


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: the device reports a state."""
    if not observation.get("state"):
        return "device reported no state"
    return None
