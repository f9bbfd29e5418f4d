"""Follow-ups: what "it", "and coffee too" and "and in Paris?" refer to.

A :class:`Context` keeps the last entities of the conversation for ``KEEP_S`` seconds:
the list, the device (and its room), the city (with the tool and day that asked about
it) and the timer, taken from the tool calls that ran (on the device, or on the device
for the cloud). :func:`rewrite` turns a follow-up into the full request it stands for,
which the router then reads like any other ("and coffee too" after adding milk to the
shopping list -> "add coffee to the shopping list"); the rewritten words are also what
the cloud gets, so the context travels with the query.

Two forms are follow-ups, recognised by their shape, not their words:

- *additive*: a short remainder after "and"/"also"/"what about"/"how about", or before
  "too"/"as well" ("and coffee too", "and in Paris?", "what about tomorrow"): the last
  request again, with the new item, place or day;
- *reference*: "it"/"that"/"them" as the object of a device verb ("turn it off", "lock
  it") or of a list preposition ("what's on it now", "add eggs to it"), and "there" for
  the city last asked about ("what's the time there").

A reference with nothing to refer to is asked back (:class:`AskBack`): a question beats a
guess. Anything else is left alone (``None``): "what time is it" has no reference.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

#: How long the conversation's entities are remembered.
KEEP_S = 180.0

_PRONOUN = r"(?:it|that|them|this)"
_DEVICE_REF = re.compile(
    rf"^(?P<verb>turn|switch|put|set|lock|unlock|open|close|dim|mute|unmute|start|stop)"
    rf"\s+{_PRONOUN}\b(?P<rest>.*)$",
    re.IGNORECASE,
)
_LIST_REF = re.compile(rf"\b(?P<prep>on|in|to|from|off)\s+{_PRONOUN}\b", re.IGNORECASE)
_ADDITIVE_HEAD = re.compile(r"^(?:and|also|plus|what about|how about|and what about)\s+", re.I)
_ADDITIVE_TAIL = re.compile(r"\s+(?:too|as well|also)$", re.IGNORECASE)
_PLACE_LEAD = re.compile(r"^(?:in|for|at)\s+", re.IGNORECASE)
_DAYS = frozenset(
    ("today", "tomorrow", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
     "sunday")
)  # fmt: skip
MAX_ADDED_WORDS = 4


@dataclass
class AskBack:
    """A reference that nothing in the conversation resolves: ask the person."""

    question: str


@dataclass
class Context:
    """The conversation's latest entities, each with when it was last used."""

    entities: dict[str, tuple[float, Any]] = field(default_factory=dict)
    last: tuple[float, str, dict[str, Any]] | None = None  # (when, tool, arguments)

    def get(self, kind: str, now: float | None = None) -> Any:
        """The entity of ``kind`` (list, device, city, timer) if fresh, else None."""
        found = self.entities.get(kind)
        moment = time.monotonic() if now is None else now
        if found is None or moment - found[0] > KEEP_S:
            return None
        return found[1]

    def last_call(self, now: float | None = None) -> tuple[str, dict[str, Any]] | None:
        """The last tool call (tool, arguments) if fresh."""
        moment = time.monotonic() if now is None else now
        if self.last is None or moment - self.last[0] > KEEP_S:
            return None
        return self.last[1], self.last[2]

    def snapshot(self) -> dict[str, Any]:
        """The fresh entities, JSON-ready (what the cloud gets with a follow-up)."""
        now = time.monotonic()
        fresh: dict[str, Any] = {}
        for kind in ("list", "device", "city", "timer"):
            value = self.get(kind, now)
            if value is not None:
                fresh[kind] = list(value) if isinstance(value, tuple) else value
        return fresh

    def remember(
        self, tool: str, arguments: dict[str, Any], output: dict[str, Any] | None = None
    ) -> None:
        """Take the entities of a tool call that ran."""
        now = time.monotonic()
        output = output or {}
        self.last = (now, tool, dict(arguments))
        if tool in ("add_note", "search_notes", "remove_note", "clear_list"):
            name = arguments.get("list") or output.get("list")
            if name:
                self.entities["list"] = (now, str(name))
        elif tool in ("device_control", "device_status") and arguments.get("device"):
            self.entities["device"] = (now, (str(arguments["device"]), arguments.get("room")))
        elif tool in ("get_weather", "world_clock") and (
            arguments.get("city") or output.get("city")
        ):
            self.entities["city"] = (now, str(arguments.get("city") or output.get("city")))
        elif tool == "set_timer" and output.get("timer_id"):
            self.entities["timer"] = (
                now,
                (str(output["timer_id"]), str(arguments.get("label") or "")),
            )


