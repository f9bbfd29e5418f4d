"""Readings asked for "here": the home city of the device that asks, and only it.

"Is it gonna be warmer here or in chicago on friday", "what's the weather in dublin on
tuesday, and will it be warmer here that day?": "here" is the device's home city (the
session's ``home_city``). A plan that reads the other places and not the home answers
another question ("Chicago: 12°C" is no answer to "warmer here or in Chicago"), so a
request whose "here" no reading serves is found (:func:`unread_here`) and the planner
declines it, naming the part. With a home
city, a comparison's missing side is the home's reading on the other side's day
(:func:`home_side`).

>>> unread_here("is it warmer here or in chicago on friday", [], None)
['is it warmer here or in chicago on friday']
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import Plan, PlannedCall
from cloud_agent.planner.clauses import split_clauses
from understanding.gazetteer import find_cities

__all__ = ["home_side", "read_here", "unread_here"]

_HERE = re.compile(r"\b(?:here|at\s+home|where\s+i\s+(?:am|live))\b")
_INDOORS = re.compile(r"\bin\s+here\b")  # "it's cold in here": the room, not the town
_NAMED_HERE = re.compile(r"\bhere,?\s+in\s+\w")  # "today here in madrid": the city said
_READINGS = (it.WEATHER, it.CLOCK)
_COMPARING = re.compile(
    r"\b(?:than|or|versus|vs|(?:warm|cold|hott|cool|sunni|wett|windi|raini|nic|bett|wors|"
    r"mild|dri|chilli)er)\b"
)


def _reads_home(piece: str, calls: Sequence[PlannedCall], home_city: str | None) -> bool:
    if home_city is None:
        return False
    cue = it.tool_cue(piece)
    home = home_city.lower()
    return any(c.tool == cue and str(c.args.get("city", "")).lower() == home for c in calls)


def unread_here(text: str, calls: Sequence[PlannedCall], home_city: str | None) -> list[str]:
    """The clauses of ``text`` that ask for a reading "here" which no call of ``calls``
    reads for ``home_city`` (every such clause when no home city is known)."""
    return [
        piece
        for piece in split_clauses(text)
        if _HERE.search(piece)
        and not _INDOORS.search(piece)
        and not (_NAMED_HERE.search(piece) and find_cities(piece))
        and it.tool_cue(piece) in _READINGS
        and not _reads_home(piece, calls, home_city)
    ]


def home_side(
    pieces: Sequence[str], calls: Sequence[PlannedCall], home_city: str | None
) -> list[PlannedCall] | None:
    """``calls`` with the home's weather reading added for a comparison clause that asks
    about "here" against one place read before ("... dublin on tuesday, | and will it be
    warmer here that day?"), on that place's day; None when that is not the shape."""
    weather = [c for c in calls if c.tool == it.WEATHER]
    if home_city is None or len(weather) != 1 or len(pieces) != 1:
        return None
    if not _COMPARING.search(pieces[0]) or find_cities(pieces[0]):
        return None
    day = weather[0].args.get("day", "today")
    return [*calls, PlannedCall(it.WEATHER, {"city": home_city, "day": day})]


def read_here(plan: Plan, text: str, home_city: str | None) -> Plan:
    """``plan`` with every "here" of ``text`` read for the home city (a comparison's home
    side added: :func:`home_side`), else declined naming the part: a reading of another
    place where "here" was asked ("the time here" read as the city before) is no answer."""
    here = unread_here(text, plan.calls, home_city)
    if not here:
        return plan
    added = home_side(here, plan.calls, home_city)
    if added is not None:
        plan.calls = added
        return plan
    where = "no home city came with the request" if home_city is None else "I read no place"
    plan.refusal = (
        f"I can't tell where 'here' is in {here[0]!r}: {where}. Say the city by name, "
        "or set the device's home city (edge-agent config set home_city CITY)."
    )
    plan.refusal_kind, plan.calls = "unknown_place", []
    return plan
