"""Versioned schema migrations for the memory store.

Each migration is a function of a :class:`sqlite_utils.Database`, run once, in order,
inside one transaction together with the bump of ``PRAGMA user_version``; a store opened
by newer code is migrated forward, a store written by newer code than this one is
refused. Never edit a released migration: append a new one.

Tables (every synced table is a materialised view of the CRDT document, see
``sync.views``; each row carries the ``hlc`` and ``node`` of the edit that won):

    sessions, steps, notes, timers (+ action, v8), device_state, facts, receipts, pending,
    transitions
    recall + recall_fts   one row per searchable text with its embedding, indexed by
                          FTS5 (BM25); the text is kept in recall (external content, v3)
    recall_vocab          FTS5 term statistics (v2)
    idempotency           the kernel's idempotency keys (local, not synced)
    update_log            every CRDT update, appended in the same transaction as the change
    snapshots             the latest compacted document state
    meta                  node id and other per-replica settings
    update_clocks         the Yjs clock ranges each update_log entry brought (v6)
    tombstones            records whose winning entry is a tombstone, with its clock and
                          node (v5): what a write must know without loading the document
    timer_rings           one row per timer this replica rang or reported missed (v8,
                          local, not synced): the claim that makes a timer ring once
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

from sync.errors import MemoryStoreError

Migration = Callable[[sqlite_utils.Database], None]


def _v1_initial(db: sqlite_utils.Database) -> None:
    for create in (
        _v1_sessions,
        _v1_steps,
        _v1_notes,
        _v1_timers,
        _v1_device_state,
        _v1_facts,
        _v1_receipts,
        _v1_pending,
        _v1_transitions,
        _v1_idempotency,
        _v1_update_log,
        _v1_snapshots,
        _v1_meta,
        _v1_recall,
    ):
        create(db)


def _v1_view(
    db: sqlite_utils.Database, name: str, columns: dict[str, type], indexes: list[str] | None = None
) -> None:
    """A synced table: a materialised view of the CRDT document's records."""
    table = db.table(name)
    table.create({"id": str, "hlc": str, "node": str, **columns}, pk="id")
    for column in indexes or []:
        table.create_index([column])


def _v1_sessions(db: sqlite_utils.Database) -> None:
    _v1_view(
        db,
        "sessions",
        {
            "device_id": str,
            "created_at": str,
            "query": str,
            "final_answer": str,
            "success": int,
            "state": str,
            "data": str,
        },
        ["created_at"],
    )


def _v1_steps(db: sqlite_utils.Database) -> None:
    _v1_view(
        db,
        "steps",
        {
            "session_id": str,
            "turn_id": int,
            "step_index": int,
            "step_type": int,
            "tool": str,
            "act_id": str,
            "origin": int,
            "content": str,
            "created_at": str,
            "pb": bytes,
        },
        ["session_id", "act_id", "tool"],
    )


def _v1_notes(db: sqlite_utils.Database) -> None:
    _v1_view(db, "notes", {"text": str, "source_act_id": str, "created_at": str}, ["created_at"])


def _v1_timers(db: sqlite_utils.Database) -> None:
    _v1_view(db, "timers", {"seconds": int, "label": str, "fires_at": str, "created_at": str})


def _v1_device_state(db: sqlite_utils.Database) -> None:
    _v1_view(db, "device_state", {"device": str, "room": str, "state": str, "updated_at": str})


def _v1_facts(db: sqlite_utils.Database) -> None:
    _v1_view(
        db,
        "facts",
        {
            "entity": str,
            "attribute": str,
            "value": str,
            "source_act_id": str,
            "confidence": float,
            "created_at": str,
        },
        ["entity"],
    )


def _v1_receipts(db: sqlite_utils.Database) -> None:
    _v1_view(
        db,
        "receipts",
        {"session_id": str, "query": str, "answer": str, "created_at": str, "pb": bytes},
        ["session_id"],
    )


def _v1_pending(db: sqlite_utils.Database) -> None:
    _v1_view(
        db,
        "pending",
        {
            "query": str,
            "session_id": str,
            "status": str,
            "answer": str,
            "created_at": str,
            "resolved_at": str,
        },
        ["status"],
    )


def _v1_transitions(db: sqlite_utils.Database) -> None:
    _v1_view(
        db,
        "transitions",
        {
            "session_id": str,
            "from_state": str,
            "to_state": str,
            "duration_ms": float,
            "input_sha256": str,
            "at": str,
        },
        ["session_id"],
    )