def _device_words(device: tuple[str, Any]) -> str:
    name, room = device
    where = f"{room} " if room and room != "all" else ""
    return f"the {where}{name.replace('_', ' ')}"


def rewrite(text: str, context: Context) -> str | AskBack | None:
    """The full request a follow-up stands for; an :class:`AskBack` for a reference with
    nothing to refer to; None when ``text`` is no follow-up."""
    said = " ".join(text.strip().rstrip("?!.").split())
    additive = _additive(said, context)
    if additive is not None:
        return additive
    return _reference(said, context)


def _additive(said: str, context: Context) -> str | None:
    head, tail = _ADDITIVE_HEAD.match(said), _ADDITIVE_TAIL.search(said)
    if head is None and tail is None:
        return None
    added = said[head.end() if head else 0 : tail.start() if tail else len(said)].strip()
    if not added or len(added.split()) > MAX_ADDED_WORDS:
        return None
    last = context.last_call()
    if last is None:
        return None
    tool, args = last
    if tool == "add_note" and args.get("list"):
        return f"add {added} to the {args['list']} list"
    if tool in ("get_weather", "world_clock"):
        return _again_elsewhere(tool, args, added)
    if tool == "device_control" and args.get("device"):
        room = _PLACE_LEAD.sub("", added)  # "and in the bedroom"
        room = re.sub(r"^the\s+", "", room, flags=re.IGNORECASE)
        action = str(args.get("action", ""))
        return f"turn {action} the {room} {str(args['device']).replace('_', ' ')}"
    return None


def _again_elsewhere(tool: str, args: dict[str, Any], added: str) -> str | None:
    """The last weather or clock question, about another place or day."""
    from understanding.gazetteer import place

    words = _PLACE_LEAD.sub("", added).lower()
    day = str(args.get("day") or "today")
    city = str(args.get("city") or "")
    if words in _DAYS:
        day = words
    elif place(words) is not None:
        city = words
    else:
        return None
    if tool == "world_clock":
        return f"what time is it in {city}"
    return f"what's the weather in {city} {day}"


def _reference(said: str, context: Context) -> str | AskBack | None:
    device_ref = _DEVICE_REF.match(said)
    if device_ref is not None:
        device = context.get("device")
        if device is None:
            verb = device_ref.group("verb").lower()
            rest = device_ref.group("rest").strip()
            return AskBack(f"Which device should I {verb} {rest}?".replace("  ", " "))
        rest = device_ref.group("rest").strip()
        return f"{device_ref.group('verb')} {_device_words(device)} {rest}".strip()
    from understanding.arguments.builtin_places import THERE  # "there" as the router reads it

    place_ref = THERE.search(said)
    city = context.get("city")
    if place_ref is not None and city is not None:
        return f"{said[: place_ref.start()]}in {city}{said[place_ref.end() :]}"  # "the time there"
    list_ref = _LIST_REF.search(said)
    if list_ref is not None:
        name = context.get("list")
        if name is None:
            return AskBack("Which list do you mean?")
        before, after = said[: list_ref.start()], said[list_ref.end() :]
        return f"{before}{list_ref.group('prep')} the {name} list{after}"
    return None
