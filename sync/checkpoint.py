"""Background WAL checkpoints: copy the write-ahead log into the database file off the
writer's path.

SQLite's default checkpoints run inside the ``COMMIT`` that pushes the log past 1000
pages: the writer that happens to cross the line pays for copying every page and for
syncing the file (a seventh of a 100k-record merge). A store turns that off
(``PRAGMA wal_autocheckpoint = 0``) and tells the process's :class:`WalCheckpointer`
after each commit: one thread for every store in the process (a server holds a store per
user), which runs a ``PASSIVE`` checkpoint (it never blocks readers or the writer) on a
connection of its own once a file's writes have gone quiet (or have gone on for
``max_wait`` seconds: a busy file is still checkpointed), at most every ``interval``
seconds per file. The thread runs at the lowest CPU priority (nice 19, where the OS
allows it): copying pages can wait, the merges and queries it would slow cannot.

Nothing is less durable: a committed transaction is in the log, and SQLite replays the
log on the next open if the process dies before a checkpoint. The last connection to
close a file checkpoints it too, so a closed store's file holds everything.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from pathlib import Path


class WalCheckpointer:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` on the files it is told about.

    Args:
        quiet: seconds without a new :meth:`notify` for a file before checkpointing it,
            so a burst of small commits costs one checkpoint.
        max_wait: seconds after the first unhandled :meth:`notify` when a file is
            checkpointed even if its writes go on.
        interval: the least time between two checkpoints of one file.
    """

    def __init__(
        self, *, quiet: float = 0.25, max_wait: float = 5.0, interval: float = 1.0
    ) -> None:
        self._quiet = quiet
        self._max_wait = max_wait
        self._interval = interval
        self._wake = threading.Condition()
        self._pending: dict[str, tuple[float, float]] = {}  # path -> (first, last notify)
        self._last_run: dict[str, float] = {}
        self._stopping = False
        self.checkpoints = 0
        """How many checkpoints ran (tests read it)."""
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self._thread.start()

    def notify(self, path: str) -> None:
        """A write transaction on ``path`` committed: checkpoint it once writes go quiet."""
        now = time.monotonic()
        with self._wake:
            first, _ = self._pending.get(path, (now, now))
            self._pending[path] = (first, now)
            self._wake.notify()

    def forget(self, path: str) -> None:
        """Drop what is pending for ``path`` (its store is closing and checkpoints it)."""
        with self._wake:
            self._pending.pop(path, None)
            self._last_run.pop(path, None)

    def close(self) -> None:
        """Stop the thread (what is pending is left to SQLite's replay or close)."""
        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._thread.join()

    def _due(self, path: str, notified: tuple[float, float]) -> float:
        first, last = notified
        ready = min(last + self._quiet, first + self._max_wait)
        return max(ready, self._last_run.get(path, 0.0) + self._interval)

    def _run(self) -> None:
        # This thread only (on Linux a thread is a task with its own nice value).
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        while True:
            with self._wake:
                while not self._stopping:
                    now = time.monotonic()
                    due = {p: self._due(p, t) for p, t in self._pending.items()}
                    ready = [p for p, at in due.items() if at <= now]
                    if ready:
                        path = ready[0]
                        del self._pending[path]
                        self._last_run[path] = now
                        break
                    self._wake.wait(min(due.values()) - now if due else None)
                else:
                    return
            self._checkpoint(path)

    def _checkpoint(self, path: str) -> None:
        try:
            # mode=rw: never create a file whose store has gone, folder and all.
            conn = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=rw", uri=True)
        except sqlite3.Error:
            return
        try:
            conn.execute("PRAGMA busy_timeout = 5000")
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self.checkpoints += 1
        except sqlite3.Error:
            pass  # busy or closing: the next commit notifies again, and SQLite replays the log
        finally:
            conn.close()


_shared: WalCheckpointer | None = None
_shared_lock = threading.Lock()


def shared_checkpointer() -> WalCheckpointer:
    """The process's checkpointer (started on first use)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = WalCheckpointer()
        return _shared
