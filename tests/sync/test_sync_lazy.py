"""The lazy document: a store opens, reads, writes new records and edits the records it
wrote without loading its CRDT document, and loads it only for what needs it (merges,
forgetting, edits in a store written before schema v7); whatever the path, replicas
converge to the same memory."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from pycrdt import get_update, merge_updates

from edgeloop.v1 import agent_pb2 as pb
from sync import MemoryStore, sync_stores
from sync.document import decode_state_vector

Factory = Callable[..., MemoryStore]


def reopen(store: MemoryStore) -> MemoryStore:
    path, node = store.path, store.node_id
    store.close()
    return MemoryStore(path, node_id=node)


def views_match_document(store: MemoryStore) -> None:
    """Every kind's records read from the views equal the document's winners."""
    for kind in ("notes", "sessions", "steps", "receipts", "facts", "transitions"):
        from_doc = {
            rid: e.hlc
            for rid in store.doc.record_ids(kind)
            if (e := store.doc.winner(kind, rid)) is not None and not e.deleted
        }
        rows = store.db.execute(f"SELECT id, hlc FROM {kind}").fetchall()
        assert dict(rows) == from_doc, kind


def ask_like_writes(store: MemoryStore, session_id: str) -> None:
    """What a calculator `edge-agent ask` writes: session, steps, summary and receipt."""
    when = Timestamp(seconds=1_760_000_000)
    store.save_session(session_id, '{"turn": 0}')
    store.append_steps(
        session_id,
        [
            pb.ReactStep(
                session_id=session_id,
                step_index=0,
                step_type=pb.STEP_TYPE_THOUGHT,
                content="a percentage",
                created_at=when,
            ),
            pb.ReactStep(
                session_id=session_id,
                step_index=1,
                step_type=pb.STEP_TYPE_FINAL_ANSWER,
                content="15% of 80 is 12",
                created_at=when,
            ),
        ],
    )
    store.save_session(session_id, '{"turn": 1}')
    with store.batch():
        store.save_receipt(
            pb.DecisionReceipt(
                receipt_id=f"r-{session_id}", session_id=session_id, answer="12", created_at=when
            )
        )
        store.record_session(
            session_id,
            query="what's 15% of 80",
            final_answer="15% of 80 is 12",
            success=True,
            state="completed",
        )


def test_an_ask_writes_and_reads_without_loading_the_document(make_store: Factory) -> None:
    store = make_store("edge")
    old = [store.add_note(f"old note {i} about the blue bicycle") for i in range(20)]
    store.add_fact("settings", "home_city", "oslo")
    store = reopen(store)
    assert not store.document_loaded
    assert store.facts("settings")[0]["value"] == "oslo"
    ask_like_writes(store, "s1")
    new = store.add_note("the new blue bicycle lock code")
    store.record_transition("s1", "WORKING", "COMPLETED")
    assert store.search("blue bicycle lock")[0].record_id == new
    assert store.get_session("s1")["data"] == '{"turn": 1}'  # type: ignore[index]
    assert not store.document_loaded
    views_match_document(store)  # loads it: the scratch writes are in the log
    assert len(store.doc.entries("sessions", "s1")) == 1

    peer = make_store("cloud")
    sync_stores(store, peer)
    assert peer.document_json() == store.document_json()
    assert peer.get_session("s1") == store.get_session("s1")
    assert sorted(n["note_id"] for n in peer.notes()) == sorted([*old, new])
    assert [s.content for s in peer.steps("s1")] == ["a percentage", "15% of 80 is 12"]


def test_an_edit_of_an_earlier_record_needs_no_document(make_store: Factory) -> None:
    store = make_store("edge")
    note = store.add_note("renew the passport")
    store = reopen(store)
    store.update_note(note, "renew the driving licence")
    assert not store.document_loaded
    store = reopen(store)
    store.update_note(note, "renew the driving licence and the passport")
    store.update_note(note, "renew the driving licence")  # an edit of the edit
    assert not store.document_loaded
    assert [e.data["text"] for e in store.doc.entries("notes", note) if e.data] == [
        "renew the driving licence"
    ]
    store = reopen(store)
    assert store.notes()[0]["text"] == "renew the driving licence"
    views_match_document(store)


def test_a_batch_may_start_lazily_and_load_the_document_half_way(make_store: Factory) -> None:
    store = make_store("edge")
    note = store.add_note("first")
    store = reopen(store)
    gone = store.add_note("forgotten")
    store = reopen(store)
    with store.batch():
        fresh = store.add_note("second")
        store.update_note(note, "first, edited")
        assert not store.document_loaded
        store.forget("notes", gone)  # needs the document: loaded mid-batch
        assert store.document_loaded
        store.update_note(fresh, "second, edited")
    store = reopen(store)
    assert {n["note_id"]: n["text"] for n in store.notes()} == {
        note: "first, edited",
        fresh: "second, edited",
    }
    views_match_document(store)


def test_a_failed_lazy_batch_leaves_nothing(make_store: Factory) -> None:
    store = make_store("edge")
    store.add_note("kept")
    store = reopen(store)
    log = store.log_length()
    with pytest.raises(RuntimeError), store.batch():
        store.add_note("rolled back")
        raise RuntimeError("boom")
    assert [n["text"] for n in store.notes()] == ["kept"]
    assert store.log_length() == log
    store.add_note("after")
    views_match_document(store)


def test_a_failed_lazy_edit_leaves_no_gap_in_the_clocks(make_store: Factory) -> None:
    # The rolled-back edit's Yjs clock is used again by the next one: a gap would leave
    # every later edit pending (invisible) in the peers' documents.
    store, peer = make_store("edge"), make_store("cloud")
    note = store.add_note("v1")
    store = reopen(store)
    with pytest.raises(RuntimeError), store.batch():
        store.update_note(note, "rolled back")
        raise RuntimeError("boom")
    store.update_note(note, "v2")
    sync_stores(store, peer)
    assert [n["text"] for n in peer.notes()] == ["v2"]
    assert peer.document_json() == store.document_json()
    views_match_document(store)


def test_a_record_forgotten_here_is_written_again_through_the_document(
    make_store: Factory,
) -> None:
    # The tombstone is this replica's own entry: a scratch write under the same key
    # could be placed before it inside Yjs and lost. The write is an edit of the
    # tombstone's item instead.
    store = make_store("edge")
    store.put_record("notes", "n1", {"text": "one", "created_at": "2026-01-01T00:00:00Z"})
    store.forget("notes", "n1")
    store = reopen(store)
    store.put_record("notes", "n1", {"text": "two", "created_at": "2026-01-01T00:00:00Z"})
    assert not store.document_loaded
    store = reopen(store)
    assert store.get_record("notes", "n1")["text"] == "two"  # type: ignore[index]
    assert store.db.execute("SELECT count(*) FROM tombstones").fetchone()[0] == 0
    views_match_document(store)


def test_a_peers_record_is_overwritten_lazily_and_converges(make_store: Factory) -> None:
    device, cloud = make_store("device"), make_store("cloud")
    cloud.add_fact("user", "likes", "coffee")
    sync_stores(device, cloud)
    device = reopen(device)
    device.add_fact("user", "likes", "tea")  # the winner was the cloud's entry: no load
    assert not device.document_loaded
    sync_stores(device, cloud)
    for store in (device, cloud):
        assert [f["value"] for f in store.facts("user")] == ["tea"]
        winner = store.doc.winner("facts", "user/likes")
        assert winner is not None and winner.node == "device"
    assert device.document_json() == cloud.document_json()
    # Both merged without their documents, which leaves the losing entry in place; a
    # merge with the document loaded drops it, and the replicas agree again.
    cloud.add_fact("user", "likes", "tea")
    sync_stores(device, cloud)
    for store in (device, cloud):
        assert [e.node for e in store.doc.entries("facts", "user/likes")] == ["cloud"]
    assert device.document_json() == cloud.document_json()


def test_an_own_entry_that_lost_is_written_again_after_it(make_store: Factory) -> None:
    # The device's entry lost to the cloud's edit and was deleted; its key stays in the
    # document. A new entry under that key without an origin is placed by Yjs client id
    # (before the deleted item half the time, and then deleted at once): the write must
    # name the old item as its origin. Each reopen takes new Yjs client ids.
    device, cloud = make_store("device"), make_store("cloud")
    device.add_fact("user", "city", "oslo")
    for round_ in range(6):
        sync_stores(device, cloud)
        cloud.add_fact("user", "city", f"bergen {round_}")
        sync_stores(device, cloud)
        device = reopen(device)
        device.add_fact("user", "city", f"oslo {round_}")
        assert not device.document_loaded
        assert [f["value"] for f in device.facts("user")] == [f"oslo {round_}"]
        sync_stores(device, cloud)
        for store in (device, cloud):
            assert [f["value"] for f in store.facts("user")] == [f"oslo {round_}"]
        assert device.document_json() == cloud.document_json()
        views_match_document(device)
        views_match_document(cloud)


def test_another_connection_writing_drops_the_scratch(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    a = MemoryStore(path, node_id="edge")
    b = MemoryStore(path)
    try:
        first = a.add_note("from a")
        b.update_note(first, "edited by b")  # the same replica through another connection
        a.update_note(first, "edited by a again")  # a's scratch is stale: it reloads
        assert [n["text"] for n in b.notes()] == ["edited by a again"]
        assert len(a.doc.entries("notes", first)) == 1
        views_match_document(a)
    finally:
        a.close()
        b.close()


def test_an_incremental_diff_needs_no_document(make_store: Factory) -> None:
    device, cloud = make_store("device"), make_store("cloud")
    for i in range(30):
        device.add_note(f"shared note {i}")
    sync_stores(device, cloud)
    device = reopen(device)
    ask_like_writes(device, "s2")
    fresh = device.add_note("written since the last sync")
    # The cloud's state vector and the diff it lacks come from meta and the log.
    cloud_state = cloud.state_vector()
    update = device.diff(cloud_state)
    assert device.state_vector() != cloud_state
    assert not device.document_loaded
    assert cloud.apply_update(update)
    assert cloud.get_record("notes", fresh) is not None and cloud.get_session("s2") is not None
    sync_stores(device, cloud)
    assert device.document_json() == cloud.document_json()


def test_a_diff_from_the_log_equals_the_documents(make_store: Factory, tmp_path: Path) -> None:
    a, b = make_store("a"), make_store("b")
    note = a.add_note("first")
    b.add_note("from b")
    sync_stores(a, b)
    a.update_note(note, "first, edited")
    with a.batch():
        for i in range(5):
            a.add_note(f"more {i}")
    b.checkpoint()
    copies = []
    for name in ("via-log", "via-doc"):
        path = tmp_path / f"{name}.db"
        path.write_bytes(Path(b.path).read_bytes())
        copies.append(MemoryStore(path))
    state = b.state_vector()
    assert a._diff_from_log(decode_state_vector(state), state) is not None  # the log path
    from_log = a.diff(state)
    from_doc = a.doc.diff(state)
    assert copies[0].apply_update(from_log) and copies[1].apply_update(from_doc)
    assert copies[0].document_json() == copies[1].document_json()
    assert copies[0].table_rows("notes") == copies[1].table_rows("notes")
    for copy in copies:
        copy.close()


def test_a_first_sync_of_new_records_joins_the_plain_log_entries(
    make_store: Factory, tmp_path: Path
) -> None:
    """Entries of new records only, written without the document (several processes:
    several Yjs clients), are marked plain, and a first sync's diff lays them end to
    end: the bytes merge_updates gives, and the same document and tables as the
    document's own diff. An edit's entry is not plain, and a window with it merges."""
    a, b = make_store("a"), make_store("b")
    for process in range(3):
        a = reopen(a)
        for batch in range(2):
            with a.batch():
                for i in range(3):
                    a.add_note(f"note {process}.{batch}.{i}")
        a.put_record("sessions", f"s{process}", {"created_at": "2026-01-01T00:00:00.000Z"})
    b.add_note("from b")
    state = b.state_vector()
    a = reopen(a)
    seqs = [row[0] for row in a.db.execute("SELECT seq FROM update_log ORDER BY seq")]
    assert len(seqs) == 9 and a._log.plain(seqs)
    merged = merge_updates(*a._log.entries(seqs))
    from_log = a.diff(state)
    assert not a.document_loaded
    assert from_log == bytes(merged)
    copies = []
    for name in ("via-log", "via-doc"):
        path = tmp_path / f"{name}.db"
        path.write_bytes(Path(b.path).read_bytes())
        copies.append(MemoryStore(path))
    assert copies[0].apply_update(from_log) and copies[1].apply_update(a.doc.diff(state))
    assert copies[0].document_json() == copies[1].document_json()
    assert copies[0].table_rows("notes") == copies[1].table_rows("notes")
    for copy in copies:
        copy.close()
    a = reopen(a)
    a.update_note(a.notes()[0]["note_id"], "edited")
    seqs = [row[0] for row in a.db.execute("SELECT seq FROM update_log ORDER BY seq")]
    assert a._log.plain(seqs[:-1]) and not a._log.plain(seqs[-1:])
    assert a.diff(state) == bytes(merge_updates(*a._log.entries(seqs)))


def test_a_first_sync_ships_the_merged_log_entries_as_the_diff(
    make_store: Factory, tmp_path: Path
) -> None:
    """A peer that holds nothing of what the log's entries brought (a first sync) gets
    them merged, not cut again: the bytes get_update gives, and the same document and
    tables as the document's own diff."""
    a, b = make_store("a"), make_store("b")
    for batch in range(3):
        with a.batch():
            for i in range(4):
                a.add_note(f"note {batch}.{i}")
    a.update_note(a.notes()[0]["note_id"], "edited")
    b.add_note("from b")
    b.checkpoint()
    state = b.state_vector()
    a = reopen(a)
    seqs = [row[0] for row in a.db.execute("SELECT seq FROM update_log ORDER BY seq")]
    assert len(seqs) == 4
    merged = merge_updates(*a._log.entries(seqs))
    from_log = a.diff(state)
    assert not a.document_loaded
    assert from_log == bytes(merged) == bytes(get_update(merged, state))
    copies = []
    for name in ("via-log", "via-doc"):
        path = tmp_path / f"{name}.db"
        path.write_bytes(Path(b.path).read_bytes())
        copies.append(MemoryStore(path))
    assert copies[0].apply_update(from_log) and copies[1].apply_update(a.doc.diff(state))
    assert copies[0].document_json() == copies[1].document_json()
    assert copies[0].table_rows("notes") == copies[1].table_rows("notes")
    for copy in copies:
        copy.close()


