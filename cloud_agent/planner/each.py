"""Lists of items: a request asked once for each item of a list is one call per item.

"note each of these: milk, bread, eggs" is three notes; "turn off the fan in every one of
these rooms: bedroom, office, kitchen" three commands; "convert 30, 40 and 50 celsius to
fahrenheit" three conversions. The clause rules read such a request as one call (the list
as one note, "rooms" as a room, the last number); this module finds the list and the call
the items fill, and makes one call per item, where the one call stood.

The plan check (``plan_check``) holds the other side: when the words list items for a
side effect "each", the plan has as many calls of it as items, or nothing runs.

    >>> listed_items("note each of these: milk, bread, eggs")
    ListedItems(noun=None, items=('milk', 'bread', 'eggs'))
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import Plan, PlannedCall
from understanding.arguments.durations import UNIT_SECONDS

__all__ = [
    "ListedItems",
    "distributed",
    "distributed_plan",
    "for_each_item",
    "listed_items",
    "listed_tool",
    "listed_values",
    "still_left",
    "without_head",
]

# "each of these: ...", "every one of these rooms: ...", "the following three things: ...",
# "these 3 notes: ...", "three notes: ..." (a count the list must match).
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "2": 2, "3": 3, "4": 4,
            "5": 5, "6": 6}  # fmt: skip
_COUNT = "|".join(_NUMBERS)
# "as its own note", "as separate notes": one item, one call
_SEPARATE = r"(?:separate|different|individual|distinct|new)"
_EACH_OWN = rf"(?:\s+as\s+(?:(?:its|their)\s+own|{_SEPARATE}|an?\s+{_SEPARATE}))"
_LIST_HEAD = re.compile(
    r"\b(?:(?:each|every\s+one|all|both)\s+of\s+(?:these|those|the\s+following)"
    r"|these|the\s+following)(?:\s+down)?"
    rf"(?:\s+(?P<count>{_COUNT}))?{_EACH_OWN}?(?:\s+(?P<noun>[a-z]+))?\s*:\s*(?P<items>[^.;!?]+)"
    rf"|\b(?P<bare>{_COUNT})(?:\s+{_SEPARATE})?\s+(?P<bare_noun>notes|rooms|things|items)\s*:"
    r"\s*(?P<bare_items>[^.;!?]+)"
)
_ITEM_CUT = re.compile(r"\s*(?:,\s*(?:and|&)\s+|,|\band\b|&)\s*")
_ROOM_NOUNS = frozenset({"room", "rooms", "places", "areas"})
_NOTE_NOUNS = frozenset({"note", "notes", "things", "items", "reminders", None})


@dataclass(frozen=True)
class ListedItems:
    """The items a request lists after a head ("each of these"), the head's noun, and
    where the head and the items start in the words."""

    noun: str | None
    items: tuple[str, ...]
    head_at: int = field(default=0, compare=False, repr=False)
    items_at: int = field(default=0, compare=False, repr=False)


def listed_items(words: str) -> ListedItems | None:
    """The list of items the words give after a head that asks for each of them, or None
    (no such head, fewer than two items, or a count the items do not match)."""
    match = _LIST_HEAD.search(words.lower())
    if match is None:
        return None
    bare = match.group("bare") is not None
    noun = match.group("bare_noun") if bare else match.group("noun")
    group = "bare_items" if bare else "items"
    items = tuple(
        i.strip(" ,") for i in _ITEM_CUT.split(match.group(group).strip()) if i.strip(" ,")
    )
    count = match.group("bare") if bare else match.group("count")
    if len(items) < 2 or (count is not None and _NUMBERS[count] != len(items)):
        return None
    return ListedItems(noun, items, match.start(), match.start(group))


def listed_tool(listed: ListedItems) -> str | None:
    """The side-effect tool whose calls a list's items are, by the head's noun: notes
    (or things, items) are notes, rooms are device commands; None for another noun."""
    if listed.noun in _NOTE_NOUNS:
        return it.ADD_NOTE
    if listed.noun in _ROOM_NOUNS:
        return it.DEVICE
    return None


def without_head(words: str, listed: ListedItems | None) -> str:
    """The words with a list of notes' head (``listed``, read from these words) cut to
    its colon ("note each of these: milk, eggs" -> "note : milk, eggs"), so each item's
    note is checked as the whole of what was said for it: the head counts the notes, it
    is no note's words."""
    if listed is None or listed_tool(listed) != it.ADD_NOTE:
        return words
    head = words[listed.head_at : listed.items_at]
    verb = "note" if re.search(r"\bnote", head, re.IGNORECASE) else ""
    return f"{words[: listed.head_at]}{verb} : {words[listed.items_at :]}"


