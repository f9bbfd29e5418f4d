"""Forecast days, the device's forecast cache and the built-in synthetic provider.

``get_weather`` takes a day within the next 7 days: ``today``, ``tomorrow`` or a weekday
name, meaning the next such day (today's own weekday is today), or a span of those days
(:data:`SPANS`: ``week``, ``weekend``, ``rest_of_week``, ``next_days``). :func:`day_date`
turns a day into a date in the city's time zone, :func:`span_dates` a day or a span into
its dates; None for anything they cannot serve.

With no forecast service configured (the demo, tests, offline installs) the built-in
synthetic provider serves: a plausible reading drawn from the city's latitude, the
season and a hash of city and date, deterministic (the same city and date always give
the same reading) and labelled ``source = "synthetic"`` in every observation, so nobody
takes it for a real forecast.

The device keeps a cache of forecasts in memory: one fact per city (entity
``forecast``, attribute the city, value ``{"source", "fetched_at", "days": {date:
reading}}``), so it syncs to the user's other replicas like any fact. The cloud's
``get_weather`` observation carries the city's whole week; the device keeps it
(:func:`remember_observation`), answers from an entry younger than :data:`FRESH_S`
without asking, asks the cloud for an older one, and offline answers from the old entry
saying how old it is (:func:`recall`).

>>> day_date("friday", date(2026, 12, 1))   # a Tuesday
datetime.date(2026, 12, 4)
>>> day_date("next month", date(2026, 12, 1)) is None
True
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Protocol

WEEKDAYS: tuple[str, ...] = (
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
)
DAYS: tuple[str, ...] = ("today", "tomorrow", *WEEKDAYS)
SPANS: tuple[str, ...] = ("week", "weekend", "rest_of_week", "next_days")
"""Spans of the forecast's 7 days: the 7 days from today; the coming Saturday and Sunday
(only Sunday on a Sunday); today to Sunday; the :data:`NEXT_DAYS` days after today."""
FORECAST_DAYS: tuple[str, ...] = (*DAYS, *SPANS)
"""The values of ``get_weather``'s ``day``: one day or a span."""
SPAN_WORDS: dict[str, str] = {
    "week": "this week",
    "weekend": "this weekend",
    "rest_of_week": "for the rest of the week",
    "next_days": "for the next few days",
}
"""Each span in words, as the device asks the cloud for it and answers with it."""
NEXT_DAYS = 3
"""How many days "the next few days" are: the three after today."""
HORIZON_DAYS = 7
CONDITIONS: tuple[str, ...] = ("sunny", "cloudy", "rainy", "snowy", "windy", "foggy")
SYNTHETIC = "synthetic"


def day_date(day: str, today: date) -> date | None:
    """The date ``day`` means, seen from ``today``; None for anything but a forecast day."""
    word = day.strip().lower()
    if word == "today":
        return today
    if word == "tomorrow":
        return today + timedelta(days=1)
    if word in WEEKDAYS:
        return today + timedelta(days=(WEEKDAYS.index(word) - today.weekday()) % 7)
    return None


def span_dates(day: str, today: date) -> list[date] | None:
    """The dates a ``get_weather`` day means, seen from ``today``: one for a day, several
    for a span (:data:`SPANS`), all within the 7 days from today; None for anything else.

    >>> [d.isoformat() for d in span_dates("weekend", date(2026, 12, 1))]   # a Tuesday
    ['2026-12-05', '2026-12-06']
    """
    one = day_date(day, today)
    if one is not None:
        return [one]
    word = day.strip().lower()
    if word == "week":
        return [today + timedelta(days=n) for n in range(HORIZON_DAYS)]
    if word == "weekend":
        saturday = today + timedelta(days=(5 - today.weekday()) % 7)
        return [today] if today.weekday() == 6 else [saturday, saturday + timedelta(days=1)]
    if word == "rest_of_week":
        return [today + timedelta(days=n) for n in range(7 - today.weekday())]
    if word == "next_days":
        return [today + timedelta(days=n) for n in range(1, NEXT_DAYS + 1)]
    return None


