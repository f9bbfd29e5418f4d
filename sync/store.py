"""The memory store: SQLite tables (a materialised view) + the CRDT document + the log.

One :class:`MemoryStore` per replica (a device, or one user's memory on the server).
Every write goes through one path: validate, stamp with the hybrid logical clock, write
the record into the CRDT document, update the SQLite view and append the document's
update to the update log, all in one SQLite transaction. If anything fails the
transaction rolls back and the document is reloaded from disk, so bad input never
leaves a half-written record behind.

Example:
    >>> store = MemoryStore(":memory:")
    >>> note_id = store.add_note("The dentist is on Friday at 9")
    >>> [hit.record_id for hit in store.search("dentist")] == [note_id]
    True
    >>> store.close()
"""

from __future__ import annotations

import gc
import json
import os
import secrets
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import Any

import sqlite_utils
from google.protobuf import json_format

from edgeloop.v1 import agent_pb2 as pb
from sync import recall as _recall
from sync.checkpoint import WalCheckpointer, shared_checkpointer
from sync.document import KINDS, Entry, MemoryDocument, check_id
from sync.errors import InvalidRecordError, InvalidUpdateError, RecordNotFoundError
from sync.hlc import HybridLogicalClock, decode_hlc
from sync.recall import RecallHit
from sync.schema.migrations import migrate
from sync.updatelog import UpdateLog
from sync.views import (
    Embedder,
    build_row,
    epoch_s,
    iso,
    materialise,
    merged_rows,
    now_iso,
    receipt_from_data,
    step_from_data,
)

MAX_TEXT = 100_000


