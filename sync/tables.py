"""What the SQLite side knows of each record without the CRDT document: its current
winner (a row or a tombstone), the tombstones, this replica's own Yjs items, and the
``meta`` key-value table.

Merges without the document (``sync.merge``) decide from these; local writes encode
their updates from ``own_items`` (``sync.entry_update``). Every function runs on the
caller's connection, inside the caller's transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence

from sync.document import Entry


def read_meta(conn: sqlite3.Connection, key: str) -> str | None:
    """A value of the ``meta`` table (None: not set)."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", [key]).fetchone()
    return None if row is None else str(row[0])


def write_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    """Set a value of the ``meta`` table."""
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [key, value],
    )


def current_winners(
    conn: sqlite3.Connection, kind: str, record_ids: Sequence[str]
) -> dict[str, tuple[str, str]]:
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
        for record_id, hlc, node in conn.execute(sql, [ids, kind])
    }


def held_here(conn: sqlite3.Connection, kind: str, record_ids: Sequence[str]) -> bool:
    """True if this replica holds a row or a tombstone of any of the records."""
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


def own_items(
    conn: sqlite3.Connection, kind: str, record_ids: Sequence[str]
) -> dict[str, tuple[int, int]]:
    """The Yjs item ``(client, clock)`` of this replica's entry of each record it wrote."""
    out: dict[str, tuple[int, int]] = {}
    for i in range(0, len(record_ids), 500):
        part = record_ids[i : i + 500]
        marks = ", ".join("?" for _ in part)
        sql = f"SELECT id, client, clock FROM own_items WHERE kind = ? AND id IN ({marks})"
        for record_id, client, clock in conn.execute(sql, [kind, *part]):
            out[str(record_id)] = (int(client), int(clock))
    return out


def remember_own(conn: sqlite3.Connection, items: Sequence[tuple[str, str, int, int]]) -> None:
    """Remember the items ``(kind, id, client, clock)`` of the entries this replica just
    wrote."""
    conn.executemany(
        "INSERT OR REPLACE INTO own_items (kind, id, client, clock) VALUES (?, ?, ?, ?)",
        items,
    )


def has_tombstones(conn: sqlite3.Connection) -> bool:
    """True if the replica holds any tombstone."""
    return conn.execute("SELECT 1 FROM tombstones LIMIT 1").fetchone() is not None


def tomb(conn: sqlite3.Connection, kind: str, record_id: str, hlc: str, node: str) -> None:
    """Record that a record's winner is a tombstone."""
    conn.execute(
        "INSERT OR REPLACE INTO tombstones (kind, id, hlc, node) VALUES (?, ?, ?, ?)",
        [kind, record_id, hlc, node],
    )


def untomb(conn: sqlite3.Connection, kind: str, record_ids: Iterable[str]) -> None:
    """Drop records from ``tombstones`` (they have a live winner, or none left)."""
    conn.executemany(
        "DELETE FROM tombstones WHERE kind = ? AND id = ?", [(kind, r) for r in record_ids]
    )


def index_tombstones(
    conn: sqlite3.Connection, kind: str, winners: Mapping[str, Entry | None]
) -> bool:
    """Make ``tombstones`` follow the records' new winners; True if any is a tombstone."""
    live = []
    forgot = False
    for record_id, entry in winners.items():
        if entry is not None and entry.deleted:
            tomb(conn, kind, record_id, entry.hlc, entry.node)
            forgot = True
        else:
            live.append(record_id)
    untomb(conn, kind, live)
    return forgot
