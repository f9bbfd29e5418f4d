"""The runtime file: where a device runtime on a memory listens, so that `edge-agent ask`
on the same memory asks through it. Kept free of heavy imports (a cold ask reads it)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

RUNTIME_SUFFIX = ".runtime"


def runtime_file(memory: Path) -> Path:
    """Where a runtime on ``memory`` says where it listens."""
    return memory.with_name(memory.name + RUNTIME_SUFFIX)


def announce(memory: Path, address: str, cloud: str | None = None) -> Path:
    """Write the runtime file (pid, gRPC address, the cloud it uses); returns its path."""
    path = runtime_file(memory)
    path.write_text(json.dumps({"pid": os.getpid(), "address": address, "cloud": cloud}))
    return path


def withdraw(memory: Path) -> None:
    """Remove the runtime file, if it is this process's."""
    path = runtime_file(memory)
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()


def running_address(memory: Path, cloud: str | None = None) -> str | None:
    """The gRPC address of a runtime alive on ``memory`` that uses ``cloud``, or None."""
    try:
        found = json.loads(runtime_file(memory).read_text())
        pid, address = int(found["pid"]), str(found["address"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if found.get("cloud") != cloud:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, someone else's
    return address
