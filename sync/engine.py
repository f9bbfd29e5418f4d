"""The storage engine of a replica: SQLite + the CRDT document + the update log.

:class:`StoreEngine` knows nothing of what a note or a step is: it keeps generic
records of the kinds in ``sync.document.KINDS`` (validated into their table rows by
``sync.views``), runs every write through one transaction, and merges peers' updates.
The record kinds' own methods live in ``sync.records`` and the kernel's stores in
``sync.kernel_stores``; ``sync.store.MemoryStore`` is all three.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import sqlite_utils

from sync import recall as _recall
from sync.checkpoint import WalCheckpointer, shared_checkpointer
from sync.document import KINDS, Entry, MemoryDocument, check_id
from sync.errors import InvalidRecordError, InvalidUpdateError, RecordNotFoundError
from sync.hlc import HybridLogicalClock, decode_hlc
from sync.ids import json_safe
from sync.recall import RecallHit
from sync.schema.migrations import migrate
from sync.updatelog import UpdateLog
from sync.views import Embedder, build_row, materialise, merged_rows


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


class StoreEngine:
    """One replica's storage: generic records in SQLite views of a CRDT document, the
    crash-safe update log, recall, and the sync primitives (state vector, diff, merge).

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

    def __enter__(self) -> Self:
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
    def batch(self) -> Iterator[Self]:
        """Group many writes into one transaction and one CRDT update (all or nothing).

        Example:
            >>> store = StoreEngine(":memory:")
            >>> with store.batch():
            ...     for key in ("light@kitchen", "light@hall"):
            ...         _ = store.put_record("device_state", key, {"device": "light",
            ...             "room": key[6:], "state": {}, "updated_at": "2026-01-01T00:00:00Z"})
            >>> len(store.records("device_state"))
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
            clean = json_safe(dict(data), "record")
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
