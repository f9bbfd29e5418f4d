"""The set_timer tool: a countdown kept in the memory store so it survives restarts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from edge_agent.tools.memory import ToolMemory

MAX_SECONDS = 7 * 24 * 3600

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "seconds": {"type": "integer", "minimum": 1, "maximum": MAX_SECONDS},
        "label": {"type": "string", "maxLength": 80},
    },
    "required": ["seconds"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "timer_id": {"type": "string", "minLength": 1},
        "fires_at": {"type": "string", "minLength": 1},
        "seconds": {"type": "integer"},
    },
    "required": ["timer_id", "fires_at"],
}


def make_run(memory: ToolMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The tool function, storing the timer in ``memory``."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        seconds = args["seconds"]
        if isinstance(seconds, float) and seconds.is_integer():
            seconds = int(seconds)
        if not isinstance(seconds, int) or not 0 < seconds <= MAX_SECONDS:
            raise ValueError(f"seconds must be a whole number from 1 to {MAX_SECONDS}")
        timer = memory.add_timer(seconds, str(args.get("label") or ""))
        return {
            "timer_id": str(timer["timer_id"]),
            "fires_at": str(timer["fires_at"]),
            "seconds": seconds,
        }

    return run


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: the store gave the timer an id and a firing time."""
    if not observation.get("timer_id") or not observation.get("fires_at"):
        return "timer was not stored"
    return None
