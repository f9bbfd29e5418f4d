"""The runtime file: where a device runtime on a memory listens, so that `edge-agent ask`
on the same memory asks through it. Stdlib only (the quick ask reads it before anything
else loads).

``edge.db.runtime`` beside the memory holds one JSON object: the runtime's ``pid``, its
gRPC ``address``, the ``cloud`` it uses and its quick door's Unix ``socket``
(:mod:`edge_agent.ask_socket`; absent when it has none).
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

RUNTIME_SUFFIX = ".runtime"


def runtime_file(memory: Path) -> Path:
    """Where a runtime on ``memory`` says where it listens."""
    return memory.with_name(memory.name + RUNTIME_SUFFIX)


def announce(
    memory: Path, address: str, cloud: str | None = None, socket: str | None = None
) -> Path:
    """Write the runtime file (pid, gRPC address, the cloud it uses, its quick door's
    socket); returns its path."""
    path = runtime_file(memory)
    found = {"pid": os.getpid(), "address": address, "cloud": cloud, "socket": socket}
    path.write_text(json.dumps(found))
    return path


def withdraw(memory: Path) -> None:
    """Remove the runtime file, if it is this process's."""
    path = runtime_file(memory)
    with contextlib.suppress(OSError, ValueError):
        if json.loads(path.read_text()).get("pid") == os.getpid():
            path.unlink()


class Running:
    """A runtime alive on a memory: its pid, gRPC address and quick door's socket (None:
    it has none). A plain class: the quick ask does not load dataclasses or typing."""

    __slots__ = ("address", "pid", "socket")

    def __init__(self, pid: int, address: str, socket: str | None) -> None:
        self.pid, self.address, self.socket = pid, address, socket


def running_runtime(memory: Path, cloud: str | None = None) -> Running | None:
    """The runtime alive on ``memory`` that uses ``cloud``, as its runtime file says, or
    None: no file, another cloud, or its process is gone (a stale file)."""
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
    socket = found.get("socket")
    return Running(pid, address, socket if isinstance(socket, str) and socket else None)


def running_address(memory: Path, cloud: str | None = None) -> str | None:
    """The gRPC address of a runtime alive on ``memory`` that uses ``cloud``, or None."""
    found = running_runtime(memory, cloud)
    return None if found is None else found.address
