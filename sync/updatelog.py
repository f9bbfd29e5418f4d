"""The crash-safe CRDT update log: snapshot + appended updates, in SQLite.

Every change to the document is appended here in the same SQLite transaction as the
table change it belongs to, so after a crash (even SIGKILL mid-write) the document rebuilt
from the latest snapshot plus the log matches the tables exactly: a transaction that did
not commit left neither. Compaction writes a new snapshot and trims the log in one
transaction. (pycrdt-store is deliberately not used: its squash path loses data.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

import sqlite_utils

from sync.views import now_iso

FORGETS = -1
"""The client id of the ``update_clocks`` row that marks an entry holding a tombstone."""
PLAIN = -2
"""The client id of the ``update_clocks`` row that marks a *plain* entry: one Yjs
client's new map keys, one clock each, and an empty delete set
(``sync.entry_update.join_plain`` lays such entries end to end instead of merging)."""


class UpdateLog:
    """The ``update_log`` and ``snapshots`` tables of one store."""

    def __init__(self, db: sqlite_utils.Database) -> None:
        self._db = db

    def append(self, updates: Iterable[bytes]) -> int:
        """Append updates (inside the caller's transaction); return how many."""
        at = now_iso()
        rows = [(update, at) for update in updates if update]
        if rows:
            self._db.conn.executemany("INSERT INTO update_log (data, at) VALUES (?, ?)", rows)
        return len(rows)

    def append_one(self, update: bytes, clocks: Mapping[int, tuple[int, int]]) -> int:
        """Append one update with the clock ranges it brought (``client: (start, end)``);
        return its sequence number."""
        cursor = self._db.conn.execute(
            "INSERT INTO update_log (data, at) VALUES (?, ?)", [update, now_iso()]
        )
        seq = int(cursor.lastrowid or 0)
        self._db.conn.executemany(
            "INSERT INTO update_clocks (seq, client, start, end) VALUES (?, ?, ?, ?)",
            [(seq, client, start, end) for client, (start, end) in clocks.items()],
        )
        return seq

    def forgets(self, seqs: Iterable[int]) -> bool:
        """True if any of these entries wrote or merged a tombstone (marked by the
        pseudo-client :data:`FORGETS`)."""
        for part, marks in _batches(seqs):
            sql = f"SELECT 1 FROM update_clocks WHERE client = ? AND seq IN ({marks}) LIMIT 1"
            if self._db.execute(sql, [FORGETS, *part]).fetchone():
                return True
        return False

    def plain(self, seqs: Iterable[int]) -> bool:
        """True if every one of these entries is marked :data:`PLAIN`."""
        marked = asked = 0
        for part, marks in _batches(seqs):
            asked += len(part)
            sql = f"SELECT count(*) FROM update_clocks WHERE client = ? AND seq IN ({marks})"
            marked += int(self._db.execute(sql, [PLAIN, *part]).fetchone()[0])
        return marked == asked

    def covering(self, client: int, have: int, want: int) -> list[int] | None:
        """Sequence numbers of the logged entries that hold ``client``'s clocks from
        ``have`` up to ``want``; None if some of them are not in the log (they are in the
        snapshot, or in an entry logged before clocks were recorded)."""
        rows = self._db.execute(
            "SELECT seq, start, end FROM update_clocks WHERE client = ? AND end > ? ORDER BY end",
            [client, have],
        ).fetchall()
        covered, seqs = have, []
        for seq, start, end in rows:
            if start > covered:
                return None
            covered = max(covered, int(end))
            seqs.append(int(seq))
        return seqs if covered >= want else None

    def size(self, seqs: Iterable[int]) -> int:
        """Bytes of the logged updates with these sequence numbers."""
        total = 0
        for part, marks in _batches(seqs):
            row = self._db.execute(
                f"SELECT coalesce(sum(length(data)), 0) FROM update_log WHERE seq IN ({marks})",
                part,
            ).fetchone()
            total += int(row[0])
        return total

    def clients(self, seqs: Iterable[int]) -> set[int]:
        """The Yjs clients whose clocks the entries with these sequence numbers brought."""
        out: set[int] = set()
        for part, marks in _batches(seqs):
            sql = f"SELECT DISTINCT client FROM update_clocks WHERE seq IN ({marks})"
            out.update(int(row[0]) for row in self._db.execute(sql, part))
        return out

    def entries(self, seqs: Iterable[int]) -> list[bytes]:
        """The logged updates with these sequence numbers, in log order."""
        out: list[bytes] = []
        for part, marks in _batches(seqs):
            out.extend(
                bytes(row[0])
                for row in self._db.execute(
                    f"SELECT data FROM update_log WHERE seq IN ({marks}) ORDER BY seq", part
                )
            )
        return out

    def head(self) -> int:
        """The sequence number of the newest entry (or of the snapshot), -1 if none."""
        row = self._db.execute(
            "SELECT max(m) FROM (SELECT max(seq) AS m FROM update_log"
            " UNION ALL SELECT max(upto_seq) FROM snapshots)"
        ).fetchone()
        return -1 if row[0] is None else int(row[0])

    def __len__(self) -> int:
        row = self._db.execute("SELECT count(*) FROM update_log").fetchone()
        return int(row[0])

    def replay(self) -> Iterator[bytes]:
        """The latest snapshot, then every logged update after it, in order."""
        snapshot = self._db.execute(
            "SELECT data, upto_seq FROM snapshots ORDER BY id DESC LIMIT 1"
        ).fetchone()
        upto = -1
        if snapshot is not None:
            upto = int(snapshot[1])
            yield bytes(snapshot[0])
        cursor = self._db.execute("SELECT data FROM update_log WHERE seq > ? ORDER BY seq", [upto])
        for (data,) in cursor:
            yield bytes(data)

    def compact(self, snapshot: bytes) -> None:
        """Replace the log by ``snapshot`` (the document now) in one transaction."""
        with self._db.atomic():
            row = self._db.execute("SELECT max(seq) FROM update_log").fetchone()
            upto = int(row[0]) if row[0] is not None else -1
            last = self._db.execute("SELECT max(upto_seq) FROM snapshots").fetchone()
            if last[0] is not None:
                upto = max(upto, int(last[0]))
            self._db.execute(
                "INSERT INTO snapshots (data, upto_seq, at) VALUES (?, ?, ?)",
                [snapshot, upto, now_iso()],
            )
            self._db.execute("DELETE FROM snapshots WHERE id < (SELECT max(id) FROM snapshots)")
            self._db.execute("DELETE FROM update_log WHERE seq <= ?", [upto])
            self._db.execute("DELETE FROM update_clocks WHERE seq <= ?", [upto])


def _batches(seqs: Iterable[int]) -> Iterator[tuple[list[int], str]]:
    """The distinct sequence numbers, ascending, in batches of at most 500 (within
    SQLite's bound on a statement's parameters), each with its ``?`` placeholders."""
    wanted = sorted(set(seqs))
    for i in range(0, len(wanted), 500):
        part = wanted[i : i + 500]
        yield part, ", ".join("?" for _ in part)
