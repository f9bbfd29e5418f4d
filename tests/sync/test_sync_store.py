"""The store's edge-tool methods, kernel interfaces, validation and persistence."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from edgeloop.v1 import agent_pb2 as pb
from sync import InvalidRecordError, MemoryStore, RecordNotFoundError
from sync.schema import SCHEMA_VERSION


def test_notes_round_trip_and_search(store: MemoryStore) -> None:
    note_id = store.add_note("Dentist appointment on Friday at 9", source_act_id="a1")
    store.add_note("Buy oat milk")
    hits = store.search("dentist")
    assert [h.record_id for h in hits] == [note_id]
    assert hits[0].kind == "note" and hits[0].text.startswith("Dentist")
    assert 0.3 <= hits[0].score <= 1.0
    assert {n["note_id"]: n["source_act_id"] for n in store.notes()}[note_id] == "a1"
    store.update_note(note_id, "Dentist moved to Monday")
    assert store.search("monday")[0].record_id == note_id
    store.delete_note(note_id)
    assert store.search("dentist") == []
    with pytest.raises(RecordNotFoundError):
        store.delete_note(note_id)


@pytest.mark.parametrize("bad", ["", "   ", 42, None, "x" * 100_001])
def test_bad_note_is_rejected_and_nothing_stored(store: MemoryStore, bad: object) -> None:
    store.add_note("keep me")
    before = store.log_length()
    with pytest.raises(InvalidRecordError):
        store.add_note(bad)  # type: ignore[arg-type]
    assert [n["text"] for n in store.notes()] == ["keep me"]
    assert store.log_length() == before


def test_timers(store: MemoryStore) -> None:
    timer = store.add_timer(90, "tea")
    assert set(timer) >= {"timer_id", "fires_at"}
    assert timer["fires_at"].endswith("Z")
    assert store.timers()[0]["timer_id"] == timer["timer_id"]
    for bad in (0, -5, 1.5, True, "10"):
        with pytest.raises(InvalidRecordError):
            store.add_timer(bad)  # type: ignore[arg-type]
    assert len(store.timers()) == 1


def test_device_state_merges(store: MemoryStore) -> None:
    assert store.get_device_state("light", "kitchen") is None
    store.set_device_state("light", "Kitchen", {"state": "on"})
    out = store.set_device_state("light", "kitchen", {"brightness": 40})
    assert out["state"] == {"state": "on", "brightness": 40}
    assert store.get_device_state("light", "kitchen") == {"state": "on", "brightness": 40}
    assert store.get_device_state("light", None) is None
    store.set_device_state("door_lock", None, {"state": "locked"})
    assert store.get_device_state("door_lock") == {"state": "locked"}


def test_pending_queries(store: MemoryStore) -> None:
    pid = store.add_pending("compare the weather in oslo and rome", "s1")
    assert [p["pending_id"] for p in store.pending()] == [pid]
    store.resolve_pending(pid, "Rome is warmer")
    assert store.pending() == []
    assert store.get_pending(pid)["answer"] == "Rome is warmer"  # type: ignore[index]
    with pytest.raises(RecordNotFoundError):
        store.resolve_pending("nope", "x")


def test_idempotency_store(store: MemoryStore) -> None:
    assert store.get("k1") is None
    store.put("k1", {"timer_id": "t", "n": 2**60})
    assert store.get("k1") == {"timer_id": "t", "n": 2**60}
    with pytest.raises(InvalidRecordError):
        store.put("k2", {"bad": object()})
    assert store.get("k2") is None


def _step(session: str, index: int, kind: int, content: str, tool: str = "") -> pb.ReactStep:
    ts = Timestamp()
    ts.FromSeconds(1_800_000_000 + index)
    return pb.ReactStep(
        session_id=session,
        turn_id=0,
        step_index=index,
        step_type=kind,  # type: ignore[arg-type]
        content=content,
        tool=tool,
        act_id="a" if tool else "",
        created_at=ts,
    )


def test_session_store_steps_receipts(store: MemoryStore) -> None:
    steps = [
        _step("s1", 0, pb.STEP_TYPE_THOUGHT, "use the calculator"),
        _step("s1", 1, pb.STEP_TYPE_ACTION, "", "calculator"),
        _step("s1", 2, pb.STEP_TYPE_OBSERVATION, "value 42", "calculator"),
        _step("s1", 3, pb.STEP_TYPE_FINAL_ANSWER, "The answer is 42"),
    ]
    store.append_steps("s1", steps[:2])
    store.save_steps("s1", steps[2:])
    store.save_steps("s1", steps[2:])  # re-saving replaces, never duplicates
    assert store.steps("s1") == steps
    store.save_session("s1", '{"state": "done"}')
    assert store.load_session("s1") == '{"state": "done"}'
    assert store.load_session("nope") is None
    store.record_session("s1", query="what is 6*7", final_answer="42", success=True)
    assert store.load_session("s1") == '{"state": "done"}'
    assert store.get_session("s1")["final_answer"] == "42"  # type: ignore[index]
    receipt = pb.DecisionReceipt(receipt_id="r1", session_id="s1", query="q", answer="42")
    store.save_receipt(receipt)
    assert store.get_receipt("r1") == receipt
    store.record_transition("s1", "WORKING", "COMPLETED", duration_ms=1.5)
    assert store.transitions("s1")[0]["to_state"] == "COMPLETED"
    with pytest.raises(InvalidRecordError):
        store.save_steps("s1", [_step("other", 9, pb.STEP_TYPE_THOUGHT, "x")])
    with pytest.raises(InvalidRecordError):
        store.save_steps("s1", ["not a step"])  # type: ignore[list-item]
    assert len(store.steps("s1")) == 4


def test_recall_ranks_by_tool_confidence_and_drops_weak_hits(tmp_path: Path, embedder) -> None:  # type: ignore[no-untyped-def]
    store = MemoryStore(tmp_path / "m.db", embedder=embedder)
    calc = _step("s", 0, pb.STEP_TYPE_OBSERVATION, "paris population estimate", "calculator")
    web = _step("s", 1, pb.STEP_TYPE_OBSERVATION, "paris population estimate", "search")
    store.save_steps("s", [calc, web])
    store.add_note("unrelated words about gardening and paris")
    hits = store.search("paris population estimate")
    assert [h.kind for h in hits[:2]] == ["step", "step"]
    assert hits[0].score > hits[1].score
    assert all(h.score >= 0.3 for h in hits)
    assert store.search("zebra") == []
    # embeddings are stored as float32 blobs with the record
    blob = store.db.execute("SELECT embedding FROM recall LIMIT 1").fetchone()[0]
    assert len(blob) == 64 * 4
    store.close()


def test_recall_decays_with_age(store: MemoryStore) -> None:
    store.add_note("boiler service number 555")
    old = store.db.execute("SELECT created_s FROM recall").fetchone()[0]
    fresh = store.search("boiler service")[0].score
    store.db.execute("UPDATE recall SET created_s = ?", [old - 30 * 86_400])
    assert store.search("boiler service")[0].score == pytest.approx(fresh / 2, rel=1e-3)
    store.db.execute("UPDATE recall SET created_s = ?", [old - 60 * 86_400])
    assert store.search("boiler service") == []  # 0.9 / 4 < 0.3


def test_fts_query_syntax_is_not_injected(store: MemoryStore) -> None:
    note = store.add_note('quote " and NEAR( AND OR * stuff')
    # FTS5 operators in the query are words to look for, not syntax: the note is found.
    assert [hit.record_id for hit in store.search('" NEAR( * AND')] == [note]
    assert store.search('"') == []


def test_reopen_keeps_everything_and_migrations_are_versioned(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with MemoryStore(path, node_id="n1") as store:
        note = store.add_note("persist me")
        store.put("k", {"v": 1})
    with MemoryStore(path) as store:
        assert store.node_id == "n1"
        assert store.get_record("notes", note)["text"] == "persist me"  # type: ignore[index]
        assert store.get("k") == {"v": 1}
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    with pytest.raises(Exception, match="schema version"):
        MemoryStore(path)


def test_batch_is_all_or_nothing(store: MemoryStore) -> None:
    store.add_note("before")
    with pytest.raises(InvalidRecordError), store.batch():
        store.add_note("inside 1")
        store.add_note("inside 2")
        store.add_note("")
    assert [n["text"] for n in store.notes()] == ["before"]
    assert store.records("notes") and len(store.records("notes")) == 1
    with store.batch():
        for i in range(50):
            store.add_note(f"bulk {i}")
    assert len(store.notes()) == 51


def test_compaction_keeps_state(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with MemoryStore(path) as store:
        ids = [store.add_note(f"n{i}") for i in range(20)]
        store.delete_note(ids[0])
        assert store.log_length() == 21
        store.compact()
        assert store.log_length() == 0
        store.add_note("after")
        doc = store.document_json()
    with MemoryStore(path) as store:
        assert store.document_json() == doc
        assert len(store.notes()) == 20


def test_two_instances_on_one_file_see_each_other(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    first = MemoryStore(path, node_id="cloud")
    second = MemoryStore(path)
    note = second.add_note("written by the second instance")
    assert first.get_record("notes", note) is not None
    assert first.document_json() == second.document_json()
    first.add_note("and by the first")
    assert second.document_json() == first.document_json()
    assert len(second.records("notes")) == 2
    first.close()
    second.close()


def test_semantic_note_recall_without_shared_words(tmp_path: Path) -> None:
    import numpy as np

    topics = {"milk": 0, "groceries": 0, "bread": 0, "dentist": 1, "tooth": 1}

    def embed(text: str) -> np.ndarray:
        vec = np.zeros(4, dtype=np.float32)
        for word in text.lower().split():
            if word in topics:
                vec[topics[word]] += 1
        return vec

    with MemoryStore(tmp_path / "m.db", embedder=embed) as store:
        milk = store.add_note("buy milk and bread")
        store.add_note("dentist on friday")
        hits = store.search("groceries")
        assert [h.record_id for h in hits] == [milk]
        later = store.add_note("more groceries")  # the cached note matrix is refreshed
        assert {h.record_id for h in store.search("groceries")} == {milk, later}


def test_compaction_by_one_instance_keeps_the_others_writes(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    first, second = MemoryStore(path, node_id="n1"), MemoryStore(path)
    kept = second.add_note("written by the second")
    first.compact()  # must not trim the second's entry out of the document
    first.add_note("written by the first")
    first.close()
    second.close()
    with MemoryStore(path) as store:
        assert store.get_record("notes", kept) is not None
        assert len(store.records("notes")) == 2


def test_threads_share_one_store(store: MemoryStore) -> None:
    import threading

    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(20):
                store.add_note(f"thread {n} note {i}")
                store.notes()
                store.search(f"thread {n}")
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(store.notes()) == 80
    assert len(store.records("notes")) == 80


def test_a_version_2_store_moves_its_texts_into_recall(tmp_path: Path) -> None:
    """v3 keeps each searchable text once (external-content FTS5): an older store's texts
    and index survive the migration, and edits and deletions afterwards keep the index
    consistent with the rows."""
    import sqlite_utils

    from sync.schema.migrations import MIGRATIONS

    path = tmp_path / "old.db"
    with MemoryStore(path, node_id="n1") as store:
        kept = store.add_note("the boiler pressure is 1.5 bar")
        edited = store.add_note("renew the passport in march")
        gone = store.add_note("buy oat milk")
    # Rebuild the file as version 2 left it: texts in recall_fts, none in recall.
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT rid, text FROM recall ORDER BY rid").fetchall()
    conn.executescript(
        "DROP TABLE recall_vocab; DROP TABLE recall_fts; DROP TABLE tombstones;"
        "DROP TABLE update_clocks; DROP TABLE own_items; DROP TABLE timer_rings;"
        "DELETE FROM meta WHERE key = 'own_items';"
        "ALTER TABLE recall DROP COLUMN text; ALTER TABLE timers DROP COLUMN action;"
        "CREATE VIRTUAL TABLE recall_fts USING fts5(text,"
        " tokenize='unicode61 remove_diacritics 2');"
    )
    conn.executemany("INSERT INTO recall_fts (rowid, text) VALUES (?, ?)", rows)
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    db = sqlite_utils.Database(path)
    with db.conn:
        MIGRATIONS[1](db)
        db.execute("PRAGMA user_version = 2")
    db.close()

    with MemoryStore(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert [h.record_id for h in store.search("boiler pressure")] == [kept]
        store.update_note(edited, "renew the driving licence")
        store.delete_note(gone)
        assert store.search_index_matches()
        assert store.search("passport") == [] and store.search("oat milk") == []
        assert [h.record_id for h in store.search("driving licence")] == [edited]
        assert store._query("SELECT count(*) FROM recall")[0][0] == 2