_LISTED_VALUES = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)((?:\s*(?:,\s*and|,|and|&)\s*\d+(?:\.\d+)?)+)\s*(?=[a-z°])"
)


# A list of quantities, each with the same unit said ("5 lb, 12 lb and 30 lb").
_QUANTITY = r"(\d+(?:\.\d+)?)\s*([a-z°]+)"
_LISTED_QUANTITIES = re.compile(
    rf"(?<![\w.]){_QUANTITY}((?:\s*(?:,\s*and|,|and|&)\s*\d+(?:\.\d+)?\s*[a-z°]+)+)"
)


def listed_values(words: str) -> list[float]:
    """The numbers a list gives one unit ("30, 40 and 50 celsius": 30, 40, 50; "5 lb, 12
    lb and 30 lb": 5, 12, 30), or []."""
    return _listed(words)[0]


def _listed(words: str) -> tuple[list[float], str]:
    """The listed numbers and the unit word said with them ("3, 4 and 5 minutes": [3, 4,
    5], "minutes"), or ([], "")."""
    said = words.lower()
    quantities = _LISTED_QUANTITIES.search(said)
    if quantities is not None:
        rest = re.findall(_QUANTITY, quantities.group(3))
        if rest and all(unit == quantities.group(2) for _, unit in rest):
            values = [float(quantities.group(1)), *(float(value) for value, _ in rest)]
            return values, quantities.group(2)
    match = _LISTED_VALUES.search(said)
    if match is None:
        return [], ""
    values = [float(match.group(1)), *map(float, re.findall(r"\d+(?:\.\d+)?", match.group(2)))]
    if len(values) == 2 and "," in match.group(2):
        return [], ""  # "the power of 10, and 1024 grams": a comma before "and" cuts two clauses
    unit = re.match(r"\s*([a-z]+)", said[match.end() :])
    return values, unit.group(1) if unit is not None else ""


def _number(value: float) -> int | float:
    return int(value) if value.is_integer() else value


def for_each_item(words: str, calls: list[PlannedCall]) -> list[PlannedCall]:
    """``calls`` with the one call a listed request was read as made one per item: a
    note per item, a device command per room, a conversion per value. Calls the list
    does not fill are kept as they are."""
    listed = listed_items(words)
    tool = listed_tool(listed) if listed is not None else None
    out = list(calls)
    if listed is not None and tool == it.ADD_NOTE:

        def holds(call: PlannedCall, item: str) -> bool:
            text = str(call.args.get("text", "")).lower()
            return re.search(rf"\b{re.escape(item)}\b", text) is not None

        notes = [c for c in out if c.tool == it.ADD_NOTE and any(holds(c, i) for i in listed.items)]
        if notes and all(any(holds(c, i) for c in notes) for i in listed.items):
            at = out.index(notes[0])
            out = [c for c in out if c not in notes]
            out[at:at] = [PlannedCall(it.ADD_NOTE, {"text": i}) for i in listed.items]
    if listed is not None and tool == it.DEVICE:
        out = _per_room(listed.items, out)
    values, unit_said = _listed(words)
    converts = [c for c in out if c.tool == it.CONVERT]
    if _claimed_by_both(values, unit_said, converts, out):
        # "start a timer, 3 minutes and 90 minutes in hours": the list is a timer's and a
        # conversion's, one value each, never one of each per value.
        values = []
    if len(values) > 1 and len(converts) == 1 and converts[0].args.get("value") in values:
        at = out.index(converts[0])
        out[at : at + 1] = [
            PlannedCall(it.CONVERT, {**converts[0].args, "value": _number(v)}) for v in values
        ]
    out = [one for call in out for one in _searches(call)]
    timers = [c for c in out if c.tool == it.TIMER and "seconds" in c.args]
    unit = UNIT_SECONDS.get(unit_said) if len(unit_said) > 1 else None  # "5 m" may be metres
    if len(values) > 1 and len(timers) == 1 and unit:
        seconds = [round(v * unit) for v in values]
        if timers[0].args["seconds"] in seconds:  # "3, 4 and 5 minutes, a timer each"
            at = out.index(timers[0])
            out[at : at + 1] = [PlannedCall(it.TIMER, {"seconds": s}) for s in seconds]
    return out


