"""Memory is private on both sides: folders 0700, database files (and SQLite's WAL and
shared-memory files) 0600, an older readable copy tightened on open (issue 14)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sync import MemoryStore, UserStores


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def _loose_umask() -> object:
    old = os.umask(0o022)  # what most systems run with: 0755 folders, 0644 files
    yield
    os.umask(old)


def test_the_device_memory_is_private(tmp_path: Path) -> None:
    db = tmp_path / "home" / ".edgeloop" / "edge.db"
    with MemoryStore(db) as store:
        store.add_note("door code is 4711")
        files = [p for p in db.parent.iterdir() if p.name.startswith("edge.db")]
        assert {p.name for p in files} >= {"edge.db", "edge.db-wal"}
        assert all(_mode(p) == 0o600 for p in files), [(p.name, oct(_mode(p))) for p in files]
    assert _mode(db.parent) == 0o700


def test_an_older_readable_memory_is_tightened(tmp_path: Path) -> None:
    db = tmp_path / "edge.db"
    with MemoryStore(db) as store:
        store.add_note("x")
    db.chmod(0o644)
    with MemoryStore(db):
        assert _mode(db) == 0o600


def test_the_cloud_per_user_stores_are_private(tmp_path: Path) -> None:
    root = tmp_path / "cloud-memory"
    with UserStores(root) as stores:
        stores("alice").add_note("door code is 4711")
        assert _mode(root) == 0o700
        assert all(_mode(p) == 0o600 for p in root.iterdir()), list(root.iterdir())
