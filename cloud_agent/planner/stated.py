"""A number stated, then asked about, inside a longer request.

"My rent is 900 a month, what is that per year, and add pay rent to my to do list": the
first two clauses are one calculation (a sum per period, or a sum shared among people:
``shapes.per_period_calls``, ``shapes.per_person_calls``), which the clause rules read
only when it is the whole query. Here the pair is found among the clauses, made its one
calculation, and the rest of the request is planned on its own (and checked on its own:
a part of it that cannot be planned declines the whole request, naming the part).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cloud_agent.planner import shapes
from cloud_agent.planner.calls import Plan, PlannedCall
from cloud_agent.planner.clauses import normalise, split_clauses

__all__ = ["stated_plan"]


def stated_pair(pieces: list[str]) -> tuple[int, int, list[PlannedCall]] | None:
    """The first adjacent clauses (two or three: the sum, the people, the question) that
    state a number and ask about it, as (first index, end index, the calculation); a
    clause that holds both ("i earn 52000 a year whats that per week") is cut before its
    question. None when there are none."""
    for k in range(len(pieces)):
        asked = _QUESTION_INSIDE.match(pieces[k])
        if asked is not None:
            calls = shapes.per_period_calls(f"{asked.group(1)}, {asked.group(2)}")
            if calls:
                return k, k + 1, calls
        for width in (2, 3):
            if k + width > len(pieces):
                break
            group = ", ".join(pieces[k : k + width])
            calls = (
                (width == 2 and shapes.per_period_calls(group))
                or shapes.per_person_calls(group)
                or shapes.left_over_calls(group)
                or shapes.share_of_sum_calls(group)
            )
            if calls:
                return k, k + width, calls
    return None


# A number stated and the question on it in one clause: cut before the question word.
_QUESTION_INSIDE = re.compile(r"^(.*?\d.*?)\s+((?:what|how|whats)\b.*)$")


def stated_plan(query: str, replan: Callable[[str], Plan]) -> Plan | None:
    """The plan of a request holding a stated number and its question beside other
    requests, or None when it holds no such pair (or nothing else)."""
    pieces = split_clauses(normalise(query))
    found = stated_pair(pieces)
    if found is None:
        return None
    k, end, calculation = found
    others = pieces[:k] + pieces[end:]
    if not others:
        return None  # the pair alone is the clause rules' (``shapes.comparison_shape``)
    rest = replan(", ".join(others))
    if rest.refusal is not None:
        return Plan(query, refusal=rest.refusal, refusal_kind=rest.refusal_kind)
    before = k > 0
    calls = [*rest.calls, *calculation] if before else [*calculation, *rest.calls]
    return Plan(query, calls=calls, unanswered=list(rest.unanswered))