def _text(value: object, what: str, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise InvalidRecordError(f"{what} must be a string, not {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise InvalidRecordError(f"{what} must not be empty")
    if len(value) > MAX_TEXT:
        raise InvalidRecordError(f"{what} is longer than {MAX_TEXT} characters")
    return value


def _json_safe(value: object, what: str) -> Any:
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


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk merge.

    A merge allocates a few objects per record and no cycles; with the collector on, its
    full passes over the (large) document index cost about a fifth of a 100k-record merge.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class MemoryStore:
    """A replica's memory: notes, timers, device state, facts, sessions, steps, receipts,
    pending cloud queries, transitions, idempotency keys; recall; CRDT sync.

    Implements the kernel's ``IdempotencyStore`` (``get``/``put``) and ``SessionStore``
    (``save_session``/``load_session``/``append_steps``).

    Args:
        path: the SQLite file (created with its folder if missing), or ``":memory:"``.
        embedder: text -> vector, used to embed searchable texts and queries (optional).
        node_id: this replica's id in the CRDT document (only used when the file is
            new; a random one otherwise). No ``|``.
        now_ms: the physical clock in milliseconds, for tests.
        compact_every: compact the update log on open when it holds more entries.
        synchronous: SQLite's ``synchronous`` pragma; ``FULL`` survives power loss, and
            ``NORMAL`` (still safe against a killed process) is faster.
        mmap_size: bytes of the file SQLite reads through a memory map (``PRAGMA
            mmap_size``; SQLite caps it, at 2 GiB in common builds; 0 turns it off).
            Recall reads a few dozen rows at random per query; through the map that is
            a page-table hit instead of a ``read`` system call and a copy.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        embedder: Embedder | None = None,
        node_id: str | None = None,
        now_ms: Callable[[], int] | None = None,
        compact_every: int = 2_000,
        synchronous: str = "FULL",
        mmap_size: int = 2 << 30,
    ) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        if synchronous.upper() not in ("OFF", "NORMAL", "FULL", "EXTRA"):
            raise ValueError(f"bad synchronous mode: {synchronous!r}")
        self.embedder = embedder
        self._lock = threading.RLock()
        conn = sqlite3.connect(self.path, check_same_thread=False)
        self.db = sqlite_utils.Database(conn)
        if self.path != ":memory:":
            self.db.enable_wal()
        self.db.execute(f"PRAGMA synchronous = {synchronous.upper()}")
        self.db.execute("PRAGMA busy_timeout = 5000")
        # 64 MiB of page cache: bulk merges touch the B-trees and the FTS index at random.
        self.db.execute("PRAGMA cache_size = -65536")
        if self.path != ":memory:":
            self.db.execute(f"PRAGMA mmap_size = {max(int(mmap_size), 0)}")
        migrate(self.db)
        self._checkpointer: WalCheckpointer | None = None
        if self.path != ":memory:":
            # Checkpoints run on the process's checkpoint thread, not inside the COMMIT
            # that crosses SQLite's threshold (sync.checkpoint).
            self.db.execute("PRAGMA wal_autocheckpoint = 0")
            self._checkpointer = shared_checkpointer()
        self.node_id = self._init_node_id(node_id)
        self.clock = HybridLogicalClock(now_ms)
        high = self._meta("hlc_high")
        if high:
            self.clock.observe(high)
        self._log = UpdateLog(self.db)
        self._captured: list[bytes] = []
        self._depth = 0
        self._dirty = False
        self._version = 0
        self._note_vectors = _recall.NoteVectors()
        self._term_stats = _recall.TermStats()
        self.doc = self._load_document()
        if len(self._log) > compact_every:
            self.compact()

    # ---- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self.doc.close()
            if self._checkpointer is not None:
                self._checkpointer.forget(self.path)
            self.db.close()

    def __enter__(self) -> MemoryStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of a read, taken under the store's lock (one connection, many threads)."""
        with self._lock:
            return self.db.execute(sql, list(params)).fetchall()

    def _meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [key, value],
        )

    def _init_node_id(self, wanted: str | None) -> str:
        stored = self._meta("node_id")
        if stored:
            return stored
        node = check_id(wanted or uuid.uuid4().hex[:12], "node id")
        with self.db.atomic():
            self._set_meta("node_id", node)
        return node

    def _load_document(self) -> MemoryDocument:
        doc = MemoryDocument(self.node_id, on_update=self._captured.append)
        try:
            with self.db.atomic():  # one consistent read of snapshot + log
                self._head = self._log.head()
                doc.load(self._log.replay())
                self._data_version = self._read_data_version()
        except Exception:
            doc.close()
            raise
        return doc

    def _read_data_version(self) -> int:
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def _catch_up(self) -> None:
        """Reload the document if another connection to the same file wrote to it."""
        if self._depth or self.path == ":memory:":
            return
        version = self._read_data_version()
        if version != self._data_version:
            self._data_version = version
            if self._log.head() != self._head:
                self.doc.close()
                self.doc = self._load_document()

    @contextmanager
    def _immediate(self) -> Iterator[None]:
        """A write transaction that holds the database's write lock from the start, so
        no other connection can append to the log between our look at it and our write."""
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")
            if self._checkpointer is not None:
                self._checkpointer.notify(self.path)

    def _sync_with_log(self) -> None:
        """Inside a write transaction: reload the document if another connection to the
        same file appended to the log since we last read it."""
        if self.path != ":memory:" and self._log.head() != self._head:
            self._reload()

    def _reload(self) -> None:
        self.doc.close()
        self._captured.clear()
        self.doc = self._load_document()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """One SQLite transaction around document changes and their log entries."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._depth = 1
            self._captured.clear()
            self._dirty = False
            try:
                with self._immediate():
                    self._sync_with_log()
                    yield
                    if self._captured:
                        self._log.append(self._captured)
                        self._set_meta("hlc_high", self.clock.last())
                        self._head = self._log.head()
            except BaseException:
                if self._dirty or self._captured:
                    self._reload()
                raise
            finally:
                self._version += 1
                self._captured.clear()
                self._depth = 0
                self._dirty = False

    @contextmanager
    def batch(self) -> Iterator[MemoryStore]:
        """Group many writes into one transaction and one CRDT update (all or nothing).

        Example:
            >>> store = MemoryStore(":memory:")
            >>> with store.batch():
            ...     ids = [store.add_note(text) for text in ("milk", "eggs")]
            >>> len(store.notes())
            2
        """
        with self._transaction(), self.doc.doc.transaction():
            yield self

    def search_index_matches(self) -> bool:
        """True if the full-text index holds exactly the texts of the recall rows.

        Compares FTS5's term counts with those of an index rebuilt from the rows, inside
        a savepoint that is rolled back (SQLite 3.40's ``integrity-check`` does not compare
        an external-content index with its content). Costs a rebuild: a check for tests
        and repairs, not for every query.
        """
        vocab = "SELECT term, doc, cnt FROM recall_vocab ORDER BY term"
        with self._lock:
            conn = self.db.conn
            current = conn.execute(vocab).fetchall()
            conn.execute("SAVEPOINT search_index_check")
            try:
                conn.execute("INSERT INTO recall_fts (recall_fts) VALUES ('rebuild')")
                rebuilt = conn.execute(vocab).fetchall()
            finally:
                conn.execute("ROLLBACK TO search_index_check")
                conn.execute("RELEASE search_index_check")
        return bool(current == rebuilt)

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file now, and empty the log.

        Checkpoints otherwise run in the background after writes (sync.checkpoint);
        call this before copying the file, or to finish a bulk import's checkpoint
        before timing something else.
        """
        if self.path == ":memory:":
            return
        with self._lock:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def compact(self) -> None:
        """Write a snapshot of the document and trim the update log, and merge the FTS5
        index into one segment (all in one transaction).

        FTS5 adds a segment per transaction and merges them only a few at a time; a
        query looks each term up in every segment, so a store filled by many small
        transactions answers recall 2-3x slower than one merged index. The merge costs
        about as much as the snapshot (both are proportional to the store), and runs at
        the same moments: on open when the log is long, or when called.
        """
        with self._lock:
            if self._depth:
                raise RuntimeError("cannot compact inside a transaction")
            with self._immediate():
                self._sync_with_log()
                self._log.compact(self.doc.full_update())
                self.db.execute("INSERT INTO recall_fts (recall_fts) VALUES ('optimize')")

    def log_length(self) -> int:
        """Entries in the update log since the last snapshot."""
        with self._lock:
            return len(self._log)

    # ---- generic records -----------------------------------------------------------

    def put_record(self, kind: str, record_id: str, data: Mapping[str, Any]) -> str:
        """Write a record (validated against its table) and return its id."""
        self.put_records(kind, {record_id: data})
        return record_id

    def put_records(self, kind: str, records: Mapping[str, Mapping[str, Any]]) -> None:
        """Write many records of one kind in one transaction (all validated first)."""
        self._check_kind(kind)
        prepared = []
        for record_id, data in records.items():
            check_id(record_id)
            clean = _json_safe(dict(data), "record")
            row = build_row(kind, record_id, Entry("0" * 16, self.node_id, clean))
            prepared.append((record_id, clean, row))
        with self._transaction(), self.doc.doc.transaction():
            self._dirty = True
            changes: list[tuple[str, tuple[Any, ...] | None]] = []
            for record_id, clean, row in prepared:
                hlc = self.clock.now()
                self.doc.put(kind, record_id, hlc, clean)
                changes.append((record_id, None if row is None else (record_id, hlc, *row[2:])))
            materialise(self.db.conn, kind, changes, self.embedder)

    def forget(self, kind: str, record_id: str) -> None:
        """Delete a record everywhere: a tombstone that wins over every older edit.

        Raises:
            RecordNotFoundError: no live record with that id.
        """
        self._check_kind(kind)
        if self.get_record(kind, record_id) is None:
            raise RecordNotFoundError(f"no {kind} record {record_id!r}")
        with self._transaction():
            self._dirty = True
            self.doc.put(kind, record_id, self.clock.now(), None)
            materialise(self.db.conn, kind, [(record_id, None)], self.embedder)

    def get_record(self, kind: str, record_id: str) -> dict[str, Any] | None:
        """A record's current data (None if absent or deleted)."""
        self._check_kind(kind)
        with self._lock:
            self._catch_up()
            entry = self.doc.winner(kind, record_id)
        return None if entry is None or entry.data is None else dict(entry.data)

    def records(self, kind: str) -> dict[str, dict[str, Any]]:
        """Every live record of a kind, by id."""
        self._check_kind(kind)
        with self._lock:
            self._catch_up()
            out = {}
            for record_id in self.doc.record_ids(kind):
                entry = self.doc.winner(kind, record_id)
                if entry is not None and entry.data is not None:
                    out[record_id] = dict(entry.data)
            return out

    def table_rows(self, kind: str) -> list[dict[str, Any]]:
        """The SQLite view of a kind, ordered by id (for checks and tools)."""
        self._check_kind(kind)
        with self._lock:
            return list(self.db.table(kind).rows_where(order_by="id"))

    @staticmethod
    def _check_kind(kind: str) -> None:
        if kind not in KINDS:
            raise InvalidRecordError(f"unknown record kind {kind!r}")

    # ---- notes ---------------------------------------------------------------------

    def add_note(self, text: str, *, source_act_id: str | None = None) -> str:
        """Store a note; return its id."""
        note_id = new_record_id()
        data = {
            "text": _text(text, "note text"),
            "source_act_id": source_act_id,
            "created_at": record_time(note_id),
        }
        return self.put_record("notes", note_id, data)

    def update_note(self, note_id: str, text: str) -> None:
        """Replace a note's text."""
        data = self.get_record("notes", note_id)
        if data is None:
            raise RecordNotFoundError(f"no note {note_id!r}")
        data["text"] = _text(text, "note text")
        self.put_record("notes", note_id, data)

    def delete_note(self, note_id: str) -> None:
        """Forget a note (everywhere, once synced)."""
        self.forget("notes", note_id)

    def notes(self) -> list[dict[str, Any]]:
        """Every note, oldest first: ``note_id``, ``text``, ``source_act_id``, ``created_at``."""
        rows = self._query(
            "SELECT id, text, source_act_id, created_at FROM notes ORDER BY created_at, id"
        )
        return [
            {"note_id": r[0], "text": r[1], "source_act_id": r[2], "created_at": r[3]} for r in rows
        ]

    # ---- recall --------------------------------------------------------------------

    def search(self, query: str, limit: int = 5) -> list[RecallHit]:
        """Search notes, step contents, final answers and facts (see ``sync.recall``)."""
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        with self._lock:
            return _recall.search(
                self.db.conn,
                query,
                limit=limit,
                embedder=self.embedder,
                note_vectors=self._note_vectors,
                term_stats=self._term_stats,
                version=self._version,
            )

    # ---- timers --------------------------------------------------------------------

    def add_timer(self, seconds: int, label: str = "") -> dict[str, Any]:
        """Start a timer; return ``timer_id``, ``fires_at`` (ISO-8601 UTC), ``seconds``,
        ``label``."""
        if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds <= 0:
            raise InvalidRecordError(f"seconds must be an integer > 0, not {seconds!r}")
        if seconds > 366 * 86_400:
            raise InvalidRecordError("a timer may last at most a year")
        now = datetime.now(UTC)
        timer = {
            "seconds": seconds,
            "label": _text(label, "label", allow_empty=True),
            "fires_at": iso(now + timedelta(seconds=seconds)),
            "created_at": iso(now),
        }
        timer_id = self.put_record("timers", uuid.uuid4().hex, timer)
        return {"timer_id": timer_id, **timer}

    def timers(self, *, active_only: bool = False) -> list[dict[str, Any]]:
        """Timers by firing time; with ``active_only`` those that have not fired yet."""
        sql = "SELECT id, seconds, label, fires_at, created_at FROM timers"
        params: list[Any] = []
        if active_only:
            sql += " WHERE fires_at > ?"
            params.append(now_iso())
        rows = self._query(sql + " ORDER BY fires_at, id", params)
        keys = ("timer_id", "seconds", "label", "fires_at", "created_at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    # ---- device state --------------------------------------------------------------

    @staticmethod
    def _device_id(device: str, room: str | None) -> str:
        _text(device, "device")
        if room is not None:
            _text(room, "room", allow_empty=True)
        return check_id(f"{device.strip().lower()}@{(room or '').strip().lower()}", "device")

    def set_device_state(
        self, device: str, room: str | None, state: dict[str, Any]
    ) -> dict[str, Any]:
        """Merge ``state`` into the device's state; return ``device``, ``room``, ``state``,
        ``updated_at``."""
        record_id = self._device_id(device, room)
        if not isinstance(state, dict):
            raise InvalidRecordError("state must be an object")
        with self._lock:
            previous = self.get_record("device_state", record_id)
            merged = {**(previous or {}).get("state", {}), **_json_safe(state, "state")}
            data = {
                "device": device.strip().lower(),
                "room": room.strip().lower() if room else None,
                "state": merged,
                "updated_at": now_iso(),
            }
            self.put_record("device_state", record_id, data)
        return data

    def get_device_state(self, device: str, room: str | None = None) -> dict[str, Any] | None:
        """The device's state dict, or None if never set."""
        data = self.get_record("device_state", self._device_id(device, room))
        return None if data is None else dict(data["state"])

    # ---- facts ---------------------------------------------------------------------

    def add_fact(
        self,
        entity: str,
        attribute: str,
        value: Any,
        *,
        source_act_id: str | None = None,
        confidence: float = 1.0,
    ) -> str:
        """Set ``entity.attribute = value`` (one fact per pair); return the fact id."""
        _text(entity, "entity")
        _text(attribute, "attribute")
        if not 0.0 <= float(confidence) <= 1.0:
            raise InvalidRecordError("confidence must be within 0..1")
        fact_id = check_id(f"{entity.strip().lower()}/{attribute.strip().lower()}", "fact")
        data = {
            "entity": entity.strip(),
            "attribute": attribute.strip(),
            "value": _json_safe(value, "value"),
            "source_act_id": source_act_id,
            "confidence": float(confidence),
            "created_at": now_iso(),
        }
        return self.put_record("facts", fact_id, data)

    def facts(self, entity: str | None = None) -> list[dict[str, Any]]:
        """Facts (of one entity, or all)."""
        out = []
        for fact_id, data in sorted(self.records("facts").items()):
            if entity is None or data["entity"].lower() == entity.strip().lower():
                out.append({"fact_id": fact_id, **data})
        return out

    # ---- pending cloud queries -----------------------------------------------------

    def add_pending(self, query: str, session_id: str) -> str:
        """Record a query the cloud must answer later; return its id."""
        data = {
            "query": _text(query, "query"),
            "session_id": _text(session_id, "session id", allow_empty=True),
            "status": "pending",
            "answer": None,
            "created_at": now_iso(),
            "resolved_at": None,
        }
        return self.put_record("pending", uuid.uuid4().hex, data)

    def pending(self) -> list[dict[str, Any]]:
        """Unresolved queries, oldest first: ``pending_id``, ``query``, ``session_id``,
        ``created_at``."""
        rows = self._query(
            "SELECT id, query, session_id, created_at FROM pending WHERE status = 'pending'"
            " ORDER BY created_at, id"
        )
        keys = ("pending_id", "query", "session_id", "created_at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def resolve_pending(self, pending_id: str, answer: str) -> None:
        """Mark a pending query answered.

        Raises:
            RecordNotFoundError: no such pending query.
        """
        with self._lock:
            data = self.get_record("pending", pending_id)
            if data is None:
                raise RecordNotFoundError(f"no pending query {pending_id!r}")
            data.update(status="resolved", answer=_text(answer, "answer"), resolved_at=now_iso())
            self.put_record("pending", pending_id, data)

    def get_pending(self, pending_id: str) -> dict[str, Any] | None:
        """A pending query's record (resolved or not)."""
        return self.get_record("pending", pending_id)

    # ---- sessions, steps, receipts, transitions ------------------------------------

    def record_session(
        self,
        session_id: str,
        *,
        query: str | None = None,
        final_answer: str | None = None,
        success: bool | None = None,
        state: str | None = None,
        device_id: str | None = None,
        created_at: str | None = None,
    ) -> None:
        """Create or update a session's summary; fields left None keep their value."""
        check_id(session_id, "session id")
        with self._lock:
            data = self.get_record("sessions", session_id) or {
                "device_id": "",
                "created_at": now_iso(),
                "query": "",
                "final_answer": None,
                "success": None,
                "state": "",
                "data": None,
            }
            updates = {
                "query": query,
                "final_answer": final_answer,
                "success": success,
                "state": state,
                "device_id": device_id,
                "created_at": created_at,
            }
            for key, value in updates.items():
                if value is not None:
                    data[key] = value
            if created_at is not None:
                epoch_s(created_at)
            self.put_record("sessions", session_id, data)

    def get_session(self, session_id: str) -> dict[str, Any] | None:
        """A session's summary record."""
        return self.get_record("sessions", session_id)

    def save_session(self, session_id: str, data: str) -> None:
        """SessionStore: keep the kernel's serialised session."""
        _text(data, "session data", allow_empty=True)
        check_id(session_id, "session id")
        with self._lock:
            record = self.get_record("sessions", session_id)
            if record is None:
                self.record_session(session_id)
                record = self.get_record("sessions", session_id) or {}
            record["data"] = data
            self.put_record("sessions", session_id, record)

    def load_session(self, session_id: str) -> str | None:
        """SessionStore: the serialised session, or None."""
        record = self.get_record("sessions", session_id)
        return None if record is None else record.get("data")

    def save_steps(self, session_id: str, steps: Iterable[pb.ReactStep]) -> list[str]:
        """Store steps of a session (re-saving a step replaces it); return their ids."""
        check_id(session_id, "session id")
        prepared = []
        for step in steps:
            if not isinstance(step, pb.ReactStep):
                raise InvalidRecordError(f"not a ReactStep: {type(step).__name__}")
            if step.session_id and step.session_id != session_id:
                raise InvalidRecordError("step belongs to another session")
            created = (
                iso(step.created_at.ToDatetime(UTC)) if step.HasField("created_at") else now_iso()
            )
            step_id = (
                f"{session_id}:{step.turn_id:04d}:{step.step_index:05d}:"
                f"{int(step.step_type)}:{step.act_id}"
            )
            data = {"step": json_format.MessageToDict(step), "created_at": created}
            prepared.append((step_id, data))
        self.put_records("steps", dict(prepared))
        return [step_id for step_id, _ in prepared]

    def append_steps(self, session_id: str, steps: Iterable[pb.ReactStep]) -> None:
        """SessionStore: same as :meth:`save_steps`."""
        self.save_steps(session_id, steps)

    def steps(self, session_id: str) -> list[pb.ReactStep]:
        """A session's steps in order."""
        rows = self._query(
            "SELECT pb FROM steps WHERE session_id = ? ORDER BY turn_id, step_index, id",
            [session_id],
        )
        return [pb.ReactStep.FromString(r[0]) for r in rows]

    def save_receipt(self, receipt: pb.DecisionReceipt) -> str:
        """Store a decision receipt; return its id."""
        if not isinstance(receipt, pb.DecisionReceipt) or not receipt.receipt_id:
            raise InvalidRecordError("a DecisionReceipt with a receipt_id is required")
        created = (
            iso(receipt.created_at.ToDatetime(UTC)) if receipt.HasField("created_at") else now_iso()
        )
        data = {"receipt": json_format.MessageToDict(receipt), "created_at": created}
        return self.put_record("receipts", receipt.receipt_id, data)

    def get_receipt(self, receipt_id: str) -> pb.DecisionReceipt | None:
        """A stored receipt."""
        data = self.get_record("receipts", receipt_id)
        return None if data is None else receipt_from_data(data)

    def record_transition(
        self,
        session_id: str,
        from_state: str,
        to_state: str,
        *,
        duration_ms: float = 0.0,
        input_sha256: str = "",
        at: str | None = None,
    ) -> str:
        """Append one state transition of a session; return its id."""
        data = {
            "session_id": check_id(session_id, "session id"),
            "from_state": str(from_state),
            "to_state": str(to_state),
            "duration_ms": float(duration_ms),
            "input_sha256": str(input_sha256),
            "at": at or now_iso(),
        }
        return self.put_record("transitions", new_record_id(), data)

    def transitions(self, session_id: str) -> list[dict[str, Any]]:
        """A session's transitions in time order."""
        with self._lock:
            return [
                dict(r)
                for r in self.db.table("transitions").rows_where(
                    "session_id = ?", [session_id], order_by="at, id"
                )
            ]

    def step_record(self, step_id: str) -> pb.ReactStep | None:
        """One stored step by its id."""
        data = self.get_record("steps", step_id)
        return None if data is None else step_from_data(data)

    # ---- idempotency (kernel's IdempotencyStore; local to this replica) -------------

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored result of an idempotent call, or None."""
        rows = self._query("SELECT result FROM idempotency WHERE key = ?", [key])
        return None if not rows else dict(json.loads(rows[0][0]))

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Remember the result of an idempotent call."""
        _text(key, "idempotency key")
        if not isinstance(result, dict):
            raise InvalidRecordError("result must be a dict")
        payload = json.dumps(_json_safe(result, "result"), sort_keys=True)
        with self._lock, self.db.atomic():
            self.db.execute(
                "INSERT INTO idempotency (key, result, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT (key) DO UPDATE SET result = excluded.result",
                [key, payload, now_iso()],
            )

    # ---- sync ----------------------------------------------------------------------

    def state_vector(self) -> bytes:
        """The document's Yjs state vector."""
        with self._lock:
            self._catch_up()
            return self.doc.state_vector()

    def diff(self, state_vector: bytes) -> bytes:
        """The update a peer with ``state_vector`` lacks.

        Raises:
            InvalidUpdateError: the state vector is malformed.
        """
        with self._lock:
            self._catch_up()
            return self.doc.diff(state_vector)

    def apply_update(self, update: bytes) -> bool:
        """Merge a peer's update into the document and the tables; True if anything changed.

        Raises:
            InvalidUpdateError: malformed or not our records; the store is unchanged.
        """
        if not isinstance(update, bytes | bytearray | memoryview):
            raise InvalidUpdateError("an update is bytes")
        with self._transaction(), _gc_paused():
            self._dirty = True
            touched = self.doc.apply_remote(bytes(update))
            highest = ""
            for kind in KINDS:
                created = touched.created.get(kind, [])
                winners = touched.winners.get(kind, {})
                if not created and not winners:
                    continue
                new_rows, changes, latest = merged_rows(kind, created, winners)
                highest = max(highest, latest)
                materialise(
                    self.db.conn,
                    kind,
                    changes,
                    self.embedder,
                    new=touched.new.get(kind),
                    new_rows=new_rows,
                )
            if highest:
                decode_hlc(highest)
                self.clock.observe(highest)
            changed = bool(self._captured)
        return changed

    def document_json(self) -> dict[str, dict[str, str]]:
        """The document as plain data (tests compare replicas with it)."""
        with self._lock:
            self._catch_up()
            return self.doc.to_py()
