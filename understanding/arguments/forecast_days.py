"""The forecast day or span a phrase names: "tomorrow morning", "friday", "this week",
"the weekend", "the rest of the week", "the next few days".

``get_weather`` takes a ``day``: one day (``today``, ``tomorrow``, a weekday: the next
such day) or a span of the forecast's 7 days (``week``, ``weekend``, ``rest_of_week``,
``next_days``; :data:`understanding.forecast.SPANS` says which dates each means). This module
reads which one a ``date`` / ``timeofday`` phrase names, by its words: the filler around
them ("for", "the", "this", "coming", "'s") is dropped, a part of a day ("tonight", "this
afternoon", "at noon") is that day, and any word left that names another time ("next
week", "the 5th", "december", "last", "two weeks") reads as None, so a day the forecast
does not hold is never answered with another one.

>>> forecast_day("this afternoon"), forecast_day("tomorrow night"), forecast_day("friday")
('today', 'tomorrow', 'friday')
>>> forecast_day("this week's"), forecast_day("the weekend"), forecast_day("next week")
('week', 'weekend', None)
>>> forecast_day_in("will it rain in lisbon over the next few days")
'next_days'
"""

from __future__ import annotations

import re

__all__ = ["SERVED_SPAN", "forecast_day", "forecast_day_in", "unserved_weather_day"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_TOMORROW = frozenset({"tomorrow", "tomorow", "tommorow", "tommorrow", "tmrw", "tmr", "tmrow"})
# Parts of a day: the day they are part of (today unless another day is named).
_PART_WORDS = (
    "morning afternoon evening night tonight noon midday lunchtime lunch daytime overnight "
    "now currently later today"
)
_PARTS = frozenset(_PART_WORDS.split())
# Words around a day that do not change which day it is.
_FILLER_WORDS = (
    "for on in at during by over through throughout across of from the this coming upcoming "
    "whole entire all right until till to about around like be is will"
)
_FILLER = frozenset(_FILLER_WORDS.split())
_FEW = frozenset({"few", "couple", "several", "2", "3", "two", "three"})
_SEVEN = frozenset({"7", "seven"})


def _words(phrase: str) -> list[str]:
    said = re.sub(r"'s\b|s'", "", phrase.lower())
    said = re.sub(r"(\d)\s*-\s*day", r"\1 day", said)
    return [w for w in re.split(r"[^\w]+", said) if w]


def forecast_day(phrase: str) -> str | None:
    """The day or span ``phrase`` names (see the module docstring), or None.

    ``today`` for a part of today ("tonight", "this evening"); a weekday with a part of
    it ("monday noon") or "this week" after it ("monday this week") is that weekday.
    """
    words = [w for w in _words(phrase) if w not in _FILLER]
    if not words:
        return None
    days = [w for w in words if w in _WEEKDAYS or w in _TOMORROW]
    rest = [w for w in words if w not in _PARTS and w not in days]
    if days:
        # "friday", "tomorrow morning", "monday this week": one day and its parts.
        if len(set(days)) != 1 or rest not in ([], ["week"]):
            return None
        return "tomorrow" if days[0] in _TOMORROW else days[0]
    if not rest:
        return "today"  # "tonight", "this afternoon", "now", "later today"
    # A part of the days of a span is the span: the forecast is by the day ("the
    # weekend mornings" are the weekend's days), as "friday morning" is friday's.
    return _SPANS.get(" ".join(rest))


def _span_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for said in (
        "week",
        "weekly",
        "weeks",
        "7 day",
        "seven day",
        "7 days",
        "seven days",
        "next 7 days",
        "next seven days",
        "week ahead",
        "week forecast",
    ):
        table[said] = "week"
    for said in ("weekend",):
        table[said] = "weekend"
    for said in ("rest week", "remainder week", "later week"):
        table[said] = "rest_of_week"
    for few in _FEW:
        for said in (f"next {few} days", f"next {few} day", f"{few} days", f"next {few}"):
            table[said] = "next_days"
    for said in ("days", "days ahead", "next days", "coming days", "few days ahead"):
        table[said] = "next_days"
    return table


_SPANS = _span_table()

#: The phrases of the spans the forecast serves, in running text (``forecast_day`` reads
#: each match; "next week" or "the weekend after next" are not among them).
SERVED_SPAN = re.compile(
    r"\b(?:(?:for|over|during|across|throughout|in)\s+)?(?:the\s+)?"
    r"(?:(?:this|the|coming|upcoming)\s+)?(?:"
    r"(?:rest|remainder)\s+of\s+(?:the|this)\s+week|later\s+this\s+week|"
    r"weeks?(?:'s)?(?:\s+ahead)?|weekend(?!s)|weekly|(?:7|seven)[-\s]days?|"
    r"next\s+(?:(?:few|couple(?:\s+of)?|several|2|3|two|three|7|seven)\s+)?days|"
    r"(?:few|couple\s+of|several)\s+days(?:\s+ahead)?|days\s+ahead|coming\s+days)\b"
    r"(?!\s+(?:after|from|ago|later|before))",
    re.IGNORECASE,
)
# The word before a span's words that makes it another span ("next week", "last weekend",
# "in two weeks", "a week from now").
_OTHER_SPAN_WORDS = (
    "next last past previous following every each other a one two three four five six "
    "couple few several"
)
_OTHER_SPAN_BEFORE = frozenset(_OTHER_SPAN_WORDS.split())


def forecast_day_in(text: str) -> str | None:
    """The one span of the forecast's week that running ``text`` names ("will it rain
    this weekend" -> weekend), or None when it names none, several, or one the forecast
    does not serve ("next week", "the weekend after next", "in two weeks"). "This week"
    after a weekday ("monday this week") is that weekday's, not a span."""
    found = []
    for match in SERVED_SPAN.finditer(text):
        before = re.findall(r"[\w']+", text[: match.start()].lower())[-1:]
        if before and (before[0] in _OTHER_SPAN_BEFORE or before[0].isdigit()):
            return None
        if before and before[0] in _WEEKDAYS and forecast_day(match.group(0)) == "week":
            continue
        span = forecast_day(match.group(0))
        if span is None:
            return None
        found.append(span)
    return found[0] if len(set(found)) == 1 else None


def unserved_weather_day(text: str) -> str | None:
    """The words naming a time the 7-day forecast cannot answer
    (:func:`understanding.forecast.unserved_day`), once the span it serves is set aside:
    "this weekend" is served, "next weekend" is not.

    >>> unserved_weather_day("will it rain this weekend") is None
    True
    >>> unserved_weather_day("will it rain next weekend")
    'next weekend'
    """
    from understanding.forecast import unserved_day

    if forecast_day_in(text) is not None:
        text = SERVED_SPAN.sub(" ", text)
    return unserved_day(text)
