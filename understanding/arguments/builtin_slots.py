"""The built-in tools' arguments from a joint model's slots.

A joint intent + slot model (``understanding.slu``) gives each request of an utterance its
words and its slots. Each built-in tool's input schema says which slot types feed which
argument (``x-edgeloop-slots``, the vocabulary of docs/edge.md "Arguments from slots"),
and here each argument's span is normalised by what the argument is:

==================  ==========================================================
slot type           argument and normaliser
==================  ==========================================================
``place_name``      ``get_weather.city``, ``world_clock.city``: a gazetteer city
                    (spelling tolerance; "paris texas" is no city the device knows)
``date``            ``get_weather.day``: today, tomorrow, a weekday or a span of the
                    7 days ("this week", "the weekend", read with the ``timeofday``
                    span by :mod:`understanding.arguments.forecast_days`); a date the
                    forecast does not serve ("next week", "the 5th") fills nothing;
                    ``set_timer.at``: the date of the alarm; ``world_clock.date``: a
                    calendar date ("december thirteenth" -> 2026-12-13) whose weekday
                    the clock tells; one it cannot read is the cloud's
``timeofday``       ``set_timer.at`` (am/pm of the clock time), ``get_weather.day``
``time``            ``set_timer.seconds`` (a duration) or ``set_timer.at`` (a clock
                    time, its next occurrence unless a ``date`` names the day)
``device_type``     ``device_control.device`` ("robot vacuum" -> vacuum)
``house_place``     ``device_control.room`` ("bed room" -> bedroom)
``change_amount``   ``device_control.value`` ("fifty percent" -> 50)
``list_name``       ``add_note/search_notes/remove_note.list`` ("shopping list" ->
                    shopping)
``note_text``       ``add_note.text``, ``remove_note.text``: the words as said
``query``           ``search_notes.query``
``expression``      ``calculator.expression`` (number words read as numbers)
``amount``,         ``unit_convert.value / from_unit / to_unit``
``from_unit``,
``to_unit``
``timer_name``      ``set_timer.label``
==================  ==========================================================

The device action (on, off, volume_up...) is no slot: it is read from the words the model
gave the request, with the device vocabulary of :mod:`understanding.arguments.devices`.

**When the model gives no slot for an argument.** A required argument with no usable slot
sends the query to the cloud with the reason. The readers over the request's own words
stand in only where they normalise words the user said and the measure showed them add
no wrong action (:data:`WORD_READERS`): the lookups (calculator, unit_convert,
get_weather, world_clock, search_notes), which change nothing, and device_control's
device, room and value, which the vocabulary reads from the words of the request (SLURP
annotates the device of most light and volume commands nowhere but in its intent). A
timer or a note is never read from anything but its slot; a list item only where the
whole request is the list grammar and names the tagger's list (:func:`_list_item`).

>>> from understanding.slu.model import Slot
>>> builtin_from_slots("device_control", [Slot("house_place", "kitchen", 4, 5)],
...                    "turn off the lights in kitchen").arguments
{'device': 'light', 'action': 'off', 'room': 'kitchen'}
>>> builtin_from_slots("add_note", [], "add milk to the shopping list").reason
"no 'note_text' slot in the query for the required argument 'text'"
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from understanding.arguments.builtin_devices import _device_control
from understanding.arguments.builtin_notes import _note, _search_notes, slot_list
from understanding.arguments.builtin_numbers import _calculator, _unit_convert
from understanding.arguments.builtin_places import _weather, _world_clock, slot_date, slot_day
from understanding.arguments.builtin_request import _Request
from understanding.arguments.builtin_timers import _set_timer, slot_duration
from understanding.arguments.schema import Filled

__all__ = [
    "SLOT_TYPES",
    "WORD_READERS",
    "builtin_from_slots",
    "slot_date",
    "slot_day",
    "slot_duration",
    "slot_list",
]


#: The slot types that feed each built-in tool's arguments (the tools' input schemas
#: carry the same in ``x-edgeloop-slots``; a test keeps the two equal).
SLOT_TYPES: dict[str, dict[str, list[str]]] = {
    "calculator": {"expression": ["expression"]},
    "unit_convert": {"value": ["amount"], "from_unit": ["from_unit"], "to_unit": ["to_unit"]},
    "get_weather": {"city": ["place_name"], "day": ["date", "timeofday"]},
    "world_clock": {"city": ["place_name"], "date": ["date"]},
    "device_control": {
        "device": ["device_type"],
        "room": ["house_place"],
        "value": ["change_amount"],
    },
    "set_timer": {
        "seconds": ["time"],
        "at": ["time", "date", "timeofday"],
        "label": ["timer_name"],
    },
    "add_note": {"text": ["note_text"], "list": ["list_name"]},
    "search_notes": {"query": ["query"], "list": ["list_name"]},
    "remove_note": {"text": ["note_text"], "list": ["list_name"]},
}


#: (tool, argument) pairs that the reader over the request's words may fill when the
#: model gives no slot for them (see the module docstring and docs/edge.md).
WORD_READERS: frozenset[tuple[str, str]] = frozenset(
    {
        ("calculator", "expression"),
        ("unit_convert", "value"),
        ("get_weather", "city"),
        ("get_weather", "day"),
        ("world_clock", "city"),
        ("search_notes", "query"),
        ("device_control", "device"),
        ("device_control", "room"),
        ("device_control", "value"),
    }
)


_FILLERS: dict[str, Callable[[_Request, Any, datetime], Filled]] = {
    "calculator": _calculator,
    "unit_convert": _unit_convert,
    "get_weather": _weather,
    "world_clock": _world_clock,
    "device_control": _device_control,
    "set_timer": _set_timer,
    "add_note": _note,
    "remove_note": _note,
    "search_notes": _search_notes,
}


def builtin_from_slots(
    tool: str,
    slots: Sequence[Any],
    words: str,
    home: Any = None,
    now: datetime | None = None,
    utterance: Sequence[str] = (),
) -> Filled:
    """``tool``'s arguments from the ``slots`` of one request (objects with ``type``,
    ``value``, ``start``, ``end``) and the request's ``words``, with the home defaults of
    ``home`` (``understanding.settings.Settings``) and checked against the tool's schema and
    business rules; or None with the reason. ``utterance``: the words the slots' indices
    point into (the model's ``words``), for free text tagged in several pieces."""
    from understanding.arguments import validate_arguments

    filler = _FILLERS.get(tool)
    if filler is None:
        return Filled(None, f"{tool!r} is no built-in tool")
    try:
        request = _Request(tool, slots, words, utterance, WORD_READERS)
        filled = filler(request, home, now or datetime.now(UTC))
    except (ValueError, ArithmeticError) as exc:
        return Filled(None, f"cannot read {tool} arguments: {exc}")
    if filled.arguments is None:
        return filled
    problem = validate_arguments(tool, filled.arguments)
    if problem is not None:
        return Filled(None, problem)
    return filled
