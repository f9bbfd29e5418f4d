"""Dismissing and snoozing a ringing timer by voice: "stop", "stop the alarm", "snooze",
"snooze for 10 minutes". Only while a timer rings, and only words of that shape: the
rest of the sentence must be nothing but the timer ("it", "the timer", "the pasta
timer") and, for a snooze, how long.

>>> ringing_request("snooze it for ten minutes")
('snooze', 600)
>>> ringing_request("stop the alarm")
('dismiss', 0)
>>> ringing_request("stop the music") is None
True
"""

from __future__ import annotations

import re

from understanding.arguments.durations import parse_duration

_TIMER = r"(?:it|that|the\s+(?:[\w-]+\s+)?(?:timer|alarm)|(?:my|this)\s+(?:timer|alarm))"
_DISMISS = re.compile(
    rf"^(?:ok(?:ay)?\s+)?(?:stop|dismiss|silence|turn\s+off|shut\s+up|cancel)(?:\s+{_TIMER})?$",
    re.IGNORECASE,
)
_SNOOZE = re.compile(rf"^snooze(?:\s+{_TIMER})?(?:\s+for\s+(?P<span>.+))?$", re.IGNORECASE)


def ringing_request(text: str) -> tuple[str, int] | None:
    """``("dismiss", 0)`` or ``("snooze", seconds or 0 for the default)``; None when the
    words ask for neither."""
    said = " ".join(text.strip().rstrip("!.?").split())
    if _DISMISS.match(said):
        return "dismiss", 0
    snooze = _SNOOZE.match(said)
    if snooze is None:
        return None
    span = snooze.group("span")
    if span is None:
        return "snooze", 0
    seconds = parse_duration(span)
    return ("snooze", seconds) if seconds else None
