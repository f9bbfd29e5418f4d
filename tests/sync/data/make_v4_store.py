"""Writes ``v4_store.db``: a memory store as schema version 4 (commit 99b8c08) left it.

Run with that commit's code (``git worktree add /tmp/v4 99b8c08``, then
``PYTHONPATH=/tmp/v4 python tests/sync/data/make_v4_store.py``); the file is committed,
so that ``test_sync_migration.py`` opens a store written by the code before the lazy
document (schema v5) and checks that nothing was lost.
"""

from __future__ import annotations

import sys
from pathlib import Path

from google.protobuf.timestamp_pb2 import Timestamp

from edgeloop.v1 import agent_pb2 as pb
from sync import MemoryStore, sync_stores


def main(out: Path) -> None:
    out.unlink(missing_ok=True)
    peer_path = out.with_name("peer.db")
    peer_path.unlink(missing_ok=True)
    with (
        MemoryStore(out, node_id="device", synchronous="NORMAL") as store,
        MemoryStore(peer_path, node_id="cloud", synchronous="NORMAL") as peer,
    ):
        kept = store.add_note("the boiler pressure is 1.5 bar", source_act_id="act-1")
        edited = store.add_note("renew the passport in march")
        gone = store.add_note("buy oat milk")
        store.add_timer(300, "tea")
        store.set_device_state("light", "kitchen", {"state": "on", "brightness": 70})
        store.add_fact("settings", "home_city", "oslo", confidence=0.9)
        store.add_fact("user", "likes", "tea")
        pending = store.add_pending("compare oslo and rome", "s-pending")
        store.add_pending("weather in lima tomorrow", "s-pending-2")
        store.resolve_pending(pending, "Oslo is colder.")
        created = Timestamp(seconds=1_760_000_000)
        steps = [
            pb.ReactStep(
                session_id="s1",
                turn_id=0,
                step_index=i,
                step_type=kind,
                content=text,
                tool="calculator",
                act_id="a1",
                created_at=created,
            )
            for i, (kind, text) in enumerate(
                [
                    (pb.STEP_TYPE_THOUGHT, "compute 15% of 80"),
                    (pb.STEP_TYPE_ACTION, "calculator 0.15*80"),
                    (pb.STEP_TYPE_OBSERVATION, "12"),
                    (pb.STEP_TYPE_FINAL_ANSWER, "15% of 80 is 12"),
                ]
            )
        ]
        store.save_steps("s1", steps)
        store.save_session("s1", '{"state": "completed"}')
        store.record_session(
            "s1",
            query="what's 15% of 80",
            final_answer="15% of 80 is 12",
            success=True,
            state="completed",
        )
        store.save_receipt(
            pb.DecisionReceipt(
                receipt_id="r1",
                session_id="s1",
                query="what's 15% of 80",
                answer="12",
                created_at=created,
            )
        )
        store.record_transition("s1", "WORKING", "COMPLETED", duration_ms=3.5)
        store.put("idem-1", {"ok": True})
        peer.add_note("written in the cloud")
        peer.add_fact("user", "likes", "coffee")  # a concurrent edit of the same fact
        sync_stores(store, peer)
        store.update_note(edited, "renew the driving licence")
        store.delete_note(gone)
        peer.add_note("written in the cloud after the sync")  # not synced: only the peer has it
        store.compact()
        store.add_note("written after the snapshot")  # lives in the log, not the snapshot
        store.checkpoint()
        assert kept
    peer_path.unlink()
    for suffix in ("-wal", "-shm"):
        Path(f"{out}{suffix}").unlink(missing_ok=True)
        Path(f"{peer_path}{suffix}").unlink(missing_ok=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("v4_store.db"))
