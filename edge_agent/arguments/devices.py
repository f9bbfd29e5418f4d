"""Devices, rooms and actions by their everyday names ("lamp", "aircon", "lounge", "kill").

``device_arguments`` reads one device command from a query: which device (longest name
first, so "front door" beats "door"), which room, which action and, for ``set``, the
value. It returns None when the query names no device, several different devices, or
an action the device cannot take, so such queries go to the cloud instead of guessing.
"""

from __future__ import annotations

import re
from typing import Any

from edge_agent.arguments.numbers import find_numbers, tokenize
from edge_agent.tools.devices import check_arguments

DEVICE_NAMES: dict[str, str] = {}
ROOM_NAMES: dict[str, str] = {}


def _names(table: dict[str, str], canonical: str, *names: str) -> None:
    for name in names:
        table[name] = canonical


_names(DEVICE_NAMES, "light", "light", "lights", "lamp", "lamps", "bulb", "bulbs",
       "light bulb", "light bulbs", "ceiling light", "ceiling lights", "lighting",
       "lites", "lite", "ligths", "ligts", "lihgts", "lightd", "lighs", "desk lamp",
       "floor lamp", "night light", "overhead light", "overhead lights", "lamp light",
       "the big light", "spotlights", "downlights", "brightness", "ligth")  # fmt: skip
_names(DEVICE_NAMES, "ac", "ac", "a/c", "a / c", "a.c.", "aircon", "air con", "air-con",
       "air conditioning", "air conditioner", "airconditioner", "air conditionner",
       "aircondition", "cooling", "the cooler", "cooler", "air-conditioning",
       "air conditioning unit", "climate control")  # fmt: skip
_names(DEVICE_NAMES, "heater", "heater", "heaters", "heating", "radiator", "radiators",
       "space heater", "heat", "the heat", "furnace", "heatr", "boiler", "central heating",
       "underfloor heating", "floor heating")  # fmt: skip
_names(DEVICE_NAMES, "fan", "fan", "fans", "ceiling fan", "desk fan", "standing fan",
       "tower fan", "ventilator", "vent fan")  # fmt: skip
_names(DEVICE_NAMES, "tv", "tv", "t.v.", "t.v", "telly", "television", "tele",
       "televison", "the box", "smart tv", "tv set", "teevee")  # fmt: skip
_names(DEVICE_NAMES, "speaker", "speaker", "speakers", "music", "stereo", "sound system",
       "smart speaker", "sonos", "soundbar", "sound bar", "speeker", "volume",
       "the music", "audio", "radio", "hifi", "hi-fi")  # fmt: skip
_names(DEVICE_NAMES, "door_lock", "door lock", "door", "doors", "front door", "back door",
       "deadbolt", "lock", "locks", "smart lock", "door_lock", "main door", "entrance door",
       "side door", "front-door", "doorlock", "the locks")  # fmt: skip
_names(DEVICE_NAMES, "thermostat", "thermostat", "thermostats", "temperature", "temp",
       "thermostaat", "thermastat", "thermo", "nest", "the heat to")  # fmt: skip
_names(DEVICE_NAMES, "blinds", "blinds", "blind", "shades", "shade", "curtains",
       "curtain", "shutters", "shutter", "drapes", "roller blinds", "window blinds",
       "blinders", "binds")  # fmt: skip

_names(ROOM_NAMES, "living room", "living room", "livingroom", "lounge", "family room",
       "sitting room", "front room", "living-room", "livin room", "lving room", "den",
       "tv room", "living")  # fmt: skip
_names(ROOM_NAMES, "bedroom", "bedroom", "bed room", "master bedroom", "main bedroom",
       "bedrom", "beedroom", "my room", "sleeping room", "master bed room")  # fmt: skip
_names(ROOM_NAMES, "kitchen", "kitchen", "kitchenette", "kitchn", "kithcen", "kichen",
       "cooking area")  # fmt: skip
_names(ROOM_NAMES, "office", "office", "home office", "study", "studio", "work room",
       "workroom", "offce", "ofice")  # fmt: skip
_names(ROOM_NAMES, "bathroom", "bathroom", "bath room", "bath", "washroom", "restroom",
       "loo", "toilet", "wc", "shower room", "bathrom", "ensuite", "en suite")  # fmt: skip
_names(ROOM_NAMES, "hallway", "hallway", "hall", "corridor", "entryway", "entrance",
       "foyer", "hall way", "landing", "halway")  # fmt: skip
_names(ROOM_NAMES, "dining room", "dining room", "dining area", "diningroom")
_names(ROOM_NAMES, "garage", "garage")
_names(ROOM_NAMES, "basement", "basement", "cellar")
_names(ROOM_NAMES, "nursery", "nursery", "baby's room", "babys room", "baby room")
_names(ROOM_NAMES, "kids room", "kids room", "kid's room", "kids' room", "childrens room",
       "children's room", "playroom")  # fmt: skip
_names(ROOM_NAMES, "guest room", "guest room", "guest bedroom", "spare room", "spare bedroom")
_names(ROOM_NAMES, "laundry room", "laundry room", "laundry", "utility room")
_names(ROOM_NAMES, "attic", "attic", "loft")
_names(ROOM_NAMES, "garden", "garden", "backyard", "back yard", "yard")
_names(ROOM_NAMES, "porch", "porch", "patio", "deck", "terrace", "balcony")

