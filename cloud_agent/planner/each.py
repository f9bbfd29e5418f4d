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
from dataclasses import dataclass, field

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import PlannedCall

__all__ = [
    "ListedItems",
    "for_each_item",
    "listed_items",
    "listed_tool",
    "listed_values",
    "without_head",
]

# "each of these: ...", "every one of these rooms: ...", "the following three things: ...",
# "these 3 notes: ...", "three notes: ..." (a count the list must match).
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "2": 2, "3": 3, "4": 4,
            "5": 5, "6": 6}  # fmt: skip
_COUNT = "|".join(_NUMBERS)
_LIST_HEAD = re.compile(
    r"\b(?:(?:each|every\s+one|all|both)\s+of\s+(?:these|those|the\s+following)"
    r"|these|the\s+following)(?:\s+down)?"
    rf"(?:\s+(?P<count>{_COUNT}))?(?:\s+(?P<noun>[a-z]+))?\s*:\s*(?P<items>[^.;!?]+)"
    rf"|\b(?P<bare>{_COUNT})\s+(?P<bare_noun>notes|rooms|things|items)\s*:\s*(?P<bare_items>[^.;!?]+)"
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


def listed_values(words: str) -> list[float]:
    """The numbers a list gives one unit ("30, 40 and 50 celsius": 30, 40, 50), or []."""
    match = _LISTED_VALUES.search(words.lower())
    if match is None:
        return []
    values = [float(match.group(1)), *map(float, re.findall(r"\d+(?:\.\d+)?", match.group(2)))]
    if len(values) == 2 and "," in match.group(2):
        return []  # "the power of 10, and 1024 grams": a comma before "and" cuts two clauses
    return values


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
    values = listed_values(words)
    converts = [c for c in out if c.tool == it.CONVERT]
    if len(values) > 1 and len(converts) == 1 and converts[0].args.get("value") in values:
        at = out.index(converts[0])
        out[at : at + 1] = [
            PlannedCall(it.CONVERT, {**converts[0].args, "value": _number(v)}) for v in values
        ]
    return out


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
