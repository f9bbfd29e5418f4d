"""The memory store: SQLite tables (a materialised view) + the CRDT document + the log.

``MemoryStore`` is built in layers, one module each: ``sync.core.StoreCore`` (SQLite,
the lazily loaded CRDT document, the update log, the one write transaction),
``sync.engine.StoreEngine`` (generic records, recall, diffs and merges),
``sync.records.RecordStore`` (notes, timers, device state, facts, pending queries) and
``sync.kernel_stores.MemoryStore`` (sessions, steps, receipts, transitions and the
kernel's ``SessionStore``/``IdempotencyStore``). This module is the public name.

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

from sync.ids import MAX_TEXT, new_record_id, record_time
from sync.kernel_stores import MemoryStore

__all__ = ["MAX_TEXT", "MemoryStore", "new_record_id", "record_time"]
