"""The SQLite tables as materialised views of the CRDT document.

For each record kind, ``ROW_BUILDERS[kind](data)`` turns a record's data (the JSON object
stored in the document) into its table row (a tuple in ``COLUMNS[kind]`` order), and
``RECALL_BUILDERS`` a row into the searchable text indexed by FTS5 (or None).
:func:`materialise` writes the winners of the touched records; it runs inside the caller's
SQLite transaction, so a local edit or a remote update changes the document, the tables
and the update log together or not at all.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from operator import itemgetter, le
from typing import Any

import numpy as np
from google.protobuf import json_format

from edgeloop.v1 import agent_pb2 as pb
from sync.document import Entry, decode_value
from sync.errors import InvalidRecordError, InvalidUpdateError

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


def now_iso() -> str:
    """The current time, ISO-8601 UTC with milliseconds and a ``Z``."""
    return iso(datetime.now(UTC))


def iso(moment: datetime) -> str:
    """Format an aware datetime the store's way."""
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


def iso_ms(ms: int) -> str:
    """Milliseconds since the epoch, formatted the store's way."""
    return iso(datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000))


def _parse_time(value: str) -> datetime:
    """An ISO-8601 timestamp; InvalidRecordError if it is not one."""
    try:
        return datetime.fromisoformat(value)
    except ValueError as exc:
        raise InvalidRecordError(f"bad timestamp: {value!r}") from exc


@lru_cache(maxsize=4096)
def epoch_s(value: str) -> float:
    """Seconds since the epoch of an ISO-8601 timestamp (naive means UTC)."""
    moment = _parse_time(value)
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
    _parse_time(value)  # not epoch_s: most timestamps are seen once, a cache miss each
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


def _session_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    success = d.get("success")
    if success is not None and not isinstance(success, bool):
        raise InvalidRecordError("field 'success' must be a boolean or null")
    return (
        _str(d, "device_id"),
        _time(d, "created_at"),
        _str(d, "query"),
        _str(d, "final_answer", None),
        None if success is None else int(success),
        _str(d, "state"),
        _str(d, "data", None),
    )


def _step_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    step = step_from_data(d)
    return (
        step.session_id,
        step.turn_id,
        step.step_index,
        int(step.step_type),
        step.tool,
        step.act_id,
        int(step.origin),
        step.content,
        _time(d, "created_at", required=False),
        step.SerializeToString(deterministic=True),
    )


def _note_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    # The bulk of a merge: the checks of _required, _str and _time, inlined.
    text, source, created = d.get("text"), d.get("source_act_id"), d.get("created_at")
    if type(text) is str and (source is None or type(source) is str) and type(created) is str:
        _parse_time(created)
        return (text, source, created)
    return (_required(d, "text"), _str(d, "source_act_id", None), _time(d, "created_at"))


def _timer_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        _int(d, "seconds"),
        _str(d, "label"),
        _time(d, "fires_at"),
        _time(d, "created_at"),
        _str(d, "action", None),
    )


def _device_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    state = d.get("state")
    if not isinstance(state, dict):
        raise InvalidRecordError("field 'state' must be an object")
    return (
        _required(d, "device"),
        _str(d, "room", None),
        json.dumps(state, sort_keys=True),
        _time(d, "updated_at"),
    )


def _fact_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        _required(d, "entity"),
        _required(d, "attribute"),
        json.dumps(d.get("value"), sort_keys=True),
        _str(d, "source_act_id", None),
        _float(d, "confidence", 1.0),
        _time(d, "created_at"),
    )


def _receipt_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    receipt = receipt_from_data(d)
    return (
        receipt.session_id,
        receipt.query,
        receipt.answer,
        _time(d, "created_at", required=False),
        receipt.SerializeToString(deterministic=True),
    )


def _pending_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    status = _required(d, "status")
    if status not in ("pending", "resolved"):
        raise InvalidRecordError(f"bad pending status: {status!r}")
    return (
        _required(d, "query"),
        _str(d, "session_id"),
        status,
        _str(d, "answer", None),
        _time(d, "created_at"),
        _str(d, "resolved_at", None),
    )


def _transition_row(d: Mapping[str, Any]) -> tuple[Any, ...]:
    return (
        _required(d, "session_id"),
        _str(d, "from_state"),
        _str(d, "to_state"),
        _float(d, "duration_ms"),
        _str(d, "input_sha256"),
        _str(d, "at"),
    )