def test_a_cold_sync_of_new_records_loads_neither_document(make_store: Factory) -> None:
    device, cloud = make_store("device"), make_store("cloud")
    for i in range(20):
        device.add_note(f"shared note {i}")
    sync_stores(device, cloud)
    device, cloud = reopen(device), reopen(cloud)
    mine = device.add_note("the blue bicycle lock code is 4321")
    ask_like_writes(device, "s9")
    theirs = cloud.add_note("the garden tap is under the porch")
    stats = sync_stores(device, cloud)
    assert stats.rounds >= 1
    assert not device.document_loaded and not cloud.document_loaded
    for store in (device, cloud):
        assert {mine, theirs} <= {n["note_id"] for n in store.notes()}
        assert [h.record_id for h in store.search("blue bicycle lock")][:1] == [mine]
        assert [s.content for s in store.steps("s9")] == ["a percentage", "15% of 80 is 12"]
    assert device.document_json() == cloud.document_json()
    views_match_document(device)
    views_match_document(cloud)


def test_a_tombstone_merged_without_the_document_is_indexed(make_store: Factory) -> None:
    device, cloud = make_store("device"), make_store("cloud")
    sync_stores(device, cloud)
    note = device.add_note("old wifi password is hunter2")
    device.forget("notes", note)  # never synced: the cloud learns only the tombstone
    cloud = reopen(cloud)
    sync_stores(device, cloud)
    assert not cloud.document_loaded
    for store in (device, cloud):
        assert store.notes() == [] and store.search("wifi password") == []
        assert store.db.execute("SELECT kind, node FROM tombstones").fetchall() == [
            ("notes", "device")
        ]
    assert device.document_json() == cloud.document_json()
    views_match_document(cloud)


