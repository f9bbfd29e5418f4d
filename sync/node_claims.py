"""Which device writes under which node id: the server's claims, first writer claims.

An entry's key ends in the node id of the replica that wrote it
(``"<record id>|<node id>"``, docs/sync-protocol.md 1.1), and the winner rule trusts it.
So that one device cannot write (or overwrite) entries in another device's name, a
server keeps, per user, which device each node id belongs to: the first device whose
update writes an entry under a node id claims it, and an update from another device
that writes under it is refused (PERMISSION_DENIED) before anything of it is stored.

What stays allowed, so that a legitimate device is never refused: several node ids per
device (several replicas, a reinstall with a new memory file), the same node id again
(a device restored from its own backup), and deleting another node's entries (1.4: how a
replica says its version replaces them; retention). The server's own node id is never a
device's. Open mode (no tokens) has no device to tell apart: nothing is checked.

The check sees only what the update *writes*: entries it adds or changes that the
server does not hold yet (an entry the server already has, sent again, is no write).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sync.document import KINDS, SEPARATOR
from sync.errors import PermissionDeniedError
from sync.update_reader import MapItem

CLAIM_PREFIX = "claim|"
"""A claim's key in a SQLite store's ``meta`` table: ``claim|<node id>`` -> device id."""

_KINDS = frozenset(KINDS)


def node_of(key: str) -> str:
    """The node id an entry's key ends in (``""`` for a key with no separator)."""
    return key.rpartition(SEPARATOR)[2] if SEPARATOR in key else ""


def nodes_of_items(items: Sequence[MapItem], known: Mapping[int, int]) -> set[str]:
    """The node ids of the record entries a read update brings that are new to a replica
    whose state vector is ``known`` (an item below its client's known clock is one the
    replica holds: Yjs ignores it)."""
    return {
        node_of(key)
        for client, clock, root, key, _ in items
        if root in _KINDS and clock >= known.get(client, 0)
    }


def refused(
    writer: str, nodes: Iterable[str], owners: Mapping[str, str], server_node: str
) -> PermissionDeniedError | None:
    """The error for an update by device ``writer`` that writes under ``nodes``, given
    the current owners of those nodes; None when every node is the writer's or free."""
    for node in sorted(nodes):
        if node == server_node:
            return PermissionDeniedError(
                f"the update writes entries under node id {node!r}, the server's own;"
                f" device {writer!r} must write under its own node id (docs/sync-protocol.md 1.2)"
            )
        owner = owners.get(node)
        if owner is not None and owner != writer:
            return PermissionDeniedError(
                f"the update writes entries under node id {node!r}, which belongs to another"
                f" device ({owner!r}); device {writer!r} must write under its own node id"
                " (docs/sync-protocol.md 1.2); nothing was stored"
            )
    return None


def unclaimed(nodes: Iterable[str], owners: Mapping[str, str]) -> list[str]:
    """The nodes nobody has claimed yet, sorted (the writer claims them)."""
    return sorted(n for n in set(nodes) if n and n not in owners)
