"""Memory files are private: folders 0700, database files 0600, on the device and in the
cloud's per-user stores (a memory holds door codes and who lives where).

SQLite gives a database's ``-wal`` and ``-shm`` files the mode of the database file, so
creating the database 0600 before SQLite opens it covers all three.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

FOLDER_MODE = 0o700
FILE_MODE = 0o600


class OpenFolderError(PermissionError):
    """An existing folder that others may read or write: refused, never chmodded (it may be
    a shared folder, /tmp's 1777 for one, whose mode is not ours to change)."""


def private_folder(path: str | os.PathLike[str]) -> Path:
    """Create ``path`` (and its parents) 0700 if missing and return it; an existing folder
    must already be private.

    Raises:
        OpenFolderError: ``path`` exists and its mode lets others in (one line naming it).
    """
    folder = Path(path)
    if folder.is_dir():
        mode = stat.S_IMODE(folder.stat().st_mode)
        if mode & 0o077:
            raise OpenFolderError(
                f"refusing the memory folder {folder}: it is open to others (mode {mode:04o}); "
                "give a new path or a private folder (chmod 700)"
            )
        return folder
    folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    os.chmod(folder, FOLDER_MODE)  # ours, just made: mkdir's mode passed through the umask
    return folder


def private_database(path: str | os.PathLike[str]) -> None:
    """Create the database file 0600 (its folder 0700 when this makes it) before SQLite
    opens it, and tighten one that an older version left readable."""
    file = Path(path)
    if not file.parent.exists():
        private_folder(file.parent)
    descriptor = os.open(file, os.O_RDWR | os.O_CREAT, FILE_MODE)
    os.close(descriptor)
    for companion in (file, Path(f"{file}-wal"), Path(f"{file}-shm")):
        if companion.exists() and companion.stat().st_mode & 0o077:
            os.chmod(companion, FILE_MODE)
