"""The storage engine of a replica: SQLite + the CRDT document + the update log.

:class:`StoreEngine` knows nothing of what a note or a step is: it keeps generic
records of the kinds in ``sync.document.KINDS`` (validated into their table rows by
``sync.views``), runs every write through one transaction, and merges peers' updates.
The record kinds' own methods live in ``sync.records`` and the kernel's stores in
``sync.kernel_stores``; ``sync.store.MemoryStore`` is all three.
"""

from __future__ import annotations

import gc
import itertools
import json
import os
import secrets
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from types import TracebackType
from typing import Any, Self

import sqlite_utils
from pycrdt import get_update, merge_updates

from sync import recall as _recall
from sync.checkpoint import WalCheckpointer, shared_checkpointer
from sync.document import (
    KINDS,
    SEPARATOR,
    SYS_MAP,
    Entry,
    MemoryDocument,
    check_id,
    decode_entry_of,
    decode_state_vector,
    encode_entry,
    encode_state_vector,
)
from sync.entry_update import MapSet, deleted_ranges, encode_map_sets, join_plain
from sync.errors import InvalidRecordError, InvalidUpdateError, RecordNotFoundError
from sync.hlc import HybridLogicalClock, decode_hlc
from sync.ids import json_safe
from sync.private import private_database
from sync.recall import RecallHit
from sync.retention import HISTORY_TIME, RETIRE_EVERY_S
from sync.schema.migrations import migrate
from sync.update_reader import read_map_update
from sync.updatelog import FORGETS, PLAIN, UpdateLog
from sync.views import (
    COLUMNS,
    DATA_BUILDERS,
    Embedder,
    build_row,
    epoch_s,
    iso_ms,
    materialise,
    merged_rows,
)


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


EMPTY_UPDATE = b"\x00\x00"
"""A Yjs v1 update with no structs and no deletions."""
MAX_LOG_DIFF_ENTRIES = 2_000
"""Beyond this many log entries a diff comes from the whole document instead."""
LOG_DIFF_BYTES = 1 << 20
"""With the document in memory, a diff of more log bytes than this comes from it."""


def _delete_set(update: bytes, clients: Mapping[int, int]) -> dict[int, list[tuple[int, int]]]:
    """The update's delete set (``clients``: the update's state vector, so that the
    delete set can be cut out of it without its structs)."""
    everything = encode_state_vector({client: 1 << 53 for client in clients})
    return deleted_ranges(get_update(update, everything))


def _deletes_outside(
    deleted: Mapping[int, Sequence[tuple[int, int]]], ranges: Mapping[int, tuple[int, int]]
) -> bool:
    """True if a delete set removes items the update does not bring itself."""
    for client, spans in deleted.items():
        first, end = ranges.get(client, (0, 0))
        if any(start < first or start + length > end for start, length in spans):
            return True
    return False


_ROOTS = frozenset((*KINDS, SYS_MAP))
MergePlan = tuple[str, list[tuple[str, str, object]], dict[str, Entry | None], set[str]]
"""Per kind: records new here (id, node, stored value), winners of the others, the
winners' ids with no row yet."""


