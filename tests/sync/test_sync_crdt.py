"""The CRDT document: HLC conflict resolution, tombstones, GC, bad updates."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pycrdt import Doc, Map

from sync import InvalidUpdateError, MemoryStore
from sync.document import decode_state_vector
from sync.exchange import same_state, sync_stores
from sync.hlc import HybridLogicalClock, decode_hlc

NOTE = {"text": "x", "source_act_id": None, "created_at": "2026-01-01T00:00:00Z"}


class FakeClock:
    def __init__(self, ms: int) -> None:
        self.ms = ms

    def __call__(self) -> int:
        return self.ms


def note(text: str) -> dict[str, str]:
    return {**NOTE, "text": text}


def test_hlc_is_monotonic_and_observes() -> None:
    clock = HybridLogicalClock(now_ms=lambda: 1000)
    a, b = clock.now(), clock.now()
    assert a < b and decode_hlc(b) == (1000, 1)
    clock.observe("00000000271000ff")
    assert clock.last() == "00000000271000ff"  # observing moves the clock to what it saw
    stamp = clock.now()
    assert stamp > "00000000271000ff"
    assert clock.last() == stamp and clock.last() == stamp  # last() does not tick


def test_last_writer_by_hlc_not_yjs_client_id(make_store: Callable[..., MemoryStore]) -> None:
    # a has the later clock; whatever the Yjs client ids, a's edit wins on both replicas
    for first, second in (("a", "b"), ("b", "a")):
        clocks = {"a": FakeClock(9_000), "b": FakeClock(1_000)}
        stores = {n: make_store(f"{n}{first}", node_id=n, now_ms=clocks[n]) for n in "ab"}
        stores[first].put_record("notes", "n1", note(f"by {first}"))
        stores[second].put_record("notes", "n1", note(f"by {second}"))
        sync_stores(stores["a"], stores["b"])
        for s in stores.values():
            assert s.get_record("notes", "n1") == note("by a")
            assert [r["text"] for r in s.table_rows("notes")] == ["by a"]
        assert stores["a"].document_json() == stores["b"].document_json()


def test_hlc_tie_goes_to_greater_node_id(make_store: Callable[..., MemoryStore]) -> None:
    a = make_store("a", now_ms=FakeClock(5_000))
    z = make_store("z", now_ms=FakeClock(5_000))
    z.put_record("notes", "n", note("z"))
    a.put_record("notes", "n", note("a"))
    sync_stores(a, z)
    assert a.get_record("notes", "n") == z.get_record("notes", "n") == note("z")


def test_tombstone_wins_over_older_edit_and_content_is_collected(
    make_store: Callable[..., MemoryStore],
) -> None:
    ca, cb = FakeClock(1_000), FakeClock(1_000)
    a, b = make_store("a", now_ms=ca), make_store("b", now_ms=cb)
    a.put_record("notes", "n", note("secret plan"))
    sync_stores(a, b)
    cb.ms = 2_000
    b.put_record("notes", "n", note("older concurrent edit"))
    ca.ms = 3_000
    a.forget("notes", "n")
    sync_stores(a, b)
    for s in (a, b):
        assert s.get_record("notes", "n") is None
        assert s.table_rows("notes") == []
        full = s.diff(b"\x00")
        assert b"secret plan" not in full and b"older concurrent edit" not in full
    assert a.document_json() == b.document_json()
    # a newer edit after the tombstone brings the record back (last writer wins)
    cb.ms = 4_000
    b.put_record("notes", "n", note("new"))
    sync_stores(a, b)
    assert a.get_record("notes", "n") == note("new")


def test_tombstone_propagates_through_a_third_replica(
    make_store: Callable[..., MemoryStore],
) -> None:
    a, b, c = (make_store(n) for n in "abc")
    note_id = a.add_note("forget me")
    sync_stores(a, b)
    sync_stores(b, c)
    a.delete_note(note_id)
    sync_stores(a, b)
    sync_stores(b, c)
    assert c.notes() == [] and c.search("forget") == []
    assert a.document_json() == b.document_json() == c.document_json()


def test_numbers_are_stored_as_json_strings(make_store: Callable[..., MemoryStore]) -> None:
    a, b = make_store("a"), make_store("b")
    big = 2**60 + 1
    a.add_fact("user", "lucky_number", big)
    sync_stores(a, b)
    assert b.facts("user")[0]["value"] == big
    for value in a.document_json()["facts"].values():
        assert isinstance(value, str) and json.loads(value)["v"]["value"] == big


@pytest.mark.parametrize(
    "update",
    [b"", b"\x00", b"garbage!", b"\xff" * 40],
)
def test_malformed_update_is_rejected_and_store_unchanged(
    make_store: Callable[..., MemoryStore], update: bytes
) -> None:
    a = make_store("a")
    a.add_note("keep")
    before = (a.document_json(), a.table_rows("notes"), a.log_length(), a.state_vector())
    try:
        changed = a.apply_update(update)
    except InvalidUpdateError:
        changed = False
    assert not changed
    assert (a.document_json(), a.table_rows("notes"), a.log_length()) == before[:3]


def test_truncated_and_foreign_updates_leave_store_unchanged(
    make_store: Callable[..., MemoryStore],
) -> None:
    a, b = make_store("a"), make_store("b")
    b.add_note("from b")
    a.add_note("keep")
    good = b.diff(a.state_vector())
    before = (a.document_json(), a.table_rows("notes"), a.log_length())
    with pytest.raises(InvalidUpdateError):
        a.apply_update(good[:-7])
    rogue = Doc()
    rogue_notes = rogue.get("notes", type=Map)
    rogue_notes["no-separator"] = "not json"
    with pytest.raises(InvalidUpdateError):
        a.apply_update(rogue.get_update())
    rogue2 = Doc()
    rogue2.get("notes", type=Map)["id|x"] = json.dumps({"h": "0" * 16, "v": {"text": 5}})
    with pytest.raises(InvalidUpdateError):
        a.apply_update(rogue2.get_update())
    assert (a.document_json(), a.table_rows("notes"), a.log_length()) == before
    a.apply_update(good)
    assert {n["text"] for n in a.notes()} == {"keep", "from b"}


def test_state_vector_comparison_is_order_free() -> None:
    doc = Doc()
    doc.get("m", type=Map)["k"] = "v"
    other = Doc()
    other.get("m", type=Map)["j"] = "w"
    doc.apply_update(other.get_update())
    sv = doc.get_state()
    assert decode_state_vector(sv) and same_state(sv, sv)
    with pytest.raises(InvalidUpdateError):
        decode_state_vector(sv[:-1])


def test_bad_state_vector_is_rejected(make_store: Callable[..., MemoryStore]) -> None:
    a = make_store("a")
    with pytest.raises(InvalidUpdateError):
        a.diff(b"\x05\x01")


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_corrupted_updates_are_rejected_or_applied_whole(data: st.DataObject) -> None:
    a = MemoryStore(":memory:", node_id="a")
    b = MemoryStore(":memory:", node_id="b")
    try:
        for i in range(5):
            a.add_note(f"note {i}")
        b.add_note("keep")
        update = bytearray(a.diff(b.state_vector()))
        for _ in range(data.draw(st.integers(1, 3))):
            # the update's length varies (random Yjs client ids): draw positions as offsets
            index = data.draw(st.integers(0, 10**6)) % len(update)
            update[index] = data.draw(st.integers(0, 255))
        if data.draw(st.booleans()):
            update = update[: data.draw(st.integers(0, 10**6)) % (len(update) + 1)]
        before = (b.document_json(), b.table_rows("notes"), b.state_vector())
        try:
            b.apply_update(bytes(update))
        except InvalidUpdateError:
            assert (b.document_json(), b.table_rows("notes"), b.state_vector()) == before
        else:
            docs = {i: d["text"] for i, d in b.records("notes").items()}
            assert docs == {r["id"]: r["text"] for r in b.table_rows("notes")}
    finally:
        a.close()
        b.close()
