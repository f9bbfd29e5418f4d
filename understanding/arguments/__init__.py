"""Filling a tool's arguments from the words of a query.

``extract_arguments(tool, text)`` reads the arguments that ``tool`` needs with the
parser for each kind (numbers and durations as words, units and cities by any common
name, devices and rooms by everyday names, free text without its command) and validates
them against the tool's input schema and business rules. It returns None when it cannot
fill them validly: the router then sends the query to the cloud instead of guessing.
It is pure and fast, so the cloud's planner can call it on each clause of a compound
query.

>>> extract_arguments("set_timer", "an hour and a half")
{'seconds': 5400}
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from understanding.arguments.devices import device_arguments
from understanding.arguments.durations import parse_duration
from understanding.arguments.expressions import calculator_expression
from understanding.arguments.free_text import note_text, search_query
from understanding.arguments.numbers import normalise_numbers, parse_number
from understanding.arguments.places import one_city, weather_day
from understanding.arguments.spelling import correct
from understanding.arguments.units import unit_arguments

__all__ = [
    "extract_arguments",
    "normalise_numbers",
    "parse_duration",
    "parse_number",
    "validate_arguments",
]


def _calculator(text: str) -> dict[str, Any] | None:
    expression = calculator_expression(text)
    return {"expression": expression} if expression else None


def _weather(text: str) -> dict[str, Any] | None:
    city, day = one_city(text), weather_day(text)
    if city is None or day is None:
        return None
    return {"city": city, "day": day}


def _clock(text: str) -> dict[str, Any] | None:
    city = one_city(text)
    return {"city": city} if city else None


def _timer(text: str) -> dict[str, Any] | None:
    seconds = parse_duration(text)
    return {"seconds": seconds} if seconds else None


def _units(text: str) -> dict[str, Any] | None:
    args = unit_arguments(text)
    if args is None:
        return None
    value = float(args["value"])  # type: ignore[arg-type]
    args["value"] = int(value) if value.is_integer() else value
    return args


def _note(text: str) -> dict[str, Any] | None:
    body = note_text(text)
    return {"text": body} if body else None


def _search(text: str) -> dict[str, Any] | None:
    query = search_query(text)
    return {"query": query} if query else None


EXTRACTORS: dict[str, Callable[[str], dict[str, Any] | None]] = {
    "calculator": _calculator,
    "unit_convert": _units,
    "get_weather": _weather,
    "device_control": device_arguments,
    "set_timer": _timer,
    "add_note": _note,
    "search_notes": _search,
    "world_clock": _clock,
}


@cache
def _validators() -> dict[str, Any]:
    from jsonschema import Draft202012Validator

    from understanding.tools import input_schemas

    return {name: Draft202012Validator(schema) for name, schema in input_schemas().items()}


@cache
def _fast_checks() -> dict[str, Any]:
    from react_kernel.schema_check import compile_fast_check
    from understanding.tools import input_schemas

    return {name: compile_fast_check(schema) for name, schema in input_schemas().items()}


def validate_arguments(tool: str, args: dict[str, Any]) -> str | None:
    """Why ``args`` do not satisfy ``tool``'s input schema, or None when they do.

    The kernel's one-sided fast check answers "valid" without ``jsonschema`` (whose import
    costs a cold ``edge-agent ask`` 60 ms); when it is not sure, ``jsonschema`` decides.
    """
    check = _fast_checks().get(tool)
    if check is not None and check(args):
        return None
    validator = _validators().get(tool)
    if validator is None:
        return f"unknown tool {tool!r}"
    error = next(iter(validator.iter_errors(args)), None)
    return None if error is None else f"{tool}: {error.message}"


def extract_arguments(tool: str, text: str) -> dict[str, Any] | None:
    """``tool``'s arguments read from ``text``, schema-valid, or None when it cannot."""
    extractor = EXTRACTORS.get(tool)
    if extractor is None or not text.strip():
        return None
    try:
        args = extractor(text)
        if args is None:
            # Misspelt domain words ("tims", "minuets"): read the corrected text. The raw
            # text goes first so that a note keeps the user's own words.
            fixed = correct(text)
            if fixed != text:
                args = extractor(fixed)
    except (ValueError, ArithmeticError):
        return None
    if args is None or validate_arguments(tool, args) is not None:
        return None
    return args
