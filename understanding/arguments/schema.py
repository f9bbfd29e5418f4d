"""Filling a user tool's arguments from the words of a query, by its JSON Schema.

The built-in tools have readers written for them; a tool you register
(``understanding.tools.user``) gets the same readers, chosen for each property of its input
schema by the property's ``x-edgeloop-filler`` keyword or, without one, by its type, name
and enum:

- ``number`` (an integer or number property): the query's one number ("four", "2.5",
  "twenty-two");
- ``duration`` (a number named ``seconds``, ``duration``, ``delay``...): seconds from
  "an hour and a half", "90 seconds";
- ``city`` (a string named ``city``, ``place``, ``location``, ``town``, ``destination``):
  the one known city, typos, aliases and qualifiers allowed ("Cairo, Egypt");
- ``day`` (an enum within {today, tomorrow}): the day named, today when none is;
- ``enum`` (any other string enum): the one enum value the query names;
- ``text`` (a string named ``text``, ``query``, ``message``, ``content``, ``item``...):
  what is quoted, else what follows a colon, else the whole request without politeness.

A reader that finds nothing, or more than one candidate (two numbers, two cities, two
enum values), fills nothing: when the property is required, the query goes to the cloud
with the reason naming it; an optional one is left out. A property no reader serves
(a boolean, an object, a string with no telling name) can only be optional. The filled
arguments are then checked against the whole schema and the tool's validator.

>>> schema = {"type": "object", "properties": {"people": {"type": "integer"}},
...           "required": ["people"]}
>>> fill_from_schema(schema, "book a table for four").arguments
{'people': 4}
>>> fill_from_schema(schema, "book a table").reason
"no value for 'people' (number) in the query"
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from understanding.arguments.durations import parse_duration
from understanding.arguments.free_text import request_text
from understanding.arguments.numbers import find_numbers, tokenize
from understanding.arguments.places import one_city, weather_day

__all__ = [
    "FILLERS",
    "FILLER_KEYWORD",
    "Filled",
    "fill_from_schema",
    "filler_of",
    "read_day",
    "read_enum",
    "read_number",
    "types_of",
    "validated",
]

FILLER_KEYWORD = "x-edgeloop-filler"
FILLERS = ("number", "duration", "city", "day", "enum", "text")

_DURATION_NAMES = frozenset(
    {"seconds", "secs", "duration", "duration_s", "duration_seconds", "duration_secs", "delay"}
)
_CITY_NAMES = frozenset({"city", "place", "location", "town", "destination"})
_TEXT_NAMES = frozenset(
    {
        "text",
        "query",
        "message",
        "content",
        "body",
        "note",
        "item",
        "prompt",
        "question",
        "request",
        "search",
        "phrase",
    }
)
_DAYS = frozenset({"today", "tomorrow"})


@dataclass(frozen=True)
class Filled:
    """The arguments read from a query, or None with the reason they could not be."""

    arguments: dict[str, Any] | None
    reason: str = ""


def types_of(schema: dict[str, Any]) -> set[str]:
    """The JSON types a (sub)schema allows: its ``type``, a name or a list of names."""
    kind = schema.get("type")
    if isinstance(kind, list):
        return {str(k) for k in kind}
    return {str(kind)} if kind else set()


def filler_of(name: str, schema: dict[str, Any]) -> str | None:
    """The reader for property ``name`` with ``schema``, or None when none serves it."""
    declared = schema.get(FILLER_KEYWORD)
    if declared is not None:
        return str(declared) if declared in FILLERS else None
    types = types_of(schema)
    key = name.lower()
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
        return "day" if set(enum) <= _DAYS else "enum"
    if types & {"integer", "number"}:
        return "duration" if key in _DURATION_NAMES else "number"
    if "string" in types or not types:
        if key in _CITY_NAMES:
            return "city"
        if key in _TEXT_NAMES:
            return "text"
    return None


def read_number(text: str, schema: dict[str, Any]) -> int | float | None:
    """The one number ``text`` says, as an int where it is whole (None where it is not
    and ``schema`` wants an integer), or None: none, or several (which one is a guess)."""
    values = [span.value for span in find_numbers(tokenize(text))]
    if len(values) != 1:
        return None
    value = values[0]
    if float(value).is_integer():
        return int(value)
    types = types_of(schema)
    return None if "integer" in types and "number" not in types else value


def read_enum(text: str, schema: dict[str, Any]) -> str | None:
    """The one value of ``schema``'s enum that ``text`` names (``_`` read as a space)."""
    lowered = " ".join(re.sub(r"[^\w']+", " ", text.lower()).split())
    named = [
        value
        for value in schema["enum"]
        if re.search(r"\b" + re.escape(value.lower().replace("_", " ")) + r"\b", lowered)
    ]
    return named[0] if len(named) == 1 else None


def read_day(text: str, schema: dict[str, Any]) -> str | None:
    """The forecast day ``text`` names, if ``schema``'s enum holds it."""
    day = weather_day(text)
    return day if day in schema["enum"] else None


_READERS: dict[str, Callable[[str, dict[str, Any]], Any]] = {
    "number": read_number,
    "duration": lambda text, _schema: parse_duration(text),
    "city": lambda text, _schema: one_city(text),
    "day": read_day,
    "enum": read_enum,
    "text": lambda text, _schema: request_text(text),
}


def fill_from_schema(
    schema: dict[str, Any],
    text: str,
    validator: Callable[[dict[str, Any]], str | None] | None = None,
) -> Filled:
    """Arguments for an input ``schema`` read from ``text``, validated, or the reason why
    not (see the module docstring for which reader serves which property)."""
    properties: dict[str, Any] = dict(schema.get("properties") or {})
    required = [str(name) for name in schema.get("required") or []]
    fillers = {name: filler_of(name, sub) for name, sub in properties.items()}
    numeric = [name for name, kind in fillers.items() if kind in ("number", "duration")]
    args: dict[str, Any] = {}
    for name, sub in properties.items():
        kind = fillers[name]
        value = None
        # Two numeric properties share the query's numbers: which is which is a guess.
        if kind is not None and not (kind == "number" and len(numeric) > 1):
            try:
                value = _READERS[kind](text, sub)
            except (ValueError, ArithmeticError):
                value = None
        if value is not None:
            args[name] = value
        elif name in required:
            what = kind or "no reader for this property"
            if kind == "number" and len(numeric) > 1:
                what = "several numeric arguments"
            return Filled(None, f"no value for {name!r} ({what}) in the query")
    missing = [name for name in required if name not in args]
    if missing:
        return Filled(None, f"no value for {missing[0]!r} in the query")
    return validated(args, schema, validator)


def validated(
    args: dict[str, Any],
    schema: dict[str, Any],
    validator: Callable[[dict[str, Any]], str | None] | None = None,
) -> Filled:
    """``args`` if they fit ``schema`` and pass the tool's ``validator`` (which returns
    what is wrong, or nothing), else None with the reason."""
    from jsonschema import Draft202012Validator

    error = next(iter(Draft202012Validator(schema).iter_errors(args)), None)
    if error is not None:
        return Filled(None, f"arguments {args} do not fit the schema: {error.message}")
    if validator is not None:
        try:
            problem = validator(args)
        except Exception as exc:  # the user's rules failing is a reason, not a crash
            problem = f"{type(exc).__name__}: {exc}"
        if problem:
            return Filled(None, f"arguments {args} break the tool's rules: {problem}")
    return Filled(args)
