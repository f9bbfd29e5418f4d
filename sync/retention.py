"""Retention: what leaves the synced CRDT document as it ages, so that the document (and
what a merge or a snapshot costs) stops growing with the years.

- **History** (sessions, steps, receipts, transitions) older than a replica's horizon
  leaves the document: every entry of the record is removed (no tombstone). The SQLite
  rows stay, as the replica's archive: recall, ``steps()`` and receipts still find them.
- **Tombstones** older than the tombstone horizon are collected: the entry goes, and
  nothing of the forgotten record is left anywhere.
- Notes, timers, device state, facts and pending queries stay until they are deleted.

Removing entries is an ordinary CRDT edit, so it reaches every replica at the next
sync: the synced document holds the history of the shortest horizon among the replicas,
while each replica's tables keep what it ever held (a replica that merges a removal
keeps its rows: a record whose entries are all gone is archived, not deleted). The cloud
keeps no horizon and therefore keeps the full history in its tables; a device's tables
keep what it saw. A record that comes back (a device offline longer than the horizon
syncs its old sessions, or someone edits an archived record) is an ordinary record
again until the next retention pass.

A tombstone collected before an offline replica saw it cannot delete that replica's copy
any more: the horizon for tombstones must be longer than any replica stays offline.
"""

from __future__ import annotations

import itertools
import sqlite3
import time

from sync.document import MemoryDocument
from sync.views import epoch_s, iso_ms

HISTORY_TIME: dict[str, str] = {
    "sessions": "created_at",
    "steps": "created_at",
    "receipts": "created_at",
    "transitions": "at",
}
"""The history kinds, each with the column that dates its records."""

DEVICE_HISTORY_DAYS = 90.0
"""How long a device keeps history in its synced document."""

TOMBSTONE_DAYS = 365.0
"""How long a device keeps tombstones (longer than any device stays offline)."""

RETIRE_EVERY_S = 86_400.0
"""Run retention at most this often (when the document is loaded anyway)."""


def retire_due(last: str | None, history_days: float | None, tombstone_days: float | None) -> bool:
    """True if a store with these horizons, last retired at ``last`` (None: never),
    should run retention now."""
    if history_days is None and tombstone_days is None:
        return False
    return last is None or time.time() - epoch_s(last) >= RETIRE_EVERY_S


def retire_from(
    doc: MemoryDocument,
    conn: sqlite3.Connection,
    now_ms: int,
    *,
    history_days: float | None,
    tombstone_days: float | None,
) -> dict[str, int]:
    """Take history older than ``history_days`` and tombstones older than
    ``tombstone_days`` (None: keep them) out of the document, inside the caller's
    transaction; return how many records of each kind left it (tombstones as
    ``"<kind> tombstones"``). History rows stay; collected tombstones leave their table."""
    counts: dict[str, int] = {}
    if history_days is not None:
        cutoff = iso_ms(now_ms - int(history_days * 86_400_000))
        for kind, column in HISTORY_TIME.items():
            rows = conn.execute(
                f"SELECT id FROM {kind} WHERE {column} != '' AND {column} < ?", [cutoff]
            )
            ids = [r for (r,) in rows if doc.holds(kind, r)]
            if ids:
                counts[kind] = doc.remove(kind, ids)
    if tombstone_days is not None:
        oldest = f"{max(now_ms - int(tombstone_days * 86_400_000), 0):012x}0000"
        dead = conn.execute(
            "SELECT kind, id FROM tombstones WHERE hlc < ? ORDER BY kind", [oldest]
        ).fetchall()
        for kind, group in itertools.groupby(dead, key=lambda r: str(r[0])):
            ids = [str(r[1]) for r in group]
            counts[f"{kind} tombstones"] = doc.remove(kind, ids)
        conn.execute("DELETE FROM tombstones WHERE hlc < ?", [oldest])
    return counts
