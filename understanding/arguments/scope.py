"""Scope and exceptions of a device command: "all the lights", "every light but the hall's".

The device command reader names one room; "turn off all the lights except the hall" named
the hall, the very room left out. This reading, after it, turns a scope word (all, every,
everything) into ``room: "all"`` and an exception (except, but, other than, apart from,
besides, excluding) into ``except``: the rooms it names. An exception it cannot read as
rooms (a device, "but only after nine") is never dropped: the request goes to the cloud.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["device_scope"]

_ALL = re.compile(r"\b(all|every|everything|each)\b", re.IGNORECASE)
_EXCEPT = re.compile(
    r"\b(?:except(?:\s+for)?|but(?:\s+not)?|other\s+than|apart\s+from|besides|save\s+for|"
    r"excluding|all\s+but)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
# Words that leave something out even with no "all" before them ("the lights off except
# in the kitchen" covers every other room).
_STRICT = re.compile(r"except|other\s+than|apart\s+from|excluding|but\s+not", re.IGNORECASE)
_PARTS = re.compile(r"\s*(?:,|\band\b|\bor\b|&)\s*", re.IGNORECASE)
_NOISE = re.compile(
    r"'s\b|\b(?:in|the|my|our|one|ones|please|light|lights|lamp|lamps|room)\b|[.!?]",
    re.IGNORECASE,
)


def _known_rooms() -> frozenset[str]:
    from understanding.arguments.devices import ROOM_NAMES

    return frozenset(ROOM_NAMES.values())


def device_scope(query: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """``arguments`` of a device_control request with its scope and exceptions read from
    ``query``; None when it holds an exception that names no room (the cloud decides)."""
    from understanding.arguments.devices import device_name, room_name

    words = " ".join(query.split())
    found = _EXCEPT.search(words)
    scoped = _ALL.search(words[: found.start()] if found else words) is not None
    if found is not None and not scoped and _STRICT.match(found.group(0)) is None:
        found = None  # "turn on the lights but dim them": "but" alone is no exception
    if found is None:
        if scoped and not arguments.get("room"):
            return {**arguments, "room": "all"}
        return arguments
    rooms: list[str] = []
    for part in _PARTS.split(found.group("rest")):
        if not part.strip():
            continue
        room = room_name(_NOISE.sub(" ", part))
        if room is None:
            return None
        named = device_name(part)
        if named is not None and (named != arguments.get("device") or room not in _known_rooms()):
            return None  # "everything but the TV": a device left out, not a room
        rooms.append(room)
    if not rooms:
        return None
    return {**arguments, "room": "all", "except": rooms}
