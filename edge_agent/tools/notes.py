"""The add_note and search_notes tools: notes kept, and found again, in local memory.

Search goes through the store's recall (``MemoryStore.search``), which finds notes and
past answers by meaning when the store has an embedder and by words otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from edge_agent.tools.memory import ToolMemory

MAX_NOTE = 2000
RESULT_KINDS = frozenset({"note", "answer", "fact"})
# Facts the device keeps for itself (settings, the forecast cache), not things the user said.
_MACHINE_FACTS = ("device/", "forecast/")

ADD_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "minLength": 1, "maxLength": MAX_NOTE}},
    "required": ["text"],
    "additionalProperties": False,
}
ADD_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"note_id": {"type": "string", "minLength": 1}, "text": {"type": "string"}},
    "required": ["note_id"],
}
SEARCH_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 200},
        "limit": {"type": "integer", "minimum": 1, "maximum": 20},
    },
    "required": ["query"],
    "additionalProperties": False,
}
SEARCH_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string"},
        "count": {"type": "integer", "minimum": 0},
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


def make_add(memory: ToolMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The add_note function, writing to ``memory``."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        text = " ".join(str(args["text"]).split())
        if not text:
            raise ValueError("a note needs some text")
        if len(text) > MAX_NOTE:
            raise ValueError(f"a note is at most {MAX_NOTE} characters")
        return {"note_id": memory.add_note(text), "text": text}

    return run


def make_search(memory: ToolMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The search_notes function, reading ``memory``'s recall."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        query = " ".join(str(args["query"]).split())
        if not query:
            raise ValueError("a search needs a query")
        limit = int(args.get("limit") or 5)
        # Recall also indexes raw session steps; the user asked for notes and answers.
        hits = [
            hit
            for hit in memory.search(query, limit=limit * 4)
            if str(getattr(hit, "kind", "note")) in RESULT_KINDS
            and not str(getattr(hit, "record_id", "")).startswith(_MACHINE_FACTS)
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


def validate_add(observation: dict[str, Any]) -> str | None:
    """Business rule: the store returned a note id."""
    return None if observation.get("note_id") else "note was not stored"


def validate_search(observation: dict[str, Any]) -> str | None:
    """Business rule: the count matches the results."""
    if observation.get("count") != len(observation.get("results", [])):
        return "search count does not match its results"
    return None
