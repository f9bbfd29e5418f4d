"""Cities and days for the weather and the world clock.

A query must name exactly one known place (typos allowed, see ``understanding.gazetteer``):
"weather in Paris and Berlin" names two and is the cloud's. A country or region after the
city confirms it ("Cairo, Egypt", "Sydney Australia", "Toronto, Ontario, Canada") or picks
another city of the name ("Paris, Texas", "London, Ontario": the place's key, "paris,
texas"); a name in a region with no city of the name ("Paris, Nevada") is no place the
device knows, so nothing is filled for it. Weather also needs a day the
cache holds (or a span of its 7 days: "this week", "the weekend"); "today" is the default,
and a day it does not hold ("next week", "the 5th", "yesterday") sends the query to the
cloud rather than answering for today.
"""

from __future__ import annotations

import re
from collections import Counter

from understanding.arguments.forecast_days import SERVED_SPAN, forecast_day_in
from understanding.forecast import unserved_day
from understanding.gazetteer import find_cities, read_places

_TOMORROW = re.compile(
    r"\b(?:tomorrow|tomorow|tommorow|tommorrow|tmrw|tmr|tmrow|2morrow|2moro|tomoz|"
    r"tomorrows|tomorrow's|tommorow's|the next day|mañana)\b",
    re.IGNORECASE,
)
_OTHER_DAYS = re.compile(
    r"\b(?:yesterday|next week|this week|last week|weekend|next (?:monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday)|day after tomorrow|in \d+ days|in (?:two|three|four|"
    r"five|six|seven|a few) days|next month|last month|this month|january|february|march|"
    r"april|june|july|august|september|october|november|december|tonight's|last night|"
    r"last year|next year|this year|this season|10 day|ten day|7 day|seven day|5 day|"
    r"five day|14 day|fortnight|historically|usually|average|typically|normally|"
    r"climate|in winter|in summer|in spring|in autumn|in fall|rest of the week)\b",
    re.IGNORECASE,
)


def one_city(text: str) -> str | None:
    """The key of the single place ``text`` names, or None for none, several or a place
    the device does not know.

    >>> one_city("what time is it in Cairo, Egypt")
    'cairo'
    >>> one_city("weather in Paris, Texas"), one_city("weather in Paris, Nevada")
    ('paris, texas', None)
    """
    reading = read_places(text)
    if reading.unknown is not None:
        return None
    named = Counter(city for _pos, city in find_cities(reading.text))
    picked = Counter(city for city, _key in reading.picked)
    # A name a region picked is that place; written bare as well, it is the bare name's too.
    keys = {key for _city, key in reading.picked}
    keys.update(city for city, count in named.items() if count > picked[city])
    return next(iter(keys)) if len(keys) == 1 else None


_WEEKDAY = re.compile(
    r"\b(?:on\s+|this\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?\b",
    re.IGNORECASE,
)


def weather_day(text: str) -> str | None:
    """``today``, ``tomorrow``, a weekday (the next such day, within 7 days) or a span of
    the 7 days (``week``, ``weekend``, ``rest_of_week``, ``next_days``:
    :mod:`understanding.arguments.forecast_days`); None for any other day or for two of them.

    >>> weather_day("will it rain this weekend"), weather_day("weather next week")
    ('weekend', None)
    """
    span = forecast_day_in(text)
    if span is not None:
        rest = SERVED_SPAN.sub(" ", text)
        if weather_day(rest) != "today":
            return None  # another day beside the span ("tomorrow and this weekend")
        return span
    # "monday this week" is monday.
    text = re.sub(
        r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\s+(?:of\s+)?this\s+week\b",
        r"\1",
        text,
        flags=re.IGNORECASE,
    )
    if _OTHER_DAYS.search(text) or unserved_day(text) is not None:
        return None
    weekdays = {m.group(1).lower() for m in _WEEKDAY.finditer(text)}
    tomorrow = _TOMORROW.search(text) is not None
    if len(weekdays) + tomorrow > 1:
        return None
    if weekdays:
        return weekdays.pop()
    return "tomorrow" if tomorrow else "today"
