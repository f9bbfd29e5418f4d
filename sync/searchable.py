"""What recall finds: the searchable text of a row, how much a hit is trusted, and its
embedding.

``RECALL_BUILDERS[kind](row)`` turns a table row of a searchable kind (notes, steps,
sessions, facts) into its recall entry; ``sync.materialise`` indexes them with FTS5 in
the store's transaction, and ``sync.recall`` searches them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

Embedder = Callable[[str], Any]
"""Text -> 1-D float vector (the edge passes ``Encoder.embed``)."""

TOOL_CONFIDENCE: dict[str, float] = {
    "calculator": 0.99,
    "unit_convert": 0.98,
    "world_clock": 0.97,
    "get_weather": 0.95,
    "set_timer": 0.95,
    "device_control": 0.93,
    "add_note": 0.9,
    "search_notes": 0.8,
    "search": 0.72,
    "web_search": 0.72,
}
"""How much a recalled record is trusted, by the tool that produced it."""

KIND_CONFIDENCE: dict[str, float] = {"note": 0.9, "answer": 0.85, "fact": 0.9, "step": 0.8}
"""Confidence of hits that no tool produced (notes, final answers), and the default."""


_NOTE_CONFIDENCE = KIND_CONFIDENCE["note"]
_ANSWER_CONFIDENCE = KIND_CONFIDENCE["answer"]
_STEP_CONFIDENCE = KIND_CONFIDENCE["step"]

# Recall builders take a full row ``(id, hlc, node, *columns)`` and return ``(kind,
# text, tool, confidence, created_at)`` or None (plain tuples: a bulk merge builds one
# per record).
Searchable = tuple[str, str, str | None, float, str]


def _note_recall(row: tuple[Any, ...]) -> Searchable | None:
    return ("note", row[3], None, _NOTE_CONFIDENCE, row[5])


def _step_recall(row: tuple[Any, ...]) -> Searchable | None:
    content = row[10]
    if not content:
        return None
    tool = row[7] or None
    confidence = TOOL_CONFIDENCE.get(tool or "", _STEP_CONFIDENCE)
    return ("step", content, tool, confidence, row[11] or "")


def _session_recall(row: tuple[Any, ...]) -> Searchable | None:
    query, answer = row[5], row[6]
    if not answer:
        return None
    text = f"{query}\n{answer}" if query else answer
    return ("answer", text, None, _ANSWER_CONFIDENCE, row[4])


def _fact_recall(row: tuple[Any, ...]) -> Searchable | None:
    entity, attribute, raw = row[3], row[4], row[5]
    value = json.loads(raw)
    text = f"{entity} {attribute} {value if isinstance(value, str) else raw}"
    return ("fact", text, None, float(row[7]), row[8])


RECALL_BUILDERS: dict[str, Callable[[tuple[Any, ...]], Searchable | None]] = {
    "notes": _note_recall,
    "steps": _step_recall,
    "sessions": _session_recall,
    "facts": _fact_recall,
}


def embedding_bytes(embedder: Embedder | None, text: str) -> bytes | None:
    """The L2-normalised float32 embedding of a text, or None without an embedder."""
    if embedder is None:
        return None
    vector = np.asarray(embedder(text), dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(vector))
    if norm > 0:
        vector = vector / norm
    return vector.astype(np.float32).tobytes()
