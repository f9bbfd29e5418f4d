"""Record ids that sort by creation time, and the checks every record kind shares."""

from __future__ import annotations

import json
import secrets
import threading
import time
from datetime import UTC, datetime
from typing import Any

from sync.errors import InvalidRecordError
from sync.views import iso

MAX_TEXT = 100_000


def check_text(value: object, what: str, *, allow_empty: bool = False) -> str:
    """``value`` if it is a non-empty string (or empty, when allowed) of at most
    :data:`MAX_TEXT` characters; InvalidRecordError otherwise."""
    if not isinstance(value, str):
        raise InvalidRecordError(f"{what} must be a string, not {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise InvalidRecordError(f"{what} must not be empty")
    if len(value) > MAX_TEXT:
        raise InvalidRecordError(f"{what} is longer than {MAX_TEXT} characters")
    return value


def json_safe(value: object, what: str) -> Any:
    """A JSON round-trip of ``value`` (plain data only); InvalidRecordError otherwise."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidRecordError(f"{what} is not JSON-serialisable: {exc}") from exc


_RANDOM_BITS = 80
_last_id = [0, 0]  # the (milliseconds, random part) of the last id this process made
_last_id_lock = threading.Lock()


def new_record_id() -> str:
    """A new record id: 32 hex digits like ``uuid4().hex``, but the first 12 are the time
    in milliseconds and the other 20 are random (80 bits), as in UUIDv7.

    Ids sort by creation time, so a new record's rows land at the end of the id B-trees
    (the table's and recall's) instead of at a random page, and a merge writes the peer's
    records, sorted by id, in time order. Within one millisecond the random part keeps
    increasing (RFC 9562's "monotonic random": the previous one plus a random step), so
    the ids one process makes sort in the order it made them, and a record stamped with
    its id's time (:func:`record_time`) sorts the same by time and by id. Short prefixes
    are not unique: pending queries, whose ids are shown shortened, keep uuid4.
    """
    ms = time.time_ns() // 1_000_000
    with _last_id_lock:
        last_ms, last_random = _last_id
        if ms <= last_ms:  # the same millisecond, or the clock stepped back
            ms, random = last_ms, last_random + 1 + secrets.randbits(32)
            if random >> _RANDOM_BITS:
                ms, random = ms + 1, secrets.randbits(_RANDOM_BITS - 1)
        else:
            random = secrets.randbits(_RANDOM_BITS - 1)  # headroom for the increments
        _last_id[:] = ms, random
    return f"{ms:012x}{random:020x}"


def record_time(record_id: str) -> str:
    """The creation time carried by an id from :func:`new_record_id` (ISO-8601, ms)."""
    ms = int(record_id[:12], 16)
    return iso(datetime.fromtimestamp(ms // 1000, UTC).replace(microsecond=ms % 1000 * 1000))