def synthetic_reading(city: str, latitude: float, when: date) -> dict[str, Any]:
    """A plausible ``{"temperature", "condition"}`` for ``city`` on ``when``.

    Mean temperature falls with latitude and swings with the season (opposite in the
    southern hemisphere); a hash of city and date adds up to ±4 °C and picks the
    condition (snow only at 2 °C or below).
    """
    digest = hashlib.sha256(f"{city}|{when.isoformat()}".encode()).digest()
    mean = 28.0 - 0.45 * abs(latitude)
    season = math.cos(2 * math.pi * (when.timetuple().tm_yday - 196) / 365.25)
    swing = min(abs(latitude), 60.0) / 60.0 * 12.0 * (1 if latitude >= 0 else -1)
    temperature = round(mean + swing * season) + digest[0] % 9 - 4
    temperature = max(-60, min(50, temperature))
    choices = [c for c in CONDITIONS if c != "snowy" or temperature <= 2]
    return {"temperature": int(temperature), "condition": choices[digest[1] % len(choices)]}


# Any time expression but the days the forecast serves: ranges, the past, further out,
# dates, holidays and seasons. Served (never matched): today, tonight, this morning /
# afternoon / evening, now, tomorrow (and tomorrow night), a weekday ("on friday", "this
# friday": the next such day). A day within the 7 it does not read ("the day after
# tomorrow", "next friday", "the 5th") is declined all the same: honest, never a guess.
_MONTH = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)(?:\s?[.;])?"
)
_WEEKDAY = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
_COUNT = r"(?:\d+|a|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|few|several)"
_ORDINAL = (
    r"(?:(?:twenty|thirty|20|30)[-\s]?)?(?:first|second|third|fourth|fifth|sixth|seventh|eighth|"
    r"ninth)|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|"
    r"eighteenth|nineteenth|twentieth|thirtieth"
)
_UNSERVED_DAY = re.compile(
    r"\b(?:yesterday|last night|(?:the\s+)?day (?:after tomorrow|before yesterday)|"
    r"(?:the\s+)?week(?:end)?\s+after\s+next|"
    rf"{_COUNT}\s+(?:days|weeks|months|years)|a\s+(?:week|month|year)|"
    r"(?:(?:later|earlier)\s+)?(?:next|this|last|past|coming|following)\s+"
    r"(?:week|weekend|month|year|season|spring|summer|autumn|fall|winter)|"
    r"(?:the\s+)?weekends?|(?:(?:the\s+)?(?:rest|end|start|beginning|middle)\s+of\s+the\s+"
    r"(?:week|month|year))|fortnight|"
    rf"(?:next|last|past)\s+{_WEEKDAY}|{_WEEKDAY}\s+after\s+next|"
    rf"(?:in\s+|within\s+)?(?:the\s+)?(?:next|coming|following|last|past)\s+(?:{_COUNT}\s+)?"
    r"(?:days|weeks|months)|(?:the\s+)?days\s+ahead|"
    rf"(?:in|within|for)\s+{_COUNT}\s+(?:days?|weeks?|months?|years?)|"
    rf"{_COUNT}\s+(?:days?|weeks?)\s+(?:from\s+(?:now|today)|ago|later|out)|"
    r"in\s+(?:2[4-9]|[3-9]\d|\d{3,})\s+hours|"
    r"(?:\d+|five|seven|ten|fourteen)[-\s]day|"
    rf"(?:the\s+)?\d{{1,2}}\s?(?:st|nd|rd|th)(?:\s+of\s+{_MONTH}|\s+{_MONTH})?|"
    rf"(?:the\s+)?(?:{_ORDINAL})\s+of\s+(?:the\s+month|{_MONTH})|"
    rf"{_MONTH}\s+(?:the\s+)?\d{{1,2}}(?:\s?(?:st|nd|rd|th))?|\d{{1,2}}\s+{_MONTH}|"
    r"(?:january|february|april|june|july|august|september|october|november|december)|"
    r"(?:in|on|during|for)\s+(?:may|march)|"
    r"\d{4}\s?-\s?\d{1,2}\s?-\s?\d{1,2}|\d{1,2}\s?/\s?\d{1,2}(?:\s?/\s?\d{2,4})?|"
    r"christmas(?:\s+(?:day|eve))?|new\s+year'?s?(?:\s+(?:day|eve))?|easter|thanksgiving|"
    r"halloween|valentine'?s(?:\s+day)?|"
    r"(?:in|during)\s+(?:the\s+)?(?:spring|summer|autumn|fall|winter))\b",
    re.IGNORECASE,
)


