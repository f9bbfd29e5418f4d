"""A clock time said with no part of the day: "at three", "half six" (3 am or 3 pm?).

A command or a reminder at such an hour is asked back ("morning or evening?") on the device
and declined by the cloud's plan check, as either reading may be the wrong one; an alarm
is the morning's, as people set them.

    >>> ambiguous_hour("start the coffee at three")
    True
    >>> ambiguous_hour("start the coffee at 3 pm")
    False
"""

from __future__ import annotations

from understanding.arguments.qualifiers import (
    NUMBER_WORDS,
    PARTS_OF_DAY,
    Qualifier,
    find_qualifiers,
)

__all__ = ["ambiguous_hour", "clock_words"]


def clock_words(q: Qualifier) -> list[str]:
    """A time qualifier's clock words: a last "to"/"past" is a reminder's ("at 3 to go")."""
    parts = q.word.split()
    return parts[:-1] if parts[-1] in ("to", "past") and len(parts) > 2 else parts


def ambiguous_hour(words: str) -> bool:
    """ "at three": a bare hour with no am/pm, minutes or time of day (3 am or 3 pm?)."""
    for q in find_qualifiers(words):
        parts = clock_words(q)
        if q.kind == "time" and parts[0] == "at" and len(parts) == 2:
            hour = parts[1]
            if hour.isdigit() and 1 <= int(hour) <= 12 and not hour.startswith("0"):
                return True
            if hour in NUMBER_WORDS and hour not in ("half", "quarter", "a", "an"):
                return True
        if q.kind == "time" and parts[0] == "at" and _spoken_clock_hour(parts[1:]):
            return True
    return False


_DAY_PARTS = PARTS_OF_DAY | {"am", "pm", "a.m.", "p.m.", "tonight", "noon"}


def _spoken_clock_hour(said: list[str]) -> bool:
    """ "half six", "half past seven", "quarter to seven", "six thirty", "ten past eleven":
    a clock time said in words with no am/pm or part of the day, its hour 1-12 (morning or
    evening?)."""
    if not said or _DAY_PARTS.intersection(said) or any(":" in t for t in said):
        return False
    if said[0] in ("half", "quarter"):
        hour = said[-1]
    elif len(said) == 2 and said[1] in ("thirty", "fifteen", "forty", "o'clock", "oclock"):
        hour = said[0]
    elif len(said) == 3 and said[1] in ("past", "to", "after"):
        hour = said[2]  # "ten past eleven", "twenty to eight"
    else:
        return False
    from understanding.arguments.numbers import SMALL

    value = int(hour) if hour.isdigit() else SMALL.get(hour)
    return value is not None and 1 <= value <= 12
