"""The CRDT document that mirrors memory, so that replicas can merge offline edits.

Layout (a standard Yjs document; any Yjs implementation can read it):

- one root ``Map`` per record kind (``notes``, ``steps``, ``sessions``...);
- a record lives under the key ``"<record id>|<node id>"``: each replica writes only
  its own key for a record, so concurrent edits never overwrite each other inside Yjs
  (a bare ``Map`` would keep the edit of the greater Yjs client id and drop the other);
- the value is ONE JSON string (pycrdt turns numbers into floats, so no raw numbers):
  ``{"h": <hlc>, "v": {...record...}}`` for a live record, ``{"h": <hlc>, "x": 1}`` for a
  tombstone ("forget this");
- the record's value is the entry with the greatest ``(hlc, node id)``; a tombstone wins
  over every older edit;
- writing a record removes every other entry of that record the replica has seen, and
  after merging a remote update a replica removes the entries that lost; with garbage
  collection on, the removed content disappears from the document. A replica that
  removed entries while merging also bumps its own entry in the ``_sys`` map, so that its
  state vector moves and the sync exchange runs one more round to ship those deletions:
  equal state vectors then mean identical documents;
- only Maps are ever written (never a Map and an Array in one transaction).

The class is transport- and SQLite-free: :class:`sync.store.MemoryStore` wraps it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from pycrdt import Doc, Map, TransactionEvent

from sync.errors import InvalidRecordError, InvalidUpdateError
from sync.hlc import is_hlc
from sync.lib0 import YRS_SHIFT, TruncatedError, read_varuint, write_varuint

KINDS: tuple[str, ...] = (
    "sessions",
    "steps",
    "notes",
    "timers",
    "device_state",
    "facts",
    "receipts",
    "pending",
    "transitions",
)
"""The record kinds, one root Map each (and one SQLite table each)."""

SYS_MAP = "_sys"
SEPARATOR = "|"


class Entry(NamedTuple):
    """One replica's version of a record: its clock, its node and its data (None: deleted).

    A named tuple: a bulk merge makes one per record, and a tuple is the cheapest object.
    """

    hlc: str
    node: str
    data: dict[str, Any] | None

    @property
    def deleted(self) -> bool:
        """True for a tombstone."""
        return self.data is None

    @property
    def order(self) -> tuple[str, str]:
        """The key that decides which edit wins: later clock, then greater node id."""
        return (self.hlc, self.node)


def encode_entry(hlc: str, data: dict[str, Any] | None) -> str:
    """The JSON string stored in the document for one version of a record."""
    body: dict[str, Any] = {"h": hlc, "x": 1} if data is None else {"h": hlc, "v": data}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


# The C scanner behind json.loads, called directly: json.loads spends more time in its
# Python wrappers (type checks, two whitespace regexes) than in parsing a short record.
_scan_once: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_new_entry = tuple.__new__


def decode_value(value: object) -> tuple[str, dict[str, Any] | None]:
    """Parse a stored value into ``(hlc, data)`` (data None: a tombstone);
    InvalidUpdateError if it is not one of ours."""
    if not isinstance(value, str):
        raise InvalidUpdateError(f"record value is a {type(value).__name__}, not a JSON string")
    try:
        try:
            body, end = _scan_once(value, 0)
        except StopIteration:
            end = -1
        if end != len(value):  # whitespace around it, or not JSON: the exact, slow path
            body = json.loads(value)
        hlc = body["h"]
        if not is_hlc(hlc):
            raise ValueError("not a timestamp")
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidUpdateError(f"malformed record value: {value[:80]!r}") from exc
    if body.get("x"):
        return hlc, None
    data = body.get("v")
    if type(data) is not dict:
        raise InvalidUpdateError("record value has no object 'v'")
    return hlc, data


def decode_entry(node: str, value: object) -> Entry:
    """Parse a stored value as ``node``'s entry; InvalidUpdateError if it is not one of ours."""
    hlc, data = decode_value(value)
    return _new_entry(Entry, (hlc, node, data))


def decode_entry_of(kind: str, record_id: str, node: str, value: object) -> Entry:
    """:func:`decode_entry`, its error naming the record (the peer can repair or drop it)."""
    try:
        return decode_entry(node, value)
    except InvalidUpdateError as exc:
        raise InvalidUpdateError(
            f"bad {kind} record {record_id!r} (the entry of node {node!r}): {exc}",
            record=(kind, record_id, node),
        ) from None


def split_key(key: str) -> tuple[str, str]:
    """Split ``"<id>|<node>"``; InvalidUpdateError for any other key."""
    record_id, sep, node = key.partition(SEPARATOR)
    if not sep or not record_id or not node:
        raise InvalidUpdateError(f"malformed record key: {key[:80]!r}")
    return record_id, node


