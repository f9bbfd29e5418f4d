"""A person's decisions on the device actions of cloud sessions, handed over to the stream
that waits for them.

A cloud session cannot pause the way the device's own loop does (its stream stays open),
so the device action waits: :class:`Approvals` is where the wait and the decision meet.
Whoever decides (the terminal's prompt, the page's button, the Approve RPC) calls
:meth:`Approvals.decide`, in any thread; the action's runner waits in :meth:`Approvals.wait`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

#: (session id, act id): one device action of one cloud session.
Key = tuple[str, str]


@dataclass
class PersonDecision:
    """A person's answer to one device action, once given."""

    decided: threading.Event = field(default_factory=threading.Event)
    approved: bool = False
    reason: str = ""


class Approvals:
    """The device actions of cloud sessions waiting for a person, and their decisions."""

    def __init__(self) -> None:
        self._waiting: dict[Key, PersonDecision] = {}
        self._lock = threading.Lock()

    def open(self, key: Key) -> None:
        """``key`` waits for a decision from now on."""
        with self._lock:
            self._waiting.setdefault(key, PersonDecision())

    def waiting(self, session_id: str, act_id: str) -> bool:
        """True while that action waits for a decision."""
        with self._lock:
            return (session_id, act_id) in self._waiting

    def decide(self, session_id: str, act_id: str, approved: bool, reason: str) -> bool:
        """Hand a decision to the action that waits for it; False when none waits."""
        with self._lock:
            decision = self._waiting.get((session_id, act_id))
        if decision is None:
            return False
        decision.approved, decision.reason = approved, reason
        decision.decided.set()
        return True

    def wait(self, key: Key, timeout_s: float) -> PersonDecision | None:
        """The decision on ``key``, at most ``timeout_s`` away; None when no one decided in
        time (or the key was never opened)."""
        with self._lock:
            decision = self._waiting.get(key)
        decided = decision is not None and decision.decided.wait(timeout_s)
        return decision if decided else None

    def forget_key(self, key: Key) -> None:
        """``key`` waits no more (decided, timed out, or its stream closed)."""
        with self._lock:
            self._waiting.pop(key, None)

    def forget(self, session_id: str) -> None:
        """Drop whatever a session's actions still wait for (its stream ended)."""
        with self._lock:
            for key in [k for k in self._waiting if k[0] == session_id]:
                del self._waiting[key]
