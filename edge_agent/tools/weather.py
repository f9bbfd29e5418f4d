"""The get_weather tool: the forecast for any city the device knows, within 7 days.

The day is ``today``, ``tomorrow`` or a weekday name (the next such day, in the city's
own time zone). A day beyond the horizon is declined by name, never answered with
today's. The reading comes from the built-in synthetic provider
(``edge_agent.forecast``), and the observation says so (``source``), with the age of the
reading in seconds.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from edge_agent.cities import place
from edge_agent.forecast import DAYS, SYNTHETIC, day_date, synthetic_reading

CONDITIONS = ("sunny", "cloudy", "rainy", "snowy", "windy", "foggy", "unknown")


def input_schema() -> dict[str, Any]:
    """A city from the gazetteer (checked when the tool runs), a day within 7 days."""
    return {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1, "maxLength": 80},
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
        "date": {"type": "string"},
        "temperature": {"type": "integer", "minimum": -100, "maximum": 60},
        "condition": {"type": "string", "enum": list(CONDITIONS)},
        "source": {"type": "string"},
        "age_s": {"type": "integer", "minimum": 0},
    },
    "required": ["temperature", "condition"],
}


def make_run(
    now: Callable[[], datetime] | None = None,
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The tool function; ``now`` (UTC) is injectable so that tests get a fixed clock."""
    clock = now or (lambda: datetime.now(UTC))

    def run(args: dict[str, Any]) -> dict[str, Any]:
        city = str(args["city"]).strip().lower()
        day = str(args.get("day") or "today").strip().lower()
        found = place(city)
        if found is None:
            raise ValueError(f"unknown city {city!r}")
        when = day_date(day, clock().astimezone(ZoneInfo(found.timezone)).date())
        if when is None:
            raise ValueError(f"no forecast for {day!r}: today, tomorrow or a weekday only")
        reading = synthetic_reading(city, found.latitude, when)
        return {
            "city": city,
            "day": day,
            "date": when.isoformat(),
            **reading,
            "source": SYNTHETIC,
            "age_s": 0,
        }

    return run


run = make_run()


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: a known condition, a plausible integer temperature."""
    if observation.get("condition") == "unknown":
        return f"no forecast for {observation.get('city')!r}"
    temperature = observation.get("temperature")
    if not isinstance(temperature, int) or not -100 <= temperature <= 60:
        return f"implausible temperature {temperature!r}"
    return None
