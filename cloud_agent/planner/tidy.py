"""The built calls made whole before the check: one timer per duration a "for each"
lists, a reading asked for twice made once, free text as the person wrote it, and list
items on the list they were said with or pointed back at."""

from __future__ import annotations

import re

from cloud_agent.planner import interpret as it
from cloud_agent.planner import plan_check, said_times
from cloud_agent.planner.arguments import as_written
from cloud_agent.planner.calls import PlannedCall
from cloud_agent.planner.discourse import NEEDS_CITY

__all__ = ["said_again", "timer_for_each", "without_repeats", "written"]


def written(call: PlannedCall, query: str) -> PlannedCall:
    """A note's text and a search's words as written (``arguments.as_written``)."""
    key = {it.ADD_NOTE: "text", it.REMOVE_NOTE: "text", it.SEARCH_NOTES: "query"}.get(call.tool)
    value = call.args.get(key or "")
    if key is None or not isinstance(value, str):
        return call
    return PlannedCall(call.tool, {**call.args, key: as_written(value, query)})


def without_repeats(calls: list[PlannedCall]) -> list[PlannedCall]:
    """A reading asked for twice ("berlin and munich... i mean, berlin and rome") is made
    once; actions (devices, notes, timers) are kept as asked."""
    seen: set[str] = set()
    out = []
    for call in calls:
        key = f"{call.tool}:{sorted(call.args.items())}"
        if call.tool in NEEDS_CITY and key in seen:
            continue
        seen.add(key)
        out.append(call)
    return out


def timer_for_each(text: str, calls: list[PlannedCall]) -> list[PlannedCall]:
    """ "rice and lentils, 18 and 25 minutes, a timer for each": one timer per listed
    duration, where the first timer stood; the items named are no note of their own
    unless the words ask for one."""
    if not plan_check.wants_timer_each(text):
        return calls
    durations = said_times.listed_durations(text)
    if len(durations) < 2:
        return calls
    noted = it.asks_for_note(text)
    out: list[PlannedCall] = []
    for call in calls:
        if call.tool == it.TIMER:
            if not any(c.tool == it.TIMER for c in out):
                out += [PlannedCall(it.TIMER, {"seconds": s}) for s in durations]
            continue
        if call.tool == it.ADD_NOTE and not noted:
            continue
        out.append(call)
    if not any(c.tool == it.TIMER for c in out):
        out += [PlannedCall(it.TIMER, {"seconds": s}) for s in durations]
    return out


def said_again(
    clause: it.Clause,
    previous: it.Clause,
    calls: list[PlannedCall],
    planned: list[PlannedCall],
) -> bool:
    """Whether a clause only says again, as a complaint, the device command the clause
    before it planned ("it's too quiet, | i can barely hear the music"): the same call
    once, not twice."""
    from understanding.arguments.complaints import complaint_command
    from understanding.arguments.qualifiers import tokens_of

    if len(calls) != 1 or not planned or calls[0] != planned[-1] or calls[0].tool != it.DEVICE:
        return False
    return any(complaint_command(tokens_of(c.text)) is not None for c in (clause, previous))


# A list pointed back at: "clear my to do list then add renew passport to it", "what's on
# my packing list, and add sunscreen to it", "take eggs off the list and put cream on it".
_LIST_POINTED_AT = re.compile(
    r"\b(?:to|on|onto|off|from|in)\s+(?:it|that|there|that\s+list|the\s+same\s+(?:one|list))\b"
    r"|\binstead\b"
)


def list_pointed_at(text: str, calls: list[PlannedCall]) -> list[PlannedCall]:
    """A note call with no list of its own takes the list of the call before it when the
    words point back at one ("add sunscreen to it"): the item goes on that list, not into
    a note of its own."""
    if not _LIST_POINTED_AT.search(text):
        return calls
    out: list[PlannedCall] = []
    for call in calls:
        named = next((c.args["list"] for c in reversed(out) if c.args.get("list")), None)
        if call.tool in (it.ADD_NOTE, it.REMOVE_NOTE) and not call.args.get("list") and named:
            call = PlannedCall(call.tool, {**call.args, "list": named})
        out.append(call)
    return out


def listed_together(text: str, calls: list[PlannedCall]) -> list[PlannedCall]:
    """Items listed before one list's name share it ("add eggs and flour to the shopping
    list", "remove milk and cheese from the list": the model cut the list at its "and"),
    when nothing but the list's joiners stands between the items."""
    out = list(calls)
    for k in range(len(out) - 2, -1, -1):
        call, after = out[k], out[k + 1]
        listed = (it.ADD_NOTE, it.REMOVE_NOTE)
        if call.tool not in listed or after.tool != call.tool or call.args.get("list"):
            continue  # "take milk and cheese off the list" is two removals from it too
        named, first, then = after.args.get("list"), call.args.get("text"), after.args.get("text")
        if not named or not isinstance(first, str) or not isinstance(then, str):
            continue
        joined = (
            rf"\b{re.escape(first.lower())}\s*(?:,\s*and|,|and|&)\s*{re.escape(then.lower())}\b"
        )
        if re.search(joined, text.lower()):
            out[k] = PlannedCall(call.tool, {**call.args, "list": named})
    return out


def reminder_again(before: PlannedCall, calls: list[PlannedCall]) -> list[PlannedCall]:
    """An alarm said as a clock time alone right after a reminder ("remind me to take my
    pills at 8 am | and 20:00") is the same reminder again: it takes the reminder's label."""
    label = before.args.get("label") if before.tool == it.TIMER and "at" in before.args else None
    if not label:
        return calls
    return [
        PlannedCall(c.tool, {**c.args, "label": label})
        if c.tool == it.TIMER and "at" in c.args and not c.args.get("label")
        else c
        for c in calls
    ]