COLUMNS: dict[str, tuple[str, ...]] = {
    "sessions": ("device_id", "created_at", "query", "final_answer", "success", "state", "data"),
    "steps": (
        "session_id",
        "turn_id",
        "step_index",
        "step_type",
        "tool",
        "act_id",
        "origin",
        "content",
        "created_at",
        "pb",
    ),
    "notes": ("text", "source_act_id", "created_at"),
    "timers": ("seconds", "label", "fires_at", "created_at", "action"),
    "device_state": ("device", "room", "state", "updated_at"),
    "facts": ("entity", "attribute", "value", "source_act_id", "confidence", "created_at"),
    "receipts": ("session_id", "query", "answer", "created_at", "pb"),
    "pending": ("query", "session_id", "status", "answer", "created_at", "resolved_at"),
    "transitions": ("session_id", "from_state", "to_state", "duration_ms", "input_sha256", "at"),
}
"""Each table's columns after ``id``, ``hlc`` and ``node``, in the order of the row
tuples the builders return."""

ROW_BUILDERS: dict[str, Callable[[Mapping[str, Any]], tuple[Any, ...]]] = {
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
"""``ROW_BUILDERS[kind](data)``: the validated row (a tuple in ``COLUMNS[kind]`` order)."""


def _plain(kind: str) -> Callable[[tuple[Any, ...]], dict[str, Any]]:
    names = COLUMNS[kind]
    return lambda row: dict(zip(names, row, strict=True))


def _session_data(row: tuple[Any, ...]) -> dict[str, Any]:
    data = dict(zip(COLUMNS["sessions"], row, strict=True))
    data["success"] = None if data["success"] is None else bool(data["success"])
    return data


def _message_data(field: str, message: type[Any]) -> Callable[[tuple[Any, ...]], dict[str, Any]]:
    def data(row: tuple[Any, ...]) -> dict[str, Any]:
        created, blob = row[-2], row[-1]
        out: dict[str, Any] = {field: json_format.MessageToDict(message.FromString(blob))}
        if created:
            out["created_at"] = created
        return out

    return data


def _json_column(kind: str, column: str) -> Callable[[tuple[Any, ...]], dict[str, Any]]:
    names = COLUMNS[kind]

    def data(row: tuple[Any, ...]) -> dict[str, Any]:
        out = dict(zip(names, row, strict=True))
        out[column] = json.loads(out[column])
        return out

    return data


DATA_BUILDERS: dict[str, Callable[[tuple[Any, ...]], dict[str, Any]]] = {
    "sessions": _session_data,
    "steps": _message_data("step", pb.ReactStep),
    "notes": _plain("notes"),
    "timers": _plain("timers"),
    "device_state": _json_column("device_state", "state"),
    "facts": _json_column("facts", "value"),
    "receipts": _message_data("receipt", pb.DecisionReceipt),
    "pending": _plain("pending"),
    "transitions": _plain("transitions"),
}
"""``DATA_BUILDERS[kind](columns)``: a record's data read back from its row (the
columns after ``id``, ``hlc``, ``node``): the inverse of ``ROW_BUILDERS`` for every field
the table keeps, so reads need the SQLite view only, never the CRDT document."""

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


def build_row(kind: str, record_id: str, entry: Entry) -> tuple[Any, ...] | None:
    """The table row ``(id, hlc, node, *COLUMNS[kind])`` of a record's winning entry
    (None for a tombstone); InvalidRecordError if the data does not fit the table."""
    if entry.data is None:
        return None
    return (record_id, entry.hlc, entry.node, *ROW_BUILDERS[kind](entry.data))


def row_dict(kind: str, row: tuple[Any, ...]) -> dict[str, Any]:
    """A row tuple from :func:`build_row` as ``{column: value}``."""
    return dict(zip(("id", "hlc", "node", *COLUMNS[kind]), row, strict=True))


Row = tuple[Any, ...]


def merged_rows(
    kind: str,
    created: Iterable[tuple[str, str, object]],
    winners: Mapping[str, Entry | None],
    tombstones: list[tuple[str, str, str]] | None = None,
) -> tuple[list[Row], list[tuple[str, Row | None]], str]:
    """The rows a merged update writes for one kind, and the greatest clock it carries.

    ``created`` are the records the update created with one entry, still undecoded
    (``(id, node, stored value)``: decoded and validated straight into rows, the bulk of
    a merge); ``winners`` the other touched records with their winning entries. Returns
    ``(rows of the created records, [(id, row or None: delete)], greatest hlc)``, and
    appends to ``tombstones`` the ``(id, hlc, node)`` of created records that are
    tombstones.

    Raises:
        InvalidUpdateError: a value is not one of ours, or a record does not fit its table.
    """
    builder = ROW_BUILDERS[kind]
    new_rows: list[Row] = []
    add_row = new_rows.append
    changes: list[tuple[str, Row | None]] = []
    change = changes.append
    highest = ""
    record_id = node = ""
    if kind == "notes":
        created = list(created)
        plain = _new_note_rows(created)
        if plain is not None:
            new_rows, highest = plain
            created = ()
    try:
        for record_id, node, value in created:
            hlc, data = decode_value(value)
            if hlc > highest:
                highest = hlc
            if data is not None:
                add_row((record_id, hlc, node, *builder(data)))
            elif tombstones is not None:
                tombstones.append((record_id, hlc, node))
        for record_id, entry in winners.items():
            if entry is None:
                change((record_id, None))
                continue
            hlc, node, data = entry
            if hlc > highest:
                highest = hlc
            change((record_id, None if data is None else (record_id, hlc, node, *builder(data))))
    except (InvalidRecordError, InvalidUpdateError) as exc:
        raise InvalidUpdateError(
            f"bad {kind} record {record_id!r} (the entry of node {node!r}): {exc}",
            record=(kind, record_id, node),
        ) from exc
    return new_rows, changes, highest


_scan_once: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]*").fullmatch
_iso_time = datetime.fromisoformat
# A note's value as ``encode_entry`` writes it, with no escapes in its strings: matched,
# its fields are what the JSON parser would give (no backslash and no control character
# in a string, so its characters are the string's; the clock is 16 hex digits).
_PLAIN_NOTE = re.compile(
    r'\{"h":"([0-9a-fA-F]{16})","v":\{"text":"([^"\\\x00-\x1f]*)",'
    r'"source_act_id":(?:null|"([^"\\\x00-\x1f]*)"),"created_at":"([^"\\\x00-\x1f]*)"\}\}'
).fullmatch


