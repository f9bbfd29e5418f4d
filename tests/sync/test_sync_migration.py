"""A store written by the code before the lazy document (schema v4) opens with nothing
lost: every record, the tombstone of a forgotten note, the document, and it syncs."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from sync import MemoryStore, sync_stores
from sync.schema.migrations import SCHEMA_VERSION

V4_STORE = Path(__file__).with_name("data") / "v4_store.db"


def test_a_version_4_store_migrates_with_nothing_lost(
    tmp_path: Path, make_store: Callable[..., MemoryStore]
) -> None:
    path = tmp_path / "device.db"
    shutil.copy(V4_STORE, path)
    with MemoryStore(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.node_id == "device"
        assert not store.document_loaded  # opening migrated without keeping the document
        texts = sorted(n["text"] for n in store.notes())
        assert texts == [
            "renew the driving licence",
            "the boiler pressure is 1.5 bar",
            "written after the snapshot",
            "written in the cloud",
        ]
        assert store.get_device_state("light", "kitchen") == {"state": "on", "brightness": 70}
        assert {f["attribute"]: f["value"] for f in store.facts("settings")} == {
            "home_city": "oslo"
        }
        likes = store.facts("user")
        assert len(likes) == 1 and likes[0]["value"] in ("tea", "coffee")
        assert [p["query"] for p in store.pending()] == ["weather in lima tomorrow"]
        assert [t["label"] for t in store.timers()] == ["tea"]
        assert [s.content for s in store.steps("s1")][-1] == "15% of 80 is 12"
        session = store.get_session("s1")
        assert session is not None and session["final_answer"] == "15% of 80 is 12"
        assert session["data"] == '{"state": "completed"}'
        receipt = store.get_receipt("r1")
        assert receipt is not None and receipt.answer == "12"
        assert len(store.transitions("s1")) == 1
        assert store.get("idem-1") == {"ok": True}
        assert [h.text for h in store.search("boiler pressure")] == [
            "the boiler pressure is 1.5 bar"
        ]
        # The forgotten note is known as a tombstone of this replica's.
        tombs = store.db.execute("SELECT kind, node FROM tombstones").fetchall()
        assert tombs == [("notes", "device")]
        # The views and the document still agree, record for record.
        for kind in ("notes", "facts", "sessions", "steps", "pending"):
            from_doc = {
                rid: entry.data
                for rid in store.doc.record_ids(kind)
                if (entry := store.doc.winner(kind, rid)) is not None and not entry.deleted
            }
            assert from_doc.keys() == store.records(kind).keys()
        # It syncs: a new replica receives everything, the forgotten note stays gone.
        peer = make_store("fresh")
        sync_stores(store, peer)
        assert sorted(n["text"] for n in peer.notes()) == texts
        assert peer.document_json() == store.document_json()
        assert peer.search("oat milk") == []
        assert store.search_index_matches() and peer.search_index_matches()


def test_a_migrated_store_edits_through_the_document_until_its_items_are_known(
    tmp_path: Path, make_store: Callable[..., MemoryStore]
) -> None:
    # Its entries were written before ``own_items``: their Yjs items are unknown, so the
    # first edit of each loads the document; later edits are encoded without it.
    path = tmp_path / "device.db"
    shutil.copy(V4_STORE, path)
    with MemoryStore(path) as store:
        assert store.db.execute("SELECT value FROM meta WHERE key = 'own_items'").fetchone() is None
        store.set_device_state("light", "kitchen", {"state": "off"})
        assert store.document_loaded
    with MemoryStore(path) as store:
        store.set_device_state("light", "kitchen", {"brightness": 20})
        assert not store.document_loaded
        peer = make_store("fresh")
        sync_stores(store, peer)
        for replica in (store, peer):
            assert replica.get_device_state("light", "kitchen") == {
                "state": "off",
                "brightness": 20,
            }
        assert peer.document_json() == store.document_json()
