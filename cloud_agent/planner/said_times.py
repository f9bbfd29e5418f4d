"""The times and durations a query says, and whether a plan keeps each clock time.

A plan that sets one alarm where two clock times were said ("set an alarm for 6:15 and
another for 6:30") drops a part of the request; a list of durations ("9 and 20 minutes")
is a timer each. The plan check (``plan_check``) declines a plan that drops a time; here
only the words are read.
"""

from __future__ import annotations

import re
from typing import Any

from understanding import policy

__all__ = ["listed_durations", "unkept_time"]


# "6:30", "6:30 pm", "6.30pm" (a decimal is no clock time without its am or pm: "0.25")
_SAID_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?|\.(\d{2})\s*(am|pm|a\.m\.|p\.m\.))(?![\d.])"
)


def unkept_time(words: str, calls: list[tuple[str, dict[str, Any]]]) -> str | None:
    """With side effects planned, the first clock time said that no call keeps (a timer's
    or a command's ``at``, a note's words), else None: "set an alarm for 6:15 and another
    for 6:30" read as one alarm would drop the second."""
    if not any(t in policy.ACTION_TOOLS for t, _ in calls):
        return None
    kept = set()
    for _, arguments in calls:
        at = re.search(r"(\d{2}):(\d{2})$", str(arguments.get("at", "")))
        if at:
            kept.add(int(at[1]) * 60 + int(at[2]))
    said_in = " ".join(str(v) for _, a in calls for v in a.values() if isinstance(v, str))
    for match in _SAID_CLOCK.finditer(words):
        hour, minute = int(match[1]), int(match[2] or match[4])
        part = (match[3] or match[5] or "")[:1]
        if hour > 23 or minute > 59 or match.group(0).strip() in said_in:
            continue
        day = {hour % 12 * 60 + minute + (720 if part == "p" else 0)} if part else set()
        day = day or {hour * 60 + minute, (hour + 12) % 24 * 60 + minute}
        if not day & kept:
            return str(match.group(0).strip())
    return None


def listed_durations(words: str) -> list[int]:
    """Each duration a query lists with one unit ("9 and 20 minutes": 540, 1200; "5, 10 and
    15 minutes"), else each duration said on its own, in order."""
    from cloud_agent.planner.clauses import split_clauses
    from understanding.arguments.durations import UNIT_SECONDS, parse_duration
    from understanding.grounding import carried_durations

    found: list[int] = []
    for match in _DURATION_LIST.finditer(words):
        unit = UNIT_SECONDS[match.group(3)]
        numbers = [match.group(1), *re.findall(r"\d+(?:\.\d+)?", match.group(2))]
        found += [round(float(n) * unit) for n in numbers]
    if found:
        return found
    carried = carried_durations(words)
    if carried:
        return carried
    return [s for piece in split_clauses(words) if (s := parse_duration(piece))]


_DURATION_LIST = re.compile(
    r"(\d+(?:\.\d+)?)((?:\s*(?:,\s*and|,|and|or|&)\s*\d+(?:\.\d+)?)+)\s*(hours?|minutes?|seconds?)\b"
)
