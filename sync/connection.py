"""The SQLite connection of a store: its file, pragmas and schema."""

from __future__ import annotations

import sqlite3

import sqlite_utils

from sync.private import private_database
from sync.schema.migrations import migrate

SYNCHRONOUS_MODES = ("OFF", "NORMAL", "FULL", "EXTRA")


def open_database(path: str, synchronous: str, mmap_size: int) -> sqlite_utils.Database:
    """The store's database at ``path`` (or ``":memory:"``), created private (0600 file,
    0700 folder) when new, in WAL mode, its schema migrated.

    Raises:
        ValueError: ``synchronous`` is not one of SQLite's modes.
    """
    if path != ":memory:":
        private_database(path)
    if synchronous.upper() not in SYNCHRONOUS_MODES:
        raise ValueError(f"bad synchronous mode: {synchronous!r}")
    conn = sqlite3.connect(path, check_same_thread=False)
    db = sqlite_utils.Database(conn)
    if path != ":memory:":
        db.enable_wal()
    db.execute(f"PRAGMA synchronous = {synchronous.upper()}")
    db.execute("PRAGMA busy_timeout = 5000")
    # 64 MiB of page cache: bulk merges touch the B-trees and the FTS index at random.
    db.execute("PRAGMA cache_size = -65536")
    if path != ":memory:":
        # Recall reads a few dozen rows at random per query; through the map that is a
        # page-table hit instead of a ``read`` system call and a copy.
        db.execute(f"PRAGMA mmap_size = {max(int(mmap_size), 0)}")
    migrate(db)
    return db
