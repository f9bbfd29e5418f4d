"""The update a peer lacks, cut from the update log instead of the whole document.

The usual incremental sync needs a few recent log entries: no document to load, and no
walk of all its blocks (which yrs does for every diff of a whole document). A peer that
holds every struct of an entry also holds its deletions (every transaction that deletes
also writes: a put, or the ``_sys`` bump of a merge or a retention pass), so the entries
it lacks are enough. :func:`diff_from_log` says None where the document must answer.
"""

from __future__ import annotations

from collections.abc import Mapping

from pycrdt import get_update, merge_updates

from sync.entry_update import join_plain
from sync.updatelog import UpdateLog

EMPTY_UPDATE = b"\x00\x00"
"""A Yjs v1 update with no structs and no deletions."""
MAX_LOG_DIFF_ENTRIES = 2_000
"""Beyond this many log entries a diff comes from the whole document instead."""
LOG_DIFF_BYTES = 1 << 20
"""With the document in memory, a diff of more log bytes than this comes from it."""


def diff_from_log(
    log: UpdateLog,
    ours: Mapping[int, int],
    peer: Mapping[int, int],
    state_vector: bytes,
    *,
    document_loaded: bool,
) -> bytes | None:
    """The update a peer with ``state_vector`` (decoded: ``peer``) lacks, from the log
    entries that hold it; None when the whole document must make it.

    ``ours`` is the state vector of snapshot + log; ``document_loaded`` says whether the
    document is in memory (a large window is then cheaper from it).
    """
    seqs: set[int] = set()
    for client, end in ours.items():
        have = peer.get(client, 0)
        if end > have:
            covering = log.covering(client, have, end)
            if covering is None:
                return None
            seqs.update(covering)
    if not seqs:
        return EMPTY_UPDATE
    # Merged log entries keep the content of entries deleted later (yrs merges
    # without collecting): a window with a tombstone goes through the document, so
    # that a forgotten record's content is never shipped again.
    if len(seqs) > MAX_LOG_DIFF_ENTRIES or log.forgets(seqs):
        return None
    # A large window (a first sync) is cheaper from a loaded document: merging
    # megabytes of updates costs more than yrs's walk of its blocks.
    if document_loaded and log.size(seqs) > LOG_DIFF_BYTES:
        return None
    entries = log.entries(seqs)
    if len(entries) == 1:
        return bytes(get_update(entries[0], state_vector))
    # The peer holds nothing of any client these entries brought (a first sync): the
    # diff is all of them merged (cutting it again costs as much as the merge), and
    # entries of new records only are merged by laying their structs end to end.
    first = not any(peer.get(client, 0) for client in log.clients(seqs))
    if first and log.plain(seqs):
        joined = join_plain(entries)
        if joined is not None:
            return joined
    merged = merge_updates(*entries)
    return bytes(merged) if first else bytes(get_update(merged, state_vector))
