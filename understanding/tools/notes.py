"""The add_note, search_notes and remove_note tools: notes and named lists in memory.

Search goes through the store's recall (``MemoryStore.search``), which finds notes and
past answers by meaning when the store has an embedder and by words otherwise.

A named list ("shopping", "to do") is notes too: ``add_note {text, list}`` keeps the item
as the note "shopping list: milk", so it syncs, is found by any search, and reads well
anywhere a note is shown; ``search_notes {list}`` reads the whole list, oldest item
first; ``remove_note {text, list?}`` takes an item (or a note) off by its words.

``search_notes {lists: true}`` is the one mode with neither a query nor a list: "show me my
lists", "what's on my list" with no list named. It reads the lists there are, each with
its number of items, and when there is only one, that list's items.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Protocol, cast

from understanding.tools.memory import ToolMemory

MAX_NOTE = 2000
RESULT_KINDS = frozenset({"note", "answer", "fact"})
# Facts the device keeps for itself (settings, the forecast cache), not things the user said.
_MACHINE_FACTS = ("device/", "forecast/")

LIST_NAME: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 40,
    "x-edgeloop-slots": ["list_name"],
}
NOTE_TEXT: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_NOTE,
    "x-edgeloop-slots": ["note_text"],
}
ADD_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": NOTE_TEXT,
        # Its type as a list, as search_notes' ``list``: a model's bare argument
        # ("Action Input: \"call mom\"") is the text, the one plain string property.
        "list": {**LIST_NAME, "type": ["string"]},
    },
    # ``list`` alone creates the named list, empty ("create a new list for school supplies").
    "anyOf": [{"required": ["text"]}, {"required": ["list"]}],
    "additionalProperties": False,
}
REMOVE_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": NOTE_TEXT,
        "list": LIST_NAME,
    },
    "required": ["text"],
    "additionalProperties": False,
}
REMOVE_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "note_id": {"type": "string", "minLength": 1},
        "text": {"type": "string"},
        "list": {"type": ["string", "null"]},
    },
    "required": ["note_id"],
}
ADD_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "note_id": {"type": "string", "minLength": 1},
        "text": {"type": "string"},
        "list": {"type": "string"},
        # A list created empty: true when this call created it, false when it was there.
        "created": {"type": "boolean"},
        "count": {"type": "integer", "minimum": 0},
    },
    "required": ["note_id"],
}
SEARCH_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "minLength": 1,
            "maxLength": 200,
            "x-edgeloop-slots": ["query"],
        },
        # The same as LIST_NAME, with its type as a list: a model's bare argument
        # ("search_notes[passport]") is the query, the one plain string property.
        "list": {**LIST_NAME, "type": ["string"]},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20},
        # The lists themselves, for a request that names none ("what lists do I have").
        "lists": {"type": "boolean", "const": True, "x-edgeloop-slots": []},
    },
    "anyOf": [{"required": ["query"]}, {"required": ["list"]}, {"required": ["lists"]}],
    "additionalProperties": False,
}
SEARCH_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "list": {"type": "string"},
        "count": {"type": "integer", "minimum": 0},
        "lists": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
                "required": ["name", "count"],
            },
        },
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string"},
                    "id": {"type": "string"},
                    "text": {"type": "string"},
                    "score": {"type": "number"},
                },
                "required": ["kind", "id", "text"],
            },
        },
    },
    "required": ["count", "results"],
}


class ListMemory(Protocol):
    """The memory store methods that lists use (``sync.store.MemoryStore``)."""

    def add_note(self, text: str, *, source_act_id: str | None = None) -> str: ...

    def notes(self) -> list[dict[str, Any]]: ...

    def delete_note(self, note_id: str) -> None: ...


def list_name(name: str) -> str:
    """A list's name as kept: lower case, without "list" ("To-Do List" -> "to do").

    >>> list_name("Shopping List")
    'shopping'
    >>> list_name("todo")
    'to do'
    """
    words = " ".join(str(name).lower().replace("-", " ").replace("_", " ").split())
    words = re.sub(r"^(?:my|the|our)\s+|\s+list$", "", words).strip()
    return {"todo": "to do", "todos": "to do", "to dos": "to do"}.get(words, words)


def _item_of(note_text: str, name: str) -> str | None:
    prefix = f"{name} list: "
    return note_text[len(prefix) :] if note_text.lower().startswith(prefix) else None


def list_items(memory: ListMemory, name: str) -> list[dict[str, Any]]:
    """The items of a list, oldest first: ``{"id", "text"}``."""
    key = list_name(name)
    items = []
    for note in memory.notes():
        item = _item_of(str(note["text"]), key)
        if item is not None:
            items.append({"id": str(note["note_id"]), "text": item})
    return items


_LIST_ITEM = re.compile(r"^(?P<name>[^:\n]{1,40}) list: (?P<item>.+)$", re.IGNORECASE | re.DOTALL)
# A list created empty is kept as the note "<name> list:", which no item reads as one of it.
_LIST_HEADER = re.compile(r"^(?P<name>[^:\n]{1,40}) list:$", re.IGNORECASE)


def all_lists(memory: ListMemory) -> list[dict[str, Any]]:
    """Every list in memory with its number of items, ``{"name", "count"}``, in the order
    each was started."""
    counts: dict[str, int] = {}
    for note in memory.notes():
        text = str(note["text"])
        if (header := _LIST_HEADER.match(text)) is not None:
            counts.setdefault(list_name(header.group("name")), 0)
        elif (match := _LIST_ITEM.match(text)) is not None:
            name = list_name(match.group("name"))
            counts[name] = counts.get(name, 0) + 1
    return [{"name": name, "count": count} for name, count in counts.items()]


def _clean(text: str) -> str:
    text = " ".join(str(text).split())
    if not text:
        raise ValueError("a note needs some text")
    if len(text) > MAX_NOTE:
        raise ValueError(f"a note is at most {MAX_NOTE} characters")
    return text


def make_add(memory: ToolMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The add_note function, writing to ``memory``."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        if args.get("text") is None and args.get("list"):
            return _create_list(cast("ListMemory", memory), str(args["list"]))
        text = _clean(args["text"])
        if args.get("list"):
            name = list_name(str(args["list"]))
            if not name:
                raise ValueError("a list needs a name")
            return {"note_id": memory.add_note(f"{name} list: {text}"), "text": text, "list": name}
        return {"note_id": memory.add_note(text), "text": text}

    return run


def _create_list(memory: ListMemory, written: str) -> dict[str, Any]:
    """A named list, empty, unless the user has one of that name already (then nothing is
    written, and the observation says how many items it holds)."""
    name = list_name(written)
    if not name or name == "list":
        raise ValueError("a list needs a name")
    for entry in all_lists(memory):
        if entry["name"] == name:
            held = [
                str(n["note_id"])
                for n in memory.notes()
                if list_name(str(n["text"]).partition(" list:")[0]) == name
            ]
            return {"note_id": held[0], "list": name, "created": False, "count": entry["count"]}
    return {"note_id": memory.add_note(f"{name} list:"), "list": name, "created": True, "count": 0}


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def make_remove(memory: ListMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The remove_note function: the one note (or list item) whose words are the text's.

    Words match exactly, then as a whole-word part ("milk" takes "oat milk" off when it is
    the only such item); several candidates remove nothing (the user says which)."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        wanted = _words(_clean(args["text"]))
        name = list_name(str(args["list"])) if args.get("list") else None
        if name is not None:
            pool = [(item["id"], item["text"]) for item in list_items(memory, name)]
        else:
            pool = [(str(n["note_id"]), str(n["text"])) for n in memory.notes()]
        exact = [(i, t) for i, t in pool if _words(t) == wanted]
        near = [(i, t) for i, t in pool if set(wanted) <= set(_words(t))]
        found = exact or near
        where = f"the {name} list" if name else "your notes"
        if not found:
            raise ValueError(f"{' '.join(wanted)!r} is not on {where}")
        if len(found) > 1:
            listed = "; ".join(t for _i, t in found[:5])
            raise ValueError(f"several items of {where} match: {listed}")
        note_id, text = found[0]
        memory.delete_note(note_id)
        return {"note_id": note_id, "text": text, "list": name}

    return run


def make_search(memory: ToolMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The search_notes function, reading ``memory``'s recall."""

    def read_list(name: str) -> list[dict[str, Any]]:
        return [
            {"kind": "list_item", "id": i["id"], "text": i["text"], "score": 1.0}
            for i in list_items(cast("ListMemory", memory), name)
        ]

    def run(args: dict[str, Any]) -> dict[str, Any]:
        if args.get("lists") and not args.get("list") and not args.get("query"):
            lists = all_lists(cast("ListMemory", memory))
            if len(lists) == 1:  # the one list there is: its items
                items = read_list(lists[0]["name"])
                return {"list": lists[0]["name"], "lists": lists, "count": len(items),
                        "results": items}  # fmt: skip
            results = [
                {"kind": "list", "id": entry["name"], "text": entry["name"], "score": 1.0}
                for entry in lists
            ]
            return {"lists": lists, "count": len(results), "results": results}
        if args.get("list") and not args.get("query"):
            name = list_name(str(args["list"]))
            items = read_list(name)
            return {"list": name, "count": len(items), "results": items}
        query = " ".join(str(args.get("query") or "").split())
        if not query:
            raise ValueError("a search needs a query")
        limit = int(args.get("limit") or 5)
        # Recall also indexes raw session steps; the user asked for notes and answers.
        hits = [
            hit
            for hit in memory.search(query, limit=limit * 4)
            if str(getattr(hit, "kind", "note")) in RESULT_KINDS
            and not str(getattr(hit, "record_id", "")).startswith(_MACHINE_FACTS)
            and not _restates_notes(memory, hit)
        ][:limit]
        results = [
            {
                "kind": str(getattr(hit, "kind", "note")),
                "id": str(getattr(hit, "record_id", "")),
                "text": str(getattr(hit, "text", "")),
                "score": float(getattr(hit, "score", 0.0)),
            }
            for hit in hits
        ]
        return {"query": query, "count": len(results), "results": results}

    return run


