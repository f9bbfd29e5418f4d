"""Background WAL checkpoints: copy the write-ahead log into the database file off the
writer's path.

SQLite's default checkpoints run inside the ``COMMIT`` that pushes the log past 1000
pages: the writer that happens to cross the line pays for copying every page and for
syncing the file (a seventh of a 100k-record merge). A store turns that off
(``PRAGMA wal_autocheckpoint = 0``) and hands the work to a :class:`WalCheckpointer`: a
thread with its own connection that runs a ``PASSIVE`` checkpoint (it never blocks
readers or the writer) once writes have gone quiet, at most every ``interval`` seconds.

Nothing is less durable: a committed transaction is in the log, and SQLite replays the
log on the next open if the process dies before a checkpoint. Closing the store runs a
last checkpoint, so a closed store's file holds everything.
"""

from __future__ import annotations

import sqlite3
import threading
import time


class WalCheckpointer:
    """Runs ``PRAGMA wal_checkpoint(PASSIVE)`` on ``path`` after :meth:`notify`.

    Args:
        path: the database file (in WAL mode).
        quiet: seconds without a new :meth:`notify` before checkpointing, so a burst of
            small commits costs one checkpoint.
        interval: the least time between two checkpoints.
    """

    def __init__(self, path: str, *, quiet: float = 0.05, interval: float = 1.0) -> None:
        self._path = path
        self._quiet = quiet
        self._interval = interval
        self._wake = threading.Condition()
        self._pending = False
        self._stopping = False
        self._last_notify = 0.0
        self.checkpoints = 0
        """How many checkpoints ran (tests read it)."""
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """A write transaction committed: checkpoint once writes go quiet."""
        with self._wake:
            self._pending = True
            self._last_notify = time.monotonic()
            self._wake.notify()

    def close(self) -> None:
        """Stop the thread after a last checkpoint of whatever is pending."""
        with self._wake:
            self._stopping = True
            self._wake.notify()
        self._thread.join()

    def _run(self) -> None:
        conn = sqlite3.connect(self._path, check_same_thread=False)
        try:
            conn.execute("PRAGMA busy_timeout = 5000")
            last_run = 0.0
            while True:
                with self._wake:
                    while not self._pending and not self._stopping:
                        self._wake.wait()
                    if self._stopping:
                        break
                    due = max(self._last_notify + self._quiet, last_run + self._interval)
                    delay = due - time.monotonic()
                    if delay > 0:
                        self._wake.wait(delay)
                        continue
                    self._pending = False
                self._checkpoint(conn)
                last_run = time.monotonic()
            if self._pending:
                self._checkpoint(conn)
        finally:
            conn.close()

    def _checkpoint(self, conn: sqlite3.Connection) -> None:
        try:
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            self.checkpoints += 1
        except sqlite3.Error:
            pass  # busy or closing: the next commit notifies again, and SQLite replays the log
