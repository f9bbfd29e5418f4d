"""``set_timer``'s arguments from a joint model's slots: a duration, or an alarm's clock
time and day (:mod:`understanding.arguments.builtin_slots`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from understanding.arguments.builtin_places import _zone, slot_date
from understanding.arguments.builtin_request import _missing, _one, _Request, _said
from understanding.arguments.schema import Filled
from understanding.arguments.slots import clock_time
from understanding.arguments.timer_labels import is_day_part, timer_label

_PM_TIMES = ("afternoon", "evening", "tonight", "night")


_DURATION_WORDS = re.compile(
    r"\b(?:seconds?|secs?|minutes?|mins?|hours?|hrs?|half an hour|quarter of an hour|"
    r"an hour|a minute|a second|days?)\b"
)


_CLOCK_WORDS = re.compile(r"\b(?:am|pm|a m|p m|o'?clock|noon|midday|midnight|past|to)\b|:")


def slot_duration(span: str) -> int | None:
    """Seconds for a ``time`` span that is a duration ("ten minutes", "half an hour",
    "five minutes from now"); None for a clock time ("five thirty", "one pm").

    >>> slot_duration("half an hour"), slot_duration("six am")
    (1800, None)
    """
    from understanding.arguments.durations import parse_duration

    said = _said(span)
    if not _DURATION_WORDS.search(said) or _CLOCK_WORDS.search(said):
        return None
    return parse_duration(said)


def _clock(time_span: str, timeofday: Sequence[str]) -> str | None:
    """ "HH:MM" for a clock-time span, its am/pm from a ``timeofday`` span when it has
    none of its own ("five" + "evening" -> 17:00)."""
    said = _said(time_span)
    said = re.sub(r"^(?:at|for|by)\s+", "", said)
    if timeofday and not re.search(r"\b(?:am|pm|a m|p m)\b", said):
        part = _said(" ".join(timeofday))
        if any(word in part for word in _PM_TIMES):
            said += " pm"
        elif "morning" in part:
            said += " am"
        elif part:
            return None
    return clock_time(said)


_RECURRING = re.compile(
    r"\b(?:every|each|daily|weekdays|weekends|weekly|on (?:mondays|tuesdays|wednesdays|"
    r"thursdays|fridays|saturdays|sundays))\b",
    re.IGNORECASE,
)


def _set_timer(request: _Request, home: Any, now: datetime) -> Filled:
    times = request.spans("time")
    dates = request.spans("date")
    timeofday = request.spans("timeofday")
    label, refusal = _one(request, "timer_name", "label")
    if refusal is not None:
        return refusal
    if label is None and (label := timer_label(request.words)) is not None:
        # "a 30 minute timer for bedtime": the name the tagger read as a time of day
        timeofday = [s for s in timeofday if is_day_part(s) or _said(s) not in label]
        dates = [s for s in dates if is_day_part(s) or _said(s) not in label]
    extra: dict[str, Any] = {"label": " ".join(label.split())} if label else {}
    recurring = _RECURRING.search(" ".join([request.words, *times, *dates, *timeofday]))
    if recurring is not None:
        return Filled(None, f"a recurring alarm ({recurring.group(0)!r}) is not one timer")
    if not times:
        if request.reader_may("seconds") and (found := _timer_from_words(request.words)):
            return Filled({**found, **extra})
        return _missing("time", "seconds' or 'at")
    if len(times) > 1:
        listed = ", ".join(repr(s) for s in times)
        return Filled(None, f"several times ({listed}): which one is a guess")
    times = [_with_unit(times[0], request.words)]
    if _bare_after_in(times[0], request.words):
        return Filled(None, f"'in {times[0]}' is no clock time, and names no unit of a duration")
    seconds = slot_duration(times[0])
    if seconds is not None:
        if dates or timeofday:
            return Filled(None, f"a duration ({times[0]!r}) with a day: which one is meant")
        return Filled({"seconds": seconds, **extra})
    clock = _clock(times[0], timeofday)
    if clock is None:
        return Filled(None, f"{times[0]!r} is no clock time or duration")
    if not dates:
        return Filled({"at": clock, **extra})
    today = now.astimezone(_zone(home)).date()
    day = slot_date(dates, today)
    if day is None and len(dates) == 1:
        # A date of the next 7 days (an alarm is at most 7 days ahead): "on the 5th",
        # "on december 7th".
        from understanding.arguments.dates import calendar_date, month_day

        when = month_day(dates[0], today) or calendar_date(dates[0], today)
        day = when if when is not None and 0 <= (when - today).days < 7 else None
    if day is None:
        return Filled(None, f"the alarm's day {' '.join(dates)!r} is not one the device sets")
    return Filled({"at": f"{day.isoformat()}T{clock}", **extra})


_UNIT_AFTER = r"\s+(?P<unit>seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)\b"


def _with_unit(span: str, words: str) -> str:
    """A ``time`` span with the unit the tagger left out of it ("two" of "in two hours"):
    a duration's number is never a clock time."""
    said = _said(span)
    if _DURATION_WORDS.search(said):
        return span
    found = re.search(r"\b" + re.escape(said) + _UNIT_AFTER, _said(words))
    return f"{span} {found.group('unit')}" if found else span


_BARE_NUMBER = re.compile(r"(?:\d+|[a-z]+(?:[ -][a-z]+)?)")


def _bare_after_in(span: str, words: str) -> bool:
    """ "in five" with no unit nor am/pm: a countdown or a clock time, which is a guess."""
    said = _said(span)
    if _CLOCK_WORDS.search(said) or _DURATION_WORDS.search(said):
        return False
    if not _BARE_NUMBER.fullmatch(said):
        return False
    return re.search(r"\bin\s+" + re.escape(said) + r"\b", _said(words)) is not None


def _timer_from_words(words: str) -> dict[str, Any] | None:
    """The readers' timer (a duration, else an alarm's clock time) from the words; only
    where :data:`WORD_READERS` allows it (not in the shipped policy)."""
    from understanding.arguments.durations import parse_duration
    from understanding.requests import alarm_time

    at = alarm_time(words)
    if at is not None:
        return {"at": at}
    seconds = parse_duration(words)
    return {"seconds": seconds} if seconds else None
