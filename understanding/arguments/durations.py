"""Durations as people say them: "an hour and a half", "20 min", "half an hour", "1h30".

Works on number-normalised tokens (see ``numbers``): each number followed by a time
unit adds to the total, and the idioms that carry no digits ("an hour", "half a minute",
"a quarter of an hour", "... and a half") are read explicitly.
"""

from __future__ import annotations

import itertools

from understanding.arguments.numbers import NumberSpan, find_numbers, tokenize

UNIT_SECONDS: dict[str, int] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds", "seg", "secnds", "seconds."), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes", "minuts", "minutes.", "mn"), 60),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours", "hour.", "hours.", "hous", "hrs."), 3600),
    **dict.fromkeys(("day", "days"), 86400),
}


def _unit_at(tokens: list[str], i: int) -> int | None:
    if i < len(tokens) and tokens[i] in UNIT_SECONDS:
        return UNIT_SECONDS[tokens[i]]
    return None


def parse_duration(text: str) -> int | None:
    """Total seconds named in ``text``, or None when it names no duration.

    >>> parse_duration("an hour and a half")
    5400
    >>> parse_duration("set a timer for 20 min")
    1200
    """
    tokens = tokenize(text)
    spans = {span.start: span for span in find_numbers(tokens)}
    total = 0.0
    found = False
    units_seen: list[int] = []
    i = 0
    n = len(tokens)
    while i < n:
        span = spans.get(i)
        if span is not None:
            # "1 hour", "1.5 hours", "0.75 of an hour", "2 and a half minutes"
            j = span.end
            if j < n and tokens[j] == "of" and j + 1 < n and tokens[j + 1] in ("a", "an"):
                j += 2
            unit = _unit_at(tokens, j)
            if unit is not None and not (
                unit == 60 and tokens[j] == "m" and _looks_metres(tokens, j)
            ):
                total += span.value * unit
                found = True
                units_seen.append(unit)
                i = j + 1
                i, total = _trailing_fraction(tokens, i, unit, total)
                i, total = _bare_after(tokens, spans, i, unit, total)
                continue
            i = span.end
            continue
        word = tokens[i]
        nxt = tokens[i + 1] if i + 1 < n else ""
        # "an hour", "a minute" (and "an hour and a half")
        if word in ("a", "an", "one") and _unit_at(tokens, i + 1) is not None:
            unit = UNIT_SECONDS[nxt]
            total += unit
            found = True
            units_seen.append(unit)
            i, total = _trailing_fraction(tokens, i + 2, unit, total)
            i, total = _bare_after(tokens, spans, i, unit, total)
            continue
        # "half an hour", "half a minute", "quarter of an hour", "a quarter hour"
        if word in ("half", "quarter"):
            fraction = 0.5 if word == "half" else 0.25
            j = i + 1
            if j < n and tokens[j] == "of":
                j += 1
            if j < n and tokens[j] in ("a", "an"):
                j += 1
            unit = _unit_at(tokens, j)
            if unit is not None:
                total += fraction * unit
                found = True
                units_seen.append(unit)
                i = j + 1
                continue
        i += 1
    if not found:
        return None
    # "1 hour and 30 minutes" is one duration; "5 minutes and 10 minutes" is two timers.
    if any(later >= earlier for earlier, later in itertools.pairwise(units_seen)):
        return None
    return round(total)


def _bare_after(
    tokens: list[str], spans: dict[int, NumberSpan], i: int, unit: int, total: float
) -> tuple[int, float]:
    """Adds the bare number after hours (minutes) or minutes (seconds): "1 h 30", and "an
    hour and 15" where the number ends the request. "A 30 minute one" is a pronoun, not
    one more second; "10 minutes and 3 more" is no part of the duration."""
    n = len(tokens)
    joined = i < n and tokens[i] == "and"
    bare = spans.get(i + joined)
    if bare is None or unit not in (3600, 60) or tokens[bare.start] in ("one", "ones"):
        return i, total
    after = tokens[bare.end] if bare.end < n else ""
    if _unit_at(tokens, bare.end) is not None or after in ("%", "percent", "degrees"):
        return i, total
    if joined and after not in ("", ",", ".", "?", "!", "please", "pls", "thanks", "thx"):
        return i, total
    if bare.value == 1 and after not in ("", ",", ".", "?", "!"):
        return i, total  # "an hour one for the dishwasher": "one" written as digits
    return bare.end, total + bare.value * (unit // 60)


def _trailing_fraction(tokens: list[str], i: int, unit: int, total: float) -> tuple[int, float]:
    """Adds "and a half" / "and a quarter" / "and three quarters" after a unit ("an hour
    and a half")."""
    n = len(tokens)
    if i < n and tokens[i] == "and":
        if i + 1 < n and tokens[i + 1] in ("0.5", "0.25", "0.75"):
            return i + 2, total + float(tokens[i + 1]) * unit
        if i + 2 < n and tokens[i + 1] in ("a", "an") and tokens[i + 2] in ("half", "quarter"):
            return i + 3, total + (0.5 if tokens[i + 2] == "half" else 0.25) * unit
        if i + 2 < n and tokens[i + 1] in ("three", "3") and tokens[i + 2] == "quarters":
            return i + 3, total + 0.75 * unit  # "an hour and three quarters"
    return i, total


def _looks_metres(tokens: list[str], j: int) -> bool:
    """A bare "m" after a number is metres when the query is about distance."""
    return any(t in ("to", "in", "into") and k > j for k, t in enumerate(tokens)) and any(
        t in ("ft", "feet", "km", "cm", "yards", "miles", "inches") for t in tokens
    )
