"""Retention: old history leaves the synced document (rows stay, as the archive), old
tombstones are collected, notes stay; replicas with different horizons still converge."""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf.timestamp_pb2 import Timestamp

from edgeloop.v1 import agent_pb2 as pb
from sync import MemoryStore, sync_stores
from sync.views import iso_ms

Factory = Callable[..., MemoryStore]
DAY_MS = 86_400_000
NOW_MS = 1_800_000_000_000  # the stores' clock


def session(store: MemoryStore, sid: str, age_days: float) -> None:
    """A session, its steps and its receipt, ``age_days`` old."""
    ms = NOW_MS - int(age_days * DAY_MS)
    when = Timestamp(seconds=ms // 1000)
    with store.batch():
        store.save_steps(
            sid,
            [
                pb.ReactStep(session_id=sid, step_index=0, step_type=pb.STEP_TYPE_THOUGHT,
                             content=f"thinking about {sid}", created_at=when),
                pb.ReactStep(session_id=sid, step_index=1, step_type=pb.STEP_TYPE_FINAL_ANSWER,
                             content=f"answer of {sid}", created_at=when),
            ],
        )  # fmt: skip
        store.record_session(sid, query=f"query {sid}", final_answer=f"answer of {sid}",
                             state="completed", created_at=iso_ms(ms))  # fmt: skip
        store.save_receipt(pb.DecisionReceipt(receipt_id=f"r-{sid}", session_id=sid,
                                              answer="x", created_at=when))  # fmt: skip


def in_document(store: MemoryStore, kind: str) -> set[str]:
    return {r for r in store.doc.record_ids(kind) if store.doc.holds(kind, r)}


def test_old_history_leaves_the_document_and_stays_in_the_tables(make_store: Factory) -> None:
    device = make_store("device", now_ms=lambda: NOW_MS)
    cloud = make_store("cloud", now_ms=lambda: NOW_MS)
    session(device, "old", age_days=200)
    session(device, "new", age_days=2)
    old_note = device.add_note("an old note is kept until deleted")
    sync_stores(device, cloud)
    counts = device.retire(history_days=90)
    assert counts == {"sessions": 1, "steps": 2, "receipts": 1}
    assert in_document(device, "sessions") == {"new"}
    assert old_note in in_document(device, "notes")
    # The archive: rows, steps and recall still hold the old session.
    assert device.get_session("old") is not None
    assert [s.content for s in device.steps("old")][-1] == "answer of old"
    recall = "SELECT count(*) FROM recall WHERE record_id LIKE 'old%'"
    assert device.db.execute(recall).fetchone()[0] == 3  # two steps and the answer
    # The cloud keeps no horizon; the removal still reaches its document, not its rows.
    sync_stores(device, cloud)
    assert device.document_json() == cloud.document_json()
    assert in_document(cloud, "steps") == in_document(device, "steps")
    assert cloud.get_session("old") is not None and len(cloud.steps("old")) == 2
    assert cloud.table_rows("steps") == device.table_rows("steps")
    assert device.search_index_matches() and cloud.search_index_matches()
    # A replica that joins later gets the document: recent history and every note.
    fresh = make_store("fresh", now_ms=lambda: NOW_MS)
    sync_stores(cloud, fresh)
    assert fresh.get_session("old") is None and fresh.get_session("new") is not None
    assert [n["note_id"] for n in fresh.notes()] == [old_note]


def test_an_archived_record_written_again_is_synced_again(make_store: Factory) -> None:
    device = make_store("device", now_ms=lambda: NOW_MS)
    cloud = make_store("cloud", now_ms=lambda: NOW_MS)
    session(device, "old", age_days=200)
    device.retire(history_days=90)
    device.record_session("old", final_answer="revised answer")  # back in the document
    assert "old" in in_document(device, "sessions")
    sync_stores(device, cloud)
    got = cloud.get_session("old")
    assert got is not None and got["final_answer"] == "revised answer"


def test_old_tombstones_are_collected(make_store: Factory) -> None:
    clock = {"ms": NOW_MS - 400 * DAY_MS}
    device = make_store("device", now_ms=lambda: clock["ms"])
    cloud = make_store("cloud", now_ms=lambda: clock["ms"])
    note = device.add_note("forget me")
    device.forget("notes", note)
    sync_stores(device, cloud)
    assert note in device.doc.record_ids("notes")  # the tombstone entry
    clock["ms"] = NOW_MS
    assert device.retire(tombstone_days=365) == {"notes tombstones": 1}
    assert device.db.execute("SELECT count(*) FROM tombstones").fetchone()[0] == 0
    sync_stores(device, cloud)
    for store in (device, cloud):
        assert note not in store.doc.record_ids("notes")
        assert store.get_record("notes", note) is None
        assert store.db.execute("SELECT count(*) FROM tombstones").fetchone()[0] == 0
    assert device.document_json() == cloud.document_json()


def test_retention_runs_by_itself_when_the_document_loads(make_store: Factory) -> None:
    device = make_store("device", now_ms=lambda: NOW_MS)
    session(device, "old", age_days=200)
    path = device.path
    device.close()
    device = MemoryStore(path, now_ms=lambda: NOW_MS, history_days=90)
    assert not device.document_loaded
    device.state_vector()  # a sync starts: the document loads, retention runs
    assert "old" not in in_document(device, "sessions")
    assert device.get_session("old") is not None
