"""Words before the requests that frame them: an occasion ("end of the day: ...",
"goodnight routine: ...") asks for nothing and is set aside; a room said first ("in the
guest room, turn the fan on and the heater off") is the room of every device request
after it that names none. Left in, either is a clause no tool serves, and the whole
request is declined.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import Plan
from cloud_agent.planner.clauses import normalise

__all__ = ["framed_plan"]

_HEAD = re.compile(r"^\s*(?P<head>[a-z' ]{2,60}?)\s*(?P<mark>[:,])\s+(?P<rest>\S.*)$", re.S)
_IN_ROOM = re.compile(
    r"^(?:(?:ok(?:ay)?|so|right|now)\s+)?(?:in|for)\s+(?:the|my|our)\s+(?P<room>.+)$"
)
# A heading that is itself a request's start: a list, a note, a reminder ("shopping list:
# milk, eggs", "note: the code is 4411").
_NOT_A_FRAME = re.compile(
    r"\b(?:list|lists|note|notes|remind|reminder|remember|save|write|jot|add|put|timer|"
    r"alarm|search|find|convert|calculate|weather|forecast|time|clock)\b"
)


def framed_plan(query: str, plan_said: Callable[[str], Plan]) -> Plan | None:
    """The plan of the requests after a frame (``plan_said`` plans them), or None: the
    query has no frame, or what follows it plans nothing."""
    found = _HEAD.match(query.lower())
    if found is None:
        return None
    head = " ".join(found["head"].split())
    room = _room_said(head)
    if room is None and (found["mark"] != ":" or not _occasion(head)):
        return None
    plan = plan_said(query[found.start("rest") :])
    if plan.refusal is not None or not plan.calls:
        return None
    if room is not None:
        devices = [c for c in plan.calls if c.tool in (it.DEVICE, it.STATUS)]
        if not devices or any(c.args.get("room") not in (None, room) for c in devices):
            return None  # a room said first and another said after: not one frame
        for call in devices:
            call.args["room"] = room
    plan.query = query
    return plan


def _room_said(head: str) -> str | None:
    """The room of a heading that only names one ("in the guest room")."""
    found = _IN_ROOM.match(head)
    if found is None:
        return None
    room = it.find_room(head)
    return room if room is not None and room.split()[-1] == found["room"].split()[-1] else None


def _occasion(head: str) -> bool:
    """Whether a heading names an occasion and asks for nothing: no tool, device, place,
    day or number of its own, and none of the words that open a list or a note."""
    if _NOT_A_FRAME.search(head) or re.search(r"\d", head) or len(head.split()) > 6:
        return False
    clause = it.read_clause(normalise(head), None)
    return clause.tool is None and not clause.device and not clause.cities and not clause.days
