"""Every user's memory in one PostgreSQL database, shared by any number of cloud replicas.

A user's CRDT document lives in PostgreSQL as an append-only log of Yjs updates plus a
compacted snapshot (the approach of y-redis and Hocuspocus' database extension: stateless
servers in front of a shared store of updates)::

    edgeloop_users      (user_id, head)          head: the user's last log sequence number
    edgeloop_updates    (user_id, seq, data)     the log, seq = 1, 2, 3... per user
    edgeloop_snapshots  (user_id, upto_seq, data) the document up to and including upto_seq
    edgeloop_recall     (user_id, kind, record_id, body, tsv...)  what recall searches

Why no update is ever missed, on any replica:

- **appends are serialised per user**: a replica applying a device's update locks the
  user's ``edgeloop_users`` row (``SELECT ... FOR UPDATE``), catches its cached document
  up with the log, merges the update, appends what changed at ``head + 1...`` and moves
  ``head``, all in one transaction. Sequence numbers are thus handed out in commit order,
  so the committed log is always a gap-free prefix ``1..head``: a reader that has seen
  ``seq <= h`` and reads ``seq > h`` later misses nothing (a global ``bigserial`` would
  not give that: a transaction holding a smaller number may commit after a larger one);
- **every read catches up first**: ``state_vector`` and ``diff`` read the log past the
  cached document's head (one statement, so one consistent view) before answering, so a
  replica's diff includes what other replicas appended for the user;
- **compaction keeps what it did not see**: it writes the snapshot of a document that
  holds exactly ``seq <= upto`` and deletes only those entries, under a per-user advisory
  lock (two compactions never interleave); updates appended meanwhile have larger
  numbers and stay. A replica whose head is behind a new snapshot loads the snapshot
  (Yjs updates are idempotent) then the entries after it -- the same statement returns
  both.

Recall is PostgreSQL full-text search: the texts recall covers (notes, step contents,
final answers, facts -- ``sync.searchable.RECALL_BUILDERS``) are kept in ``edgeloop_recall``
with a stored ``tsvector``, written in the same transaction as the log entry that
changed them. Documents are cached per replica within a budget (``sync.cache``).

Example:
    >>> memory = PostgresMemory("postgresql://127.0.0.1/edgeloop").open()  # doctest: +SKIP
    >>> alice = memory("alice")                                 # doctest: +SKIP
    >>> alice.apply_update(update_from_device)                  # doctest: +SKIP
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import psycopg
import psycopg_pool

from sync.cache import BudgetCache, CacheBudget
from sync.document import KINDS, MemoryDocument
from sync.errors import MemoryStoreError, MemoryUnavailableError, PermissionDeniedError
from sync.node_claims import refused, unclaimed
from sync.recall import HALF_LIFE_DAYS, MIN_SCORE, RecallHit, query_terms
from sync.searchable import RECALL_BUILDERS
from sync.views import epoch_s, merged_rows

T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS edgeloop_users (
    user_id text PRIMARY KEY,
    head bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS edgeloop_updates (
    user_id text NOT NULL,
    seq bigint NOT NULL,
    data bytea NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, seq)
);
CREATE TABLE IF NOT EXISTS edgeloop_snapshots (
    user_id text PRIMARY KEY,
    upto_seq bigint NOT NULL,
    data bytea NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS edgeloop_recall (
    user_id text NOT NULL,
    kind text NOT NULL,
    record_id text NOT NULL,
    hit_kind text NOT NULL,
    body text NOT NULL,
    tool text,
    confidence real NOT NULL,
    created_at text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED,
    PRIMARY KEY (user_id, kind, record_id)
);
CREATE TABLE IF NOT EXISTS edgeloop_node_claims (
    user_id text NOT NULL,
    node_id text NOT NULL,
    device_id text NOT NULL,
    at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, node_id)
);
"""
"""The tables (created if missing). Recall reads one user's rows through the primary
key's ``user_id`` prefix and matches their stored ``tsvector``; the ``simple``
configuration (no stemming, no stop words) because users write in any language."""

