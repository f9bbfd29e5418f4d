"""The durations a query lists: "9 and 20 minutes" is a timer each, which the plan check
(``plan_check``) and the planner's tidying (``tidy``) count. Whether a plan keeps each
clock time said is the side-effect policy's (``understanding.grounding.unkept_clock_time``,
the device's check too)."""

from __future__ import annotations

import re

__all__ = ["listed_durations"]


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