def test_a_peers_entry_of_a_record_held_here_merges_through_the_document(
    make_store: Factory,
) -> None:
    # Where Yjs puts a new entry among the document's items of its key decides whether
    # it survives: the document decides.
    device, cloud = make_store("device"), make_store("cloud")
    note = cloud.add_note("old wifi password is hunter2")
    sync_stores(device, cloud)
    device.forget("notes", note)
    cloud = reopen(cloud)
    sync_stores(device, cloud)
    assert cloud.document_loaded
    for store in (device, cloud):
        assert store.notes() == [] and store.search("wifi password") == []
    assert device.document_json() == cloud.document_json()
    views_match_document(cloud)


def test_a_peers_edit_of_an_entry_held_here_merges_through_the_document(
    make_store: Factory,
) -> None:
    # The cloud's new entry replaces its earlier one: its item's origin is in the
    # device's document, which the merge then needs.
    device, cloud = make_store("device"), make_store("cloud")
    cloud.add_fact("user", "city", "oslo")
    sync_stores(device, cloud)
    cloud.add_fact("user", "city", "bergen")
    device = reopen(device)
    sync_stores(device, cloud)
    assert device.document_loaded
    assert [f["value"] for f in device.facts("user")] == ["bergen"]
    assert device.document_json() == cloud.document_json()


def test_a_bad_update_merged_without_the_document_changes_nothing(make_store: Factory) -> None:
    from pycrdt import Doc, Map

    from sync.errors import InvalidUpdateError

    store = make_store("device")
    store.add_note("kept")
    store = reopen(store)
    bad = Doc()
    bad.get("notes", type=Map)["n2|peer"] = '{"h":"0000000003e80000","v":{"text":5}}'
    log, rows = store.log_length(), store.table_rows("notes")
    with pytest.raises(InvalidUpdateError):
        store.apply_update(bad.get_update())
    assert store.log_length() == log and store.table_rows("notes") == rows
    store.add_note("after")
    views_match_document(store)


def test_a_device_that_only_stores_memory_never_loads_grpc(tmp_path: Path) -> None:
    """``edge-agent ask`` opens, writes and searches memory; the gRPC client and service
    (~15 MB of RSS) load only when it syncs."""
    code = (
        "import sys\n"
        "from edge_agent import cli\n"
        "sys.argv = ['edge-agent', 'ask', 'what is 15% of 80', '--memory', sys.argv[1]]\n"
        "try:\n"
        "    cli.main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('grpc' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().splitlines()[-1] == "False"