TABLES = (
    "edgeloop_users",
    "edgeloop_updates",
    "edgeloop_snapshots",
    "edgeloop_recall",
    "edgeloop_node_claims",
)

# One statement, so one consistent view even while a compaction commits: the snapshot if
# it covers entries past ``head``, then the entries past both.
_CATCH_UP_SQL = """
SELECT 0 AS part, upto_seq AS seq, data FROM edgeloop_snapshots
 WHERE user_id = %(user)s AND upto_seq > %(head)s
UNION ALL
SELECT 1, seq, data FROM edgeloop_updates
 WHERE user_id = %(user)s AND seq > %(head)s
ORDER BY part, seq
"""

_LOCK_USER_SQL = "SELECT head FROM edgeloop_users WHERE user_id = %s FOR UPDATE"

_UPSERT_RECALL_SQL = """
INSERT INTO edgeloop_recall
    (user_id, kind, record_id, hit_kind, body, tool, confidence, created_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (user_id, kind, record_id) DO UPDATE SET
    hit_kind = excluded.hit_kind, body = excluded.body, tool = excluded.tool,
    confidence = excluded.confidence, created_at = excluded.created_at
"""

_RECALL_SQL = """
SELECT hit_kind, record_id, body, confidence, created_at,
       ts_rank(tsv, to_tsquery('simple', %(query)s)) AS rank
  FROM edgeloop_recall
 WHERE user_id = %(user)s AND tsv @@ to_tsquery('simple', %(query)s)
 ORDER BY rank DESC, created_at DESC
 LIMIT %(candidates)s
"""

_TOKEN = re.compile(r"\w+", re.UNICODE)


def _lock_key(user_id: str) -> str:
    return f"edgeloop.compact:{user_id}"


@dataclass
class UserDocument:
    """One user's document as a replica holds it: the CRDT document and the log position
    it reflects (every entry ``seq <= head`` and nothing that is not in the log)."""

    doc: MemoryDocument
    captured: list[bytes] = field(default_factory=list)
    head: int = 0
    nbytes: int = 0
    """Bytes of snapshot and log entries that built it (the cache's measure of its size)."""
    upto: int = 0
    """The ``upto_seq`` of the latest snapshot seen (``head - upto``: the log's length)."""


