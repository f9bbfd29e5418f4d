"""A calendar date from the words of a ``date`` slot: "december thirteenth", "the 4th of
july", "friday", "tomorrow".

The clock answers "what day is december thirteenth" with this; a span it cannot read (a
holiday, "next month", "the 5th" with no month) reads as None, and the query goes to the
cloud rather than to a guessed date. A date without a year is its next occurrence.

>>> from datetime import date
>>> calendar_date("december thirteenth", date(2026, 12, 1))
datetime.date(2026, 12, 13)
>>> calendar_date("the fourth of july", date(2026, 12, 1))
datetime.date(2027, 7, 4)
>>> calendar_date("march 21st 2030", date(2026, 12, 1))
datetime.date(2030, 3, 21)
>>> calendar_date("christmas", date(2026, 12, 1)) is None
True
"""

from __future__ import annotations

import re
from datetime import date, timedelta

__all__ = ["MONTHS", "calendar_date", "month_day"]

MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip
_SHORT = {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12,
    "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
    "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
    "thirtieth": 30,
}  # fmt: skip
_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30,
}  # fmt: skip
_FILLER = frozenset({"the", "of", "on", "this", "coming", "next", "is", "it", "in", "day"})
_RELATIVE = {"today": 0, "tonight": 0, "now": 0, "tomorrow": 1, "yesterday": -1}


def _month(word: str) -> int | None:
    if word in MONTHS:
        return MONTHS.index(word) + 1
    return _SHORT.get(word.rstrip("."))


def _day_words(words: list[str]) -> int | None:
    """The day of the month the words say ("13", "13th", "thirteenth", "twenty first")."""
    if len(words) == 1:
        match = re.fullmatch(r"(\d{1,2})(?:st|nd|rd|th)?", words[0])
        if match:
            return int(match.group(1))
        return _ORDINALS.get(words[0]) or _NUMBERS.get(words[0])
    if len(words) == 2:
        tens = {"twenty": 20, "thirty": 30, "20": 20, "30": 30}.get(words[0])
        unit = _ORDINALS.get(words[1]) or _NUMBERS.get(words[1])
        if words[1] in ("st", "nd", "rd", "th") and words[0].isdigit():
            return int(words[0])
        if tens is not None and unit is not None and unit < 10:
            return tens + unit
    return None


def calendar_date(span: str, today: date) -> date | None:
    """The date ``span`` names, seen from ``today``; None where it names no one date."""
    words = [w for w in re.split(r"[\s,/-]+", span.lower().strip()) if w]
    said = " ".join(words)
    if said in _RELATIVE:
        return today + timedelta(days=_RELATIVE[said])
    if said in ("day after tomorrow", "the day after tomorrow"):
        return today + timedelta(days=2)
    content = [w for w in words if w not in _FILLER]
    if len(content) == 1 and content[0] in _WEEKDAYS:
        if "next" in words:
            return None  # "next friday": this week's or the one after? not guessed
        return today + timedelta(days=(_WEEKDAYS.index(content[0]) - today.weekday()) % 7)
    content = [w for w in content if w not in _WEEKDAYS]  # "friday december 13th"
    months = [(i, m) for i, w in enumerate(content) if (m := _month(w)) is not None]
    if len(months) != 1:
        return None
    at, month = months[0]
    rest = content[:at] + content[at + 1 :]
    year = None
    if rest and re.fullmatch(r"\d{4}", rest[-1]):
        year = int(rest.pop())
    day = _day_words(rest)
    if day is None:
        return None
    try:
        when = date(year or today.year, month, day)
        if year is None and when < today:
            when = date(today.year + 1, month, day)
    except ValueError:
        return None  # "february thirtieth"
    return when


def month_day(span: str, today: date) -> date | None:
    """The next date whose day of the month ``span`` names alone ("the seventh", "on the
    7th", "the 7th of this month"), seen from ``today``: this month's, or next month's
    once this month's has passed; None for anything else (a month, a weekday, "next").

    >>> month_day("the seventh", date(2026, 12, 2)), month_day("the 1st", date(2026, 12, 29))
    (datetime.date(2026, 12, 7), datetime.date(2027, 1, 1))
    """
    words = [w for w in re.split(r"[\s,/-]+", span.lower().strip()) if w]
    if words[-3:] == ["of", "this", "month"]:
        words = words[:-3]
    elif words[-2:] == ["this", "month"]:
        words = words[:-2]
    if "next" in words or "last" in words:
        return None
    day = _day_words([w for w in words if w not in _FILLER])
    if day is None or not 1 <= day <= 31:
        return None
    year, month = (today.year, today.month)
    if day < today.day:
        year, month = (year + month // 12, month % 12 + 1)
    try:
        return date(year, month, day)
    except ValueError:
        return None  # "the 31st" of a 30-day month
