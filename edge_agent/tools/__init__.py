"""The built-in device tools, as kernel ToolSpecs.

Every tool here runs on the device, answers one query with one call, and declares its
input and observation JSON Schemas plus a business-rule validator. Tools that change the
world (device_control, set_timer, add_note, remove_note, cancel_timer, clear_list) are
marked ``side_effects`` and carry an
idempotency key, so a retried ACTION never sets two timers or writes a note twice.
Unlocking a door, cancelling every timer and clearing a list need a human's approval
(``requires_approval``).

>>> registry = builtin_tools(memory)            # doctest: +SKIP
>>> registry.get("calculator").func({"expression": "2 + 2"})  # doctest: +SKIP
{'value': 4, 'expression': '2 + 2'}
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from edge_agent.tools import calculator, clock, devices, notes, status, timers, units, weather
from edge_agent.tools.memory import ToolMemory

if TYPE_CHECKING:
    from react_kernel import ToolRegistry, ToolSpec

__all__ = [
    "SIDE_EFFECT_TOOLS",
    "TOOL_NAMES",
    "ToolMemory",
    "builtin_specs",
    "builtin_tools",
    "input_schemas",
    "requires_approval",
    "tool_catalogue",
]

TOOL_NAMES: tuple[str, ...] = (
    "calculator",
    "unit_convert",
    "get_weather",
    "device_control",
    "set_timer",
    "add_note",
    "search_notes",
    "world_clock",
    "remove_note",
    "device_status",
    "list_timers",
    "cancel_timer",
    "clear_list",
)
SIDE_EFFECT_TOOLS: frozenset[str] = frozenset(
    {"device_control", "set_timer", "add_note", "remove_note", "cancel_timer", "clear_list"}
)


def input_schemas() -> dict[str, dict[str, Any]]:
    """Each tool's input JSON Schema, without building the tools (for argument checks)."""
    return {
        "calculator": calculator.INPUT_SCHEMA,
        "unit_convert": units.INPUT_SCHEMA,
        "get_weather": weather.input_schema(),
        "device_control": devices.INPUT_SCHEMA,
        "set_timer": timers.INPUT_SCHEMA,
        "add_note": notes.ADD_INPUT_SCHEMA,
        "search_notes": notes.SEARCH_INPUT_SCHEMA,
        "remove_note": notes.REMOVE_INPUT_SCHEMA,
        "world_clock": clock.input_schema(),
        "device_status": status.INPUT_SCHEMA,
        "list_timers": timers.LIST_INPUT_SCHEMA,
        "cancel_timer": timers.CANCEL_INPUT_SCHEMA,
        "clear_list": notes.CLEAR_INPUT_SCHEMA,
    }


def requires_approval(tool: str, args: dict[str, Any]) -> bool:
    """True when this call needs a human's yes first: unlocking a door (now or later),
    cancelling every timer, clearing a list."""
    if tool == "cancel_timer":
        return bool(args.get("all"))
    return tool == "clear_list" or (tool == "device_control" and devices.is_sensitive(args))


