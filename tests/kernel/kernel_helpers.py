"""Tools and helpers shared by the kernel tests (imported by conftest and tests)."""

from __future__ import annotations

from typing import Any

from react_kernel import ToolRegistry, ToolSpec


def obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


class Calls:
    """Records every real call of the tools, by tool name."""

    def __init__(self) -> None:
        self.log: list[tuple[str, dict[str, Any]]] = []

    def count(self, tool: str) -> int:
        return sum(1 for name, _ in self.log if name == tool)


def make_tools(calls: Calls) -> ToolRegistry:
    def calculator(args: dict[str, Any]) -> dict[str, Any]:
        calls.log.append(("calculator", args))
        expression = args["expression"].replace(" ", "")
        left, _, right = expression.partition("+")
        return {"value": float(left) + float(right or 0)}

    def weather(args: dict[str, Any]) -> dict[str, Any]:
        calls.log.append(("get_weather", args))
        temps = {"paris": 21, "oslo": 4, "mars": 500}
        return {"temperature": temps.get(args["city"], 15), "condition": "sunny"}

    def add_note(args: dict[str, Any]) -> dict[str, Any]:
        calls.log.append(("add_note", args))
        return {"note_id": f"note-{len(calls.log)}"}

    def unlock(args: dict[str, Any]) -> dict[str, Any]:
        calls.log.append(("device_control", args))
        return {"device": args["device"], "state": args["action"]}

    def temperature_ok(output: dict[str, Any]) -> str | None:
        t = output.get("temperature")
        return None if isinstance(t, int) and -100 <= t <= 60 else f"temperature {t} out of range"

    return ToolRegistry(
        [
            ToolSpec(
                name="calculator",
                description="Arithmetic.",
                input_schema=obj({"expression": {"type": "string"}}, ["expression"]),
                output_schema=obj({"value": {"type": "number"}}, ["value"]),
                func=calculator,
                confidence=0.99,
            ),
            ToolSpec(
                name="get_weather",
                description="Weather by city.",
                input_schema=obj(
                    {"city": {"type": "string"}, "day": {"enum": ["today", "tomorrow"]}}, ["city"]
                ),
                output_schema=obj(
                    {"temperature": {"type": "integer"}, "condition": {"type": "string"}},
                    ["temperature", "condition"],
                ),
                func=weather,
                validator=temperature_ok,
                confidence=0.95,
            ),
            ToolSpec(
                name="add_note",
                description="Save a note.",
                input_schema=obj({"text": {"type": "string", "maxLength": 40}}, ["text"]),
                func=add_note,
                side_effects=True,
            ),
            ToolSpec(
                name="device_control",
                description="Devices.",
                input_schema=obj(
                    {"device": {"type": "string"}, "action": {"type": "string"}},
                    ["device", "action"],
                ),
                func=unlock,
                side_effects=True,
                needs_approval=True,
            ),
            ToolSpec(
                name="web_search",
                description="Search the web (cloud side).",
                input_schema=obj({"query": {"type": "string"}}, ["query"]),
                output_schema=obj({"hits": {"type": "integer"}}, ["hits"]),
                executor="cloud",
            ),
        ]
    )


class FileIdempotencyStore:
    """A JSON-file IdempotencyStore: survives a process restart (like the SQLite one)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def _load(self) -> dict[str, dict[str, Any]]:
        import json
        import os

        if not os.path.exists(self.path):
            return {}
        with open(self.path, encoding="utf-8") as f:
            data: dict[str, dict[str, Any]] = json.load(f)
        return data

    def get(self, key: str) -> dict[str, Any] | None:
        return self._load().get(key)

    def put(self, key: str, result: dict[str, Any]) -> None:
        import json

        data = self._load()
        data[key] = result
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(data, f)