def validate_remove(observation: dict[str, Any]) -> str | None:
    """Business rule: the store named the note it removed."""
    return None if observation.get("note_id") else "no note was removed"


# Tools whose sessions' answers only restate notes (one written, a search's findings): a
# search that counted them would find its own earlier answers and snowball.
_NOTE_TOOLS = frozenset({"add_note", "search_notes", "remove_note"})


def _restates_notes(memory: ToolMemory, hit: Any) -> bool:
    """True for the stored answer of a session that wrote or searched notes."""
    steps = getattr(memory, "steps", None)
    if str(getattr(hit, "kind", "")) != "answer" or not callable(steps):
        return False
    return any(step.tool in _NOTE_TOOLS for step in steps(str(hit.record_id)))


def validate_add(observation: dict[str, Any]) -> str | None:
    """Business rule: the store returned a note id."""
    return None if observation.get("note_id") else "note was not stored"


def validate_search(observation: dict[str, Any]) -> str | None:
    """Business rule: the count matches the results."""
    if observation.get("count") != len(observation.get("results", [])):
        return "search count does not match its results"
    return None


# ---- the clear_list tool ----------------------------------------------------------------

CLEAR_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"list": LIST_NAME},
    "required": ["list"],
    "additionalProperties": False,
}
CLEAR_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "list": {"type": "string", "minLength": 1},
        "removed": {"type": "integer", "minimum": 0},
        "items": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["list", "removed"],
}
LIST_MATCH = 0.75
"""How close a list name said must be to a kept one to mean it ("shoping" -> "shopping")."""