def _new_note_rows(created: Sequence[tuple[str, str, object]]) -> tuple[list[Row], str] | None:
    """The rows of new notes and their greatest clock, in one loop with the checks of
    ``decode_value`` and ``_note_row`` inlined (the bulk of a first sync): a value
    written the canonical way is read by one regular expression, any other is parsed
    as JSON; the parsed clocks are checked all at once. None if any value is not a
    live note with the fields of one: the general loop then decodes each, and names
    the culprit."""
    rows: list[Row] = []
    add = rows.append
    clocks: list[str] = []  # of values parsed as JSON
    clock = clocks.append
    highest = ""
    try:
        for record_id, node, value in created:
            match = _PLAIN_NOTE(value)  # type: ignore[call-overload]
            if match is not None:
                hlc, text, source, created_at = match.groups()
                if hlc > highest:
                    highest = hlc
            else:
                body, end = _scan_once(value, 0)  # type: ignore[arg-type]
                if end != len(value) or type(body) is not dict or body.get("x"):  # type: ignore[arg-type]
                    return None
                hlc, data = body["h"], body.get("v")
                if type(hlc) is not str or type(data) is not dict:
                    return None
                text = data.get("text")
                source = data.get("source_act_id")
                created_at = data.get("created_at")
                if type(text) is not str or type(created_at) is not str:
                    return None
                if source is not None and type(source) is not str:
                    return None
                clock(hlc)
            _iso_time(created_at)
            add((record_id, hlc, node, text, source, created_at))
    except (StopIteration, ValueError, KeyError, TypeError):
        return None
    if clocks:
        if set(map(len, clocks)) != {16} or not _HEX_DIGITS("".join(clocks)):
            return None
        highest = max(highest, max(clocks))
    return rows, highest


_UPSERT_SQL = {
    kind: f"INSERT OR REPLACE INTO {kind} (id, hlc, node, {', '.join(columns)})"
    f" VALUES (?, ?, ?, {', '.join('?' for _ in columns)})"
    for kind, columns in COLUMNS.items()
}
_by_id = itemgetter(0)


