"""Readers for alarms and named lists, in the words people use for them.

``alarm_time("wake me up at five thirty")`` -> ``"05:30"``; ``list_request("add milk to
the shopping list")`` -> ``("add", "milk", "shopping")``. The cloud planner plans with
them, and the device's argument readers may; each returns None unless the words are
plainly such a request, so nothing is guessed.

A clock time without a date means its next occurrence in the home city's zone, which only
the device knows: ``set_timer`` takes ``at`` as ``"HH:MM"`` for that, and as a full local
date-time otherwise.
"""

from __future__ import annotations

import re

_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "oh five": 5, "o five": 5,
    "twenty five": 25, "thirty five": 35, "forty five": 45, "fifty five": 55,
}  # fmt: skip
_HOUR_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_MINUTE_WORDS = (
    "oh five|o five|fifteen|twenty five|twenty|thirty five|thirty|forty five|forty|"
    "fifty five|fifty|ten"
)
_ALARM = re.compile(r"\b(?:alarm|wake\s+(?:me|us)(?:\s+up)?|get\s+me\s+up)\b", re.IGNORECASE)
_CLOCK = re.compile(
    r"\b(?:at|for|by)\s+(?:(?P<half>half\s+past|quarter\s+past|quarter\s+to)\s+)?"
    rf"(?P<hour>\d{{1,2}}|{_HOUR_WORDS})"
    rf"(?:(?:\s*[:.]\s*|\s+)(?P<minute>\d{{1,2}}|{_MINUTE_WORDS}))?"
    r"\s*(?P<ampm>a\.?\s?m\.?|p\.?\s?m\.?|o'?clock|in\s+the\s+(?:morning|evening|afternoon)|"
    r"tonight)?(?![\w:])",
    re.IGNORECASE,
)
_NAMED = {"noon": "12:00", "midday": "12:00", "midnight": "00:00"}
# A day other than the coming one: a clock time alone cannot say it ("tomorrow" is the
# next occurrence, which is what people mean by it at night and in the small hours).
_OTHER_DAY = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekdays?|weekends?|"
    r"every|each|daily|next\s+week|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|day\s+after)\b",
    re.IGNORECASE,
)


def _number(word: str) -> int:
    word = " ".join(word.lower().split())
    return int(word) if word.isdigit() else _WORDS[word]


def alarm_time(text: str) -> str | None:
    """The clock time an alarm request names, as ``"HH:MM"`` (24 hours), meaning its next
    occurrence; None when the text asks for no alarm, names no unambiguous time ("at 6"
    with no am/pm reads as 6 in the morning, the way alarms are set) or names a day a
    clock time alone cannot say (a weekday, "every day").

    >>> alarm_time("set an alarm for 7 pm")
    '19:00'
    >>> alarm_time("wake me up at five thirty tomorrow")
    '05:30'
    >>> alarm_time("set a timer for 5 minutes") is None
    True
    """
    if not _ALARM.search(text) or _OTHER_DAY.search(text):
        return None
    named = re.search(r"\b(?:at|for)\s+(noon|midday|midnight)\b", text, re.IGNORECASE)
    if named:
        return _NAMED[named.group(1).lower()]
    times = list(_CLOCK.finditer(text))
    if len(times) != 1:
        return None
    match = times[0]
    hour = _number(match.group("hour"))
    written = match.group("minute") or ""
    if written.isdigit() and len(written) == 1:
        return None  # "6.3": 6:30 or 6:03? (a number reader may have dropped a zero)
    minute = _number(written) if written else 0
    if re.search(r"\b(?:minutes?|mins?|hours?|seconds?)\b", text[match.end() : match.end() + 12]):
        return None  # "alarm for 20 minutes": a countdown, not a clock time
    half = (match.group("half") or "").lower()
    if half.startswith("half"):
        minute = 30
    elif half.startswith("quarter past"):
        minute = 15
    elif half.startswith("quarter to"):
        hour, minute = hour - 1, 45
    suffix = (match.group("ampm") or "").lower().replace(".", "").replace(" ", "")
    if suffix.startswith("pm") or suffix in ("intheevening", "intheafternoon", "tonight"):
        if hour < 12:
            hour += 12
    elif (suffix.startswith("am") or suffix == "inthemorning") and hour == 12:
        hour = 0
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return f"{hour:02d}:{minute:02d}"


_LIST = r"(?:my|the|our)\s+(?P<list>[a-z][a-z' -]{0,30}?)\s+list"
_ADD = re.compile(
    rf"^(?:please\s+)?(?:add|put|write|stick|pop)\s+(?P<item>.+?)\s+(?:to|on|onto|in)\s+{_LIST}\b",
    re.IGNORECASE,
)
_REMOVE = re.compile(
    rf"^(?:please\s+)?(?:remove|delete|take|cross|strike|scratch)\s+(?P<item>.+?)\s+"
    rf"(?:off|from|off\s+of)\s+{_LIST}\b",
    re.IGNORECASE,
)
_READ = re.compile(
    rf"\b(?:what(?:'s|\s+is|\s+are)?\s+(?:on|in)|read(?:\s+(?:me|out))?|show(?:\s+me)?|"
    rf"list|tell\s+me(?:\s+what'?s\s+on)?)\s+{_LIST}\b",
    re.IGNORECASE,
)


def list_request(text: str) -> tuple[str, str | None, str] | None:
    """``("add" | "remove", item, list)`` or ``("read", None, list)`` for a request about
    a named list; None for anything else.

    >>> list_request("add milk and eggs to my shopping list")
    ('add', 'milk and eggs', 'shopping')
    >>> list_request("what's on the to do list")
    ('read', None, 'to do')
    """
    clean = " ".join(text.strip().rstrip("?.!").split())
    for kind, pattern in (("add", _ADD), ("remove", _REMOVE)):
        match = pattern.search(clean)
        if match:
            item = re.sub(r"^(?:the|some|a|an)\s+", "", match.group("item").strip(), flags=re.I)
            return (kind, item, _list_name(match.group("list")))
    match = _READ.search(clean)
    if match:
        return ("read", None, _list_name(match.group("list")))
    return None


def _list_name(name: str) -> str:
    from understanding.tools.notes import list_name

    return list_name(name)
