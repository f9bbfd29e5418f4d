"""The built-in device tools, as kernel ToolSpecs.

Every tool here runs on the device, answers one query with one call, and declares its
input and observation JSON Schemas plus a business-rule validator. Tools that change the
world (device_control, set_timer, add_note, remove_note, cancel_timer, clear_list) are
marked ``side_effects`` and carry an idempotency key, so a retried ACTION never sets two
timers or writes a note twice. Unlocking a door, cancelling every timer and clearing a
list need a human's approval (``requires_approval``). Which tools there are, where each
runs and what it may do is the catalogue's table (``understanding.tools.catalogue``).

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

from understanding.tools import calculator, clock, devices, notes, status, timers, units, weather
from understanding.tools.catalogue import (
    CATALOGUE,
    CLOUD_TOOLS,
    DEVICE_TOOLS,
    ENTRIES,
    SIDE_EFFECT_TOOLS,
    TOOL_NAMES,
    ToolEntry,
    input_schemas,
    requires_approval,
)
from understanding.tools.memory import ToolMemory

if TYPE_CHECKING:
    from react_kernel import ToolRegistry, ToolSpec

__all__ = [
    "CATALOGUE",
    "CLOUD_TOOLS",
    "DEVICE_TOOLS",
    "ENTRIES",
    "SIDE_EFFECT_TOOLS",
    "TOOL_NAMES",
    "ToolEntry",
    "ToolMemory",
    "builtin_specs",
    "builtin_tools",
    "input_schemas",
    "requires_approval",
    "tool_catalogue",
]


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

    runs: dict[str, tuple[Callable[[dict[str, Any]], dict[str, Any]], Any]] = {
        "calculator": (calculator.run, calculator.validate),
        "unit_convert": (units.run, units.validate),
        "get_weather": (
            weather.make_run(None if forecast_provider else memory, now, forecast_provider),
            weather.validate,
        ),
        "device_control": (devices.make_run(memory, now), devices.validate),
        "set_timer": (timers.make_run(memory, now), timers.validate),
        "add_note": (notes.make_add(memory), notes.validate_add),
        "search_notes": (notes.make_search(memory), notes.validate_search),
        "remove_note": (notes.make_remove(memory), notes.validate_remove),
        "world_clock": (clock.make_run(now), clock.validate),
        "device_status": (status.make_run(memory), status.validate),
        "list_timers": (timers.make_list(memory), timers.validate_list),
        "cancel_timer": (timers.make_cancel(memory), timers.validate_cancel),
        "clear_list": (notes.make_clear(cast("notes.ListMemory", memory)), notes.validate_clear),
    }

    def spec(entry: ToolEntry) -> ToolSpec:
        func, validator = runs[entry.name]
        return ToolSpec(
            name=entry.name,
            description=entry.description,
            input_schema=entry.input_schema(),
            output_schema=entry.output_schema,
            func=func,
            validator=validator,
            timeout_s=2.0,
            max_calls=None,
            side_effects=entry.side_effects,
            idempotency_key=idempotency_key(entry.name) if entry.side_effects else None,
            needs_approval=False,
            executor="edge",
            confidence=entry.confidence,
        )

    return [spec(entry) for entry in CATALOGUE]


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
