"""The built-in tools, one row each: every list of tools is derived from this table.

A row says what the tool is called, what it does (the description models and
``cloud-agent parse`` read), where it may run, whether it changes the world, whether a
call needs a human's yes first, and where its JSON Schemas live. ``TOOL_NAMES``,
``SIDE_EFFECT_TOOLS``, ``DEVICE_TOOLS`` (what the cloud asks the device to run) and
``CLOUD_TOOLS`` (what the cloud runs itself) are views of it, so adding a tool is one row.

Where a tool runs:

- ``device``: it reads or writes the person's home or memory (notes, timers, device
  state). The cloud may plan it; only the device runs it.
- ``anywhere``: a pure function of its arguments (and public data such as forecasts):
  the device runs it offline and the cloud runs its own copy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from understanding.tools import calculator, clock, devices, notes, status, timers, units, weather

RunsOn = Literal["device", "anywhere"]


def _never(arguments: dict[str, Any]) -> bool:
    return False


@dataclass(frozen=True)
class ToolEntry:
    """One built-in tool: its name, schemas, where it runs, side effects and approval."""

    name: str
    description: str
    runs_on: RunsOn
    side_effects: bool
    input_schema: Callable[[], dict[str, Any]]
    output_schema: dict[str, Any]
    # How sure the router must be before the device runs it (the kernel's per-tool floor).
    confidence: float
    # True for the calls that need a human's yes first (unlocking a door).
    needs_approval: Callable[[dict[str, Any]], bool] = _never


def _const(schema: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    return lambda: schema


CATALOGUE: tuple[ToolEntry, ...] = (
    ToolEntry(
        "calculator",
        "Evaluate arithmetic: + - * / ^, parentheses, percentages ('15% of 80').",
        "anywhere",
        False,
        _const(calculator.INPUT_SCHEMA),
        calculator.OUTPUT_SCHEMA,
        0.99,
    ),
    ToolEntry(
        "unit_convert",
        "Convert a value between units (length, mass, volume, temperature, speed, time).",
        "anywhere",
        False,
        _const(units.INPUT_SCHEMA),
        units.OUTPUT_SCHEMA,
        0.98,
    ),
    ToolEntry(
        "get_weather",
        "The forecast for a city, today, tomorrow or a weekday within 7 days, or a span of "
        "them (week, weekend, rest_of_week, next_days: each day's reading); temperature "
        "in °C, condition, the forecast's source and age.",
        "anywhere",
        False,
        weather.input_schema,
        weather.OUTPUT_SCHEMA,
        0.95,
    ),
    ToolEntry(
        "device_control",
        "Switch, set, lock or open a home device (light, ac, heater, fan, tv, speaker, "
        "door_lock, thermostat, blinds, plug, vacuum, coffee_machine; volume_up, "
        "volume_down, mute, unmute for the tv and speaker; brightness_up, brightness_down "
        "for the light), optionally in a room or every room ('room': 'all', leaving "
        "out 'except'), at a clock time ('at') or for a while ('for' seconds, then back).",
        "device",
        True,
        _const(devices.INPUT_SCHEMA),
        devices.OUTPUT_SCHEMA,
        0.95,
        devices.is_sensitive,
    ),
    ToolEntry(
        "set_timer",
        "Start a countdown of a number of seconds, or set an alarm at a local date-time "
        "('at', in the home city's zone).",
        "device",
        True,
        _const(timers.INPUT_SCHEMA),
        timers.OUTPUT_SCHEMA,
        0.97,
    ),
    ToolEntry(
        "add_note",
        "Save a note in the device's memory, or add an item to a named list ('list').",
        "device",
        True,
        _const(notes.ADD_INPUT_SCHEMA),
        notes.ADD_OUTPUT_SCHEMA,
        0.95,
    ),
    ToolEntry(
        "search_notes",
        "Find saved notes and past answers in the device's memory, read a named list "
        "('list'), or name the lists kept ('lists': true).",
        "device",
        False,
        _const(notes.SEARCH_INPUT_SCHEMA),
        notes.SEARCH_OUTPUT_SCHEMA,
        0.9,
    ),
    ToolEntry(
        "world_clock",
        "The local time, date and weekday in a city.",
        "anywhere",
        False,
        clock.input_schema,
        clock.OUTPUT_SCHEMA,
        0.98,
    ),
    ToolEntry(
        "remove_note",
        "Take an item off a named list, or a note out of memory, by its words.",
        "device",
        True,
        _const(notes.REMOVE_INPUT_SCHEMA),
        notes.REMOVE_OUTPUT_SCHEMA,
        0.9,
    ),
    ToolEntry(
        "device_status",
        "Read what a home device is doing (on/off, its value, muted) from the state the "
        "device keeps, in a room or every room; changes nothing.",
        "device",
        False,
        _const(status.INPUT_SCHEMA),
        status.OUTPUT_SCHEMA,
        0.95,
    ),
    ToolEntry(
        "list_timers",
        "List the timers, alarms and scheduled device commands still to come, in local time.",
        "device",
        False,
        _const(timers.LIST_INPUT_SCHEMA),
        timers.LIST_OUTPUT_SCHEMA,
        0.95,
    ),
    ToolEntry(
        "cancel_timer",
        "Cancel timers or alarms: by 'label', by the time they go off ('at'), the next "
        "one ('next': true) or all of them ('all': true, approved first).",
        "device",
        True,
        _const(timers.CANCEL_INPUT_SCHEMA),
        timers.CANCEL_OUTPUT_SCHEMA,
        0.95,
        lambda arguments: bool(arguments.get("all")),
    ),
    ToolEntry(
        "clear_list",
        "Remove every item of a named list (approved first); the list stays, empty.",
        "device",
        True,
        _const(notes.CLEAR_INPUT_SCHEMA),
        notes.CLEAR_OUTPUT_SCHEMA,
        0.95,
        lambda arguments: True,
    ),
)

ENTRIES: dict[str, ToolEntry] = {entry.name: entry for entry in CATALOGUE}
TOOL_NAMES: tuple[str, ...] = tuple(entry.name for entry in CATALOGUE)
SIDE_EFFECT_TOOLS: frozenset[str] = frozenset(e.name for e in CATALOGUE if e.side_effects)
# What the cloud may ask the device to run (the device's private tools).
DEVICE_TOOLS: tuple[str, ...] = tuple(e.name for e in CATALOGUE if e.runs_on == "device")
# What the cloud runs itself (pure tools; the device runs its own copy offline).
CLOUD_TOOLS: tuple[str, ...] = tuple(e.name for e in CATALOGUE if e.runs_on == "anywhere")


def input_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input JSON Schema, without building the tools (for argument checks)."""
    return {entry.name: entry.input_schema() for entry in CATALOGUE}


def requires_approval(tool: str, arguments: dict[str, Any]) -> bool:
    """True when this call needs a human's yes first: unlocking a door (now or later),
    cancelling every timer, clearing a list."""
    entry = ENTRIES.get(tool)
    return entry is not None and entry.needs_approval(arguments)
