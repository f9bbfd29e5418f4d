"""The bulk merge path: record decoding, row order, recall rowids, FTS5 after compaction."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from sync import InvalidUpdateError, MemoryStore
from sync.document import decode_entry
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
