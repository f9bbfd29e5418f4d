"""``device_status``: the read-only question about a device ("is the plug on?").

The device implements the tool (``edge_agent.tools``, the device issue); until a device
build ships it, the cloud keeps its own spec here so the planner can plan a question as a
read, never as a command: with the device's spec present, the device's wins. A device
that does not offer the tool makes the planner decline (``needs_device``), never fall back
to ``device_control``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from edge_agent.tools.devices import DEVICES

NAME = "device_status"

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "device": {"type": "string", "enum": list(DEVICES)},
        "room": {"type": "string", "minLength": 1, "maxLength": 40},
    },
    "required": ["device"],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "device": {"type": "string"},
        "room": {"type": ["string", "null"]},
        "state": {"type": "string"},
    },
    "required": ["device", "state"],
}


def make_run(memory: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The read: the state kept in ``memory`` ("unknown" for a device never set)."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        device = str(args["device"])
        room = str(args["room"]).strip().lower() if args.get("room") else None
        kept = memory.get_device_state(device, room) or {}
        return {"device": device, "room": room, "state": str(kept.get("state", "unknown"))}

    return run


def spec(memory: Any = None) -> Any:
    """The tool's ToolSpec: run on the device (``func`` None) unless ``memory`` is given."""
    from react_kernel import ToolSpec

    return ToolSpec(
        name=NAME,
        description="Read a device's kept state (on/off, locked, set value); changes nothing.",
        input_schema=INPUT_SCHEMA,
        output_schema=OUTPUT_SCHEMA,
        func=make_run(memory) if memory is not None else None,
        validator=lambda args: None,
        timeout_s=2.0,
        max_calls=None,
        side_effects=False,
        idempotency_key=None,
        needs_approval=False,
        executor="cloud" if memory is not None else "edge",
        confidence=0.99,
    )
