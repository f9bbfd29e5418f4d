"""Where the device keeps its memory: ``~/.edgeloop/edge.db`` unless told otherwise.

``--memory PATH`` wins, then ``$EDGELOOP_HOME/edge.db``, then the home default; the folder
is created on first use by the memory store.
"""

from __future__ import annotations

import os
from pathlib import Path

DB_NAME = "edge.db"


def memory_path(override: str | None = None) -> Path:
    """The memory database path for this run."""
    if override:
        return Path(override).expanduser()
    home = os.environ.get("EDGELOOP_HOME")
    if home:
        return Path(home).expanduser() / DB_NAME
    return Path.home() / ".edgeloop" / DB_NAME