class PostgresMemory:
    """Every user's memory in one PostgreSQL database; ``memory(user)`` is what the sync
    servicer syncs with (also the object's ``__call__``).

    Args:
        url: a libpq connection string (``postgresql://user@host:5432/db``); a password
            is better kept in ``PGPASSWORD`` or ``~/.pgpass`` than in the URL.
        node_id: the server's node id in every user's document.
        budget: how many documents (and bytes) this replica keeps loaded.
        pool_size: connections to the database at most.
        compact_every: compact a user's log once it holds more entries.
        connect_timeout_s: give up on an unreachable database after this long.
    """

    def __init__(
        self,
        url: str,
        *,
        node_id: str = "cloud",
        budget: CacheBudget | None = None,
        pool_size: int = 8,
        compact_every: int = 500,
        connect_timeout_s: float = 5.0,
    ) -> None:
        self.url = url
        self.node_id = node_id
        self.compact_every = compact_every
        self._timeout = connect_timeout_s
        self.pool = psycopg_pool.ConnectionPool(
            url,
            min_size=1,
            max_size=max(pool_size, 1),
            kwargs={"autocommit": True, "connect_timeout": max(int(connect_timeout_s), 1)},
            check=psycopg_pool.ConnectionPool.check_connection,
            open=False,
            timeout=connect_timeout_s,
            name="edgeloop-memory",
        )
        self.cache: BudgetCache[str, UserDocument] = BudgetCache.from_budget(
            budget or CacheBudget(), close=lambda state: state.doc.close()
        )
        self.compactions = 0
        self._compaction_lock = threading.Lock()

    # ---- lifecycle -----------------------------------------------------------------

    def open(self) -> PostgresMemory:
        """Connect and create the tables if missing.

        Raises:
            MemoryUnavailableError: the database cannot be reached or refused the schema.
        """
        where = _redacted(self.url)
        try:  # one direct attempt first: a refused connection fails now, with its reason
            psycopg.connect(self.url, connect_timeout=max(int(self._timeout), 1)).close()
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            raise MemoryUnavailableError(f"cannot reach PostgreSQL at {where}: {reason}") from None
        try:
            self.pool.open(wait=True, timeout=self._timeout)
        except psycopg_pool.PoolTimeout as exc:
            self.pool.close()
            raise MemoryUnavailableError(
                f"cannot reach PostgreSQL at {where} within {self._timeout:g} s"
            ) from exc
        with self._db() as conn, conn.transaction():
            # Two replicas starting at once: one creates, the other waits for it.
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('edgeloop.schema', 0))")
            conn.execute(SCHEMA)
        return self

    def close(self) -> None:
        """Drop every cached document and close the connections."""
        self.cache.close()
        self.pool.close()

    def __enter__(self) -> PostgresMemory:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ping(self, timeout_s: float = 2.0) -> bool:
        """True if the database answers a query within ``timeout_s`` (health checks)."""
        try:
            with self.pool.connection(timeout=timeout_s) as conn:
                conn.execute("SELECT 1")
            return True
        except (psycopg.Error, psycopg_pool.PoolTimeout):
            return False

    def evict_idle(self) -> int:
        """Drop the documents idle for longer than the budget allows; return how many."""
        return self.cache.evict_idle()

    # ---- per-user handles ----------------------------------------------------------

    def memory(self, user_id: str) -> PostgresUserMemory:
        """The sync handle of one user (cheap: the document loads on first use)."""
        if not user_id or len(user_id) > 256 or "\x00" in user_id:
            raise PermissionDeniedError("a user id is required (at most 256 characters, no NUL)")
        return PostgresUserMemory(self, user_id)

    __call__ = memory

    # ---- internals shared by the handles -------------------------------------------

    @contextmanager
    def _db(self) -> Iterator[psycopg.Connection[Any]]:
        """A pooled connection; connection failures become MemoryUnavailableError."""
        try:
            with self.pool.connection() as conn:
                yield conn
        except (psycopg.OperationalError, psycopg_pool.PoolTimeout) as exc:
            raise MemoryUnavailableError(f"the memory database is unavailable: {exc}") from exc

    @contextmanager
    def lease(self, user_id: str) -> Iterator[UserDocument]:
        """The user's cached document (loaded on a miss), held for one operation."""
        with self.cache.lease(user_id, lambda: self._load(user_id), _size) as state:
            yield state

    def _load(self, user_id: str) -> UserDocument:
        captured: list[bytes] = []
        state = UserDocument(MemoryDocument(self.node_id, on_update=captured.append), captured)
        with self._db() as conn:
            self._catch_up(conn, user_id, state)
        return state

    def _catch_up(self, conn: psycopg.Connection[Any], user_id: str, state: UserDocument) -> None:
        """Apply what the log holds past ``state.head`` (another replica's appends)."""
        rows = conn.execute(_CATCH_UP_SQL, {"user": user_id, "head": state.head}).fetchall()
        if not rows:
            return
        state.doc.load(bytes(row[2]) for row in rows)
        state.head = max(int(row[1]) for row in rows)
        state.upto = max([state.upto, *(int(row[1]) for row in rows if row[0] == 0)])
        state.nbytes += sum(len(row[2]) for row in rows)

    def read(self, user_id: str, action: Callable[[UserDocument], T]) -> T:
        """Run ``action`` on the user's document once it has caught up with the log."""
        with self.lease(user_id) as state:
            try:
                with self._db() as conn:
                    self._catch_up(conn, user_id, state)
            except Exception:
                self.cache.discard(user_id)
                raise
            return action(state)

    def apply(self, user_id: str, update: bytes, writer: str | None = None) -> bool:
        """Merge a device's update and append what it changed, in one transaction (with
        ``writer``, only if it writes under that device's node ids: ``sync.node_claims``)."""
        appended = False
        with self.lease(user_id) as state:
            try:
                with self._db() as conn, conn.transaction():
                    conn.execute(
                        "INSERT INTO edgeloop_users (user_id) VALUES (%s) ON CONFLICT DO NOTHING",
                        [user_id],
                    )
                    row = conn.execute(_LOCK_USER_SQL, [user_id]).fetchone()
                    head = int(row[0]) if row else 0
                    if head != state.head:
                        self._catch_up(conn, user_id, state)
                    state.captured.clear()
                    written: set[str] | None = set() if writer is not None else None
                    touched = state.doc.apply_remote(update, written=written)
                    if writer is not None and written:
                        _claim_nodes(conn, user_id, writer, written, state.doc.node_id)
                    recall_upserts, recall_deletes = _recall_changes(
                        touched.created, touched.winners
                    )
                    entries = [u for u in state.captured if u]
                    state.captured.clear()
                    if entries:
                        rows = [(user_id, head + i + 1, u) for i, u in enumerate(entries)]
                        with conn.cursor() as cur:
                            cur.executemany(
                                "INSERT INTO edgeloop_updates (user_id, seq, data)"
                                " VALUES (%s, %s, %s)",
                                rows,
                            )
                            conn.execute(
                                "UPDATE edgeloop_users SET head = %s WHERE user_id = %s",
                                [head + len(entries), user_id],
                            )
                            if recall_deletes:
                                cur.executemany(
                                    "DELETE FROM edgeloop_recall"
                                    " WHERE user_id = %s AND kind = %s AND record_id = %s",
                                    [(user_id, k, r) for k, r in recall_deletes],
                                )
                            if recall_upserts:
                                cur.executemany(
                                    _UPSERT_RECALL_SQL, [(user_id, *r) for r in recall_upserts]
                                )
                        appended = True
                    new_head = head + len(entries)
                    new_bytes = sum(len(u) for u in entries)
            except BaseException:
                # The document may hold what the database does not (Yjs cannot roll
                # back): the next use reloads it from the log.
                self.cache.discard(user_id)
                raise
            state.head = new_head
            state.nbytes += new_bytes
            snapshot_due = appended and state.head - state.upto > self.compact_every
        if snapshot_due:
            self.compact(user_id)
        return appended

    def compact(self, user_id: str) -> bool:
        """Snapshot the user's document and delete the log entries it covers.

        Runs under the user's advisory lock (a compaction already running elsewhere
        makes this one return False at once). The snapshot is the document of exactly the
        entries ``seq <= upto``; entries appended meanwhile, on any replica, have larger
        numbers and stay in the log.
        """
        with self.lease(user_id) as state, self._db() as conn:
            try:
                self._catch_up(conn, user_id, state)
            except Exception:
                self.cache.discard(user_id)
                raise
            upto = state.head
            if upto <= state.upto:
                return False
            snapshot = state.doc.full_update()
            with conn.transaction():
                locked = conn.execute(
                    "SELECT pg_try_advisory_xact_lock(hashtextextended(%s, 0))",
                    [_lock_key(user_id)],
                ).fetchone()
                if not (locked and locked[0]):
                    return False
                conn.execute(
                    "INSERT INTO edgeloop_snapshots (user_id, upto_seq, data)"
                    " VALUES (%s, %s, %s)"
                    " ON CONFLICT (user_id) DO UPDATE"
                    " SET upto_seq = excluded.upto_seq, data = excluded.data, at = now()"
                    " WHERE edgeloop_snapshots.upto_seq < excluded.upto_seq",
                    [user_id, upto, snapshot],
                )
                conn.execute(
                    "DELETE FROM edgeloop_updates WHERE user_id = %s AND seq <= %s",
                    [user_id, upto],
                )
            state.nbytes, state.upto = len(snapshot), upto
        with self._compaction_lock:
            self.compactions += 1
        return True

    def search(self, user_id: str, query: str, limit: int = 5) -> list[RecallHit]:
        """Recall over the user's notes, step contents, final answers and facts.

        Full-text search (``tsvector @@ tsquery``): the texts with every query term, topped
        up with texts with any term when fewer than ``limit`` have them all; scored as the
        SQLite store's recall is (``sync.recall``): ``0.5 ** (age_days / 30) * confidence
        * relevance``, relevance the mean of the share of the query's terms the text holds
        and its ``ts_rank`` relative to the best candidate's; hits under 0.3 dropped.
        """
        terms = query_terms(query)
        if not terms or limit <= 0:
            return []
        quoted = [f"'{t}'" for t in terms]  # \w+ words: no quote or backslash inside
        with self._db() as conn:
            rows = conn.execute(
                _RECALL_SQL, {"user": user_id, "query": " & ".join(quoted), "candidates": 30}
            ).fetchall()
            if len(rows) < limit and len(terms) > 1:
                seen = {(r[0], r[1]) for r in rows}
                more = conn.execute(
                    _RECALL_SQL, {"user": user_id, "query": " | ".join(quoted), "candidates": 30}
                ).fetchall()
                rows.extend(r for r in more if (r[0], r[1]) not in seen)
        if not rows:
            return []
        best = max(float(r[5]) for r in rows) or 1.0
        now = time.time()
        term_set = set(terms)
        hits = []
        for hit_kind, record_id, body, confidence, created_at, rank in rows:
            words = set(_TOKEN.findall(body.lower()))
            relevance = 0.5 * len(term_set & words) / len(term_set) + 0.5 * float(rank) / best
            age_days = max((now - epoch_s(created_at)) / 86_400.0, 0.0)
            score = 0.5 ** (age_days / HALF_LIFE_DAYS) * float(confidence) * relevance
            if score >= MIN_SCORE:
                hits.append(RecallHit(hit_kind, record_id, body, round(score, 6), created_at))
        hits.sort(key=lambda h: (-h.score, h.created_at))
        return hits[:limit]

    # ---- measurements (bench, tests) -----------------------------------------------

    def database_bytes(self) -> int:
        """Bytes the memory tables take on disk, indexes and TOAST included."""
        with self._db() as conn:
            row = conn.execute(
                "SELECT sum(pg_total_relation_size(c)) FROM unnest(%s::regclass[]) AS c",
                [list(TABLES)],
            ).fetchone()
        return int(row[0] or 0) if row else 0

    def user_count(self) -> int:
        """Users with any memory in the database."""
        with self._db() as conn:
            row = conn.execute("SELECT count(*) FROM edgeloop_users").fetchone()
        return int(row[0]) if row else 0