def _v1_idempotency(db: sqlite_utils.Database) -> None:
    db.table("idempotency").create({"key": str, "result": str, "created_at": str}, pk="key")


def _v1_update_log(db: sqlite_utils.Database) -> None:
    # AUTOINCREMENT: a sequence number is never reused after compaction trims the log.
    db.execute(
        "CREATE TABLE update_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL,"
        " at TEXT NOT NULL)"
    )


def _v1_snapshots(db: sqlite_utils.Database) -> None:
    db.table("snapshots").create({"id": int, "data": bytes, "upto_seq": int, "at": str}, pk="id")


def _v1_meta(db: sqlite_utils.Database) -> None:
    db.table("meta").create({"key": str, "value": str}, pk="key")


def _v1_recall(db: sqlite_utils.Database) -> None:
    # Searchable texts: ``source`` is the table, ``kind`` what a hit is (note, step,
    # answer, fact). ``created_s`` (epoch seconds) and ``confidence`` feed the decay score
    # without parsing dates per hit; ``embedding`` is float32 bytes or NULL. The text
    # itself lives only in the FTS5 table (same rowid), which the store maintains
    # explicitly: per-row triggers made bulk merges several times slower.
    db.execute(
        """CREATE TABLE recall (
            rid INTEGER PRIMARY KEY,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
            record_id TEXT NOT NULL,
            tool TEXT,
            confidence REAL NOT NULL,
            created_at TEXT NOT NULL,
            created_s REAL NOT NULL,
            embedding BLOB,
            UNIQUE (source, record_id)
        )"""
    )
    db.execute(
        "CREATE VIRTUAL TABLE recall_fts USING fts5(text, tokenize='unicode61 remove_diacritics 2')"
    )


def _v2_fts_vocab(db: sqlite_utils.Database) -> None:
    # Term statistics (document frequency per term) for tools and diagnostics. Recall does
    # not read it per query: fts5vocab counts by walking a term's whole document list.
    db.execute("CREATE VIRTUAL TABLE recall_vocab USING fts5vocab(recall_fts, 'row')")


def _v3_fts_external_content(db: sqlite_utils.Database) -> None:
    """Keep each searchable text once, in ``recall.text``, and index it from there.

    ``recall_fts`` becomes an external-content FTS5 table over ``recall`` (``content_rowid
    = rid``): it no longer stores its own copy of every text, which was a third of the
    cost of indexing one, and a recall query reads the text from the recall row it
    fetches anyway. Rows of ``recall_fts`` must then be removed while their ``recall`` row
    still holds the indexed text (``sync.views`` deletes in that order).
    """
    db.execute("ALTER TABLE recall ADD COLUMN text TEXT NOT NULL DEFAULT ''")
    db.execute(
        "UPDATE recall SET text = (SELECT f.text FROM recall_fts f WHERE f.rowid = recall.rid)"
    )
    db.execute("DROP TABLE recall_vocab")
    db.execute("DROP TABLE recall_fts")
    db.execute(
        "CREATE VIRTUAL TABLE recall_fts USING fts5(text, content='recall', content_rowid='rid',"
        " tokenize='unicode61 remove_diacritics 2')"
    )
    db.execute("INSERT INTO recall_fts (recall_fts) VALUES ('rebuild')")
    db.execute("CREATE VIRTUAL TABLE recall_vocab USING fts5vocab(recall_fts, 'row')")


def _v4_no_notes_time_index(db: sqlite_utils.Database) -> None:
    """Drop the index on ``notes.created_at``: only the full listing (``notes()``) orders
    by it, and sorting every note costs that listing less than the index costs every
    note written or merged (a B-tree insert each)."""
    db.execute("DROP INDEX IF EXISTS idx_notes_created_at")


