"""``device_control``'s arguments from a joint model's slots: the device, room and value
(:mod:`understanding.arguments.builtin_slots`)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from understanding.arguments.builtin_request import _missing, _one, _Request, _said
from understanding.arguments.schema import Filled


def _number(span: str) -> float | None:
    from understanding.arguments.numbers import find_numbers, tokenize

    values = [n.value for n in find_numbers(tokenize(span))]
    return float(values[0]) if len(values) == 1 else None


# A house_place span that names no room of its own: the default room's request.
_HERE = re.compile(
    r"(?:(?:in|the|a|this|my|our)\s+)*(?:room|here|in here|house|home|place|flat|apartment)"
)


# A change_amount span that says no amount: the default step of the action.
_SOME = re.compile(
    r"(?:by\s+)?(?:a\s+)?(?:(?:little|tiny|wee)\s+)?(?:bit|little|touch|notch|tad|smidge)"
    r"(?:\s+(?:more|less))?|(?:a\s+)?little|slightly|some(?:\s+more)?|more|less"
)


def _device_control(request: _Request, home: Any, _now: datetime) -> Filled:
    from understanding.arguments.devices import device_command, device_name, room_name

    overrides: dict[str, Any] = {}
    for argument, kind, normalise in (
        ("device", "device_type", device_name),
        ("room", "house_place", room_name),
        ("value", "change_amount", _number),
    ):
        span, refusal = _one(request, kind, argument)
        if refusal is not None:
            return refusal
        if span is None:
            if argument == "device" and not request.reader_may("device"):
                return _missing(kind, argument)
            continue
        if argument == "room" and _HERE.fullmatch(_said(span)):
            continue  # "a room", "in here": the room the device is in, the default one
        if argument == "room" and device_name(span) is not None and room_name(span) == _said(span):
            continue  # "the roomba" tagged as a place: a device, no room of its own
        if argument == "value" and _SOME.fullmatch(_said(span)):
            continue  # "a bit", "a little": no value, the tool's default step
        value = normalise(span)
        if value is None and argument == "device" and request.reader_may("device"):
            # A span the vocabulary does not read ("disco" of "disco lights", "the flat" to
            # clean): the request's words say the device, or nothing does.
            continue
        if value is None:
            return Filled(None, f"{span!r} is no {argument} the device knows")
        overrides[argument] = value
    words = request.words
    if not request.reader_may("room") and "room" not in overrides:
        overrides["room"] = ""
    if not request.reader_may("value") and "value" not in overrides:
        from understanding.arguments.numbers import normalise_numbers

        words = re.sub(r"\d+(?:\.\d+)?", " ", normalise_numbers(words))
    args = device_command(words, strict=True, **overrides)
    if args is None:
        return Filled(None, "no device command the device can run read from the request")
    if home is not None and getattr(home, "default_room", None) and not args.get("room"):
        args["room"] = home.default_room
    return Filled(args)
