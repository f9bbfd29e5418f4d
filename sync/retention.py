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
