"""Forecast days named by the day of the month (issue 12): "the seventh" within the
forecast's 7 days is that day (today, tomorrow or its weekday); beyond them it stays the
cloud's, never answered with another day."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from understanding.arguments.builtin_slots import builtin_from_slots
from understanding.arguments.dates import month_day
from understanding.settings import Settings
from understanding.slu.model import Slot

HOME = Settings(home_city="london")
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd", 7: "seventh", 12: "twelfth", 21: "twenty first"}


def test_month_day_reads_a_day_of_the_month_alone() -> None:
    today = date(2026, 12, 2)
    assert month_day("the seventh", today) == date(2026, 12, 7)
    assert month_day("on the 7th of this month", today) == date(2026, 12, 7)
    assert month_day("the 1st", today) == date(2027, 1, 1)  # this month's has passed
    assert month_day("the 2nd", today) == today
    for other in ("next friday", "the seventh of next month", "december", "the 40th", "friday"):
        assert month_day(other, today) is None, other
    assert month_day("the 31st", date(2026, 11, 5)) is None  # November has 30 days


def _weather(words: str, span: str | None, now: datetime) -> object:
    slots = []
    if span is not None:
        start = words.split().index(span.split()[0])
        slots.append(Slot("date", span, start, start + len(span.split())))
    filled = builtin_from_slots("get_weather", slots, words, HOME, now)
    return filled.arguments if filled.arguments is not None else ("cloud", filled.reason)


@settings(deadline=None)
@given(st.dates(date(2026, 1, 1), date(2030, 12, 31)), st.sampled_from(sorted(ORDINALS)))
def test_a_day_of_the_month_within_the_week_is_its_forecast_day(today: date, day: int) -> None:
    now = datetime(today.year, today.month, today.day, 12, 0, tzinfo=UTC)  # noon in London
    words = f"what will the weather be on the {ORDINALS[day]}"
    got = _weather(words, f"the {ORDINALS[day]}", now)
    when = month_day(f"the {ORDINALS[day]}", today)
    assert when is not None
    ahead = (when - today).days
    if ahead >= 7:
        assert isinstance(got, tuple) and got[0] == "cloud"
        return
    expected = "today" if ahead == 0 else "tomorrow" if ahead == 1 else WEEKDAYS[when.weekday()]
    assert got == {"city": "london", "day": expected}
    # The weekday it names is that date: the next such day after today.
    if ahead >= 2:
        assert today + timedelta(days=(WEEKDAYS.index(expected) - today.weekday()) % 7) == when


def test_the_words_name_the_date_when_the_tagger_does_not() -> None:
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    assert _weather("will it rain on the 3rd", None, now) == {"city": "london", "day": "tomorrow"}
    assert _weather("weather on the 20th", None, now)[0] == "cloud"  # type: ignore[index]
    assert _weather("weather tomorrow and on the 5th", None, now)[0] == "cloud"  # type: ignore[index]


def _alarm(words: str, date_span: str, time_span: str) -> object:
    tokens = words.split()
    slots = []
    for kind, span in (("date", date_span), ("time", time_span)):
        start = next(
            i for i in range(len(tokens)) if tokens[i : i + len(span.split())] == span.split()
        )
        slots.append(Slot(kind, span, start, start + len(span.split())))
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    filled = builtin_from_slots("set_timer", slots, words, HOME, now)
    return filled.arguments if filled.arguments is not None else ("cloud", filled.reason)


def test_an_alarm_on_a_date_of_the_next_seven_days() -> None:
    assert _alarm("set an alarm on the fifth at seven am", "the fifth", "seven am") == {
        "at": "2026-12-05T07:00"
    }
    assert _alarm("alarm on december seventh at six", "december seventh", "six") == {
        "at": "2026-12-07T06:00"
    }
    # An alarm is at most 7 days ahead: a later date is the cloud's.
    assert _alarm("alarm on the 20th at five pm", "the 20th", "five pm")[0] == "cloud"  # type: ignore[index]