def existing_list(memory: ListMemory, written: str) -> str:
    """The kept list a name means: the same name, else the nearest within
    :data:`LIST_MATCH` (a typo never names a list of its own).

    Raises:
        ValueError: no kept list is that close.
    """
    import difflib

    name = list_name(written)
    names = [entry["name"] for entry in all_lists(memory)]
    if name in names:
        return name
    near = difflib.get_close_matches(name, names, n=1, cutoff=LIST_MATCH)
    if not near:
        kept = ", ".join(names) if names else "none yet"
        raise ValueError(f"you have no {name} list (your lists: {kept})")
    return str(near[0])


def make_clear(memory: ListMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The clear_list function: every item of a list removed, the list kept, empty."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        name = existing_list(memory, str(args["list"]))
        items = list_items(memory, name)
        for item in items:
            memory.delete_note(item["id"])
        if not any(_LIST_HEADER.match(str(n["text"])) for n in memory.notes()
                   if list_name(str(n["text"]).partition(" list:")[0]) == name):  # fmt: skip
            memory.add_note(f"{name} list:")  # the list stays, empty
        return {"list": name, "removed": len(items), "items": [i["text"] for i in items]}

    return run


def validate_clear(observation: dict[str, Any]) -> str | None:
    """Business rule: the count is the number of items removed."""
    if "items" in observation and observation["removed"] != len(observation["items"]):
        return "removed count does not match the items"
    return None
