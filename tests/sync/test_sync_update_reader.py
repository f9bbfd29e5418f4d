"""Reading a Yjs update's map entries without integrating it (sync.update_reader), and
merges that read them: the same entries, tables and documents as yrs gives."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from pycrdt import Array, Doc, Map, Text

from sync import MemoryStore, sync_stores
from sync.update_reader import _Decline, _in_runs, _read, merged_runs, read_map_update

ROOTS = frozenset({"notes", "facts", "_sys"})
keys = st.sampled_from(["a|x", "b|x", "a|y", "c|z", "é|x"])
ops = st.lists(
    st.tuples(
        st.sampled_from(["set", "delete"]),
        st.sampled_from(["notes", "facts"]),
        keys,
        st.text(max_size=30),
    ),
    max_size=25,
)


def apply_ops(doc: Doc, operations: list[tuple[str, str, str, str]]) -> None:
    for action, root, key, value in operations:
        ymap = doc.get(root, type=Map)
        if action == "set":
            ymap[key] = value
        elif key in ymap:
            del ymap[key]


@given(before=ops, after=ops)
def test_the_entries_read_are_the_entries_yrs_integrates(
    before: list[tuple[str, str, str, str]], after: list[tuple[str, str, str, str]]
) -> None:
    source = Doc()
    apply_ops(source, before)
    base = source.get_state()
    apply_ops(source, after)
    for update in (source.get_update(), source.get_update(base)):
        read = read_map_update(update, ROOTS)
        fresh = Doc()
        fresh.apply_update(update)
        if read is None:  # declined: only when the update builds on what it lacks
            assert update != source.get_update()
            continue
        live: dict[tuple[str, str], str] = {}
        for _, _, root, key, value in read.items:
            assert (root, key) not in live
            live[(root, key)] = value
        if update == source.get_update():
            expected = {
                (root, key): value
                for root in ("notes", "facts")
                for key, value in fresh.get(root, type=Map).items()
            }
            assert live == expected


def read_generic(update: bytes) -> object:
    """What the general reader (item ids, origins) makes of an update."""
    try:
        return _read(update, ROOTS)
    except (_Decline, IndexError, ValueError):  # malformed lib0, or UTF-8
        return None


@given(
    before=ops,
    after=ops,
    changes=st.lists(st.tuples(st.integers(0, 1 << 16), st.integers(0, 255)), max_size=4),
    cut=st.integers(0, 8),
)
def test_the_fast_reader_reads_what_the_general_reader_reads(
    before: list[tuple[str, str, str, str]],
    after: list[tuple[str, str, str, str]],
    changes: list[tuple[int, int]],
    cut: int,
) -> None:
    """The loop for updates of new keys only gives, or declines, exactly what the
    general reader gives: on real updates, and on bytes changed or cut at random."""
    source = Doc()
    apply_ops(source, before)
    base = source.get_state()
    apply_ops(source, after)
    for update in (source.get_update(), source.get_update(base)):
        changed = bytearray(update)
        for where, byte in changes:
            changed[where % len(changed)] = byte
        for candidate in (update, bytes(changed), bytes(changed)[: len(changed) - cut]):
            assert read_map_update(candidate, ROOTS) == read_generic(candidate)


@given(st.binary(max_size=200))
def test_any_bytes_are_read_or_declined(data: bytes) -> None:
    read_map_update(data, ROOTS)  # never raises


def test_truncated_and_foreign_updates_are_declined() -> None:
    doc = Doc()
    doc.get("notes", type=Map)["a|x"] = '{"h":"0000000003e80000","v":{}}'
    update = doc.get_update()
    assert read_map_update(update, ROOTS) is not None
    for cut in range(1, len(update)):
        assert read_map_update(update[:cut], ROOTS) is None
    assert read_map_update(update, frozenset({"facts"})) is None  # a root it does not know
    for shared in (Text("hello"), Array(["x"])):
        other = Doc()
        other.get("notes", type=Map)["a|x"] = shared
        assert read_map_update(other.get_update(), ROOTS) is None


def test_a_merge_by_reading_writes_what_a_merge_through_the_document_writes(
    make_store: Callable[..., MemoryStore],
) -> None:
    device = make_store("device")
    for i in range(300):
        device.add_note(f"note {i} about the {'blue' if i % 3 else 'red'} bicycle")
    device.add_fact("user", "city", "oslo")
    cloud = make_store("cloud")
    cloud.add_fact("user", "team", "rosenborg")
    cloud.close()
    copy = Path(cloud.path).with_name("copy.db")
    shutil.copyfile(cloud.path, copy)
    reading, through = MemoryStore(cloud.path), MemoryStore(copy)
    through.doc  # noqa: B018 - loaded: a small update is integrated into it
    update = device.diff(reading.state_vector())
    assert update == device.diff(through.state_vector())
    reading.apply_update(update)
    assert not reading.document_loaded
    through.apply_update(update)
    for kind in ("notes", "facts", "recall"):
        query = f"SELECT * FROM {kind} ORDER BY 1"
        assert reading.db.execute(query).fetchall() == through.db.execute(query).fetchall()
    assert reading.search_index_matches()
    sync_stores(reading, device)
    sync_stores(through, device)
    assert reading.document_json()["notes"] == through.document_json()["notes"]
    assert reading.facts("user") == through.facts("user")
    reading.close()
    through.close()


def test_a_merge_inside_a_batch_that_wrote_keeps_the_batchs_writes(
    make_store: Callable[..., MemoryStore],
) -> None:
    device, cloud = make_store("device"), make_store("cloud")
    theirs = cloud.add_note("from the cloud")
    update = cloud.diff(device.state_vector())
    device = MemoryStore(device.path)
    with device.batch():
        mine = device.add_note("written in the batch")
        device.apply_update(update)
    sync_stores(device, cloud)
    for store in (device, cloud):
        assert {n["note_id"] for n in store.notes()} == {mine, theirs}
    assert device.document_json() == cloud.document_json()
    device.close()


@given(
    runs=st.lists(st.tuples(st.integers(0, 200), st.integers(0, 20)), max_size=30),
    clock=st.integers(0, 230),
)
def test_merged_runs_find_what_a_scan_of_every_run_finds(
    runs: list[tuple[int, int]], clock: int
) -> None:
    scan = any(start <= clock < start + length for start, length in runs)
    assert _in_runs(merged_runs(runs), clock) == scan


def test_an_update_with_thousands_of_scattered_edits_is_read() -> None:
    """Every other entry of 4,000 edited: thousands of delete runs, each item looked up
    by bisection (a scan of every run per item made this quadratic)."""
    source = Doc()
    notes = source.get("notes", type=Map)
    for i in range(4_000):
        notes[f"n{i}|text"] = f"note {i}"
    for i in range(0, 4_000, 2):
        notes[f"n{i}|text"] = f"edited {i}"
    read = read_map_update(source.get_update(), ROOTS)
    assert read is not None
    live = {key: value for _, _, _, key, value in read.items}
    assert live == dict(notes.items())
    assert read.dead == 2_000
