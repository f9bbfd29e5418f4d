"""The get_weather tool: the forecast for any city the device knows, within 7 days.

The day is ``today``, ``tomorrow`` or a weekday name (the next such day, in the city's
own time zone). A day beyond the horizon is declined by name, never answered with
today's. Where the reading comes from depends on where the tool runs:

- in the cloud, from the configured forecast provider (``cloud_agent.forecast_provider``:
  Open-Meteo, or the synthetic one); the observation carries the city's whole ``week`` and
  when it was fetched, so that the device can keep it;
- on the device, from its forecast cache (``edge_agent.forecast``), with the entry's
  ``source`` and ``age_s``; with nothing cached, from the built-in synthetic provider,
  which says so (``source = "synthetic"``).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from edge_agent.cities import place
from edge_agent.forecast import DAYS, SYNTHETIC, day_date, recall, synthetic_reading

if TYPE_CHECKING:
    from edge_agent.forecast import ForecastMemory

CONDITIONS = ("sunny", "cloudy", "rainy", "snowy", "windy", "foggy", "unknown")


def input_schema() -> dict[str, Any]:
    """A city from the gazetteer (checked when the tool runs), a day within 7 days."""
    return {
        "type": "object",
        "properties": {
            "city": {
                "type": "string",
                "minLength": 1,
                "maxLength": 80,
                "x-edgeloop-slots": ["place_name"],
            },
            "day": {
                "type": "string",
                "enum": list(DAYS),
                "default": "today",
                "x-edgeloop-slots": ["date", "timeofday"],
            },
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
        "fetched_at": {"type": "string"},
        "week": {"type": "object"},
    },
    "required": ["temperature", "condition", "source", "age_s"],
}


def make_run(
    memory: ForecastMemory | None = None,
    now: Callable[[], datetime] | None = None,
    provider: Any = None,
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The tool function: from ``provider`` (the cloud's) when given, else from
    ``memory``'s forecast cache, else synthetic; ``now`` (UTC) is injectable for tests."""
    clock = now or (lambda: datetime.now(UTC))

    def run(args: dict[str, Any]) -> dict[str, Any]:
        city = str(args["city"]).strip().lower()
        day = str(args.get("day") or "today").strip().lower()
        found = place(city)
        if found is None:
            raise ValueError(f"unknown city {city!r}")
        moment = clock()
        today = moment.astimezone(ZoneInfo(found.timezone)).date()
        when = day_date(day, today)
        if when is None:
            raise ValueError(f"no forecast for {day!r}: today, tomorrow or a weekday only")
        head = {"city": city, "day": day, "date": when.isoformat()}
        if provider is not None:
            try:
                week = provider.week(found, today)
            except RuntimeError as exc:  # ForecastError: the service's reason, one line
                raise ValueError(str(exc)) from None
            reading = week.get(when.isoformat())
            if reading is None:
                raise ValueError(f"the forecast has no {day} ({when.isoformat()}) for {city}")
            fetched = moment.astimezone(UTC).isoformat(timespec="seconds")
            return {
                **head,
                **reading,
                "source": str(provider.source),
                "age_s": 0,
                "fetched_at": fetched,
                "week": week,
            }
        cached = recall(memory, city, when, moment) if memory is not None else None
        if cached is not None:
            return {**head, **cached.reading, "source": cached.source, "age_s": cached.age_s}
        reading = synthetic_reading(city, found.latitude, when)
        return {**head, **reading, "source": SYNTHETIC, "age_s": 0}

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
