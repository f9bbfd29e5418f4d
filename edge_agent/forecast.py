"""Forecast days and the built-in synthetic forecast provider.

``get_weather`` takes a day within the next 7 days: ``today``, ``tomorrow`` or a weekday
name, meaning the next such day (today's own weekday is today). :func:`day_date` turns
it into a date in the city's time zone, or None for a day it cannot serve.

With no forecast service configured (the demo, tests, offline installs) the built-in
synthetic provider serves: a plausible reading drawn from the city's latitude, the
season and a hash of city and date, deterministic (the same city and date always give
the same reading) and labelled ``source = "synthetic"`` in every observation, so nobody
takes it for a real forecast.

>>> from datetime import date
>>> day_date("friday", date(2026, 12, 1))   # a Tuesday
datetime.date(2026, 12, 4)
>>> day_date("next month", date(2026, 12, 1)) is None
True
"""

from __future__ import annotations

import hashlib
import math
import re
from datetime import date, timedelta
from typing import Any

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


# Days a forecast of 7 days cannot serve as one day: ranges, the past, further out.
_UNSERVED_DAY = re.compile(
    r"\b(?:yesterday|last night|(?:next|this|last|coming)\s+(?:week|weekend|month|year)|"
    r"(?:the\s+)?weekend|next\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"day after tomorrow|in\s+(?:\d+|two|three|four|five|six|seven|eight|nine|ten|a few)\s+"
    r"(?:days|weeks)|(?:\d+|five|seven|ten|fourteen)[-\s]day|fortnight|rest of the week|"
    r"(?:on|in)\s+(?:january|february|march|april|may|june|july|august|september|october|"
    r"november|december))\b",
    re.IGNORECASE,
)


def unserved_day(text: str) -> str | None:
    """The words naming a day or a span the 7-day forecast cannot answer as one day ("next
    week", "the weekend", "yesterday"), as written; None when there are none.

    >>> unserved_day("will it rain in lisbon next week")
    'next week'
    """
    match = _UNSERVED_DAY.search(text)
    return match.group(0) if match else None