def _v5_tombstones(db: sqlite_utils.Database) -> None:
    """Index the records whose winning entry is a tombstone (``forget``).

    A store writes a record without loading its whole CRDT document when it holds no
    entry of its own for that record yet (``sync.engine``): the views say so for live
    records (their ``node`` column), and this table for deleted ones. Filled from the
    document once, here (the only migration that reads it).
    """
    from sync.document import KINDS, MemoryDocument
    from sync.updatelog import UpdateLog

    db.execute(
        "CREATE TABLE tombstones (kind TEXT NOT NULL, id TEXT NOT NULL, hlc TEXT NOT NULL,"
        " node TEXT NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID"
    )
    doc = MemoryDocument("migration")
    try:
        doc.load(UpdateLog(db).replay())
        rows = []
        for kind in KINDS:
            for record_id in doc.record_ids(kind):
                entry = doc.winner(kind, record_id)
                if entry is not None and entry.deleted:
                    rows.append((kind, record_id, entry.hlc, entry.node))
    finally:
        doc.close()
    db.conn.executemany("INSERT INTO tombstones (kind, id, hlc, node) VALUES (?, ?, ?, ?)", rows)


def _v6_update_clocks(db: sqlite_utils.Database) -> None:
    """Record which Yjs clocks each log entry brought (client, [start, end)), so that a
    peer's diff can be cut from the recent log entries instead of the whole document
    (``sync.engine.StoreEngine.diff``). Entries logged before have none: a peer that
    lacks what they hold gets its diff from the document, as before."""
    db.execute(
        "CREATE TABLE update_clocks (seq INTEGER NOT NULL, client INTEGER NOT NULL,"
        " start INTEGER NOT NULL, end INTEGER NOT NULL)"
    )
    db.execute("CREATE INDEX update_clocks_client_end ON update_clocks (client, end)")


def _v7_own_items(db: sqlite_utils.Database) -> None:
    """Record the Yjs item (client, clock) of this replica's entry of each record it
    writes, so that an edit can be encoded against it without loading the document
    (``sync.entry_update``). A store with history written before has entries of its own
    whose items are unknown (``meta.own_items`` stays unset): it loads the document to
    edit a record it holds a row or a tombstone of, as before."""
    db.execute(
        "CREATE TABLE own_items (kind TEXT NOT NULL, id TEXT NOT NULL, client INTEGER NOT NULL,"
        " clock INTEGER NOT NULL, PRIMARY KEY (kind, id)) WITHOUT ROWID"
    )
    logged = db.execute("SELECT count(*) FROM update_log").fetchone()[0]
    snapshots = db.execute("SELECT count(*) FROM snapshots").fetchone()[0]
    if not logged and not snapshots:
        db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('own_items', 'complete')")


def _v8_timer_rings(db: sqlite_utils.Database) -> None:
    """A row per timer that rang here (or came due while nothing ran: ``missed``). Its
    primary key is the claim: the process whose INSERT adds the row rings the timer, so a
    timer rings once across restarts and across processes sharing the file. Local to the
    replica (each device rings its own)."""
    db.execute(
        "CREATE TABLE timer_rings (timer_id TEXT PRIMARY KEY, label TEXT NOT NULL,"
        " due_at TEXT NOT NULL, outcome TEXT NOT NULL, rang_at TEXT NOT NULL,"
        " settled TEXT NOT NULL DEFAULT '', details TEXT NOT NULL DEFAULT '{}')"
    )


def _v9_timer_actions(db: sqlite_utils.Database) -> None:
    """A timer may carry a scheduled device command (``action``: the JSON of a tool call
    run when it is due: "turn off the lights at 23:00", "mute for an hour"). Timers kept
    before have none; the CRDT records are unchanged (a new optional field), so replicas
    with and without this step still merge to the same records."""
    db.execute("ALTER TABLE timers ADD COLUMN action TEXT")


MIGRATIONS: list[Migration] = [
    _v1_initial,
    _v2_fts_vocab,
    _v3_fts_external_content,
    _v4_no_notes_time_index,
    _v5_tombstones,
    _v6_update_clocks,
    _v7_own_items,
    _v8_timer_rings,
    _v9_timer_actions,
]
"""Migration ``i`` takes the schema from version ``i`` to ``i + 1``."""

SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite_utils.Database) -> int:
    """The version recorded in the database (0 for a new one)."""
    row = db.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def migrate(db: sqlite_utils.Database) -> int:
    """Bring the database to :data:`SCHEMA_VERSION`; return the version it had before.

    Raises:
        MemoryStoreError: the database was written by a newer schema.
    """
    current = schema_version(db)
    if current > SCHEMA_VERSION:
        raise MemoryStoreError(
            f"memory store has schema version {current}; this code knows {SCHEMA_VERSION}"
        )
    for version in range(current, SCHEMA_VERSION):
        with db.atomic():
            MIGRATIONS[version](db)
            db.execute(f"PRAGMA user_version = {version + 1}")
    return current
