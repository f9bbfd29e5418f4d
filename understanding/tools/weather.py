"""The get_weather tool: the forecast for any city the device knows, within 7 days.

The day is ``today``, ``tomorrow`` or a weekday name (the next such day, in the city's
own time zone), or a span of the 7 days (``week``, ``weekend``, ``rest_of_week``,
``next_days``: :func:`understanding.forecast.span_dates`). A span's observation carries each
of its days (``days``: date, name, temperature, condition) and sums them up: the highest
``temperature``, the ``low``, the most frequent ``condition``. A day beyond the horizon
is declined by name, never answered with today's. Where the reading comes from depends
on where the tool runs:

- in the cloud, from the configured forecast provider (``cloud_agent.forecast_provider``:
  Open-Meteo, or the synthetic one); the observation carries the city's whole ``week`` and
  when it was fetched, so that the device can keep it;
- on the device, from its forecast cache (``understanding.forecast``), with the entry's
  ``source`` and ``age_s``; with nothing cached, from the built-in synthetic provider,
  which says so (``source = "synthetic"``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from understanding.forecast import (
    FORECAST_DAYS,
    SPANS,
    SYNTHETIC,
    WEEKDAYS,
    recall,
    span_dates,
    synthetic_reading,
)
from understanding.gazetteer import city_argument, place

if TYPE_CHECKING:
    from understanding.forecast import ForecastMemory

CONDITIONS = ("sunny", "cloudy", "rainy", "snowy", "windy", "foggy", "unknown")


def input_schema() -> dict[str, Any]:
    """A city from the gazetteer (checked when the tool runs), a day within 7 days or a
    span of them."""
    return {
        "type": "object",
        "properties": {
            "city": city_argument(),
            "day": {
                "type": "string",
                "enum": list(FORECAST_DAYS),
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
        "day": {"type": "string", "enum": list(FORECAST_DAYS)},
        "date": {"type": "string"},
        "temperature": {"type": "integer", "minimum": -100, "maximum": 60},
        "condition": {"type": "string", "enum": list(CONDITIONS)},
        "source": {"type": "string"},
        "age_s": {"type": "integer", "minimum": 0},
        "fetched_at": {"type": "string"},
        "week": {"type": "object"},
        "low": {"type": "integer", "minimum": -100, "maximum": 60},
        "days": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "date": {"type": "string"},
                    "name": {"type": "string"},
                    "temperature": {"type": "integer", "minimum": -100, "maximum": 60},
                    "condition": {"type": "string", "enum": list(CONDITIONS)},
                },
                "required": ["date", "name", "temperature", "condition"],
            },
        },
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
        written = " ".join(str(args["city"]).lower().split())
        day = str(args.get("day") or "today").strip().lower()
        found = place(written)
        if found is None:
            raise ValueError(f"unknown city {written!r}")
        city = found.key  # "paris, texas": the cache and the answer name the place
        moment = clock()
        today = moment.astimezone(ZoneInfo(found.timezone)).date()
        dates = span_dates(day, today)
        if dates is None:
            raise ValueError(
                f"no forecast for {day!r}: today, tomorrow, a weekday or a span of the "
                f"week ({', '.join(SPANS)}) only"
            )
        head = {"city": city, "day": day, "date": dates[0].isoformat()}
        if provider is not None:
            try:
                week = provider.week(found, today)
            except RuntimeError as exc:  # ForecastError: the service's reason, one line
                raise ValueError(str(exc)) from None
            readings = [week.get(when.isoformat()) for when in dates]
            if any(reading is None for reading in readings):
                raise ValueError(f"the forecast has no {day} ({dates[0].isoformat()}) for {city}")
            fetched = moment.astimezone(UTC).isoformat(timespec="seconds")
            return {
                **head,
                **_summary(day, dates, readings, today),
                "source": str(provider.source),
                "age_s": 0,
                "fetched_at": fetched,
                "week": week,
            }
        cached = (
            [recall(memory, city, when, moment) for when in dates] if memory is not None else []
        )
        if cached and all(entry is not None for entry in cached):
            kept = [entry for entry in cached if entry is not None]
            return {
                **head,
                **_summary(day, dates, [entry.reading for entry in kept], today),
                "source": kept[0].source,
                "age_s": max(entry.age_s for entry in kept),
            }
        readings = [synthetic_reading(city, found.latitude, when) for when in dates]
        return {**head, **_summary(day, dates, readings, today), "source": SYNTHETIC, "age_s": 0}

    return run


def _day_name(when: date, today: date) -> str:
    offset = (when - today).days
    return "today" if offset == 0 else "tomorrow" if offset == 1 else WEEKDAYS[when.weekday()]


def _summary(day: str, dates: list[date], readings: list[Any], today: date) -> dict[str, Any]:
    """One day's reading as it is; a span's days, its high and low, and the condition
    most of its days have (the earliest of those tied)."""
    if day not in SPANS:
        return dict(readings[0])
    temperatures = [int(reading["temperature"]) for reading in readings]
    conditions = [str(reading["condition"]) for reading in readings]
    days = [
        {"date": when.isoformat(), "name": _day_name(when, today), "temperature": t, "condition": c}
        for when, t, c in zip(dates, temperatures, conditions, strict=True)
    ]
    counts = Counter(conditions)
    condition = max(counts, key=lambda c: (counts[c], -conditions.index(c)))
    return {
        "temperature": max(temperatures),
        "low": min(temperatures),
        "condition": condition,
        "days": days,
    }


run = make_run()


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: a known condition, a plausible integer temperature (each day's, for
    a span)."""
    if observation.get("condition") == "unknown":
        return f"no forecast for {observation.get('city')!r}"
    for entry in observation.get("days") or []:
        if entry.get("condition") == "unknown" or not isinstance(entry.get("temperature"), int):
            return f"no forecast for {observation.get('city')!r} on {entry.get('date')}"
    temperature = observation.get("temperature")
    if not isinstance(temperature, int) or not -100 <= temperature <= 60:
        return f"implausible temperature {temperature!r}"
    return None
