"""Where the device keeps its memory: ``~/.edgeloop/edge.db`` unless told otherwise.

``--memory PATH`` wins, then ``$EDGELOOP_HOME/edge.db``, then the home default; the folder
is created on first use by the memory store.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DB_NAME = "edge.db"


def memory_path(override: str | None = None) -> Path:
    """The memory database path for this run; the edgeloop home folder, when it exists,
    is made private (0700: an older version left it 0755)."""
    if override:
        return Path(override).expanduser()
    home = os.environ.get("EDGELOOP_HOME")
    folder = Path(home).expanduser() if home else Path.home() / ".edgeloop"
    if folder.is_dir() and folder.stat().st_mode & 0o077:
        with contextlib.suppress(OSError):  # not ours to change: the store still opens
            folder.chmod(0o700)
    return folder / DB_NAME
