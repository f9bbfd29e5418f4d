"""Arguments of the catalogue's newer tools, and of list items, from a request's slots.

``device_status`` (a read of a device's kept state), ``list_timers`` (a read),
``cancel_timer`` and ``clear_list`` (changes, so their missing argument is asked back,
never guessed), plus what a list request needs: several items are several calls
("eggs and bread" adds both), and a list's name said with a typo is the list people
keep ("shoping" is shopping), never a new list made by the typo. The tools themselves
run elsewhere; here only the words become arguments.

>>> from understanding.slu.model import Slot
>>> status_arguments([Slot("device_type", "plug", 2, 3)], "is the plug on").arguments
{'device': 'plug'}
>>> known_list("shoping")
'shopping'
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from understanding.arguments.qualifiers import tokens_of
from understanding.arguments.schema import Filled

__all__ = [
    "KNOWN_LISTS",
    "cancel_arguments",
    "clear_arguments",
    "item_calls",
    "known_list",
    "names_a_device",
    "newer_from_slots",
    "status_arguments",
]

#: The lists people keep, to which a misspelt list name is corrected.
KNOWN_LISTS = (
    "shopping", "grocery", "groceries", "to do", "packing", "christmas", "chores",
    "birthday", "reading", "wish", "gift", "bucket", "holiday", "party", "weekend",
)  # fmt: skip


def _distance(a: str, b: str) -> int:
    """Levenshtein distance (short words only)."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def known_list(name: str) -> str:
    """``name``, or the kept list it misspells (one edit, two for long names): the one
    nearest list within reach, else the name as said."""
    if name in KNOWN_LISTS or len(name) < 4:
        return name
    reach = 1 if len(name) < 7 else 2
    by_distance = sorted((_distance(name, k), k) for k in KNOWN_LISTS)
    (best, kept), (runner_up, _) = by_distance[0], by_distance[1]
    return kept if best <= reach and best < runner_up else name


def _spans(slots: Sequence[Any], kind: str) -> list[str]:
    return [str(s.value) for s in slots if s.type == kind]


def status_arguments(slots: Sequence[Any], words: str) -> Filled:
    """``device_status`` {device, room?}: the device the question is about."""
    from understanding.arguments.devices import (
        ROOM_NAMES,
        _find_phrases,
        device_kinds,
        device_name,
        room_name,
    )
    from understanding.arguments.numbers import tokenize

    devices = {d for d in (device_name(s) for s in _spans(slots, "device_type")) if d}
    tokens = tokenize(re.sub(r"'s\b", "", words.lower()))
    rooms_said = _find_phrases(tokens, ROOM_NAMES)
    if not devices:
        devices = device_kinds(tokens, rooms_said)
    if len(devices) != 1:
        return Filled(None, "no 'device_type' slot in the query for the required argument 'device'")
    args: dict[str, Any] = {"device": devices.pop()}
    rooms = {r for r in (room_name(s) for s in _spans(slots, "house_place")) if r}
    if not rooms:
        rooms = {kind for _s, _e, kind in rooms_said}
    if len(rooms) > 1:
        return Filled(None, "several rooms: which one is a guess")
    if rooms:
        args["room"] = rooms.pop()
    return Filled(args)


_ALL = re.compile(r"\b(?:all|every|everything|each)\b")
_NEXT = re.compile(r"\b(?:next|upcoming|first)\b")


def cancel_arguments(slots: Sequence[Any], words: str) -> Filled:
    """``cancel_timer``: ``all``, ``next``, a ``label`` or an ``at`` clock time the words
    name; none of them is asked back (which one is a guess)."""
    from understanding.arguments.slots import clock_time

    said = " ".join(tokens_of(words))
    labels = _spans(slots, "timer_name")
    times = _spans(slots, "time")
    if _ALL.search(said) and not labels and not times:
        return Filled({"all": True})
    if len(labels) == 1 and not times:
        return Filled({"label": " ".join(labels[0].split())})
    if len(times) == 1 and not labels:
        at = clock_time(re.sub(r"^(?:at|for)\s+", "", times[0].lower()))
        if at is not None:
            return Filled({"at": at})
    if _NEXT.search(said) and not labels and not times:
        return Filled({"next": True})
    return Filled(None, "no 'timer_name' slot in the query for the required argument 'label'")


