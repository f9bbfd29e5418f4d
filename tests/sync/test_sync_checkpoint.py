"""WAL checkpoints run on a background thread, not inside the committing write."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from sync import MemoryStore
from sync.checkpoint import WalCheckpointer


def _uncopied_frames(path: Path) -> int:
    """Frames in the log that no checkpoint has copied yet (0: all in the file)."""
    conn = sqlite3.connect(path)
    try:
        _busy, log, done = conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(log) - int(done)
    finally:
        conn.close()


def _spy(checkpointer: WalCheckpointer, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the checkpointer checkpoints from now on, as it does them."""
    done: list[str] = []
    original = checkpointer._checkpoint

    def spy(path: str) -> None:
        original(path)
        done.append(path)

    monkeypatch.setattr(checkpointer, "_checkpoint", spy)
    return done


def test_commits_do_not_checkpoint_and_the_thread_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkpointer = WalCheckpointer(quiet=0.01, interval=0.01)
    monkeypatch.setattr("sync.core.shared_checkpointer", lambda: checkpointer)
    done = _spy(checkpointer, monkeypatch)
    stores = [MemoryStore(tmp_path / f"{name}.db", node_id=name) for name in ("a", "b")]
    try:
        for store in stores:
            assert store.db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
            with store.batch():
                for i in range(500):
                    store.add_note(f"note {i} " + "x" * 500)
        wanted = {store.path for store in stores}
        for _ in range(3000):  # one thread serves every store of the process
            if wanted <= set(done):
                break
            threading.Event().wait(0.01)
        assert wanted <= set(done)
        assert all(_uncopied_frames(Path(store.path)) == 0 for store in stores)
        assert [len(store.notes()) for store in stores] == [500, 500]
    finally:
        for store in stores:
            store.close()
        checkpointer.close()


def test_close_leaves_everything_in_the_database_file(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = MemoryStore(path, node_id="a")
    note = store.add_note("kept after close")
    store.close()
    assert not Path(f"{path}-wal").exists() or _uncopied_frames(path) == 0
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


def test_a_gone_file_is_not_created_again(tmp_path: Path) -> None:
    checkpointer = WalCheckpointer(quiet=0.0, interval=0.0)
    try:
        gone = tmp_path / "gone" / "m.db"
        checkpointer._checkpoint(str(gone))
        checkpointer._checkpoint(str(tmp_path / "missing.db"))
        assert not gone.parent.exists() and not (tmp_path / "missing.db").exists()
        assert checkpointer.checkpoints == 0
    finally:
        checkpointer.close()


def test_a_file_written_without_pause_is_still_checkpointed(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("CREATE TABLE t (x)")
    checkpointer = WalCheckpointer(quiet=10.0, max_wait=0.05, interval=0.0)
    try:
        for i in range(3000):  # never quiet for 10 s, but max_wait has passed
            conn.execute("INSERT INTO t VALUES (?)", (i,))
            checkpointer.notify(str(path))
            if checkpointer.checkpoints:
                break
            threading.Event().wait(0.005)
        assert checkpointer.checkpoints >= 1
    finally:
        checkpointer.close()
        conn.close()
