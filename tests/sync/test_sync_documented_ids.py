"""What docs/sync-protocol.md says of ids holds for the Python replica: the node id's
format, a step's record id with no act id, the ``sessions.state`` values, and a fresh
Yjs client id for every open of a store (never one kept on disk, so a restored backup
writes with a new one)."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.state import State
from sync import MemoryStore
from sync.document import decode_state_vector

ROOT = Path(__file__).resolve().parents[2]
SPEC = (ROOT / "docs" / "sync-protocol.md").read_text(encoding="utf-8")


def test_a_new_stores_node_id_is_12_lower_case_hex_digits_and_kept(tmp_path: Path) -> None:
    assert "**12 lower-case hex digits**" in SPEC
    first = MemoryStore(tmp_path / "m.db")
    node = first.node_id
    first.close()
    assert re.fullmatch(r"[0-9a-f]{12}", node)
    again = MemoryStore(tmp_path / "m.db", node_id="something-else")
    assert again.node_id == node  # chosen once, stored with the memory
    again.close()
    other = MemoryStore(tmp_path / "n.db")
    assert other.node_id != node
    other.close()


def test_a_step_with_no_act_id_has_a_record_id_ending_in_a_colon(tmp_path: Path) -> None:
    assert "so its id ends in `:`" in SPEC
    with MemoryStore(tmp_path / "m.db", node_id="dev") as store:
        thought = pb.ReactStep(
            session_id="s1", turn_id=1, step_index=2, step_type=pb.STEP_TYPE_THOUGHT
        )
        action = pb.ReactStep(
            session_id="s1", turn_id=1, step_index=3, step_type=pb.STEP_TYPE_ACTION, act_id="a7"
        )
        ids = store.save_steps("s1", [thought, action])
    assert ids == [
        f"s1:0001:00002:{pb.STEP_TYPE_THOUGHT}:",
        f"s1:0001:00003:{pb.STEP_TYPE_ACTION}:a7",
    ]


def _documented_states() -> set[str]:
    block = SPEC.split("<!-- session-states -->")[1].split("<!-- /session-states -->")[0]
    quoted = [t for t in re.findall(r"`([^`]*)`", block) if "/" not in t]
    return {"" if t == '""' else t for t in quoted}


def test_the_documented_session_states_are_the_ones_python_writes() -> None:
    documented = _documented_states()
    assert {s.value for s in State} | {"", "input_required"} == documented
    # Every state a device or the cloud records is documented: the kernel's (above), the
    # names edge_agent.sessions writes, and any literal one.
    from edge_agent import sessions

    written: set[str] = {sessions.FINISHED, sessions.WAITING}
    for folder in ("edge_agent", "cloud_agent", "sync"):
        for path in (ROOT / folder).rglob("*.py"):
            written.update(re.findall(r'state="([a-z_]+)"', path.read_text(encoding="utf-8")))
    assert written and written <= documented


def _clients(store: MemoryStore) -> set[int]:
    return set(decode_state_vector(store.state_vector()))


def test_every_open_writes_with_a_fresh_yjs_client_id(tmp_path: Path) -> None:
    assert "MUST be fresh for every process" in SPEC
    path = tmp_path / "m.db"
    seen: list[set[int]] = []
    for i in range(3):
        with MemoryStore(path, node_id="dev") as store:
            store.add_note(f"note {i}")
            seen.append(_clients(store))
    assert len(seen[0]) == 1 and len(seen[1]) == 2 and len(seen[2]) == 3
    # None of the database's tables or settings keeps a client id to reuse.
    with sqlite3.connect(path) as conn:
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    assert not any("client" in key for key in meta)


def test_a_restored_backup_writes_with_a_new_client_id(tmp_path: Path) -> None:
    original = MemoryStore(tmp_path / "m.db", node_id="dev")
    original.add_note("before the backup")
    with sqlite3.connect(tmp_path / "backup.db") as copy:
        original.db.conn.backup(copy)
    original.add_note("after the backup")
    used = _clients(original)
    original.close()
    restored = MemoryStore(tmp_path / "backup.db")
    assert restored.node_id == "dev"
    restored.add_note("after the restore")
    assert _clients(restored) - used  # a client the original never wrote with
    restored.close()