def clear_arguments(slots: Sequence[Any], words: str) -> Filled:
    """``clear_list`` {list}: the one list named (corrected to a kept list's name)."""
    from understanding.arguments.builtin_slots import slot_list

    names = [n for n in (slot_list(s) for s in _spans(slots, "list_name")) if n]
    if not names:
        found = re.search(r"\b(?:my|the|our)\s+([a-z ]{2,30}?)\s+list\b", words.lower())
        names = [found.group(1)] if found else []
    if len(set(names)) != 1:
        return Filled(None, "no 'list_name' slot in the query for the required argument 'list'")
    return Filled({"list": known_list(names[0])})


def newer_from_slots(tool: str, slots: Sequence[Any], words: str) -> Filled | None:
    """The arguments of one of the newer tools, or None when ``tool`` is none of them."""
    if tool == "device_status":
        return status_arguments(slots, words)
    if tool == "list_timers":
        return Filled({})
    if tool == "cancel_timer":
        return cancel_arguments(slots, words)
    if tool == "clear_list":
        return clear_arguments(slots, words)
    return None


_BETWEEN = frozenset({"and", ",", "&", "plus", "also"})


def item_calls(
    arguments: dict[str, Any], slots: Sequence[Any], utterance: Sequence[str]
) -> list[dict[str, Any]]:
    """Several list items said one after the other ("[eggs] and [bread]") as one call's
    arguments each; a single item (or items with other words between) as the one call."""
    items = sorted((s for s in slots if s.type == "note_text"), key=lambda s: int(s.start))
    if not arguments.get("list") or not utterance:
        return [arguments]
    if len(items) < 2:
        listed = enumerated(str(arguments.get("text", "")), utterance)
        if listed is None and items:
            listed = _listed_after(items[0], utterance)
        return [{**arguments, "text": item} for item in listed] if listed else [arguments]
    for left, right in itertools.pairwise(items):
        between = [w for w in utterance[int(left.end) : int(right.start)] if w.strip()]
        if not between or any(w.lower() not in _BETWEEN for w in between):
            return [arguments]
    return [{**arguments, "text": " ".join(str(s.value).split())} for s in items]


# The words that end a list of items said after its list's name, or that no item holds.
_NOT_AN_ITEM_WORD = frozenset({"then", "also", "please", "thanks", "too", "as", "well"})


def _listed_after(item: Any, utterance: Sequence[str]) -> list[str] | None:
    """The items said after the one the tagger marked, to the end of the words ("add to
    my camping list [tent pegs], torch and matches"): each of a few words, no number and
    no request of its own, else None (the one item stands, and the policy names the rest)."""
    from understanding.policy import COMMAND_VERBS

    said = [w.lower() for w in utterance]
    start, end = int(item.start), int(item.end)
    if end >= len(said) or said[end] != ",":
        return None
    listed = _split_enumeration(said[start:])
    if listed is None:
        return None
    for one in listed:
        words = one.split()
        if not 1 <= len(words) <= 3 or any(w.isdigit() for w in words):
            return None
        if set(words) & (COMMAND_VERBS | _NOT_AN_ITEM_WORD):
            return None
    return listed


def enumerated(text: str, utterance: Sequence[str]) -> list[str] | None:
    """The items of a comma-separated enumeration the note's words were read from ("apples,
    bananas and yoghurt" -> three items), or None when the words hold no comma.

    Commas mark an enumeration; a bare "and" does not ("mac and cheese" is one item), so
    only the last part is cut at its last "and", as English lists are written."""
    want = text.lower().split()
    said = [w.lower() for w in utterance]
    for start in range(len(said)):
        run: list[str] = []
        k = 0
        for word in said[start:]:
            if k == len(want):
                break
            if word == ",":
                if not run:
                    break
                run.append(word)
                continue
            if word != want[k]:
                break
            run.append(word)
            k += 1
        if k == len(want) and want:
            return _split_enumeration(run)
    return None


def _split_enumeration(run: list[str]) -> list[str] | None:
    if "," not in run:
        return None
    parts: list[list[str]] = [[]]
    for word in run:
        if word == ",":
            parts.append([])
        else:
            parts[-1].append(word)
    parts = [p[1:] if p and p[0] in ("and", "&") else p for p in parts]
    last = parts[-1]
    if "and" in last[1:]:
        cut = len(last) - 1 - last[::-1].index("and")
        parts[-1:] = [last[:cut], last[cut + 1 :]]
    items = [" ".join(p) for p in parts]
    return items if all(items) and len(items) > 1 else None


def names_a_device(words: str) -> bool:
    """Whether the words name any device ("turn it off" names none: which one is asked)."""
    from understanding.arguments.devices import ROOM_NAMES, _find_phrases, device_kinds
    from understanding.arguments.numbers import tokenize

    tokens = tokenize(words.lower())
    return bool(device_kinds(tokens, _find_phrases(tokens, ROOM_NAMES)))
