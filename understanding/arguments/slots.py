"""Arguments from slots: the model finds the spans, a normaliser picked by the schema
reads each one.

A tool's input schema says which slot types feed which argument: a property takes the
slots of its own name, or of the types listed in its ``x-edgeloop-slots`` keyword. The
property's schema then picks the normaliser (``x-edgeloop-filler`` overrides):

- ``number`` (integer / number): "four" -> 4, "96 bucks" -> 96, "2.5" -> 2.5;
- ``duration`` (a number named ``seconds``, ``duration``...): "half an hour" -> 1800;
- ``time`` (a string with ``"format": "time"``): "five thirty am" -> "05:30";
- ``city`` (a string named ``city``, ``place``...): a city the device knows, else none;
- ``day`` (an enum within {today, tomorrow}) and ``enum`` (the one value the span names);
- ``text`` (any other string): the words of the span as said;
- an ``array`` property takes every slot of its types, each normalised by ``items``.

A required argument with no slot (or one no normaliser can read, or two slots where one
value is expected) fills nothing: the query goes to the cloud with the reason, never a
guess.

>>> from understanding.slu.model import Slot
>>> schema = {"type": "object", "properties": {"people": {"type": "integer"}},
...           "required": ["people"]}
>>> fill_from_slots(schema, [Slot("people", "four", 4, 5)]).arguments
{'people': 4}
>>> fill_from_slots(schema, []).reason
"no 'people' slot in the query for the required argument 'people'"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from understanding.arguments.durations import parse_duration
from understanding.arguments.numbers import normalise_numbers
from understanding.arguments.places import one_city
from understanding.arguments.schema import (
    FILLER_KEYWORD,
    FILLERS,
    Filled,
    filler_of,
    read_day,
    read_enum,
    read_number,
    types_of,
    validated,
)

__all__ = ["SLOTS_KEYWORD", "clock_time", "fill_from_slots", "normalise_slot", "slot_types_of"]

SLOTS_KEYWORD = "x-edgeloop-slots"
_CLOCK = re.compile(
    r"^(?:at\s+)?(\d{1,2})(?:\s*[:.h ]\s*(\d{2}))?\s*(?:o'?\s*clock\s*)?"
    r"(a\.?\s*m\.?|p\.?\s*m\.?|in the morning|in the evening|at night|tonight)?$"
)
_WRITTEN_CLOCK = re.compile(r"^\s*(?:at\s+)?(\d{1,2})[:. ](\d{2})(?!\d)(.*)$")
_PAST = re.compile(
    r"^(half|quarter|\d{1,2})\s+(?:minutes\s+)?(past|after|to|till)\s+(\d{1,2})(.*)$"
)


def clock_time(text: str) -> str | None:
    """ "HH:MM" for a time of day said or written ("five thirty am", "7pm", "noon",
    "half past seven", "17:45"), or None."""
    written = _WRITTEN_CLOCK.match(text.lower())
    if written is not None:  # "7:05 pm", "7 05": the number reader would make "7 : 5" of it
        rest = normalise_numbers(written.group(3).replace(".", ""))
        said = f"{written.group(1)}:{written.group(2)} {rest}".strip()
    else:
        said = " ".join(normalise_numbers(text.lower().strip()).split())
    said = said.replace("a m", "am").replace("p m", "pm")
    if said in ("noon", "midday", "12 noon"):
        return "12:00"
    if said == "midnight":
        return "00:00"
    minute_of = {"half": 30, "quarter": 15}
    # British "half six" is half past six.
    said = re.sub(r"^half (\d{1,2})\b", r"half past \1", said)
    past = _PAST.match(said)
    if past is not None:
        minutes = minute_of.get(past.group(1)) or int(past.group(1))
        hour = int(past.group(3))
        if past.group(2) in ("to", "till"):
            hour, minutes = (hour - 1) % 24, 60 - minutes
        rest = past.group(4).strip()
        said = f"{hour}:{minutes:02d} {rest}".strip()
    match = _CLOCK.match(said)
    if match is None:
        return None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    suffix = (match.group(3) or "").replace(".", "").replace(" ", "")
    if suffix in ("pm", "intheevening", "atnight", "tonight") and hour < 12:
        hour += 12
    elif suffix in ("am", "inthemorning") and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return f"{hour:02d}:{minute:02d}"


def _filler(name: str, schema: dict[str, Any]) -> str:
    declared = schema.get(FILLER_KEYWORD)
    if declared in (*FILLERS, "time"):
        return str(declared)
    if schema.get("format") == "time":
        return "time"
    return filler_of(name, schema) or "text"


_NORMALISERS: dict[str, Callable[[str, dict[str, Any]], Any]] = {
    "number": read_number,
    "duration": lambda span, _s: parse_duration(span),
    "time": lambda span, _s: clock_time(span),
    "city": lambda span, _s: one_city(span),
    "day": read_day,
    "enum": read_enum,
    "text": lambda span, _s: " ".join(span.split()) or None,
}


def normalise_slot(name: str, schema: dict[str, Any], span: str) -> Any:
    """The value of property ``name`` (``schema``) read from one slot's words, or None."""
    try:
        return _NORMALISERS[_filler(name, schema)](span, schema)
    except (ValueError, ArithmeticError):
        return None


