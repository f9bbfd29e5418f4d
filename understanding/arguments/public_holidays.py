"""The date of a public holiday named in words ("christmas", "boxing day", "thanksgiving"),
in the home country's calendar, from the ``holidays`` package (the optional ``holidays``
extra: ``pip install 'edgeloop[holidays]'``).

The clock tells the weekday of such a date ("what day of the week is christmas"). The
holiday must be one of the home country's public holidays, named in full (the words of
its name but "day": "christmas" is Christmas Day, but "easter" is none of Good Friday and
Easter Monday); without a home city, without the package, or for a name the calendar does
not hold ("valentine's"), there is no date, and the query goes to the cloud. No holiday
table is written by hand here: the package is the calendar.

>>> from datetime import date
>>> holiday_date("christmas", date(2026, 12, 1), "GB")  # doctest: +SKIP
datetime.date(2026, 12, 25)
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache

__all__ = ["holiday_date"]

_NOT_NAME = frozenset({"the", "day", "on", "of", "this", "s"})
_MONTHS = frozenset(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december")
)  # fmt: skip


def _key(name: str) -> tuple[str, ...]:
    """The words of a holiday's name that say which it is ("New Year's Day" -> new year;
    "May Day" keeps its "day", since "may" alone is the month)."""
    said = name.lower().replace("’", "'").replace("'s", "")
    words = ["year" if w == "years" else w for w in re.findall(r"[a-z]+", said)]
    key = tuple(w for w in words if w not in _NOT_NAME)
    if len(key) == 1 and key[0] in _MONTHS and "day" in words:
        return (*key, "day")
    return key


@lru_cache(maxsize=64)
def _calendar(country: str, year: int) -> tuple[tuple[date, tuple[str, ...]], ...]:
    """The country's public holidays of ``year`` and the next, by the words of each name;
    () where the package is missing or has no calendar for the country."""
    try:
        import holidays
    except ImportError:
        return ()
    try:
        table = holidays.country_holidays(country, years=(year, year + 1), language="en_US")
    except NotImplementedError:
        return ()
    found: list[tuple[date, tuple[str, ...]]] = []
    for when, names in sorted(table.items()):
        for name in str(names).split(";"):
            if "observed" not in name.lower() and (key := _key(name)):
                found.append((when, key))
    return tuple(found)


def holiday_date(span: str, today: date, country: str | None) -> date | None:
    """The next date (from ``today``) of the public holiday ``span`` names in
    ``country``'s calendar (ISO code), or None."""
    if not country:
        return None
    key = _key(span)
    if not key:
        return None
    dates = [when for when, name in _calendar(country, today.year) if name == key]
    upcoming = [when for when in dates if when >= today]
    return upcoming[0] if upcoming else None
