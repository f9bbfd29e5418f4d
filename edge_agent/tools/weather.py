"""The get_weather tool: today's and tomorrow's forecast from the bundled cache.

The device answers weather offline from ``edge_agent/data/forecast.json`` (built by
``scripts/build_forecast.py``), which covers every city of the gazetteer.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from edge_agent.cities import cities

CONDITIONS = ("sunny", "cloudy", "rainy", "snowy", "windy", "foggy", "unknown")
DAYS = ("today", "tomorrow")


def input_schema() -> dict[str, Any]:
    """City from the gazetteer, day today or tomorrow."""
    return {
        "type": "object",
        "properties": {
            "city": {"type": "string", "enum": sorted(cities())},
            "day": {"type": "string", "enum": list(DAYS), "default": "today"},
        },
        "required": ["city"],
        "additionalProperties": False,
    }


OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "day": {"type": "string", "enum": list(DAYS)},
        "temperature": {"type": "integer", "minimum": -100, "maximum": 60},
        "condition": {"type": "string", "enum": list(CONDITIONS)},
    },
    "required": ["temperature", "condition"],
}


@cache
def forecast() -> dict[str, dict[str, dict[str, Any]]]:
    """The bundled forecast: city -> day -> {temperature, condition}."""
    text = resources.files("edge_agent.data").joinpath("forecast.json").read_text("utf-8")
    data: dict[str, dict[str, dict[str, Any]]] = json.loads(text)
    return data


def run(args: dict[str, Any]) -> dict[str, Any]:
    """Tool entry point: ``{"city", "day"?}`` -> the forecast for that city and day."""
    city = str(args["city"]).strip().lower()
    day = str(args.get("day") or "today").strip().lower()
    if day not in DAYS:
        raise ValueError(f"day must be today or tomorrow, not {day!r}")
    entry = forecast().get(city, {}).get(day)
    if entry is None:
        return {"city": city, "day": day, "temperature": 0, "condition": "unknown"}
    return {"city": city, "day": day, **entry}


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: a known condition, a plausible integer temperature."""
    if observation.get("condition") == "unknown":
        return f"no forecast for {observation.get('city')!r}"
    temperature = observation.get("temperature")
    if not isinstance(temperature, int) or not -100 <= temperature <= 60:
        return f"implausible temperature {temperature!r}"
    return None