def check_id(value: str, what: str = "record id") -> str:
    """Validate a record or node id (non-empty, no ``|``)."""
    if not isinstance(value, str) or not value or SEPARATOR in value or len(value) > 256:
        raise InvalidRecordError(f"invalid {what}: {value!r}")
    return value


def decode_state_vector(vector: bytes) -> dict[int, int]:
    """Decode a Yjs v1 state vector into ``{client id: clock}`` (order-free comparison)."""
    try:
        count, pos = read_varuint(vector, 0, YRS_SHIFT)
        result: dict[int, int] = {}
        for _ in range(count):
            client, pos = read_varuint(vector, pos, YRS_SHIFT)
            result[client], pos = read_varuint(vector, pos, YRS_SHIFT)
    except TruncatedError:
        raise InvalidUpdateError("truncated state vector") from None
    except ValueError:
        raise InvalidUpdateError("malformed state vector") from None
    if pos != len(vector):
        raise InvalidUpdateError("trailing bytes after the state vector")
    return result


def encode_state_vector(state: dict[int, int]) -> bytes:
    """Encode ``{client id: clock}`` as a Yjs v1 state vector (clients in descending order,
    as yrs writes them)."""
    out = bytearray()
    write_varuint(out, len(state))
    for client in sorted(state, reverse=True):
        write_varuint(out, client)
        write_varuint(out, state[client])
    return bytes(out)


class RemoteChanges(NamedTuple):
    """What a peer's update changed, per record kind."""

    created: dict[str, list[tuple[str, str, object]]]
    """Records the update created with a single entry (the bulk of a merge), still
    undecoded: ``(record id, node, stored value)``. None of them has a row yet."""
    winners: dict[str, dict[str, Entry | None]]
    """Every other touched record with its winning entry (None: no entry left)."""
    new: dict[str, set[str]]
    """The ids in ``winners`` the document did not hold before (no row yet)."""