def unserved_day(text: str) -> str | None:
    """The words naming a day or a span the 7-day forecast cannot answer as one day ("next
    week", "the weekend", "yesterday", "the 5th", "the next few days"), as written; None
    when there are none, or only days it serves ("today", "tonight", "tomorrow", "friday").

    >>> unserved_day("will it rain in lisbon next week")
    'next week'
    >>> unserved_day("weather in tokyo on the 5th")
    'the 5th'
    >>> unserved_day("weather in paris on friday") is None
    True
    """
    match = _UNSERVED_DAY.search(text)
    if match is None:
        return None
    # As the user wrote it, whether or not the planner's normalising spaced it out.
    named = re.sub(r"(\d) (st|nd|rd|th)\b", r"\1\2", match.group(0))
    return re.sub(r"\s?/\s?", "/", re.sub(r"\s?;", "", named))


# -- the device's forecast cache ----------------------------------------------------------

FORECAST_ENTITY = "forecast"
FRESH_S = 3 * 3600
"""A cached forecast younger than this is answered on the device without asking."""


class ForecastMemory(Protocol):
    """The memory store methods the cache uses (``sync.store.MemoryStore``)."""

    def add_fact(self, entity: str, attribute: str, value: Any) -> str: ...

    def get_record(self, kind: str, record_id: str) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class CachedReading:
    """A day's reading from the cache, where it came from and how old it is."""

    reading: dict[str, Any]
    source: str
    age_s: int

    @property
    def fresh(self) -> bool:
        """Young enough to answer without asking the cloud."""
        return self.age_s < FRESH_S


def remember_week(
    memory: ForecastMemory, city: str, source: str, fetched_at: str, week: Mapping[str, Any]
) -> None:
    """Keep a city's week in the cache (a fact ``forecast``/``city``: it syncs like any)."""
    days = {
        day: {"temperature": int(r["temperature"]), "condition": str(r["condition"])}
        for day, r in week.items()
        if isinstance(r, Mapping) and isinstance(r.get("temperature"), int)
    }
    if days:
        value = {"source": source, "fetched_at": fetched_at, "days": days}
        memory.add_fact(FORECAST_ENTITY, city, value)


def remember_observation(memory: ForecastMemory, observation: Mapping[str, Any]) -> bool:
    """Keep the week a cloud ``get_weather`` observation carries; False when it has none
    (a synthetic reading is no forecast worth keeping)."""
    week, city = observation.get("week"), observation.get("city")
    source, fetched = observation.get("source"), observation.get("fetched_at")
    if not isinstance(week, Mapping) or not isinstance(city, str) or source == SYNTHETIC:
        return False
    if not isinstance(source, str) or not isinstance(fetched, str):
        return False
    remember_week(memory, city, source, fetched, week)
    return True


def recall(memory: ForecastMemory, city: str, when: date, now: datetime) -> CachedReading | None:
    """The cached reading of ``city`` on ``when``, with its age at ``now``; None if the
    cache holds none (or a record it cannot read)."""
    record = memory.get_record("facts", f"{FORECAST_ENTITY}/{city}")
    value = record.get("value") if record else None
    if not isinstance(value, Mapping):
        return None
    reading = (value.get("days") or {}).get(when.isoformat())
    try:
        fetched = datetime.fromisoformat(str(value.get("fetched_at")))
    except ValueError:
        return None
    if not isinstance(reading, Mapping) or fetched.tzinfo is None:
        return None
    age = max(0, int((now - fetched).total_seconds()))
    return CachedReading(dict(reading), str(value.get("source") or "cache"), age)


def needs_fetch(memory: ForecastMemory, arguments: Mapping[str, Any], now: datetime) -> bool:
    """Whether a ``get_weather`` call's day (every day of its span) has no fresh entry in
    the cache."""
    from zoneinfo import ZoneInfo

    from understanding.gazetteer import place

    found = place(" ".join(str(arguments.get("city") or "").lower().split()))
    if found is None:
        return False  # the tool will say it does not know the city
    city = found.key
    dates = span_dates(
        str(arguments.get("day") or "today"), now.astimezone(ZoneInfo(found.timezone)).date()
    )
    if dates is None:
        return False
    for when in dates:
        cached = recall(memory, city, when, now)
        if cached is None or not cached.fresh:
            return True
    return False
