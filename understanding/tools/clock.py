"""The world_clock tool: the local time in a city, from the IANA time zone database, and
the weekday of a date the query asks about ("what day is december thirteenth").

``city`` may also name a country on one clock ("india", "zimbabwe", "argentina": every
zone the tz database lists for it keeps the same time all year,
:func:`understanding.gazetteer.country_clock`); a country whose zones differ ("spain", "the
united states") is refused, since its time is no one answer."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from understanding.gazetteer import city_argument, country_clock, place


def input_schema() -> dict[str, Any]:
    """A city from the gazetteer, or a country on one clock (checked when the tool runs:
    32,000 names are no enum)."""
    return {
        "type": "object",
        "properties": {
            "city": city_argument(),
            "date": {
                "type": "string",
                "format": "date",
                "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
                "x-edgeloop-slots": ["date"],
            },
        },
        "required": ["city"],
        "additionalProperties": False,
    }


OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"},
        "timezone": {"type": "string"},
        "date": {"type": "string"},
        "weekday": {"type": "string"},
        "utc_offset": {"type": "string"},
        "asked_date": {"type": "string"},
        "asked_weekday": {"type": "string"},
    },
    "required": ["time", "timezone"],
}


def make_run(
    now: Callable[[], datetime] | None = None,
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The tool function; ``now`` (UTC) is injectable so that tests get a fixed clock."""
    clock = now or (lambda: datetime.now(UTC))

    def run(args: dict[str, Any]) -> dict[str, Any]:
        written = " ".join(str(args["city"]).lower().split())
        found = place(written)
        if found is not None:
            city, zone = found.key, found.timezone
        else:
            country = country_clock(written)
            if country is None:
                raise ValueError(f"unknown city {written!r}")
            if country.zone is None:
                raise ValueError(f"{country.title} has several time zones: name a city")
            city, zone = country.name, country.zone
        local = clock().astimezone(ZoneInfo(zone))
        offset = local.strftime("%z")
        asked: dict[str, str] = {}
        if args.get("date"):
            when = date.fromisoformat(str(args["date"]))
            asked = {"asked_date": when.isoformat(), "asked_weekday": when.strftime("%A").lower()}
        return {
            "city": city,
            "time": local.strftime("%H:%M"),
            "timezone": zone,
            "date": local.date().isoformat(),
            "weekday": local.strftime("%A").lower(),
            "utc_offset": f"{offset[:3]}:{offset[3:]}",
            **asked,
        }

    return run


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: the time zone is a real IANA zone."""
    try:
        ZoneInfo(str(observation.get("timezone")))
    except (KeyError, ValueError):
        return f"unknown time zone {observation.get('timezone')!r}"
    return None
