"""The SQLite tables as materialised views of the CRDT document.

For each record kind, ``ROW_BUILDERS[kind](record_id, data)`` turns a record's data (the
JSON object stored in the document) into its table row, and ``RECALL_BUILDERS`` into the
searchable text indexed by FTS5 (or None). :func:`materialise` writes the winners of the
touched records; it runs inside the caller's SQLite transaction, so a local edit or a
remote update changes the document, the tables and the update log together or not at all.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

import numpy as np
from google.protobuf import json_format

from edgeloop.v1 import agent_pb2 as pb
from sync.document import Entry
from sync.errors import InvalidRecordError

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


@dataclass(frozen=True, slots=True)
class RecallEntry:
    """One searchable text of a record."""

    kind: str
    text: str
    tool: str | None
    confidence: float
    created_at: str


def now_iso() -> str:
    """The current time, ISO-8601 UTC with milliseconds and a ``Z``."""
    return iso(datetime.now(UTC))


def iso(moment: datetime) -> str:
    """Format an aware datetime the store's way."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


@lru_cache(maxsize=4096)
def epoch_s(value: str) -> float:
    """Seconds since the epoch of an ISO-8601 timestamp (naive means UTC)."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidRecordError(f"bad timestamp: {value!r}") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def _str(data: Mapping[str, Any], key: str, default: str | None = "") -> str | None:
    value = data.get(key, default)
    if value is None or isinstance(value, str):
        return value
    raise InvalidRecordError(f"field {key!r} must be a string, not {type(value).__name__}")


def _required(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        raise InvalidRecordError(f"field {key!r} must be a string")
    return value


def _time(data: Mapping[str, Any], key: str, *, required: bool = True) -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise InvalidRecordError(f"field {key!r} must be an ISO-8601 timestamp")
    epoch_s(value)
    return value


def _int(data: Mapping[str, Any], key: str, default: int | None = 0) -> int | None:
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise InvalidRecordError(f"field {key!r} must be an integer")
    return int(value)


def _float(data: Mapping[str, Any], key: str, default: float | None = 0.0) -> float | None:
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidRecordError(f"field {key!r} must be a number")
    return float(value)


def step_from_data(data: Mapping[str, Any]) -> pb.ReactStep:
    """The ReactStep stored in a ``steps`` record (protobuf's JSON mapping)."""
    try:
        return json_format.ParseDict(data.get("step", {}), pb.ReactStep())
    except json_format.ParseError as exc:
        raise InvalidRecordError(f"bad step: {exc}") from exc


def receipt_from_data(data: Mapping[str, Any]) -> pb.DecisionReceipt:
    """The DecisionReceipt stored in a ``receipts`` record."""
    try:
        return json_format.ParseDict(data.get("receipt", {}), pb.DecisionReceipt())
    except json_format.ParseError as exc:
        raise InvalidRecordError(f"bad receipt: {exc}") from exc


def _session_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    success = d.get("success")
    if success is not None and not isinstance(success, bool):
        raise InvalidRecordError("field 'success' must be a boolean or null")
    return {
        "device_id": _str(d, "device_id"),
        "created_at": _time(d, "created_at"),
        "query": _str(d, "query"),
        "final_answer": _str(d, "final_answer", None),
        "success": None if success is None else int(success),
        "state": _str(d, "state"),
        "data": _str(d, "data", None),
    }


def _step_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    step = step_from_data(d)
    created = _time(d, "created_at", required=False)
    return {
        "session_id": step.session_id,
        "turn_id": step.turn_id,
        "step_index": step.step_index,
        "step_type": int(step.step_type),
        "tool": step.tool,
        "act_id": step.act_id,
        "origin": int(step.origin),
        "content": step.content,
        "created_at": created,
        "pb": step.SerializeToString(deterministic=True),
    }


def _note_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "text": _required(d, "text"),
        "source_act_id": _str(d, "source_act_id", None),
        "created_at": _time(d, "created_at"),
    }


def _timer_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "seconds": _int(d, "seconds"),
        "label": _str(d, "label"),
        "fires_at": _time(d, "fires_at"),
        "created_at": _time(d, "created_at"),
    }


def _device_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    state = d.get("state")
    if not isinstance(state, dict):
        raise InvalidRecordError("field 'state' must be an object")
    return {
        "device": _required(d, "device"),
        "room": _str(d, "room", None),
        "state": json.dumps(state, sort_keys=True),
        "updated_at": _time(d, "updated_at"),
    }


def _fact_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "entity": _required(d, "entity"),
        "attribute": _required(d, "attribute"),
        "value": json.dumps(d.get("value"), sort_keys=True),
        "source_act_id": _str(d, "source_act_id", None),
        "confidence": _float(d, "confidence", 1.0),
        "created_at": _time(d, "created_at"),
    }


def _receipt_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    receipt = receipt_from_data(d)
    return {
        "session_id": receipt.session_id,
        "query": receipt.query,
        "answer": receipt.answer,
        "created_at": _time(d, "created_at", required=False),
        "pb": receipt.SerializeToString(deterministic=True),
    }


def _pending_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    status = _required(d, "status")
    if status not in ("pending", "resolved"):
        raise InvalidRecordError(f"bad pending status: {status!r}")
    return {
        "query": _required(d, "query"),
        "session_id": _str(d, "session_id"),
        "status": status,
        "answer": _str(d, "answer", None),
        "created_at": _time(d, "created_at"),
        "resolved_at": _str(d, "resolved_at", None),
    }