def materialise(
    conn: sqlite3.Connection,
    kind: str,
    changes: Iterable[tuple[str, tuple[Any, ...] | None]],
    embedder: Embedder | None,
    new: Collection[str] | None = None,
    new_rows: Sequence[tuple[Any, ...]] = (),
) -> None:
    """Write ``(record id, row or None)`` pairs to the kind's table and the recall index.

    Runs inside the caller's transaction. Rows come from :func:`build_row`, so they are
    already validated. ``new`` names records among ``changes`` known to have no row yet
    (no look-up); ``new_rows`` are more rows of records with no row yet.
    Rows are written in id order: the B-tree pages of the id indexes are then touched
    once each, in order, instead of at random (a third less work in a bulk merge).
    """
    upserts: list[tuple[Any, ...]] = list(new_rows)
    deletes: list[tuple[str]] = []
    fresh = len(upserts)
    for record_id, row in changes:
        if row is None:
            deletes.append((record_id,))
        else:
            upserts.append(row)
            if new and record_id in new:
                fresh += 1
    if deletes:
        deletes.sort()
        conn.executemany(f"DELETE FROM {kind} WHERE id = ?", deletes)
    if upserts:
        upserts.sort(key=_by_id)
        if (
            kind == "notes"
            and embedder is None
            and not deletes
            and fresh == len(upserts)
            and _index_new_notes(conn, upserts)
        ):
            return
        conn.executemany(_UPSERT_SQL[kind], upserts)
    recall_builder = RECALL_BUILDERS.get(kind)
    if recall_builder is not None and (upserts or deletes):
        searchable = [(row[0], recall_builder(row)) for row in upserts]
        searchable.extend((record_id, None) for (record_id,) in deletes)
        known_new: Collection[str] = new or ()
        if new_rows:
            known_new = {row[0] for row in new_rows}.union(known_new)
        _index(conn, kind, searchable, embedder, known_new)