def slot_types_of(name: str, schema: dict[str, Any]) -> list[str]:
    """The slot types that feed property ``name``: its ``x-edgeloop-slots``, else its name."""
    declared = schema.get(SLOTS_KEYWORD)
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list) and declared:
        return [str(d) for d in declared]
    return [name]


def fill_from_slots(
    schema: dict[str, Any],
    slots: Sequence[Any],
    validator: Callable[[dict[str, Any]], str | None] | None = None,
) -> Filled:
    """Arguments for ``schema`` from the ``slots`` of one request (objects with ``type``
    and ``value``), validated against the schema and ``validator``."""
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    required = {str(n) for n in schema.get("required") or []}
    slots = _merged(slots)
    args: dict[str, Any] = {}
    for name, sub in properties.items():
        kinds = slot_types_of(name, sub)
        found = [s for s in slots if s.type in kinds]
        if "array" in types_of(sub):
            items = dict(sub.get("items") or {"type": "string"})
            values = [normalise_slot(name, items, s.value) for s in found]
            if found and all(v is not None for v in values):
                args[name] = values
            elif found:
                return Filled(None, f"cannot read {name!r} from {[s.value for s in found]}")
            elif name in required:
                return Filled(None, _missing(name, kinds))
            continue
        if len(found) > 1:
            spans = ", ".join(repr(s.value) for s in found)
            return Filled(None, f"several values for {name!r} ({spans}): which one is a guess")
        if not found:
            if name in required:
                return Filled(None, _missing(name, kinds))
            continue
        value = normalise_slot(name, sub, found[0].value)
        if value is None:
            kind = _filler(name, sub)
            what = "a city the device knows" if kind == "city" else f"a {kind}"
            return Filled(None, f"{found[0].value!r} is not {what} (argument {name!r})")
        args[name] = value
    return validated(args, schema, validator)


@dataclass(frozen=True)
class _Span:
    type: str
    value: str
    start: int
    end: int


def _merged(slots: Sequence[Any]) -> list[Any]:
    """Slots with a span of the same type right after them read as one ("half past" +
    "seven"): a tagger that starts a new span mid-phrase still means one value."""
    out: list[Any] = []
    for slot in sorted(slots, key=lambda s: getattr(s, "start", 0)):
        prev = out[-1] if out else None
        start = getattr(slot, "start", None)
        if prev is not None and start is not None and prev.type == slot.type and prev.end == start:
            out[-1] = _Span(slot.type, f"{prev.value} {slot.value}", prev.start, slot.end)
        else:
            out.append(slot)
    return out


def _missing(name: str, kinds: list[str]) -> str:
    slot = kinds[0] if len(kinds) == 1 else " / ".join(kinds)
    return f"no {slot!r} slot in the query for the required argument {name!r}"
