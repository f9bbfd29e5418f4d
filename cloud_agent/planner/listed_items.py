"""Several items put on (or taken off) one named list, and items moved between two lists.

"Put milk, bananas, bread and coffee on the shopping list" is four ``add_note`` calls on
the shopping list; "take eggs, milk and spinach off my shopping list" three removals;
"move batteries from the shopping list to the to do list" a removal from one and a note
on the other. The clause rules cut such a list at its commas, and a cut piece may read
as another tool ("coffee on ..." as the coffee machine), so the list is read whole first:
a verb of adding or removing, the items, the list's name. Words after the list's name are
a purpose ("... for the kiosk"), a statement ("I already bought them"), or another request,
which is planned on its own; when it cannot be planned, nothing runs.

>>> [c.args["text"] for c in listed_calls("put milk, bread and coffee on the shopping list")]
['milk', 'bread', 'coffee']
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import Plan, PlannedCall
from cloud_agent.planner.clauses import normalise
from cloud_agent.planner.tidy import written
from understanding.arguments.heard import without_hesitations
from understanding.arguments.numbers import tokenize
from understanding.arguments.units import find_units
from understanding.policy import COMMAND_VERBS
from understanding.tools.notes import list_name

__all__ = ["listed_calls", "listed_plan"]

_LEAD = r"^(?:(?:please|pls|can\s+you|could\s+you|would\s+you|ok|okay|so|hey|and|also|then)\s+)*"
_LIST = r"(?:my|the|our)\s+(?P<{name}>[a-z][a-z ]{{0,30}}?)\s+list\b"
_ADDED = re.compile(
    _LEAD + r"(?P<verb>add|put|stick|pop|throw|write|chuck)\s+(?P<items>.+?)\s+"
    r"(?:to|onto|on|in|into)\s+" + _LIST.format(name="list") + r"(?P<rest>.*)$"
)
_REMOVED = re.compile(
    _LEAD + r"(?P<verb>remove|take|delete|cross|strike|scratch)\s+(?P<items>.+?)\s+"
    r"(?:off\s+of|off|from)\s+" + _LIST.format(name="list") + r"(?P<rest>.*)$"
)
_MOVED = re.compile(
    _LEAD
    + r"(?:move|shift|transfer)\s+(?P<items>.+?)\s+from\s+"
    + _LIST.format(name="source")
    + r"\s+(?:to|onto|on|into)\s+"
    + _LIST.format(name="list")
    + r"(?P<rest>.*)$"
)
# Items dictated under the list's name: "shopping list: oat milk, sourdough and apples".
_DICTATED = re.compile(
    _LEAD + r"(?:(?:my|the|our)\s+)?(?P<list>[a-z][a-z ]{0,30}?)\s+list\s*:\s*(?P<items>[^:;?]+)$"
)
_ASKS = re.compile(
    r"^(?:what|what's|whats|which|who|how|is|are|do|does|did|can|could|anything|read|show|"
    r"tell|clear|empty|delete|remove|wipe|reset)\b"
)
_NOT_A_NAME = frozenset({"these", "those", "this", "that", "on", "my", "the", "in", "it", "onto"})
# Said between items and no part of one ("milk, oh, and eggs"); hesitations ("um", "uh")
# are set aside before, as everywhere (``heard.without_hesitations``).
_FILLERS = frozenset({"oh", "like", "so"})
# Joiners between items; "a pound and a half" is one item ("and a half" is no joiner).
_JOINER = re.compile(
    r"\s*,\s*(?:and\s+)?|\s+and\s+(?!a\s+(?:half|quarter)\b|0\.(?:5|25|75)\b)|\s*&\s*"
)
# What may follow the list's name without being a request of its own.
_PURPOSE = re.compile(r"^(?:for\s+(?:the|my|our|a)?\s*[a-z ]+|please|pls|thanks|thank\s+you|thx)$")
# Items said after the list's name ("..., oh and dish soap"): more of the same list.
_MORE = re.compile(
    r"^(?:(?:oh|and|also|plus|too)\s+)*(?:and|also|plus)\s+(?P<items>[a-z][a-z ,&']*)$"
)
_STATEMENT = re.compile(
    r"^(?:because\s+|since\s+|as\s+)?(?:i|we|they|she|he)(?:'ve|'m|'re)?\s+"
    r"(?:already|just|have|had|ran|bought|got|used|finished|need|are|were|was)\b"
)


def listed_plan(query: str, replan: Callable[[str], Plan]) -> Plan | None:
    """The plan of a list of items for one list (and of the request after it), or None
    when the words hold no such list."""
    found = _listed(_as_said(query)) or _listed(normalise(query))
    if found is None:
        return None
    said, rest = found
    calls = [written(call, query) for call in said]  # "4B", not "4 b"
    rest = rest.strip(" ,;.")
    more = _MORE.match(rest)
    rest = re.sub(r"^(?:and|then|also|plus)\s+", "", rest)
    if not rest or _PURPOSE.match(rest) or (_STATEMENT.match(rest) and it.tool_cue(rest) is None):
        return Plan(query, calls=calls)
    added = _more_items(more.group("items")) if more and it.tool_cue(rest) is None else None
    if added:  # "put batteries and bin bags on the shopping list, oh and dish soap"
        last = calls[-1]
        extra = [PlannedCall(last.tool, {**last.args, "text": item}) for item in added]
        return Plan(query, calls=[*calls, *extra])
    after = replan(rest)
    if after.refusal is not None:
        return Plan(query, refusal=after.refusal, refusal_kind=after.refusal_kind)
    return Plan(query, calls=[*calls, *after.calls], unanswered=list(after.unanswered))


def _more_items(said: str) -> list[str] | None:
    """Items said after the list's name, or None when the words are a request or a
    statement of their own ("..., and call mum", "... and we need it today")."""
    if said.split()[0] in COMMAND_VERBS or _STATEMENT.match(said):
        return None
    return _items(said, at_least=1)


def listed_calls(text: str) -> list[PlannedCall] | None:
    """The calls of a list of items said for one list, ignoring what follows it."""
    found = _listed(_as_said(text)) or _listed(normalise(text))
    return found[0] if found else None


def _as_said(query: str) -> str:
    """The query lower-cased, its numbers as said ("a pound and a half" is an item's
    words, which the planner's normalised reading would make "0.5")."""
    said = without_hesitations(" ".join(query.lower().replace("’", "'").split()))
    return said.rstrip(".!?")


def _listed(text: str) -> tuple[list[PlannedCall], str] | None:
    moved = _MOVED.match(text)
    if moved is not None:
        items = _items(moved.group("items"), at_least=1)
        source, target = list_name(moved.group("source")), list_name(moved.group("list"))
        if not items or source == target:
            return None
        removed = [PlannedCall(it.REMOVE_NOTE, {"text": i, "list": source}) for i in items]
        added = [PlannedCall(it.ADD_NOTE, {"text": i, "list": target}) for i in items]
        return [*removed, *added], moved.group("rest")
    dictated = _DICTATED.match(text)
    named = dictated.group("list").split() if dictated is not None else []
    plain = len(named) <= 3 and not set(named) & {*COMMAND_VERBS, *_NOT_A_NAME}
    if dictated is not None and plain and not _ASKS.match(dictated.group("items")):
        items = _items(dictated.group("items"), at_least=1)
        name = list_name(dictated.group("list"))
        if not items:
            return None
        return [PlannedCall(it.ADD_NOTE, {"text": i, "list": name}) for i in items], ""
    for pattern, tool in ((_ADDED, it.ADD_NOTE), (_REMOVED, it.REMOVE_NOTE)):
        match = pattern.match(text)
        if match is None:
            continue
        items = _items(match.group("items"), at_least=2)
        if not items:
            return None
        name = list_name(match.group("list"))
        return [PlannedCall(tool, {"text": i, "list": name}) for i in items], match.group("rest")
    return None


def _items(said: str, *, at_least: int) -> list[str] | None:
    """The items of a list as said; None when fewer than ``at_least``, or when one of them
    reads as a request of its own ("milk and set a timer")."""
    pieces = (" ".join(w for w in i.split() if w not in _FILLERS) for i in _JOINER.split(said))
    items = [i.strip(" '\"") for i in pieces if i.strip(" '\"")]
    quantity = (None, it.ADD_NOTE, it.CALCULATOR, it.CONVERT)  # "a pound and a half of mince"
    if len(items) < at_least or any(it.tool_cue(i) not in quantity for i in items):
        return None
    if any(len(i.split()) > 4 and not find_units(tokenize(i)) for i in items):
        # "pay invoice 2024-117 to acme supplies, 1250 euros": a task whose own words
        # hold the commas, not items (the note readers' ``whole_note``); a quantity
        # ("a pound and a half of mince") is an item however many words it takes.
        return None
    return items