class PostgresUserMemory:
    """One user's memory in PostgreSQL, as the sync servicer uses it: state vector, diff,
    apply (each call catches up with the log; see the module's docstring)."""

    def __init__(self, backend: PostgresMemory, user_id: str) -> None:
        self.backend = backend
        self.user_id = user_id

    def state_vector(self) -> bytes:
        """The document's Yjs state vector, with every committed update included."""
        return self.backend.read(self.user_id, lambda s: s.doc.state_vector())

    def diff(self, state_vector: bytes) -> bytes:
        """The update a peer with ``state_vector`` lacks (InvalidUpdateError if malformed)."""
        return self.backend.read(self.user_id, lambda s: s.doc.diff(state_vector))

    def apply_update(self, update: bytes, *, writer: str | None = None) -> bool:
        """Merge a device's update, append it and index its texts, in one transaction;
        True if anything changed.

        Raises:
            InvalidUpdateError: malformed or not our records; nothing is stored.
            MemoryUnavailableError: the database cannot be reached; nothing is stored.
        """
        if not isinstance(update, bytes | bytearray | memoryview):
            raise MemoryStoreError("an update is bytes")
        return self.backend.apply(self.user_id, bytes(update), writer)

    def document_json(self) -> dict[str, dict[str, str]]:
        """The document as plain data (tests compare replicas with it)."""
        return self.backend.read(self.user_id, lambda s: s.doc.to_py())

    def search(self, query: str, limit: int = 5) -> list[RecallHit]:
        """Recall (see :meth:`PostgresMemory.search`)."""
        return self.backend.search(self.user_id, query, limit)

    def compact(self) -> bool:
        """Compact the user's log (see :meth:`PostgresMemory.compact`)."""
        return self.backend.compact(self.user_id)


