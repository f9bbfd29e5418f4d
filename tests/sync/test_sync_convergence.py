"""Property test: random edits on three replicas, synced in random pairs and orders,
end identical (documents and SQLite tables) with no acknowledged write lost."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sync import MemoryStore
from sync.exchange import sync_stores

NODES = ("a", "b", "c")
WHEN = "2026-01-01T00:00:00Z"
IDS = ("r0", "r1", "r2", "r3")

op = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(NODES), st.sampled_from(IDS), st.text(max_size=8)),
    st.tuples(st.just("delete"), st.sampled_from(NODES), st.sampled_from(IDS), st.none()),
    st.tuples(st.just("sync"), st.sampled_from(NODES), st.sampled_from(NODES), st.none()),
    st.tuples(st.just("tick"), st.sampled_from(NODES), st.integers(-50, 50), st.none()),
    # A restart: the replica forgets its in-memory documents, so its next writes go to
    # a scratch document (records it holds no entry of) or reload the whole one.
    st.tuples(st.just("restart"), st.sampled_from(NODES), st.none(), st.none()),
)


class Clock:
    def __init__(self) -> None:
        self.ms = 1_000

    def __call__(self) -> int:
        return self.ms


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(op, max_size=40), st.permutations(NODES))
def test_three_replicas_converge_without_losing_writes(
    ops: list[tuple[str, str, Any, Any]], final_order: list[str]
) -> None:
    clocks = {n: Clock() for n in NODES}
    stores = {n: MemoryStore(":memory:", node_id=n, now_ms=clocks[n]) for n in NODES}
    acked: dict[str, list[tuple[str, str, str | None]]] = {i: [] for i in IDS}
    try:
        for kind, node, arg, text in ops:
            store = stores[node]
            if kind == "write":
                store.put_record("notes", arg, {"text": f"{node}:{text}", "created_at": WHEN})
            elif kind == "delete":
                if store.get_record("notes", arg) is None:
                    continue
                store.forget("notes", arg)
            elif kind == "sync":
                if node != arg:
                    sync_stores(store, stores[arg])
                continue
            elif kind == "restart":
                store._reload()
                continue
            else:
                clocks[node].ms = max(0, clocks[node].ms + arg)
                continue
            # What the write left in the views (the document may not be loaded).
            live = store.db.execute("SELECT hlc, node, text FROM notes WHERE id = ?", [arg])
            tomb = store.db.execute("SELECT hlc, node, NULL FROM tombstones WHERE id = ?", [arg])
            [(hlc, winner, stored)] = live.fetchall() + tomb.fetchall()
            assert winner == node
            acked[arg].append((hlc, node, stored))
        x, y, z = (stores[n] for n in final_order)
        sync_stores(x, y)
        sync_stores(y, z)
        sync_stores(x, y)
        docs = [s.document_json() for s in stores.values()]
        tables = [s.table_rows("notes") for s in stores.values()]
        assert docs[0] == docs[1] == docs[2]
        assert tables[0] == tables[1] == tables[2]
        assert all(s.search_index_matches() for s in stores.values())
        for s in stores.values():  # the tombstone index agrees with the document
            tombs = s.db.execute("SELECT id, hlc, node FROM tombstones").fetchall()
            assert sorted(tombs) == sorted(
                (rid, e.hlc, e.node)
                for rid in s.doc.record_ids("notes")
                if (e := s.doc.winner("notes", rid)) is not None and e.deleted
            )
        for record_id, writes in acked.items():
            expected = max(writes)[2] if writes else None
            got = x.get_record("notes", record_id)
            assert (None if got is None else got["text"]) == expected
            if expected is None:
                assert all(row["id"] != record_id for row in tables[0])
    finally:
        for s in stores.values():
            s.close()