class MemoryDocument:
    """The Yjs document of one replica, with a per-record index of its entries.

    Args:
        node_id: this replica's id (the owner of the entries it writes).
        on_update: called with the bytes of every committed transaction (the update log).
    """

    def __init__(self, node_id: str, on_update: Callable[[bytes], None] | None = None) -> None:
        self.node_id = check_id(node_id, "node id")
        self.doc: Doc[Any] = Doc(skip_gc=False)
        self.maps: dict[str, Map[Any]] = {k: self.doc.get(k, type=Map) for k in KINDS}
        self.sys: Map[Any] = self.doc.get(SYS_MAP, type=Map)
        self._nodes: dict[str, dict[str, set[str]]] = {k: {} for k in KINDS}
        self.client_id = int(self.doc.client_id)
        # The next Yjs clock of this document's own client: each map set takes one, so
        # ``put`` knows the id of the item it writes (``sync.entry_update``).
        self._clock = 0
        self._on_update = on_update
        self._subscription = self.doc.observe(self._updated)

    def _updated(self, event: TransactionEvent) -> None:
        if self._on_update is not None:
            self._on_update(event.update)

    def close(self) -> None:
        """Stop reporting updates."""
        self.doc.unobserve(self._subscription)

    # ---- loading -------------------------------------------------------------------

    def load(self, updates: Iterable[bytes]) -> None:
        """Apply stored updates (snapshot + log) without reporting them, then index."""
        callback, self._on_update = self._on_update, None
        try:
            for update in updates:
                self.doc.apply_update(update)
        finally:
            self._on_update = callback
        self._clock = decode_state_vector(self.doc.get_state()).get(self.client_id, 0)
        for kind, ymap in self.maps.items():
            nodes = self._nodes[kind] = {}
            for key in list(ymap.keys()):
                record_id, node = split_key(key)
                nodes.setdefault(record_id, set()).add(node)

    # ---- reading -------------------------------------------------------------------

    def entries(self, kind: str, record_id: str) -> list[Entry]:
        """Every live entry of a record (one after a merge settles)."""
        ymap = self.maps[kind]
        out = []
        for node in self._nodes[kind].get(record_id, ()):
            out.append(decode_entry(node, ymap.get(f"{record_id}{SEPARATOR}{node}")))
        return out

    def holds(self, kind: str, record_id: str) -> bool:
        """True if the document has an entry of the record (live or tombstone)."""
        return bool(self._nodes[kind].get(record_id))

    def winner(self, kind: str, record_id: str) -> Entry | None:
        """The entry that decides the record's value (None: never written)."""
        entries = self.entries(kind, record_id)
        return max(entries, key=lambda e: e.order) if entries else None

    def record_ids(self, kind: str) -> Iterator[str]:
        """Ids of every record of a kind, deleted ones included."""
        return iter(list(self._nodes[kind]))

    def to_py(self) -> dict[str, dict[str, str]]:
        """The whole document as plain data (for comparisons in tests and tools)."""
        out: dict[str, dict[str, str]] = {k: dict(self.maps[k].items()) for k in KINDS}
        out[SYS_MAP] = dict(self.sys.items())
        return out

    # ---- local writes --------------------------------------------------------------

    def put(
        self, kind: str, record_id: str, hlc: str, data: dict[str, Any] | None
    ) -> tuple[int, int]:
        """Write this replica's version of a record (None: a tombstone); return the Yjs
        id ``(client, clock)`` of the item written.

        Call inside ``doc.transaction()`` to batch many writes into one update.
        """
        ymap = self.maps[kind]
        nodes = self._nodes[kind].setdefault(record_id, set())
        with self.doc.transaction():
            for node in list(nodes):
                if node != self.node_id:
                    del ymap[f"{record_id}{SEPARATOR}{node}"]
            ymap[f"{record_id}{SEPARATOR}{self.node_id}"] = encode_entry(hlc, data)
        nodes.clear()
        nodes.add(self.node_id)
        item = (self.client_id, self._clock)
        self._clock += 1
        return item

    # ---- remote updates ------------------------------------------------------------

    def apply_remote(self, update: bytes, *, written: set[str] | None = None) -> RemoteChanges:
        """Apply a peer's update, drop the entries that lost, return the touched records:
        the ones it created with one entry as they are, the others with their winning
        entries (see :class:`RemoteChanges`). With ``written``, the node ids of the entries
        the update added or changed are added to it (``sync.node_claims``).

        Raises:
            InvalidUpdateError: the bytes are not a Yjs update, or carry keys or values
                that are not records. The caller must then discard this document (the
                store reloads it from disk) because Yjs cannot roll back.
        """
        if not update:
            raise InvalidUpdateError("empty update")
        changed = self._integrate(update)
        if written is not None:
            written.update(
                key.rpartition(SEPARATOR)[2]
                for key_sets in changed.values()
                for key_set in key_sets
                for key, change in key_set.items()
                if change.get("action") != "delete"
            )
        result = RemoteChanges({}, {}, {})
        removals: list[tuple[str, str, str]] = []
        for kind, key_sets in changed.items():
            if not key_sets:
                continue
            single, several, created = self._index_changes(kind, key_sets)
            result.created[kind] = list(single.values())
            result.new[kind] = created
            result.winners[kind] = self._decide(kind, several, removals)
        if removals:
            self._drop(removals)
        return result

    def _integrate(self, update: bytes) -> dict[str, list[dict[str, Any]]]:
        """Integrate a peer's update; return, per kind, the key changes it made (yrs's
        raw events: ``{key: {"action", "newValue"...}}``), and report the update to
        ``on_update`` if it changed the document."""
        # No separate validation pass: yrs decodes the whole update before integrating
        # any of it, so a malformed one fails here untouched (and the store reloads the
        # document from disk on any failure anyway).
        changed: dict[str, list[dict[str, Any]]] = {k: [] for k in KINDS}
        subscriptions = []
        for kind, ymap in self.maps.items():
            sink = changed[kind]
            # The raw event: pycrdt's wrapper re-walks every changed key in Python.
            raw = ymap.integrated.observe(lambda e, s=sink: s.append(e.keys))
            subscriptions.append(raw)
        sys_changed: list[bool] = []
        subscriptions.append(self.sys.integrated.observe(lambda e: sys_changed.append(True)))
        # The document-level observer is off while the peer's update integrates: yrs
        # would encode the whole transaction again for it (a quarter of a large merge's
        # CRDT time), and the update log can take the peer's bytes as they are --
        # replaying them on the same state gives the same document.
        before = self.doc.get_state()
        self.doc.unobserve(self._subscription)
        try:
            self.doc.apply_update(update)
        except ValueError as exc:
            raise InvalidUpdateError(f"cannot apply update: {exc}") from exc
        finally:
            self._subscription = self.doc.observe(self._updated)
            for subscription in subscriptions:
                subscription.drop()
        # Logged when it changed the document, as the observer would have: an entry of
        # ours added or removed, or anything else new (the state vector moved).
        if self._on_update is not None and (
            any(changed.values()) or sys_changed or self.doc.get_state() != before
        ):
            self._on_update(update)
        return changed

    def _index_changes(
        self, kind: str, key_sets: list[dict[str, Any]]
    ) -> tuple[dict[str, tuple[str, str, object]], dict[str, dict[str, object]], set[str]]:
        """Follow one kind's key changes in the per-record index. Returns the records the
        update created with a single entry (the bulk of a merge: ``{id: (id, node,
        value)}``), the other touched records with their changed entries (``{id: {node:
        value}}``, a deleted entry absent), and the ids among those the document did
        not hold before."""
        nodes_of = self._nodes[kind]
        several: dict[str, dict[str, object]] = {}
        # Moved to ``several`` if another of their keys follows.
        single: dict[str, tuple[str, str, object]] = {}
        created: set[str] = set()
        for keys in key_sets:
            for key, change in keys.items():
                record_id, sep, node = key.partition(SEPARATOR)
                if not sep or not record_id or not node:
                    raise InvalidUpdateError(f"malformed record key: {key[:80]!r}")
                nodes = nodes_of.get(record_id)
                if nodes is None:
                    if change["action"] != "delete":
                        nodes_of[record_id] = {node}
                        single[record_id] = (record_id, node, change["newValue"])
                        continue
                    created.add(record_id)
                    nodes = nodes_of[record_id] = set()
                elif single and record_id in single:
                    _, first_node, first_value = single.pop(record_id)
                    created.add(record_id)
                    several[record_id] = {first_node: first_value}
                values = several.get(record_id)
                if values is None:
                    values = several[record_id] = {}
                if change["action"] == "delete":
                    nodes.discard(node)
                    values.pop(node, None)
                else:
                    nodes.add(node)
                    values[node] = change["newValue"]
        return single, several, created

    def _decide(
        self,
        kind: str,
        several: dict[str, dict[str, object]],
        removals: list[tuple[str, str, str]],
    ) -> dict[str, Entry | None]:
        """The winning entry of each touched record (None: no entry left); appends the
        entries that lost to ``removals``."""
        nodes_of = self._nodes[kind]
        ymap = self.maps[kind]
        winners: dict[str, Entry | None] = {}
        for record_id, values in several.items():
            nodes = nodes_of.get(record_id)
            if not nodes:
                nodes_of.pop(record_id, None)
                winners[record_id] = None
                continue
            if len(nodes) == 1 and len(values) == 1 and nodes.issuperset(values):
                # The common case: a record only the peer has written.
                [(node, value)] = values.items()
                winners[record_id] = decode_entry_of(kind, record_id, node, value)
                continue
            entries = [
                decode_entry_of(
                    kind,
                    record_id,
                    node,
                    values[node] if node in values else ymap.get(f"{record_id}{SEPARATOR}{node}"),
                )
                for node in nodes
            ]
            best = max(entries, key=lambda e: e.order)
            winners[record_id] = best
            removals.extend((kind, record_id, e.node) for e in entries if e is not best)
        return winners

    def remove(self, kind: str, record_ids: Iterable[str]) -> int:
        """Take records out of the document: every entry of each goes, with no tombstone
        (retention: the replicas keep their rows; see ``sync.engine``). Returns how many
        records had entries."""
        nodes_of = self._nodes[kind]
        removals = [(kind, r, node) for r in record_ids for node in nodes_of.get(r, ())]
        if removals:
            self._drop(removals)
        gone = {record_id for _, record_id, _ in removals}
        for record_id in gone:
            if not nodes_of.get(record_id):
                nodes_of.pop(record_id, None)
        return len(gone)

    def _drop(self, removals: list[tuple[str, str, str]]) -> None:
        """Remove losing entries and bump this replica's ``_sys`` entry (one transaction)."""
        with self.doc.transaction():
            for kind, record_id, node in removals:
                del self.maps[kind][f"{record_id}{SEPARATOR}{node}"]
                self._nodes[kind][record_id].discard(node)
            previous = self.sys.get(self.node_id)
            count = int(previous) + 1 if isinstance(previous, str) and previous.isdigit() else 1
            self.sys[self.node_id] = str(count)
        self._clock += 1

    # ---- state ---------------------------------------------------------------------

    def state_vector(self) -> bytes:
        """This replica's Yjs state vector (v1)."""
        return self.doc.get_state()

    def diff(self, state_vector: bytes) -> bytes:
        """The update a peer with ``state_vector`` lacks (always with every deletion)."""
        decode_state_vector(state_vector)
        try:
            return self.doc.get_update(state_vector)
        except ValueError as exc:
            raise InvalidUpdateError(f"bad state vector: {exc}") from exc

    def full_update(self) -> bytes:
        """The whole document as one update (a snapshot)."""
        return self.doc.get_update()