DOCUMENT_OVERHEAD_BYTES = 16 * 1024
DOCUMENT_BYTES_PER_ENCODED_BYTE = 6
"""A loaded document takes about 16 KiB plus 6 bytes of RAM per byte of its encoded
updates (measured: 22 KiB for 5 notes, 212 KiB for 200, 1.8 MiB for 2,000)."""


def _claim_nodes(
    conn: psycopg.Connection[Any], user_id: str, writer: str, nodes: set[str], own: str
) -> None:
    """Refuse an update by ``writer`` that writes under another device's node id (or the
    server's); claim the free ones for it, in the caller's transaction."""
    nodes.discard("")
    rows = conn.execute(
        "SELECT node_id, device_id FROM edgeloop_node_claims"
        " WHERE user_id = %s AND node_id = ANY(%s)",
        [user_id, sorted(nodes)],
    ).fetchall()
    owners = {str(node): str(device) for node, device in rows}
    error = refused(writer, nodes, owners, own)
    if error is not None:
        raise error
    fresh = unclaimed(nodes, owners)
    if fresh:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO edgeloop_node_claims (user_id, node_id, device_id)"
                " VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                [(user_id, node, writer) for node in fresh],
            )


def _size(state: UserDocument) -> int:
    """A loaded document's RAM, as the cache's byte budget counts it."""
    return DOCUMENT_OVERHEAD_BYTES + DOCUMENT_BYTES_PER_ENCODED_BYTE * state.nbytes


