"""The bulk merge path: record decoding, row order, recall rowids, FTS5 after compaction."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pycrdt import Doc, Map

import sync.materialise as materialise_module
import sync.views as views_module
from sync import InvalidUpdateError, MemoryStore
from sync.document import decode_entry, encode_entry
from sync.errors import InvalidRecordError
from sync.exchange import sync_stores
from sync.views import COLUMNS, ROW_BUILDERS, build_row, row_dict

HLC = "0000000003e80000"


def test_decode_entry_accepts_padded_json_and_rejects_trailing_data() -> None:
    live = decode_entry("a", f' {{"h":"{HLC}","v":{{"text":"x"}}}}\n')
    assert live.hlc == HLC and live.node == "a" and live.data == {"text": "x"}
    assert decode_entry("a", f'{{"h":"{HLC}","x":1}}').deleted
    bad = [
        "",
        "{",
        "[1]",
        '"s"',
        '{"h":1,"v":{}}',
        f'{{"h":"{HLC}"}}',
        f'{{"h":"{HLC}","v":[]}}',
        f'{{"h":"{HLC}","v":{{}}}} x',
        f'{{"h":"{HLC}","v":{{}}}},{{"h":"{HLC}","v":{{}}}}',
    ]
    for value in bad:
        with pytest.raises(InvalidUpdateError):
            decode_entry("a", value)


def test_row_builders_match_their_columns() -> None:
    note = {"text": "hi", "source_act_id": None, "created_at": "2026-01-01T00:00:00.000Z"}
    value = json.dumps({"h": HLC, "v": note}, separators=(",", ":"))
    row = build_row("notes", "n1", decode_entry("a", value))
    assert row is not None
    assert row_dict("notes", row) == {"id": "n1", "hlc": HLC, "node": "a", **note}
    assert set(ROW_BUILDERS) == set(COLUMNS)


def test_merge_writes_rows_and_recall_in_time_order(
    make_store: Callable[..., MemoryStore],
) -> None:
    a, b = make_store("a"), make_store("b")
    times = [f"2026-01-0{d}T00:00:00.000Z" for d in (5, 1, 9, 3, 7)]
    a.put_records(  # one call: its new recall rows are numbered in time order
        "notes",
        {
            f"z{9 - i}": {"text": f"note {i}", "source_act_id": None, "created_at": created}
            for i, created in enumerate(times)
        },
    )
    sync_stores(a, b)
    for store in (a, b):
        rows = store._query(
            "SELECT r.created_at FROM recall r JOIN notes n ON n.id = r.record_id ORDER BY r.rid"
        )
        assert [r[0] for r in rows] == sorted(times)
        assert [n["text"] for n in store.notes()] == [f"note {i}" for i in (1, 3, 0, 4, 2)]
    assert a.table_rows("notes") == b.table_rows("notes")


def test_merge_replaces_edited_rows_and_their_recall_entries(
    make_store: Callable[..., MemoryStore],
) -> None:
    a, b = make_store("a"), make_store("b")
    ids = [a.add_note(f"alpha {i}") for i in range(5)]
    sync_stores(a, b)
    with a.batch():
        a.update_note(ids[0], "beta zero")
        a.delete_note(ids[1])
    sync_stores(a, b)
    for store in (a, b):
        assert {h.record_id for h in store.search("alpha", limit=10)} == set(ids[2:])
        assert [h.record_id for h in store.search("beta")] == [ids[0]]
        assert store._query("SELECT count(*) FROM recall")[0][0] == 4
        assert store._query("SELECT count(*) FROM recall_fts")[0][0] == 4


def test_compaction_merges_the_fts_index_and_search_still_works(
    make_store: Callable[..., MemoryStore],
) -> None:
    store = make_store("a")
    for i in range(30):  # one FTS5 segment per transaction
        store.add_note(f"gamma note {i}")
    before = [h.record_id for h in store.search("gamma", limit=5)]
    store.compact()
    assert [h.record_id for h in store.search("gamma", limit=5)] == before
    store.add_note("gamma after compaction")
    assert store.search("compaction")[0].text == "gamma after compaction"


def _dump(store: MemoryStore) -> tuple[object, ...]:
    assert store.search_index_matches()
    return (
        store.table_rows("notes"),
        store._query("SELECT * FROM recall ORDER BY rid"),
        store._query("SELECT rowid, text FROM recall_fts ORDER BY rowid"),
        store.document_json(),
        [(h.record_id, h.score) for h in store.search("note alpha", limit=20)],
    )


def _state_after(*updates: bytes) -> bytes:
    doc = Doc()
    for update in updates:
        doc.apply_update(update)
    return doc.get_state()


def _peer_update(values: dict[str, str]) -> bytes:
    """A Yjs update that writes raw JSON strings under ``notes`` keys."""
    doc = Doc()
    notes = doc.get("notes", type=Map)
    with doc.transaction():
        for key, value in values.items():
            notes[key] = value
    return doc.get_update()


def test_bulk_merge_writes_the_same_tables_as_the_per_record_path(
    make_store: Callable[..., MemoryStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    a = make_store("a")
    times = ["2026-01-05T00:00:00.123Z", "2025-12-31T23:59:59.999Z", "1969-07-20T20:17:40.001Z"]
    a.put_records(
        "notes",
        {
            f"n{i}": {
                "text": f'note alpha {i} \u00e9\U0001f600 "q" \\ /',
                "source_act_id": None if i % 2 else f"act{i}",
                "created_at": times[i % 3],
            }
            for i in range(30)
        },
    )
    empty = make_store("empty").state_vector()
    first = a.diff(empty)
    fast, slow = make_store("b"), make_store("c")
    updates = [first]
    for i in range(5):
        a.add_note(f"note alpha extra {i}")
    updates.append(a.diff(_state_after(first)))
    a.delete_note("n3")
    a.update_note("n4", "note alpha edited")
    updates.append(a.diff(_state_after(first, updates[1])))
    results: list[bool] = []
    original = materialise_module._index_new_notes

    def spy(*args: object) -> bool:
        results.append(original(*args))  # type: ignore[arg-type]
        return results[-1]

    for update in updates:
        monkeypatch.setattr(materialise_module, "_index_new_notes", spy)
        assert fast.apply_update(update)
        monkeypatch.setattr(materialise_module, "_index_new_notes", lambda *args: False)
        assert slow.apply_update(update)
    assert results == [True, True]  # the SQL path ran for both batches of new notes
    fast_dump, slow_dump = _dump(fast), _dump(slow)
    assert fast_dump[:4] == slow_dump[:4]
    assert [h[0] for h in fast_dump[4]] == [h[0] for h in slow_dump[4]]
    assert fast.clock.last() >= max(r["hlc"] for r in fast.table_rows("notes"))


@pytest.mark.parametrize(
    "value",
    [
        '{"h":"%s","v":{"text":"a","created_at":"2026-02-30T00:00:00.000Z"}}',
        '{"h":"%s","v":{"text":"a","text":5,"created_at":"2026-01-01T00:00:00.000Z"}}',
        '{"h":"%s","v":{"text":5,"created_at":"2026-01-01T00:00:00.000Z"}}',
        '{"h":"%s","v":{"text":"a","created_at":"nope"}}',
        '{"h":"%s","v":{"text":"a","source_act_id":3,"created_at":"2026-01-01T00:00:00.000Z"}}',
        '{"h":"%s","v":{"text":"a","created_at":"2026-01-01T00:00:00.000Z"}',
        '{"h":"%s","v":{"text":"a","created_at":"2026-01-01T00:00:00.000Z"}},1',
        '{"h":"%s","h":1,"v":{"text":"a","created_at":"2026-01-01T00:00:00.000Z"}}',
        "{'h':'%s'}",
    ],
)
def test_a_bad_record_in_a_batch_of_new_notes_is_rejected_and_changes_nothing(
    make_store: Callable[..., MemoryStore], value: str
) -> None:
    good = f'{{"h":"{HLC}","v":{{"text":"fine","created_at":"2026-01-01T00:00:00.000Z"}}}}'
    values = {f"g{i}|peer": good for i in range(20)}
    values["bad|peer"] = value % HLC
    b = make_store("b")
    b.add_note("mine")
    before = (_dump(b), b.log_length())
    with pytest.raises(InvalidUpdateError):
        b.apply_update(_peer_update(values))
    assert (_dump(b), b.log_length()) == before


def test_unusual_but_valid_records_merge_exactly(
    make_store: Callable[..., MemoryStore],
) -> None:
    # Accepted by the row builders: a time with an offset or without a time (not the
    # canonical form the SQL recall path needs), an upper-case clock, an escaped key,
    # a falsy "x", a duplicate unrelated key.
    values = {
        "a|peer": f'{{"h":"{HLC}","v":{{"text":"a","created_at":"2026-01-01T00:00:00+02:00"}}}}',
        "b|peer": '{"h":"0000000003E80000","v":{"text":"b","created_at":"2026-01-01"}}',
        "c|peer": f'{{"h":"{HLC}","v":{{"\\u0074ext":"c","created_at":"2026-01-01T00:00:00Z"}}}}',
        "d|peer": f'{{"h":"{HLC}","x":0,"v":{{"text":"d","created_at":"2026-01-01T00:00:00Z"}}}}',
        "e|peer": f'{{"h":"{HLC}","v":{{"text":"e","k":1,"k":2,'
        '"created_at":"2026-01-01T00:00:00Z"}}',
    }
    b = make_store("b")
    assert b.apply_update(_peer_update(values))
    texts = {r["id"]: r["text"] for r in b.table_rows("notes")}
    assert texts == {"a": "a", "b": "b", "c": "c", "d": "d", "e": "e"}
    assert len(b._query("SELECT rowid FROM recall_fts")) == 5


def test_a_new_record_with_two_entries_in_one_update_keeps_the_later_one(
    make_store: Callable[..., MemoryStore],
) -> None:
    later = "0000000007d00000"
    note = '"v":{"text":"%s","created_at":"2026-01-01T00:00:00.000Z"}'
    values = {
        "r|a": "{" + f'"h":"{HLC}",' + note % "old" + "}",
        "r|b": "{" + f'"h":"{later}",' + note % "new" + "}",
        "s|b": "{" + f'"h":"{later}",' + note % "other" + "}",
        "s|a": "{" + f'"h":"{HLC}",' + note % "older" + "}",
    }
    c = make_store("c")
    assert c.apply_update(_peer_update(values))
    assert {r["id"]: (r["text"], r["node"]) for r in c.table_rows("notes")} == {
        "r": ("new", "b"),
        "s": ("other", "b"),
    }
    assert set(c.document_json()["notes"]) == {"r|b", "s|b"}
    assert len(c._query("SELECT rowid FROM recall_fts")) == 2


def test_a_merged_update_is_logged_as_received_once_and_replays_to_the_same_state(
    make_store: Callable[..., MemoryStore], tmp_path: Path
) -> None:
    a, b = make_store("a"), make_store("b")
    with a.batch():
        for i in range(20):
            a.add_note(f"from a {i}")
    b.add_note("from b")
    update = a.diff(b.state_vector())
    logged = b.log_length()
    assert b.apply_update(update)
    assert b.log_length() == logged + 1
    assert not b.apply_update(update)  # nothing new: not logged again
    assert b.log_length() == logged + 1
    expected = (b.document_json(), b.table_rows("notes"), b.state_vector())
    b.close()
    with MemoryStore(tmp_path / "b.db") as reopened:
        assert (reopened.document_json(), reopened.table_rows("notes")) == expected[:2]
        assert reopened.state_vector() == expected[2]


note_text = st.text(
    st.sampled_from(["a", " ", "é", "\\", '"', "\n", "\x01", "\x7f", "\u2028", "😀"])
    | st.characters(codec="utf-8"),
    max_size=12,
)
note_values = st.one_of(
    # as encode_entry writes them, with any texts (escapes, control characters...)
    st.builds(
        lambda hlc, text, source, created: encode_entry(
            hlc, {"text": text, "source_act_id": source, "created_at": created}
        ),
        st.sampled_from([HLC, "01A233a4a4740000", "0000", "zzzzzzzzzzzzzzzz"]),
        note_text,
        st.none() | note_text,
        st.sampled_from(["2026-12-01T22:05:57.748Z", "2026-13-01T00:00:00.000Z", "x"]),
    ),
    # other layouts, other types, tombstones, not JSON
    st.builds(
        lambda body: json.dumps(body),
        st.fixed_dictionaries(
            {"h": st.sampled_from([HLC, 7, "0000000003e8000g"])},
            optional={
                "v": st.dictionaries(
                    st.sampled_from(["text", "source_act_id", "created_at", "x"]),
                    st.none() | note_text | st.integers(),
                ),
                "x": st.sampled_from([1, 0]),
            },
        ),
    ),
    note_text,
)


@given(st.lists(note_values, max_size=6))
def test_new_note_rows_are_the_rows_the_general_loop_builds(values: list[str]) -> None:
    """The inlined loop for new notes gives the rows and clock the general loop gives
    for live notes, and leaves anything else (tombstones, bad values) to it."""
    created = [(f"id{i}", "peer", value) for i, value in enumerate(values)]
    fast = views_module._new_note_rows(created)
    general: tuple[list[tuple[object, ...]], str] | None
    try:
        rows, highest = [], ""
        for record_id, node, value in created:
            entry = decode_entry(node, value)
            highest = max(highest, entry.hlc)
            rows.append(build_row("notes", record_id, entry))
        general = None if None in rows else (rows, highest)  # type: ignore[assignment]
    except (InvalidUpdateError, InvalidRecordError):
        general = None  # the general loop names the culprit
    assert fast == general
