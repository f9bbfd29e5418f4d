"""The SQLite tables as materialised views of the CRDT document.

For each record kind, ``ROW_BUILDERS[kind](data)`` turns a record's data (the JSON object
stored in the document) into its table row (a tuple in ``COLUMNS[kind]`` order, checked
on the way: a record that does not fit its table is refused), ``DATA_BUILDERS`` a row
back into the data, and :func:`merged_rows` a merge's entries into rows; the store's
timestamps have one format (:func:`iso`). Writing the rows, and the recall index that
follows them, is ``sync.materialise``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from google.protobuf import json_format

from edgeloop.v1 import agent_pb2 as pb
from sync.document import Entry, decode_value
from sync.errors import InvalidRecordError, InvalidUpdateError


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