def _index(
    conn: sqlite3.Connection,
    source: str,
    searchable: list[tuple[str, Searchable | None]],
    embedder: Embedder | None,
    new: Collection[str],
) -> None:
    ids = [record_id for record_id, _ in searchable if record_id not in new]
    existing: dict[str, int] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ", ".join("?" for _ in part)
        for rid, record_id in conn.execute(
            f"SELECT rid, record_id FROM recall WHERE source = ? AND record_id IN ({marks})",
            [source, *part],
        ):
            existing[record_id] = rid
    if existing:
        stale = sorted((rid,) for rid in existing.values())
        # The index first: FTS5 reads the text to unindex from the recall row.
        conn.executemany("DELETE FROM recall_fts WHERE rowid = ?", stale)
        conn.executemany("DELETE FROM recall WHERE rid = ?", stale)
    row = conn.execute("SELECT coalesce(max(rid), 0) FROM recall").fetchone()
    next_rid = max(int(row[0]), max(existing.values(), default=0)) + 1
    # (searchable is in id order, and the sort is stable: ties stay in id order)
    live = [(entry[4], record_id, entry) for record_id, entry in searchable if entry is not None]
    # New texts get rowids in time order: recall's candidates are the greatest rowids
    # (the most recent texts), and FTS5 wants ascending rowids within a transaction
    # (a smaller one flushes its pending index to a new segment).
    live.sort(key=_by_id)
    rows: list[tuple[Any, ...]] = []
    texts: list[tuple[int, str]] = []
    for _created, record_id, entry in live:
        rid = existing.get(record_id)
        if rid is None:
            rid, next_rid = next_rid, next_rid + 1
        kind, text, tool, confidence, created_at = entry
        rows.append(
            (
                rid,
                source,
                kind,
                record_id,
                tool,
                confidence,
                created_at,
                epoch_s(created_at) if created_at else 0.0,
                None if embedder is None else embedding_bytes(embedder, text),
                text,
            )
        )
        texts.append((rid, text))
    if existing:
        rows.sort(key=_by_id)
        texts.sort(key=_by_id)
    if rows:
        conn.executemany(
            "INSERT INTO recall (rid, source, kind, record_id, tool, confidence, created_at,"
            " created_s, embedding, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.executemany("INSERT INTO recall_fts (rowid, text) VALUES (?, ?)", texts)


# New notes (the bulk of a merge): their recall rows and FTS5 entries are written by SQL
# from the rows just written, in the same transaction, instead of building a tuple per
# record in Python. Same rows as :func:`_index`: rids numbered from max(rid) + 1 in
# (created_at, id) order, created_s = epoch_s(created_at), computed as
# (seconds * 1000 + ms) / 1000.0 -- the same correctly rounded double as
# datetime.timestamp() -- which needs the store's canonical timestamps (checked first).
_CANONICAL_TIMES = re.compile(r"(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)*").fullmatch
_NEW_NOTES = (
    "SELECT ?1 + row_number() OVER (ORDER BY created_at, id) - 1 AS rid, id, text,"
    " created_at, (CAST(strftime('%s', created_at) AS INTEGER) * 1000"
    " + CAST(substr(created_at, 21, 3) AS INTEGER)) / 1000.0 AS created_s"
    " FROM notes WHERE rowid > ?2"
)
_NEW_NOTES_RECALL = (
    "INSERT INTO recall (rid, source, kind, record_id, tool, confidence, created_at,"
    " created_s, embedding, text) SELECT rid, 'notes', 'note', id, NULL, ?3, created_at,"
    f" created_s, NULL, text FROM ({_NEW_NOTES}) ORDER BY rid"
)
_NEW_NOTES_FTS = (
    "INSERT INTO recall_fts (rowid, text) SELECT rid, text FROM recall WHERE rid >= ? ORDER BY rid"
)
# The usual case: ids start with their creation time, so the new rows, inserted in id
# order, are in (created_at, id) order too and got the rowids ?2 + 1, ?2 + 2...: a rid is
# then their rowid shifted, with no sort and no join.
_SHIFTED = (
    "SELECT ?1 + rowid - ?2 - 1 AS rid, id, text, created_at, (CAST(strftime('%s',"
    " created_at) AS INTEGER) * 1000 + CAST(substr(created_at, 21, 3) AS INTEGER)) / 1000.0"
    " AS created_s FROM notes WHERE rowid > ?2"
)
_SHIFTED_RECALL = (
    "INSERT INTO recall (rid, source, kind, record_id, tool, confidence, created_at,"
    " created_s, embedding, text) SELECT rid, 'notes', 'note', id, NULL, ?3, created_at,"
    f" created_s, NULL, text FROM ({_SHIFTED})"
)
_SHIFTED_FTS = (
    "INSERT INTO recall_fts (rowid, text) SELECT ?1 + rowid - ?2 - 1, text FROM notes"
    " WHERE rowid > ?2"
)


def _index_new_notes(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> bool:
    """Write notes none of which has a row yet (``rows`` in id order), with their recall
    rows and FTS5 entries; False (nothing written) if their timestamps are not all
    canonical or their rowids not all after the old ones."""
    created = [row[5] for row in rows]
    # Every timestamp canonical, checked at once: each is 24 characters, and so is the
    # pattern, so the concatenation matches exactly when each one does.
    if set(map(len, created)) != {24} or not _CANONICAL_TIMES("".join(created)):
        return False
    before = conn.execute("SELECT coalesce(max(rowid), 0) FROM notes").fetchone()[0]
    next_rid = conn.execute("SELECT coalesce(max(rid), 0) + 1 FROM recall").fetchone()[0]
    conn.executemany(_UPSERT_SQL["notes"], rows)
    after = conn.execute("SELECT coalesce(max(rowid), 0) FROM notes").fetchone()[0]
    shifted = after - before == len(rows) and all(map(le, created, created[1:]))
    recall_sql = _SHIFTED_RECALL if shifted else _NEW_NOTES_RECALL
    written = conn.execute(recall_sql, (next_rid, before, _NOTE_CONFIDENCE)).rowcount
    if written != len(rows):  # the new rows are not all after the old ones: undo
        conn.execute("DELETE FROM recall WHERE rid >= ?", (next_rid,))
        conn.executemany("DELETE FROM notes WHERE id = ?", [(row[0],) for row in rows])
        return False
    if shifted:
        conn.execute(_SHIFTED_FTS, (next_rid, before))
    else:
        conn.execute(_NEW_NOTES_FTS, (next_rid,))
    return True
