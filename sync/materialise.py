"""Writing merged or local rows into the tables and the recall index.

:func:`materialise` writes the winners of the touched records (rows from
``sync.views``) and keeps the recall rows and their FTS5 index in step
(``sync.searchable``); it runs inside the caller's SQLite transaction, so a local edit
or a remote update changes the document, the tables and the update log together or not
at all. New notes, the bulk of a first sync, are indexed by SQL from the rows just
written (:func:`_index_new_notes`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Iterable, Sequence
from operator import itemgetter, le
from typing import Any

from sync.searchable import KIND_CONFIDENCE, RECALL_BUILDERS, Embedder, Searchable, embedding_bytes
from sync.views import COLUMNS, epoch_s

_UPSERT_SQL = {
    kind: f"INSERT OR REPLACE INTO {kind} (id, hlc, node, {', '.join(columns)})"
    f" VALUES (?, ?, ?, {', '.join('?' for _ in columns)})"
    for kind, columns in COLUMNS.items()
}
_by_id = itemgetter(0)
_NOTE_CONFIDENCE = KIND_CONFIDENCE["note"]


def materialise(
    conn: sqlite3.Connection,
    kind: str,
    changes: Iterable[tuple[str, tuple[Any, ...] | None]],
    embedder: Embedder | None,
    new: Collection[str] | None = None,
    new_rows: Sequence[tuple[Any, ...]] = (),
) -> None:
    """Write ``(record id, row or None)`` pairs to the kind's table and the recall index.

    Runs inside the caller's transaction. Rows come from :func:`build_row`, so they are
    already validated. ``new`` names records among ``changes`` known to have no row yet
    (no look-up); ``new_rows`` are more rows of records with no row yet.
    Rows are written in id order: the B-tree pages of the id indexes are then touched
    once each, in order, instead of at random (a third less work in a bulk merge).
    """
    upserts: list[tuple[Any, ...]] = list(new_rows)
    deletes: list[tuple[str]] = []
    fresh = len(upserts)
    for record_id, row in changes:
        if row is None:
            deletes.append((record_id,))
        else:
            upserts.append(row)
            if new and record_id in new:
                fresh += 1
    if deletes:
        deletes.sort()
        conn.executemany(f"DELETE FROM {kind} WHERE id = ?", deletes)
    if upserts:
        upserts.sort(key=_by_id)
        if (
            kind == "notes"
            and embedder is None
            and not deletes
            and fresh == len(upserts)
            and _index_new_notes(conn, upserts)
        ):
            return
        conn.executemany(_UPSERT_SQL[kind], upserts)
    recall_builder = RECALL_BUILDERS.get(kind)
    if recall_builder is not None and (upserts or deletes):
        searchable = [(row[0], recall_builder(row)) for row in upserts]
        searchable.extend((record_id, None) for (record_id,) in deletes)
        known_new: Collection[str] = new or ()
        if new_rows:
            known_new = {row[0] for row in new_rows}.union(known_new)
        _index(conn, kind, searchable, embedder, known_new)


def _index(
    conn: sqlite3.Connection,
    source: str,
    searchable: list[tuple[str, Searchable | None]],
    embedder: Embedder | None,
    new: Collection[str],
) -> None:
    ids = [record_id for record_id, _ in searchable if record_id not in new]
    existing: dict[str, int] = {}
    for i in range(0, len(ids), 500):
        part = ids[i : i + 500]
        marks = ", ".join("?" for _ in part)
        for rid, record_id in conn.execute(
            f"SELECT rid, record_id FROM recall WHERE source = ? AND record_id IN ({marks})",
            [source, *part],
        ):
            existing[record_id] = rid
    if existing:
        stale = sorted((rid,) for rid in existing.values())
        # The index first: FTS5 reads the text to unindex from the recall row.
        conn.executemany("DELETE FROM recall_fts WHERE rowid = ?", stale)
        conn.executemany("DELETE FROM recall WHERE rid = ?", stale)
    row = conn.execute("SELECT coalesce(max(rid), 0) FROM recall").fetchone()
    next_rid = max(int(row[0]), max(existing.values(), default=0)) + 1
    # (searchable is in id order, and the sort is stable: ties stay in id order)
    live = [(entry[4], record_id, entry) for record_id, entry in searchable if entry is not None]
    # New texts get rowids in time order: recall's candidates are the greatest rowids
    # (the most recent texts), and FTS5 wants ascending rowids within a transaction
    # (a smaller one flushes its pending index to a new segment).
    live.sort(key=_by_id)
    rows: list[tuple[Any, ...]] = []
    texts: list[tuple[int, str]] = []
    for _created, record_id, entry in live:
        rid = existing.get(record_id)
        if rid is None:
            rid, next_rid = next_rid, next_rid + 1
        kind, text, tool, confidence, created_at = entry
        rows.append(
            (
                rid,
                source,
                kind,
                record_id,
                tool,
                confidence,
                created_at,
                epoch_s(created_at) if created_at else 0.0,
                None if embedder is None else embedding_bytes(embedder, text),
                text,
            )
        )
        texts.append((rid, text))
    if existing:
        rows.sort(key=_by_id)
        texts.sort(key=_by_id)
    if rows:
        conn.executemany(
            "INSERT INTO recall (rid, source, kind, record_id, tool, confidence, created_at,"
            " created_s, embedding, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.executemany("INSERT INTO recall_fts (rowid, text) VALUES (?, ?)", texts)


# New notes (the bulk of a merge): their recall rows and FTS5 entries are written by SQL
# from the rows just written, in the same transaction, instead of building a tuple per
# record in Python. Same rows as :func:`_index`: rids numbered from max(rid) + 1 in
# (created_at, id) order, created_s = epoch_s(created_at), computed as
# (seconds * 1000 + ms) / 1000.0 -- the same correctly rounded double as
# datetime.timestamp() -- which needs the store's canonical timestamps (checked first).
_CANONICAL_TIMES = re.compile(r"(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)*").fullmatch
_NEW_NOTES = (
    "SELECT ?1 + row_number() OVER (ORDER BY created_at, id) - 1 AS rid, id, text,"
    " created_at, (CAST(strftime('%s', created_at) AS INTEGER) * 1000"
    " + CAST(substr(created_at, 21, 3) AS INTEGER)) / 1000.0 AS created_s"
    " FROM notes WHERE rowid > ?2"
)
_NEW_NOTES_RECALL = (
    "INSERT INTO recall (rid, source, kind, record_id, tool, confidence, created_at,"
    " created_s, embedding, text) SELECT rid, 'notes', 'note', id, NULL, ?3, created_at,"
    f" created_s, NULL, text FROM ({_NEW_NOTES}) ORDER BY rid"
)
_NEW_NOTES_FTS = (
    "INSERT INTO recall_fts (rowid, text) SELECT rid, text FROM recall WHERE rid >= ? ORDER BY rid"
)
# The usual case: ids start with their creation time, so the new rows, inserted in id
# order, are in (created_at, id) order too and got the rowids ?2 + 1, ?2 + 2...: a rid is
# then their rowid shifted, with no sort and no join.
_SHIFTED = (
    "SELECT ?1 + rowid - ?2 - 1 AS rid, id, text, created_at, (CAST(strftime('%s',"
    " created_at) AS INTEGER) * 1000 + CAST(substr(created_at, 21, 3) AS INTEGER)) / 1000.0"
    " AS created_s FROM notes WHERE rowid > ?2"
)
_SHIFTED_RECALL = (
    "INSERT INTO recall (rid, source, kind, record_id, tool, confidence, created_at,"
    " created_s, embedding, text) SELECT rid, 'notes', 'note', id, NULL, ?3, created_at,"
    f" created_s, NULL, text FROM ({_SHIFTED})"
)
_SHIFTED_FTS = (
    "INSERT INTO recall_fts (rowid, text) SELECT ?1 + rowid - ?2 - 1, text FROM notes"
    " WHERE rowid > ?2"
)


def _index_new_notes(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> bool:
    """Write notes none of which has a row yet (``rows`` in id order), with their recall
    rows and FTS5 entries; False (nothing written) if their timestamps are not all
    canonical or their rowids not all after the old ones."""
    created = [row[5] for row in rows]
    # Every timestamp canonical, checked at once: each is 24 characters, and so is the
    # pattern, so the concatenation matches exactly when each one does.
    if set(map(len, created)) != {24} or not _CANONICAL_TIMES("".join(created)):
        return False
    before = conn.execute("SELECT coalesce(max(rowid), 0) FROM notes").fetchone()[0]
    next_rid = conn.execute("SELECT coalesce(max(rid), 0) + 1 FROM recall").fetchone()[0]
    conn.executemany(_UPSERT_SQL["notes"], rows)
    after = conn.execute("SELECT coalesce(max(rowid), 0) FROM notes").fetchone()[0]
    shifted = after - before == len(rows) and all(map(le, created, created[1:]))
    recall_sql = _SHIFTED_RECALL if shifted else _NEW_NOTES_RECALL
    written = conn.execute(recall_sql, (next_rid, before, _NOTE_CONFIDENCE)).rowcount
    if written != len(rows):  # the new rows are not all after the old ones: undo
        conn.execute("DELETE FROM recall WHERE rid >= ?", (next_rid,))
        conn.executemany("DELETE FROM notes WHERE id = ?", [(row[0],) for row in rows])
        return False
    if shifted:
        conn.execute(_SHIFTED_FTS, (next_rid, before))
    else:
        conn.execute(_NEW_NOTES_FTS, (next_rid,))
    return True