def _transition_row(record_id: str, d: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "session_id": _required(d, "session_id"),
        "from_state": _str(d, "from_state"),
        "to_state": _str(d, "to_state"),
        "duration_ms": _float(d, "duration_ms"),
        "input_sha256": _str(d, "input_sha256"),
        "at": _str(d, "at"),
    }


ROW_BUILDERS: dict[str, Callable[[str, Mapping[str, Any]], dict[str, Any]]] = {
    "sessions": _session_row,
    "steps": _step_row,
    "notes": _note_row,
    "timers": _timer_row,
    "device_state": _device_row,
    "facts": _fact_row,
    "receipts": _receipt_row,
    "pending": _pending_row,
    "transitions": _transition_row,
}


def _note_recall(row: Mapping[str, Any]) -> RecallEntry | None:
    return RecallEntry("note", row["text"], None, KIND_CONFIDENCE["note"], row["created_at"])


def _step_recall(row: Mapping[str, Any]) -> RecallEntry | None:
    if not row["content"]:
        return None
    tool = row["tool"] or None
    confidence = TOOL_CONFIDENCE.get(tool or "", KIND_CONFIDENCE["step"])
    return RecallEntry("step", row["content"], tool, confidence, row["created_at"] or "")


def _session_recall(row: Mapping[str, Any]) -> RecallEntry | None:
    if not row["final_answer"]:
        return None
    text = f"{row['query']}\n{row['final_answer']}" if row["query"] else row["final_answer"]
    return RecallEntry("answer", text, None, KIND_CONFIDENCE["answer"], row["created_at"])


def _fact_recall(row: Mapping[str, Any]) -> RecallEntry | None:
    value = json.loads(row["value"])
    text = f"{row['entity']} {row['attribute']} {value if isinstance(value, str) else row['value']}"
    return RecallEntry("fact", text, None, float(row["confidence"]), row["created_at"])


RECALL_BUILDERS: dict[str, Callable[[Mapping[str, Any]], RecallEntry | None]] = {
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


def build_row(kind: str, record_id: str, entry: Entry) -> dict[str, Any] | None:
    """The table row of a record's winning entry (None for a tombstone)."""
    if entry.data is None:
        return None
    row = ROW_BUILDERS[kind](record_id, entry.data)
    return {"id": record_id, "hlc": entry.hlc, "node": entry.node, **row}


def materialise(
    conn: sqlite3.Connection,
    kind: str,
    changes: Iterable[tuple[str, dict[str, Any] | None]],
    embedder: Embedder | None,
    new: Collection[str] | None = None,
) -> None:
    """Write ``(record id, row or None)`` pairs to the kind's table and the recall index.

    Runs inside the caller's transaction. Rows come from :func:`build_row`, so they are
    already validated. ``new`` names records known to have no row yet (no look-up).
    """
    recall_builder = RECALL_BUILDERS.get(kind)
    upserts: list[dict[str, Any]] = []
    deletes: list[tuple[str]] = []
    searchable: dict[str, RecallEntry | None] = {}
    for record_id, row in changes:
        if row is None:
            deletes.append((record_id,))
        else:
            upserts.append(row)
        if recall_builder is not None:
            searchable[record_id] = recall_builder(row) if row is not None else None
    if deletes:
        conn.executemany(f"DELETE FROM {kind} WHERE id = ?", deletes)
    if upserts:
        columns = list(upserts[0])
        sql = (
            f"INSERT OR REPLACE INTO {kind} ({', '.join(columns)}) "
            f"VALUES ({', '.join('?' for _ in columns)})"
        )
        conn.executemany(sql, [tuple(r[c] for c in columns) for r in upserts])
    if searchable:
        _index(conn, kind, searchable, embedder, new or ())


def _index(
    conn: sqlite3.Connection,
    source: str,
    searchable: dict[str, RecallEntry | None],
    embedder: Embedder | None,
    new: Collection[str],
) -> None:
    ids = [i for i in searchable if i not in new]
    existing: dict[str, int] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ", ".join("?" for _ in part)
        for rid, record_id in conn.execute(
            f"SELECT rid, record_id FROM recall WHERE source = ? AND record_id IN ({marks})",
            [source, *part],
        ):
            existing[record_id] = rid
    stale = [(rid,) for record_id, rid in existing.items()]
    if stale:
        conn.executemany("DELETE FROM recall WHERE rid = ?", stale)
        conn.executemany("DELETE FROM recall_fts WHERE rowid = ?", stale)
    row = conn.execute("SELECT coalesce(max(rid), 0) FROM recall").fetchone()
    next_rid = max(int(row[0]), max(existing.values(), default=0)) + 1
    rows: list[tuple[Any, ...]] = []
    texts: list[tuple[int, str]] = []
    for record_id, entry in searchable.items():
        if entry is None:
            continue
        rid = existing.get(record_id)
        if rid is None:
            rid, next_rid = next_rid, next_rid + 1
        rows.append(
            (
                rid,
                source,
                entry.kind,
                record_id,
                entry.tool,
                entry.confidence,
                entry.created_at,
                epoch_s(entry.created_at) if entry.created_at else 0.0,
                embedding_bytes(embedder, entry.text),
            )
        )
        texts.append((rid, entry.text))
    if rows:
        conn.executemany(
            "INSERT INTO recall (rid, source, kind, record_id, tool, confidence, created_at,"
            " created_s, embedding) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.executemany("INSERT INTO recall_fts (rowid, text) VALUES (?, ?)", texts)
