"""WAL checkpoints run on a background thread, not inside the committing write."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from sync import MemoryStore
from sync.checkpoint import WalCheckpointer


def _wal_frames(path: Path) -> int:
    """Frames in the log that a checkpoint has not copied yet (0 when all are in the file)."""
    conn = sqlite3.connect(path)
    try:
        _busy, log, done = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(log) - int(done)
    finally:
        conn.close()


def test_commits_do_not_checkpoint_and_the_thread_does(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path / "m.db", node_id="a")
    try:
        assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        checkpointer = store._checkpointer
        assert checkpointer is not None
        ran = threading.Event()
        original = checkpointer._checkpoint

        def spy(conn: sqlite3.Connection) -> None:
            original(conn)
            ran.set()

        checkpointer._checkpoint = spy  # type: ignore[method-assign]
        with store.batch():
            for i in range(2000):
                store.add_note(f"note {i} " + "x" * 500)
        assert ran.wait(30), "no background checkpoint after a large commit"
        assert checkpointer.checkpoints >= 1
        assert len(store.notes()) == 2000
    finally:
        store.close()


def test_close_leaves_everything_in_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = MemoryStore(path, node_id="a")
    note = store.add_note("kept after close")
    store.close()
    assert not Path(f"{path}-wal").exists() or _wal_frames(path) == 0
    with MemoryStore(path) as again:
        assert [n["note_id"] for n in again.notes()] == [note]


def test_checkpoint_now_empties_the_log(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    with MemoryStore(path, node_id="a") as store:
        with store.batch():
            for i in range(500):
                store.add_note(f"note {i}")
        store.checkpoint()
        assert Path(f"{path}-wal").stat().st_size == 0


def test_checkpointer_stops_cleanly_without_work(tmp_path: Path) -> None:
    path = tmp_path / "plain.db"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    checkpointer = WalCheckpointer(str(path))
    checkpointer.close()
    assert checkpointer.checkpoints == 0
