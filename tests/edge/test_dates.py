"""Calendar dates read from a ``date`` slot's words (understanding.arguments.dates)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from understanding.arguments.dates import MONTHS, calendar_date
from understanding.arguments.numbers import spell_number

TODAY = date(2026, 12, 1)  # a Tuesday
_ORDINAL_SUFFIX = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}


@pytest.mark.parametrize(
    ("span", "expected"),
    [
        ("today", TODAY),
        ("tomorrow", date(2026, 12, 2)),
        ("the day after tomorrow", date(2026, 12, 3)),
        ("friday", date(2026, 12, 4)),
        ("on tuesday", TODAY),
        ("december thirteenth", date(2026, 12, 13)),
        ("13th december", date(2026, 12, 13)),
        ("the 4th of july", date(2027, 7, 4)),
        ("twenty first of march", date(2027, 3, 21)),
        ("20 first of march", date(2027, 3, 21)),
        ("jan 2", date(2027, 1, 2)),
        ("march 21st 2030", date(2030, 3, 21)),
        ("friday december 13th", date(2026, 12, 13)),
    ],
)
def test_dates_people_say(span: str, expected: date) -> None:
    assert calendar_date(span, TODAY) == expected


@pytest.mark.parametrize(
    "span",
    ["christmas", "next month", "the 5th", "next friday", "february thirtieth", "june or july 4"],
)
def test_what_names_no_one_date_is_none(span: str) -> None:
    assert calendar_date(span, TODAY) is None


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31)), st.booleans())
def test_a_month_and_day_is_their_next_occurrence(today: date, words: bool) -> None:
    asked = today + timedelta(days=17)
    if words:
        span = f"{MONTHS[asked.month - 1]} {spell_number(asked.day)}"
    else:
        span = f"the {asked.day}{_ORDINAL_SUFFIX.get(asked.day, 'th')} of {MONTHS[asked.month - 1]}"
    got = calendar_date(span, today)
    assert got is not None and (got.month, got.day) == (asked.month, asked.day)
    assert today <= got < today + timedelta(days=367)
