"""What one write transaction of a store has done so far, and the log entry it becomes.

Every write of a :class:`~sync.engine.StoreEngine` (a local edit, a merge, a retention
pass) runs in one SQLite transaction; the CRDT updates it produces are *captured* in a
:class:`TransactionState` and appended to the update log as ONE entry at commit
(:func:`log_entry`), with the Yjs clock ranges it brought and its marks (a tombstone
written, only new records written without the document).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pycrdt import merge_updates

from sync.entry_update import join_plain
from sync.updatelog import FORGETS, PLAIN


@dataclass(slots=True)
class TransactionState:
    """The open transaction's state (one per store; reset when it ends).

    ``captured`` is never replaced, only cleared: a loaded document reports its
    updates to its ``append``.
    """

    captured: list[bytes] = field(default_factory=list)
    """The CRDT updates written so far, in order."""
    plain: int = 0
    """How many of ``captured`` only add new keys (``sync.entry_update``)."""
    forgot: bool = False
    """A tombstone was written or merged (the log entry is marked: ``FORGETS``)."""
    merged: dict[int, int] = field(default_factory=dict)
    """The Yjs clocks a merge without the document brought (``{client: end}``)."""
    depth: int = 0
    """Nesting of ``_transaction`` (0: none open)."""
    dirty: bool = False
    """The transaction may have changed the in-memory document (reload it on failure)."""

    def discard_captured(self) -> None:
        """Forget the captured updates (the document they came from is dropped)."""
        self.captured.clear()
        self.plain = 0

    def reset(self) -> None:
        """The state of no open transaction."""
        self.discard_captured()
        self.forgot = False
        self.merged = {}
        self.depth = 0
        self.dirty = False


def log_entry(
    tx: TransactionState,
    before: Mapping[int, int] | None,
    document_state: Mapping[int, int] | None,
    edits: tuple[int, int],
) -> tuple[bytes, dict[int, tuple[int, int]], dict[int, int] | None]:
    """The log entry of a transaction's captured updates: the update, its Yjs clock
    ranges with the entry's marks, and the state vector of snapshot + log after it
    (None: unknown).

    ``before`` is the state vector before the transaction (None: unknown);
    ``document_state`` the loaded document's (None: no document loaded); ``edits`` the
    ``(client, next clock)`` of the updates encoded without the document.
    """
    captured = tx.captured
    # Only new records written without the document (one Yjs client, consecutive
    # clocks): their updates are laid end to end, and the entry is marked plain, so
    # that a first sync's diff joins such entries the same way.
    plain = tx.plain == len(captured)
    joined = join_plain(captured) if plain and len(captured) > 1 else None
    if len(captured) == 1:
        update = captured[0]
    else:
        update = joined if joined is not None else merge_updates(*captured)
        plain = joined is not None
    after: dict[int, int] | None
    if document_state is not None:
        after = dict(document_state)
    elif before is not None:
        after = dict(before)
        edit_client, edit_clock = edits
        if edit_clock:
            after[edit_client] = max(after.get(edit_client, 0), edit_clock)
        for client, clock in tx.merged.items():
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
    if tx.forgot:
        clocks[FORGETS] = (0, 0)
    if plain:
        clocks[PLAIN] = (0, 0)
    return update, clocks, after