class StoreEngine:
    """One replica's storage: generic records in SQLite views of a CRDT document, the
    crash-safe update log, recall, and the sync primitives (state vector, diff, merge).

    Args:
        path: the SQLite file (created with its folder if missing), or ``":memory:"``.
        embedder: text -> vector, used to embed searchable texts and queries (optional).
        node_id: this replica's id in the CRDT document (only used when the file is
            new; a random one otherwise). No ``|``.
        now_ms: the physical clock in milliseconds, for tests.
        compact_every: compact the update log when the document is loaded and the log
            holds more entries.
        synchronous: SQLite's ``synchronous`` pragma; ``FULL`` survives power loss, and
            ``NORMAL`` (still safe against a killed process) is faster.
        mmap_size: bytes of the file SQLite reads through a memory map (``PRAGMA
            mmap_size``; SQLite caps it, at 2 GiB in common builds; 0 turns it off).
            Recall reads a few dozen rows at random per query; through the map that is
            a page-table hit instead of a ``read`` system call and a copy.
        history_days: sessions, steps, receipts and transitions older than this leave
            the synced document (their rows stay: ``sync.retention``); None keeps them.
        tombstone_days: tombstones older than this are collected; None keeps them.
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
        history_days: float | None = None,
        tombstone_days: float | None = None,
    ) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            private_database(self.path)  # 0600 file, 0700 folder when created here
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
        self._plain = 0  # how many of the captured updates are plain (sync.entry_update)
        self._forgot = False  # the transaction wrote or merged a tombstone
        self._merged: dict[int, int] = {}  # Yjs clocks a merge without the document brought
        self._depth = 0
        self._dirty = False
        self._version = 0
        self._note_vectors = _recall.NoteVectors()
        self._term_stats = _recall.TermStats()
        self._compact_every = compact_every
        self.history_days = history_days
        self.tombstone_days = tombstone_days
        # The whole document is loaded on first need (a merge that needs it, a forget, a
        # snapshot), never at open: reads go to the SQLite views, and writes are encoded
        # without any document (sync.entry_update), as this Yjs client, clock by clock:
        # a record this replica never wrote is a new map key (no origin to refer to), an
        # edit of one it wrote replaces its own item (``own_items``). Nothing written
        # stays in memory after its transaction.
        self._doc: MemoryDocument | None = None
        self._edit_client = secrets.randbits(31) + 1
        self._edit_clock = 0
        self._own_items_complete = self._meta("own_items") == "complete"
        self._head = self._log.head()
        if self._head < 0 and self._meta("state_vector") is None:
            with self.db.atomic():  # a new store: its state vector is known, and empty
                self._set_meta("state_vector", encode_state_vector({}).hex())
        self._data_version = self._read_data_version()

    # ---- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            if self._doc is not None:
                self._doc.close()
            self._doc = None
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

    @property
    def doc(self) -> MemoryDocument:
        """The whole CRDT document, loaded from snapshot + log on first use.

        Loading costs time and memory in proportion to the document, so only merges,
        snapshots and edits of records this replica already wrote need it. Inside a
        transaction, the updates captured so far (encoded without the document, not
        yet logged) are applied too.
        """
        with self._lock:
            if self._doc is None:
                self._doc = self._load_document(list(self._captured))
                if not self._depth and not self.db.conn.in_transaction:
                    # Upkeep that needs the whole document, done now that it is loaded.
                    if self._retire_due():
                        self.retire()
                    if len(self._log) > self._compact_every:
                        self.compact()
            return self._doc

    @property
    def document_loaded(self) -> bool:
        """True once the whole CRDT document is in memory (see :attr:`doc`)."""
        return self._doc is not None

    def _load_document(self, uncommitted: Sequence[bytes] = ()) -> MemoryDocument:
        doc = MemoryDocument(self.node_id, on_update=self._captured.append)
        try:
            with self.db.atomic():  # one consistent read of snapshot + log
                self._head = self._log.head()
                doc.load(itertools.chain(self._log.replay(), uncommitted))
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
                self._forget_document()

    def _forget_document(self) -> None:
        """Drop the in-memory document (reloaded from disk on next need)."""
        if self._doc is not None:
            self._doc.close()
            self._doc = None

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
        """Forget every in-memory change: the next use loads the document from disk."""
        self._captured.clear()
        self._plain = 0
        self._forget_document()

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
            self._plain = 0
            self._dirty = False
            edit_clock = self._edit_clock
            try:
                with self._immediate():
                    self._sync_with_log()
                    yield
                    if self._captured:
                        self._log_captured()
                        self._set_meta("hlc_high", self.clock.last())
                        self._head = self._log.head()
            except BaseException:
                # Clocks of the edit client used by the rolled-back update are free again:
                # a gap would leave every later edit pending in the peers' documents.
                self._edit_clock = edit_clock
                if self._dirty or self._captured:
                    self._reload()
                raise
            finally:
                self._version += 1
                self._captured.clear()
                self._plain = 0
                self._merged = {}
                self._depth = 0
                self._dirty = False
                self._forgot = False

    def _log_captured(self) -> None:
        """Append what this transaction changed as one log entry, with the Yjs clock
        ranges it brought, and keep the state vector of snapshot + log in ``meta``."""
        captured = self._captured
        # Only new records written without the document (one Yjs client, consecutive
        # clocks): their updates are laid end to end, and the entry is marked plain, so
        # that a first sync's diff joins such entries the same way.
        plain = self._plain == len(captured)
        joined = join_plain(captured) if plain and len(captured) > 1 else None
        if len(captured) == 1:
            update = captured[0]
        else:
            update = joined if joined is not None else merge_updates(*captured)
            plain = joined is not None
        before = self._stored_state()
        if self._doc is not None:
            after: dict[int, int] | None = decode_state_vector(self._doc.state_vector())
        elif before is not None:
            after = dict(before)
            if self._edit_clock:
                edits = after.get(self._edit_client, 0)
                after[self._edit_client] = max(edits, self._edit_clock)
            for client, clock in self._merged.items():
                after[client] = max(after.get(client, 0), clock)
        else:
            after = None
        clocks: dict[int, tuple[int, int]] = {}
        if before is not None and after is not None:
            clocks = {
                client: (before.get(client, 0), end)
                for client, end in after.items()
                if end > before.get(client, 0)
            }
        if self._forgot:
            clocks[FORGETS] = (0, 0)
        if plain:
            clocks[PLAIN] = (0, 0)
        self._log.append_one(update, clocks)
        if after is None:
            self.db.execute("DELETE FROM meta WHERE key = 'state_vector'")
        else:
            self._set_meta("state_vector", encode_state_vector(after).hex())

    def _stored_state(self) -> dict[int, int] | None:
        """The state vector of snapshot + log as last recorded (None: not known yet)."""
        stored = self._meta("state_vector")
        return None if stored is None else decode_state_vector(bytes.fromhex(stored))

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
        with self._transaction():
            if self._doc is None:  # writes are merged into one update at commit
                yield self
            else:
                with self._doc.doc.transaction():
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
        the same moments: when the document is loaded and the log is long, or when
        called.
        """
        with self._lock:
            if self._depth:
                raise RuntimeError("cannot compact inside a transaction")
            with self._immediate():
                self._sync_with_log()
                self._log.compact(self.doc.full_update())
                self.db.execute("INSERT INTO recall_fts (recall_fts) VALUES ('optimize')")

    def _retire_due(self) -> bool:
        if self.history_days is None and self.tombstone_days is None:
            return False
        last = self._meta("retired_at")
        return last is None or time.time() - epoch_s(last) >= RETIRE_EVERY_S

    def retire(
        self, *, history_days: float | None = None, tombstone_days: float | None = None
    ) -> dict[str, int]:
        """Take old history and old tombstones out of the CRDT document (``sync.retention``);
        return how many records of each kind left it.

        History rows stay in the tables (archived: still found by recall); the removals
        reach the other replicas at the next sync. Defaults: the store's horizons. Runs
        by itself at most once a day, when the document is loaded anyway.
        """
        history = self.history_days if history_days is None else history_days
        tombs = self.tombstone_days if tombstone_days is None else tombstone_days
        counts: dict[str, int] = {}
        now_ms = self.clock.physical_ms()
        with self._lock:
            if self._depth:
                raise RuntimeError("cannot retire inside a transaction")
            with self._transaction():
                doc = self.doc
                self._dirty = True
                if history is not None:
                    cutoff = iso_ms(now_ms - int(history * 86_400_000))
                    for kind, column in HISTORY_TIME.items():
                        rows = self.db.execute(
                            f"SELECT id FROM {kind} WHERE {column} != '' AND {column} < ?",
                            [cutoff],
                        )
                        ids = [r for (r,) in rows if doc.holds(kind, r)]
                        if ids:
                            counts[kind] = doc.remove(kind, ids)
                if tombs is not None:
                    oldest = f"{max(now_ms - int(tombs * 86_400_000), 0):012x}0000"
                    dead = self.db.execute(
                        "SELECT kind, id FROM tombstones WHERE hlc < ? ORDER BY kind", [oldest]
                    ).fetchall()
                    for kind, group in itertools.groupby(dead, key=lambda r: str(r[0])):
                        ids = [str(r[1]) for r in group]
                        counts[f"{kind} tombstones"] = doc.remove(kind, ids)
                    self.db.execute("DELETE FROM tombstones WHERE hlc < ?", [oldest])
                self._set_meta("retired_at", iso_ms(now_ms))
        return counts

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
        with self._transaction():
            doc, origins = self._writable(kind, [record_id for record_id, _, _ in prepared])
            self._dirty = True
            changes: list[tuple[str, tuple[Any, ...] | None]] = []
            items: list[tuple[str, str, int, int]] = []
            edits: list[MapSet] = []
            with nullcontext() if doc is None else doc.doc.transaction():
                for record_id, clean, row in prepared:
                    hlc = self.clock.now()
                    if doc is not None:
                        client, clock = doc.put(kind, record_id, hlc, clean)
                    else:
                        key = f"{record_id}{SEPARATOR}{self.node_id}"
                        value = encode_entry(hlc, clean)
                        edits.append(MapSet(kind, key, value, origins.get(record_id)))
                        client, clock = self._edit_client, self._edit_clock + len(edits) - 1
                        origins[record_id] = (client, clock)  # written twice in one call
                    items.append((kind, record_id, client, clock))
                    changes.append((record_id, None if row is None else (record_id, hlc, *row[2:])))
            if edits:
                self._captured.append(encode_map_sets(self._edit_client, self._edit_clock, edits))
                self._edit_clock += len(edits)
                if all(edit.origin is None for edit in edits):
                    self._plain += 1
            self._own(items)
            self._untomb(kind, [record_id for record_id, _, _ in prepared])
            materialise(self.db.conn, kind, changes, self.embedder)

    def _writable(
        self, kind: str, record_ids: Sequence[str]
    ) -> tuple[MemoryDocument | None, dict[str, tuple[int, int]]]:
        """Where to write these records (inside a write transaction): the loaded
        document, or None and the item id of this replica's own entry of each record it
        wrote before, to encode the writes without a document.

        With the whole document loaded, everything goes there. Otherwise a record this
        replica wrote before (its item is in ``own_items``) is an edit of that item
        (``sync.entry_update``: the new item's origin is the old one, which it deletes,
        as Yjs itself would write it), and a record this replica never wrote is a new
        map key with no origin: it has no predecessor to replace, and its update is the
        same as the whole document's. (A peer's entry of such a record stays until the
        next merge that touches it: it loses to the newer one everywhere.) In a store
        whose own items are not all known (one written before schema v7), a record it
        holds a row or a tombstone of may have an entry of ours of unknown item: the
        whole document is loaded for it.
        """
        if self._doc is not None:
            return self._doc, {}
        origins = self._own_items(kind, record_ids)
        rest = [r for r in record_ids if r not in origins]
        if rest and not self._own_items_complete and self._held_here(kind, rest):
            return self.doc, {}
        return None, origins

    def _own_items(self, kind: str, record_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """The Yjs item ``(client, clock)`` of this replica's entry of each record it wrote."""
        out: dict[str, tuple[int, int]] = {}
        conn = self.db.conn
        for i in range(0, len(record_ids), 500):
            part = record_ids[i : i + 500]
            marks = ", ".join("?" for _ in part)
            sql = f"SELECT id, client, clock FROM own_items WHERE kind = ? AND id IN ({marks})"
            for record_id, client, clock in conn.execute(sql, [kind, *part]):
                out[str(record_id)] = (int(client), int(clock))
        return out

    def _own(self, items: Sequence[tuple[str, str, int, int]]) -> None:
        """Remember the items of the entries this replica just wrote."""
        self.db.conn.executemany(
            "INSERT OR REPLACE INTO own_items (kind, id, client, clock) VALUES (?, ?, ?, ?)",
            items,
        )

    def _held_here(self, kind: str, record_ids: Sequence[str]) -> bool:
        """True if this replica holds a row or a tombstone of any of the records."""
        conn = self.db.conn
        for i in range(0, len(record_ids), 500):
            part = record_ids[i : i + 500]
            marks = ", ".join("?" for _ in part)
            sql = (
                f"SELECT 1 FROM {kind} WHERE id IN ({marks}) UNION ALL"
                f" SELECT 1 FROM tombstones WHERE kind = ? AND id IN ({marks}) LIMIT 1"
            )
            if conn.execute(sql, [*part, kind, *part]).fetchone():
                return True
        return False

    def _untomb(self, kind: str, record_ids: Iterable[str]) -> None:
        """Drop records from ``tombstones`` (they have a live winner, or none left)."""
        self.db.conn.executemany(
            "DELETE FROM tombstones WHERE kind = ? AND id = ?", [(kind, r) for r in record_ids]
        )

    def _tomb(self, kind: str, record_id: str, hlc: str, node: str) -> None:
        self.db.conn.execute(
            "INSERT OR REPLACE INTO tombstones (kind, id, hlc, node) VALUES (?, ?, ?, ?)",
            [kind, record_id, hlc, node],
        )

    def forget(self, kind: str, record_id: str) -> None:
        """Delete a record everywhere: a tombstone that wins over every older edit.

        Raises:
            RecordNotFoundError: no live record with that id.
        """
        self._check_kind(kind)
        if self.get_record(kind, record_id) is None:
            raise RecordNotFoundError(f"no {kind} record {record_id!r}")
        with self._transaction():
            # The whole document: every entry of the record goes, with its content.
            doc = self.doc
            self._dirty = True
            self._forgot = True
            hlc = self.clock.now()
            client, clock = doc.put(kind, record_id, hlc, None)
            self._own([(kind, record_id, client, clock)])
            self._tomb(kind, record_id, hlc, self.node_id)
            materialise(self.db.conn, kind, [(record_id, None)], self.embedder)

    def get_record(self, kind: str, record_id: str) -> dict[str, Any] | None:
        """A record's current data (None if absent or deleted), read from its view row."""
        self._check_kind(kind)
        columns = ", ".join(COLUMNS[kind])
        rows = self._query(f"SELECT {columns} FROM {kind} WHERE id = ?", [record_id])
        return DATA_BUILDERS[kind](tuple(rows[0])) if rows else None

    def records(self, kind: str) -> dict[str, dict[str, Any]]:
        """Every live record of a kind, by id (from the SQLite view)."""
        self._check_kind(kind)
        columns = ", ".join(COLUMNS[kind])
        build = DATA_BUILDERS[kind]
        rows = self._query(f"SELECT id, {columns} FROM {kind} ORDER BY id")
        return {row[0]: build(tuple(row[1:])) for row in rows}

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
        """The document's Yjs state vector (kept in ``meta``: no need to load it)."""
        with self._lock:
            self._catch_up()
            if self._doc is None:
                stored = self._stored_state()
                if stored is not None:
                    return encode_state_vector(stored)
            vector = self.doc.state_vector()
            if self._stored_state() is None and not self._depth:
                with self._immediate():
                    if self._log.head() == self._head:
                        self._set_meta("state_vector", vector.hex())
            return vector

    def diff(self, state_vector: bytes) -> bytes:
        """The update a peer with ``state_vector`` lacks.

        Cut from the log entries that hold what the peer lacks when they are all in the
        log (the usual incremental sync: no document to load, and no walk of all its
        blocks, which yrs does for every diff of a whole document); from the whole
        document otherwise. A peer that holds every struct of an entry also holds its
        deletions (every transaction that deletes also writes: a put, or the ``_sys``
        bump of a merge or a retention pass), so the entries it lacks are enough.

        Raises:
            InvalidUpdateError: the state vector is malformed.
        """
        peer = decode_state_vector(state_vector)
        with self._lock:
            self._catch_up()
            update = self._diff_from_log(peer, state_vector)
            return self.doc.diff(state_vector) if update is None else update

    def _diff_from_log(self, peer: Mapping[int, int], state_vector: bytes) -> bytes | None:
        if self._depth:
            return None
        ours = self._stored_state()
        if ours is None:
            return None
        if self._doc is not None and decode_state_vector(self._doc.state_vector()) != ours:
            return None  # the document holds what the log does not (written around the store)
        seqs: set[int] = set()
        for client, end in ours.items():
            have = peer.get(client, 0)
            if end > have:
                covering = self._log.covering(client, have, end)
                if covering is None:
                    return None
                seqs.update(covering)
        if not seqs:
            return EMPTY_UPDATE
        # Merged log entries keep the content of entries deleted later (yrs merges
        # without collecting): a window with a tombstone goes through the document, so
        # that a forgotten record's content is never shipped again.
        if len(seqs) > MAX_LOG_DIFF_ENTRIES or self._log.forgets(seqs):
            return None
        # A large window (a first sync) is cheaper from a loaded document: merging
        # megabytes of updates costs more than yrs's walk of its blocks.
        if self._doc is not None and self._log.size(seqs) > LOG_DIFF_BYTES:
            return None
        entries = self._log.entries(seqs)
        if len(entries) == 1:
            return bytes(get_update(entries[0], state_vector))
        # The peer holds nothing of any client these entries brought (a first sync): the
        # diff is all of them merged (cutting it again costs as much as the merge), and
        # entries of new records only are merged by laying their structs end to end.
        first = not any(peer.get(client, 0) for client in self._log.clients(seqs))
        if first and self._log.plain(seqs):
            joined = join_plain(entries)
            if joined is not None:
                return joined
        merged = merge_updates(*entries)
        return bytes(merged) if first else bytes(get_update(merged, state_vector))

    def apply_update(self, update: bytes) -> bool:
        """Merge a peer's update into the document and the tables; True if anything changed.

        Raises:
            InvalidUpdateError: malformed or not our records; the store is unchanged.
        """
        if not isinstance(update, bytes | bytearray | memoryview):
            raise InvalidUpdateError("an update is bytes")
        with self._transaction(), _gc_paused():
            self._dirty = True
            # Inside a batch that already wrote, the document decides (its writes are
            # captured, and their clocks come from the documents that made them).
            alone = not self._captured
            if alone and (self._doc is None or len(update) > LOG_DIFF_BYTES):
                merged = self._merge_by_reading(bytes(update))
                if merged is not None:
                    # A large update is cheaper read than integrated: a loaded document
                    # is dropped, and rebuilt from the log when next needed.
                    self._forget_document()
                    return merged
            if alone and self._doc is None:
                merged = self._merge_without_document(bytes(update))
                if merged is not None:
                    return merged
            touched = self.doc.apply_remote(bytes(update))
            for kind, winners in touched.winners.items():
                if winners:
                    self._index_tombstones(kind, winners)
                    # A record with no entry left was taken out of the document by a
                    # replica's retention: its row stays here too (archived).
                    gone = [r for r, entry in winners.items() if entry is None]
                    for record_id in gone:
                        del winners[record_id]
            highest = ""
            for kind in KINDS:
                created = touched.created.get(kind, [])
                winners = touched.winners.get(kind, {})
                if not created and not winners:
                    continue
                tombs: list[tuple[str, str, str]] = []
                new_rows, changes, latest = merged_rows(kind, created, winners, tombs)
                for record_id, hlc, node in tombs:
                    self._tomb(kind, record_id, hlc, node)
                    self._forgot = True
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

    def _merge_without_document(self, update: bytes) -> bool | None:
        """Merge a peer's update without loading the whole document, when it stands on
        its own; None when it does not (the caller merges it into the document).

        The update is integrated into an empty *probe* document. It stands on its own
        when all of it integrates there: every Yjs client in it starts at clock 0 (a
        client this replica knows part of continues from there), and no item has an
        origin outside it (a new map key has none; an edit of an entry this replica
        holds does). Every entry it brings is then a new key, read from the probe as a
        merge reads it, and each touched record's winner is the greater of the update's
        best entry and the replica's current winner (its row, or its tombstone): a
        merge leaves a record only its winning entry, so the row names the one entry the
        document holds. The loser is dropped as a merge drops it: an incoming entry
        inside the probe, this replica's own entry by its item id (``own_items``); a
        peer's entry that loses to the incoming one has an item id the replica does not
        know, and the document decides. Deletions in the update (entries the peer
        replaced, or retired) are logged with it and applied when the document is next
        loaded; rows never follow deletions alone (a record whose entries are all
        retired keeps its row, archived).
        """
        ours = self._stored_state()
        if ours is None:
            return None
        probe = MemoryDocument(self.node_id, on_update=self._captured.append)
        try:
            touched = probe.apply_remote(update)
            merged = decode_state_vector(probe.doc.get_state())
            pending = get_update(update, probe.doc.get_state())[:1] != b"\x00"
            if (
                pending
                or all(clock <= ours.get(client, 0) for client, clock in merged.items())
                or (
                    self._has_tombstones()
                    and _deletes_outside(
                        _delete_set(update, merged),
                        {client: (0, end) for client, end in merged.items()},
                    )
                )
            ):
                # Structs left pending, nothing new (its deletions may be), or deletions
                # that may collect a tombstone (the tombstone index follows them): the
                # document decides.
                self._captured.clear()
                return None
            plans: list[MergePlan] = []
            for kind in KINDS:
                created = touched.created.get(kind, [])
                incoming = {r: e for r, e in touched.winners.get(kind, {}).items() if e}
                if not created and not incoming:
                    continue
                plan = self._plan_without_document(kind, created, incoming)
                if plan is None:
                    self._captured.clear()
                    return None
                plans.append(plan)
            self._merged = decode_state_vector(probe.doc.get_state())
        finally:
            probe.close()
        self._write_merged(plans)
        return bool(self._captured)

    def _plan_without_document(
        self,
        kind: str,
        created: Sequence[tuple[str, str, object]],
        incoming: dict[str, Entry],
    ) -> MergePlan | None:
        """One kind's part of a merge without the document: the records new here
        (``created`` entries whose record this replica does not hold), and the winners of
        the others against their current winners here. ``None`` where an incoming entry
        of a record held here is a new one: where Yjs puts it among the document's items
        of its key decides whether it survives, so the document must merge it."""
        current = self._current_winners(kind, [c[0] for c in created] + list(incoming))
        fresh: list[tuple[str, str, object]] = []
        for record_id, writer, stored in created:
            if record_id in current:
                incoming[record_id] = decode_entry_of(kind, record_id, writer, stored)
            else:
                fresh.append((record_id, writer, stored))
        winners: dict[str, Entry | None] = {}
        for record_id, entry in incoming.items():
            now = current.get(record_id)
            if now is None:
                winners[record_id] = entry
            elif entry.order != now:
                return None
        return (kind, fresh, winners, {r for r in winners if r not in current})

    def _write_merged(self, plans: Sequence[MergePlan]) -> None:
        """Write what a merge without the document decided: per kind, the records new
        here (undecoded), the winners of the others, and which of those have no row."""
        highest = ""
        for kind, fresh, winners, unknown in plans:
            self._index_tombstones(kind, winners)
            tombs: list[tuple[str, str, str]] = []
            new_rows, changes, latest = merged_rows(kind, fresh, winners, tombs)
            for record_id, hlc, node in tombs:
                self._tomb(kind, record_id, hlc, node)
                self._forgot = True
            highest = max(highest, latest)
            materialise(self.db.conn, kind, changes, self.embedder, new=unknown, new_rows=new_rows)
        if highest:
            decode_hlc(highest)
            self.clock.observe(highest)

    def _merge_by_reading(self, update: bytes) -> bool | None:
        """Merge a peer's update by reading its entries out of the bytes, without
        integrating it anywhere (``sync.update_reader``); None when the update is not a
        plain map update or does not stand on its own (see
        :meth:`_merge_without_document`, whose rules this follows).

        Reading 100k entries costs a third of what integrating them into a Yjs
        document and being handed the changed keys does. The update is logged as
        received; the document, when next loaded, integrates it. The clocks it brings
        must continue this replica's (no gap), and an item's origin must be in the
        update itself (a new key, or a key the update writes twice).
        """
        ours = self._stored_state()
        if ours is None:
            return None
        read = read_map_update(update, _ROOTS)
        if read is None:
            return None
        if any(first > ours.get(client, 0) for client, (first, _) in read.ranges.items()):
            return None  # a gap: what the peer's update builds on is missing here
        if all(end <= ours.get(client, 0) for client, (_, end) in read.ranges.items()):
            return None  # nothing new (its deletions may be): the document decides
        if _deletes_outside(read.deleted, read.ranges) and self._has_tombstones():
            return None  # it may collect a tombstone, which the tombstone index follows
        single: dict[str, dict[str, tuple[str, str, object]]] = {}
        again: list[tuple[str, str, str, object]] = []  # a record's second entry and more
        for _, _, root, key, value in read.items:
            if root == SYS_MAP:
                continue
            record_id, sep, node = key.partition(SEPARATOR)
            if not sep or not record_id or not node:
                raise InvalidUpdateError(f"malformed record key: {key[:80]!r}")
            alone = single.get(root)
            if alone is None:
                alone = single[root] = {}
            if record_id in alone:
                again.append((root, record_id, node, value))
            else:
                alone[record_id] = (record_id, node, value)
        several: dict[str, dict[str, list[tuple[str, object]]]] = {}
        for root, record_id, node, stored in again:
            many = several.setdefault(root, {})
            if record_id not in many:
                _, first_node, first_value = single[root].pop(record_id)
                many[record_id] = [(first_node, first_value)]
            if any(writer == node for writer, _ in many[record_id]):
                return None  # two live items of one key: only Yjs can order them
            many[record_id].append((node, stored))
        item_ids: dict[tuple[str, str, str], tuple[int, int]] = {}

        def item(kind: str, record_id: str, node: str) -> tuple[int, int]:
            if not item_ids:  # only when an entry loses: rare
                for client, clock, root, key, _ in read.items:
                    record, _, writer = key.partition(SEPARATOR)
                    item_ids[(root, record, writer)] = (client, clock)
            return item_ids[(kind, record_id, node)]

        plans: list[MergePlan] = []
        dropped: list[tuple[int, int]] = []  # items of entries that lost
        for kind in KINDS:
            created = list(single.get(kind, {}).values())
            incoming: dict[str, Entry] = {}
            for record_id, entries in several.get(kind, {}).items():
                decoded = [decode_entry_of(kind, record_id, n, v) for n, v in entries]
                best = max(decoded, key=lambda e: e.order)
                incoming[record_id] = best
                dropped.extend(item(kind, record_id, e.node) for e in decoded if e is not best)
            if not created and not incoming:
                continue
            plan = self._plan_without_document(kind, created, incoming)
            if plan is None:
                return None
            plans.append(plan)
        self._captured.append(update)
        self._merged = {client: end for client, (_, end) in read.ranges.items()}
        if dropped:
            # Drop the losers and bump our ``_sys`` entry, as a merge does (its value
            # means nothing: a counter of this replica's own).
            bumps = int(self._meta("sys_bumps") or 0) + 1
            self._set_meta("sys_bumps", str(bumps))
            bump = MapSet(SYS_MAP, self.node_id, str(bumps), None)
            self._captured.append(
                encode_map_sets(self._edit_client, self._edit_clock, [bump], dropped)
            )
            self._edit_clock += 1
        self._write_merged(plans)
        return True

    def _has_tombstones(self) -> bool:
        return self.db.execute("SELECT 1 FROM tombstones LIMIT 1").fetchone() is not None

    def _current_winners(self, kind: str, record_ids: Sequence[str]) -> dict[str, tuple[str, str]]:
        """The ``(hlc, node)`` of the winning entry of each record the replica holds a row
        or a tombstone of."""
        # One statement for any number of ids: json_each walks the array in C.
        ids = json.dumps(sorted(record_ids))
        sql = (
            f"SELECT t.id, t.hlc, t.node FROM json_each(?1) j JOIN {kind} t ON t.id = j.value"
            " UNION ALL SELECT t.id, t.hlc, t.node FROM json_each(?1) j"
            " JOIN tombstones t ON t.kind = ?2 AND t.id = j.value"
        )
        return {
            str(record_id): (str(hlc), str(node))
            for record_id, hlc, node in self.db.conn.execute(sql, [ids, kind])
        }

    def _index_tombstones(self, kind: str, winners: Mapping[str, Entry | None]) -> None:
        live = []
        for record_id, entry in winners.items():
            if entry is not None and entry.deleted:
                self._tomb(kind, record_id, entry.hlc, entry.node)
                self._forgot = True
            else:
                live.append(record_id)
        self._untomb(kind, live)

    def document_json(self) -> dict[str, dict[str, str]]:
        """The document as plain data (tests compare replicas with it)."""
        with self._lock:
            self._catch_up()
            return self.doc.to_py()
