"""Stores the kernel persists through: idempotency results and serialised sessions.

Both are protocols; the in-memory implementations here serve tests and single-process
use. ``sync.store.MemoryStore`` implements both on SQLite, so that a side-effecting call
that already succeeded is not run again after a process restart.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from edgeloop.v1 import agent_pb2 as pb

__all__ = ["IdempotencyStore", "InMemoryIdempotencyStore", "InMemorySessionStore", "SessionStore"]


@runtime_checkable
class IdempotencyStore(Protocol):
    """Results of side-effecting tool calls, by idempotency key."""

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored result for ``key``, or None if that call never succeeded."""
        ...

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Store the result of a call that succeeded."""
        ...


class InMemoryIdempotencyStore:
    """A dict-backed :class:`IdempotencyStore` (results are copied in and out)."""

    def __init__(self) -> None:
        self._results: dict[str, dict[str, Any]] = {}

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored result for ``key``, or None."""
        result = self._results.get(key)
        return copy.deepcopy(result) if result is not None else None

    def put(self, key: str, result: dict[str, Any]) -> None:
        """Store ``result`` under ``key``."""
        self._results[key] = copy.deepcopy(result)

    def __len__(self) -> int:
        return len(self._results)


@runtime_checkable
class SessionStore(Protocol):
    """Where sessions are saved so that they can be resumed elsewhere."""

    def save_session(self, session_id: str, data: str) -> None:
        """Save the serialised session (``Session.to_json()``), replacing any older copy."""
        ...

    def load_session(self, session_id: str) -> str | None:
        """The last saved serialised session, or None."""
        ...

    def append_steps(self, session_id: str, steps: Sequence[pb.ReactStep]) -> None:
        """Append newly produced steps to the session's stored steps."""
        ...


class InMemorySessionStore:
    """A dict-backed :class:`SessionStore`."""

    def __init__(self) -> None:
        self.sessions: dict[str, str] = {}
        self.steps: dict[str, list[pb.ReactStep]] = {}

    def save_session(self, session_id: str, data: str) -> None:
        """Save the serialised session."""
        self.sessions[session_id] = data

    def load_session(self, session_id: str) -> str | None:
        """The last saved serialised session, or None."""
        return self.sessions.get(session_id)

    def append_steps(self, session_id: str, steps: Sequence[pb.ReactStep]) -> None:
        """Append copies of ``steps``."""
        stored = self.steps.setdefault(session_id, [])
        for step in steps:
            clone = pb.ReactStep()
            clone.CopyFrom(step)
            stored.append(clone)