# A question about a device's state, at the start of the query or of a clause.
_STATE_QUESTION = re.compile(
    r"(?:^|[,;:]\s*|\b(?:and|so|but|right|ok|okay|hey)\s+)(?:(?:is|are|did|was|were|has|why)"
    r"\s+(?:the|my|all|any|it|they|someone|i|you)|have (?:you|i|they|we|someone))\b",
    re.IGNORECASE,
)
_ON = ("turn on", "switch on", "power on", "put on", "flip on", "start", "fire up",
       "boot up", "activate", "enable", "light up", "crank up", "get on")  # fmt: skip
_OFF = ("turn off", "switch off", "power off", "shut off", "shut down", "kill", "stop",
        "deactivate", "disable", "cut", "turn of", "switch of", "power down", "put out",
        "douse", "turnoff", "switchoff")  # fmt: skip
_SET = ("set", "dim", "brighten", "adjust", "change", "make", "put", "lower", "raise",
        "turn up", "turn down", "bring", "drop", "bump", "increase", "decrease", "crank",
        "reduce", "boost")  # fmt: skip


def _find_phrases(tokens: list[str], table: dict[str, str]) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        for width in (3, 2, 1):
            phrase = " ".join(tokens[i : i + width])
            if len(tokens[i : i + width]) == width and phrase in table:
                found.append((i, i + width, table[phrase]))
                i += width
                break
        else:
            i += 1
    return found


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    padded = f" {text} "
    return any(f" {p} " in padded for p in phrases)


def _action(joined: str, tokens: list[str], device: str, value: float | None) -> str | None:
    if device == "door_lock":
        if _has(joined, ("unlock", "unlocked", "unbolt", "open", "let me in", "unlatch")):
            return "unlock"
        if _has(joined, ("lock", "locked", "bolt", "secure", "close", "shut", "lock up")):
            return "lock"
        return None
    if device == "blinds":
        if value is not None and _has(joined, ("to", "at", "set", "%", "percent")):
            return "set"
        if _has(joined, ("open", "raise", "pull up", "lift", "roll up", "up", "draw back")):
            return "open"
        if _has(joined, ("close", "shut", "lower", "draw", "pull down", "roll down", "down")):
            return "close"
        return None
    if value is not None and (
        _has(joined, _SET) or _has(joined, ("to", "at", "%", "percent", "degrees"))
    ):
        return "set"
    off = _has(joined, _OFF) or "off" in tokens or "of" in tokens[-1:]
    on = _has(joined, _ON) or "on" in tokens
    if value is not None and not off and not on:
        return "set"  # "brightness 40 in the bedroom", "bedroom lights 40"
    if off and not _has(joined, ("turn on", "switch on", "power on")):
        return "off"
    if on:
        return "on"
    return None


def device_arguments(text: str) -> dict[str, Any] | None:
    """``{"device", "action", "room"?, "value"?}`` for a device command, or None.

    >>> device_arguments("switch off the lamp in the lounge")
    {'device': 'light', 'action': 'off', 'room': 'living room'}
    """
    if _STATE_QUESTION.search(text):
        return None  # "is the door locked?" asks about state; it commands nothing
    tokens = tokenize(text)
    joined = " ".join(tokens)
    rooms = _find_phrases(tokens, ROOM_NAMES)
    devices = _find_phrases(tokens, DEVICE_NAMES)
    room_spans = {(s, e) for s, e, _ in rooms}
    # A room word inside a device phrase ("living room lamp") is still the room, but a
    # device word that is part of a room phrase ("tv room") is not a device.
    devices = [d for d in devices if (d[0], d[1]) not in room_spans]
    kinds = {d[2] for d in devices}
    # "set the heat/temperature to 21" is the thermostat; "the heater" on/off is the heater.
    if kinds == {"heater", "thermostat"}:
        kinds = {"thermostat"}
    if (
        "door_lock" in kinds
        and len(kinds) > 1
        and any(d[2] == "door_lock" and tokens[d[0]] in ("lock", "locks") for d in devices)
    ):
        kinds.discard("door_lock")
    if (
        "thermostat" in kinds
        and len(kinds) > 1
        and any(d[2] == "thermostat" and tokens[d[0]] in ("temperature", "temp") for d in devices)
    ):
        kinds.discard("thermostat")
    if (
        "speaker" in kinds
        and len(kinds) > 1
        and any(d[2] == "speaker" and tokens[d[0]] == "volume" for d in devices)
    ):
        kinds.discard("speaker")
    if len(kinds) != 1:
        return None
    device = next(iter(kinds))
    room_names = {r[2] for r in rooms}
    if len(room_names) > 1:
        return None
    numbers = find_numbers(tokens)
    value = numbers[-1].value if numbers else None
    if len(numbers) > 1:
        return None
    if device == "heater" and value is not None and _has(joined, ("heat", "the heat")):
        device = "thermostat"
    action = _action(joined, tokens, device, value)
    if action is None:
        return None
    args: dict[str, Any] = {"device": device, "action": action}
    if room_names:
        args["room"] = next(iter(room_names))
    if action == "set" and value is not None:
        args["value"] = int(value) if float(value).is_integer() else value
    if check_arguments(args) is not None:
        return None
    return args