def idempotency_key(tool: str) -> Callable[[str, dict[str, Any]], str]:
    """Key = tool + session + canonical arguments: a retry in the same session is a no-op."""

    def key(session_id: str, args: dict[str, Any]) -> str:
        canonical = json.dumps(args, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(f"{tool}|{session_id}|{canonical}".encode()).hexdigest()

    return key


def builtin_specs(
    memory: ToolMemory,
    *,
    now: Callable[[], datetime] | None = None,
    forecast_provider: Any = None,
) -> list[ToolSpec]:
    """The ToolSpecs of the built-in tools, bound to ``memory``; ``get_weather`` asks
    ``forecast_provider`` (the cloud's) when given, else reads the forecast cache."""
    from react_kernel import ToolSpec

    schemas = input_schemas()

    def spec(
        name: str,
        description: str,
        output_schema: dict[str, Any],
        func: Callable[[dict[str, Any]], dict[str, Any]],
        validator: Callable[[dict[str, Any]], str | None],
        confidence: float,
        needs_approval: bool = False,
    ) -> ToolSpec:
        side_effects = name in SIDE_EFFECT_TOOLS
        return ToolSpec(
            name=name,
            description=description,
            input_schema=schemas[name],
            output_schema=output_schema,
            func=func,
            validator=validator,
            timeout_s=2.0,
            max_calls=None,
            side_effects=side_effects,
            idempotency_key=idempotency_key(name) if side_effects else None,
            needs_approval=needs_approval,
            executor="edge",
            confidence=confidence,
        )

    return [
        spec(
            "calculator",
            "Evaluate arithmetic: + - * / ^, parentheses, percentages ('15% of 80').",
            calculator.OUTPUT_SCHEMA,
            calculator.run,
            calculator.validate,
            0.99,
        ),
        spec(
            "unit_convert",
            "Convert a value between units (length, mass, volume, temperature, speed, time).",
            units.OUTPUT_SCHEMA,
            units.run,
            units.validate,
            0.98,
        ),
        spec(
            "get_weather",
            "The forecast for a city, today, tomorrow or a weekday within 7 days, or a span of "
            "them (week, weekend, rest_of_week, next_days: each day's reading); temperature "
            "in °C, condition, the forecast's source and age.",
            weather.OUTPUT_SCHEMA,
            weather.make_run(None if forecast_provider else memory, now, forecast_provider),
            weather.validate,
            0.95,
        ),
        spec(
            "device_control",
            "Switch, set, lock or open a home device (light, ac, heater, fan, tv, speaker, "
            "door_lock, thermostat, blinds, plug, vacuum, coffee_machine; volume_up, "
            "volume_down, mute, unmute for the tv and speaker; brightness_up, brightness_down "
            "for the light), optionally in a room or every room ('room': 'all', leaving "
            "out 'except'), at a clock time ('at') or for a while ('for' seconds, then back).",
            devices.OUTPUT_SCHEMA,
            devices.make_run(memory, now),
            devices.validate,
            0.95,
        ),
        spec(
            "set_timer",
            "Start a countdown of a number of seconds, or set an alarm at a local date-time "
            "('at', in the home city's zone).",
            timers.OUTPUT_SCHEMA,
            timers.make_run(memory, now),
            timers.validate,
            0.97,
        ),
        spec(
            "add_note",
            "Save a note in the device's memory, or add an item to a named list ('list').",
            notes.ADD_OUTPUT_SCHEMA,
            notes.make_add(memory),
            notes.validate_add,
            0.95,
        ),
        spec(
            "search_notes",
            "Find saved notes and past answers in the device's memory, read a named list "
            "('list'), or name the lists kept ('lists': true).",
            notes.SEARCH_OUTPUT_SCHEMA,
            notes.make_search(memory),
            notes.validate_search,
            0.9,
        ),
        spec(
            "remove_note",
            "Take an item off a named list, or a note out of memory, by its words.",
            notes.REMOVE_OUTPUT_SCHEMA,
            notes.make_remove(memory),
            notes.validate_remove,
            0.9,
        ),
        spec(
            "device_status",
            "Read what a home device is doing (on/off, its value, muted) from the state the "
            "device keeps, in a room or every room; changes nothing.",
            status.OUTPUT_SCHEMA,
            status.make_run(memory),
            status.validate,
            0.95,
        ),
        spec(
            "list_timers",
            "List the timers, alarms and scheduled device commands still to come, in local time.",
            timers.LIST_OUTPUT_SCHEMA,
            timers.make_list(memory),
            timers.validate_list,
            0.95,
        ),
        spec(
            "cancel_timer",
            "Cancel timers or alarms: by 'label', by the time they go off ('at'), the next "
            "one ('next': true) or all of them ('all': true, approved first).",
            timers.CANCEL_OUTPUT_SCHEMA,
            timers.make_cancel(memory),
            timers.validate_cancel,
            0.95,
        ),
        spec(
            "clear_list",
            "Remove every item of a named list (approved first); the list stays, empty.",
            notes.CLEAR_OUTPUT_SCHEMA,
            notes.make_clear(cast("notes.ListMemory", memory)),
            notes.validate_clear,
            0.95,
        ),
        spec(
            "world_clock",
            "The local time, date and weekday in a city.",
            clock.OUTPUT_SCHEMA,
            clock.make_run(now),
            clock.validate,
            0.98,
        ),
    ]


class _NoMemory:
    """Stands in for memory where specs are only described, never run."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError("tool_catalogue() specs are for describing tools, not running them")


def tool_catalogue() -> list[dict[str, Any]]:
    """Name, description and input schema of each built-in tool, from the specs themselves
    (for model prompts and ``cloud-agent parse``), so no copy of them can drift."""
    specs = builtin_specs(cast("ToolMemory", _NoMemory()))
    return [
        {"name": s.name, "description": s.description, "input_schema": s.input_schema}
        for s in specs
    ]


def builtin_tools(memory: ToolMemory, *, now: Callable[[], datetime] | None = None) -> ToolRegistry:
    """A ToolRegistry holding every built-in device tool, bound to ``memory``."""
    from react_kernel import ToolRegistry

    registry = ToolRegistry()
    for spec in builtin_specs(memory, now=now):
        registry.register(spec)
    return registry