def _recall_changes(
    created: dict[str, list[tuple[str, str, object]]],
    winners: dict[str, dict[str, Any]],
) -> tuple[list[tuple[Any, ...]], list[tuple[str, str]]]:
    """The recall rows a merged update writes and deletes (every record is validated:
    InvalidUpdateError if one does not fit its table, as in the SQLite store)."""
    upserts: list[tuple[Any, ...]] = []
    deletes: list[tuple[str, str]] = []
    for kind in KINDS:
        kind_created = created.get(kind, [])
        # A record with no entry left was taken out of the document by a device's
        # retention (sync.retention): its recall row stays, as the archive (as the SQLite
        # store keeps its rows). A forgotten record has a tombstone entry instead.
        kind_winners = {r: e for r, e in winners.get(kind, {}).items() if e is not None}
        if not kind_created and not kind_winners:
            continue
        new_rows, changes, _ = merged_rows(kind, kind_created, kind_winners)
        builder = RECALL_BUILDERS.get(kind)
        if builder is None:
            continue
        rows: list[tuple[str, tuple[Any, ...] | None]] = [(row[0], row) for row in new_rows]
        rows.extend(changes)
        for record_id, row in rows:
            if "\x00" in record_id:
                continue  # PostgreSQL text holds no NUL: kept in the document, not recalled
            searchable = None if row is None else builder(row)
            if searchable is None:
                deletes.append((kind, record_id))
            else:
                hit_kind, text, tool, confidence, created_at = searchable
                tool = tool and _no_nul(tool)
                upserts.append(
                    (kind, record_id, hit_kind, _no_nul(text), tool, confidence, created_at)
                )
    return upserts, deletes


def _no_nul(text: str) -> str:
    """``text`` as PostgreSQL can store it (no NUL character; a note may hold one)."""
    return text.replace("\x00", " ")


def _redacted(url: str) -> str:
    """``url`` without its password (error messages and logs)."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)