def _claimed_by_both(
    values: list[float], unit_said: str, converts: list[PlannedCall], calls: list[PlannedCall]
) -> bool:
    """Whether one listed value is a conversion's and another a timer's duration."""
    unit = UNIT_SECONDS.get(unit_said) if len(unit_said) > 1 else None
    timed = {round(v * unit) for v in values} if unit else set()
    converted = {c.args.get("value") for c in converts} & set(values)
    timers = {c.args.get("seconds") for c in calls if c.tool == it.TIMER} & timed
    return bool(converted and timers)


# "search my notes for the wifi password and for the alarm code": a search for each.
TWO_SEARCHES = re.compile(r"^(?P<one>.+?)\s+and\s+(?:also\s+)?(?:for|about)\s+(?P<two>.+)$")


def _searches(call: PlannedCall) -> list[PlannedCall]:
    query = call.args.get("query") if call.tool == it.SEARCH_NOTES else None
    found = TWO_SEARCHES.match(query) if isinstance(query, str) else None
    if found is None:
        return [call]
    two = re.sub(r"^(?:the|my)\s+", "", found.group("two"))
    return [
        PlannedCall(it.SEARCH_NOTES, {**call.args, "query": found.group("one")}),
        PlannedCall(it.SEARCH_NOTES, {**call.args, "query": two}),
    ]


def _per_room(items: tuple[str, ...], calls: list[PlannedCall]) -> list[PlannedCall]:
    """One device command per listed room, in the list's order, where the commands of the
    list stood (the clause rules may have read the list's noun, "rooms", as a room)."""
    rooms = [it.find_room(i) for i in items]
    commands = [c for c in calls if c.tool == it.DEVICE]
    if None in rooms or not commands:
        return calls
    template = commands[0]
    same = [
        c
        for c in commands
        if c.args.get("device") == template.args.get("device")
        and c.args.get("action") == template.args.get("action")
    ]
    at = calls.index(same[0])
    kept = [c for c in calls if c not in same]
    per_room = [PlannedCall(it.DEVICE, {**template.args, "room": r}) for r in rooms if r]
    return [*kept[:at], *per_room, *kept[at:]]


def still_left(parts: list[str], calls: list[PlannedCall]) -> list[str]:
    """The parts left out that the calls made one per item do not answer after all: "convert
    5 lb" cut from "convert 5 lb, 12 lb and 30 lb to kg" is the first conversion's."""
    values = {
        float(c.args["value"])
        for c in calls
        if c.tool == it.CONVERT and isinstance(c.args.get("value"), int | float)
    }

    def answered(part: str) -> bool:
        numbers = {float(n) for n in re.findall(r"\d+(?:\.\d+)?", part)}
        return bool(numbers) and numbers <= values

    return [p for p in parts if not answered(p)]


# "convert each of these to kg: 5 lb, 12 lb and 30 lb": the request said once, the
# quantities it is for after a colon, pointed at by "these".
_POINTED_LIST = re.compile(
    r"^(?P<frame>.*?)\b(?:(?:each|every\s+one|all|both)\s+of\s+)?(?:these|those|the\s+following)"
    r"(?:\s+(?:numbers|amounts|values|ones|times|durations))?\b(?P<rest>[^:]*):\s*(?P<items>.+)$"
)


def distributed(words: str) -> str | None:
    """The words with the quantities a colon lists in the place of the "these" that points
    at them ("convert each of these to kg: 5 lb and 12 lb" -> "convert 5 lb and 12 lb to
    kg"), or None: no such list, or one of other things than quantities (a note's items
    stay as said)."""
    match = _POINTED_LIST.match(" ".join(words.split()))
    if match is None:
        return None
    items = match.group("items").strip(" .?!")
    parts = [p for p in _ITEM_CUT.split(items) if p.strip()]
    to_a_list = re.search(r"\blists?\b", match.group("frame") + match.group("rest"))
    if len(parts) < 2 or not (to_a_list or all(re.search(r"\d", p) for p in parts)):
        return None  # a note's items stay as said; a list's go where "these" stood
    if to_a_list and not re.search(r"\band\b|&", items):
        items = f"{', '.join(parts[:-1])} and {parts[-1]}"  # "a, b and c": the list as said
    return f"{match.group('frame')}{items}{match.group('rest')}".strip()


def distributed_plan(query: str, plan_said: Callable[[str], Plan]) -> Plan | None:
    """The plan of the words with their pointed-at list put in place (:func:`distributed`),
    or None when they have none or it plans nothing."""
    said = distributed(query)
    if said is None:
        return None
    plan = plan_said(said)
    if plan.refusal is not None or not plan.calls:
        return None
    plan.query = query
    return plan
