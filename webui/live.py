"""The sessions a page shows: each query's steps as they arrive, its route and its receipt.

A :class:`LiveSession` is what the page knows of one session (it is rebuilt from nothing
but the agent's step stream); a :class:`SessionBook` keeps the most recent ones, safe to
update from the worker threads that run the agent while the page reads it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format

from edgeloop.v1 import agent_pb2 as pb

RUNNING = "running"
AWAITING_APPROVAL = "awaiting approval"
FINISHED = "finished"
FAILED = "failed"
ASKED = "asked back"


@dataclass
class LiveSession:
    """One session as the page shows it."""

    session_id: str
    query: str
    device: str = ""
    started_at: float = field(default_factory=time.time)
    steps: list[pb.ReactStep] = field(default_factory=list)
    state: str = RUNNING
    error: str = ""
    receipt: pb.DecisionReceipt | None = None
    decided: set[str] = field(default_factory=set)  # act ids approved or denied here
    verification: Any = None  # the last "verify" result, kept across re-renders
    source: str = "page"  # "page": run here; "memory": another process's, read from memory

    @property
    def route(self) -> dict[str, str]:
        """The route decision: the metadata of the THOUGHT that carries a ``route``; for a
        query kept on the device whose router names no slots, the arguments it filled."""
        steps = list(self.steps)
        for step in steps:
            if step.step_type == pb.STEP_TYPE_THOUGHT and "route" in step.metadata:
                route = dict(step.metadata)
                if route.get("route") == "edge" and "slots" not in route:
                    action = next((s for s in steps if s.step_type == pb.STEP_TYPE_ACTION), None)
                    if action is not None and action.arguments.fields:
                        route["slots"] = json_format.MessageToJson(
                            action.arguments, indent=None, sort_keys=True
                        )
                return route
        return {}

    @property
    def final(self) -> pb.ReactStep | None:
        """The final answer, once there is one."""
        for step in reversed(self.steps):
            if step.step_type == pb.STEP_TYPE_FINAL_ANSWER:
                return step
        return None

    @property
    def waiting(self) -> pb.ReactStep | None:
        """The approval request still waiting for a person, if any."""
        if self.state != AWAITING_APPROVAL:
            return None
        for step in reversed(self.steps):
            if step.step_type == pb.STEP_TYPE_APPROVAL_REQUEST and step.act_id not in self.decided:
                return step
        return None

    @property
    def trace_id(self) -> str:
        """The trace id of the session's steps."""
        return next((s.trace_id for s in self.steps if s.trace_id), "")

    def add(self, step: pb.ReactStep) -> None:
        """Record one step; an approval request pauses the session."""
        self.steps.append(step)
        if step.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
            self.state = AWAITING_APPROVAL
        elif step.step_type == pb.STEP_TYPE_FINAL_ANSWER:
            self.state = FINISHED
        elif step.step_type == pb.STEP_TYPE_CLARIFICATION:
            self.state = ASKED

    @property
    def question(self) -> pb.ReactStep | None:
        """The question the device asked back and waits an answer to, if any."""
        if self.state == ASKED and self.steps:
            last = self.steps[-1]
            return last if last.step_type == pb.STEP_TYPE_CLARIFICATION else None
        return None


class SessionBook:
    """The most recent sessions, newest first; thread-safe."""

    def __init__(self, keep: int = 30) -> None:
        self.keep = keep
        self._sessions: OrderedDict[str, LiveSession] = OrderedDict()
        self._lock = threading.Lock()

    def open(self, session: LiveSession) -> LiveSession:
        """Start showing a session (the oldest beyond ``keep`` is dropped)."""
        with self._lock:
            self._sessions[session.session_id] = session
            while len(self._sessions) > self.keep:  # the oldest by start time goes
                oldest = min(self._sessions.values(), key=lambda s: s.started_at)
                del self._sessions[oldest.session_id]
        return session

    def get(self, session_id: str) -> LiveSession | None:
        """A shown session by id."""
        with self._lock:
            return self._sessions.get(session_id)

    def recent(self) -> list[LiveSession]:
        """The sessions, newest first (a copy of the list; the sessions themselves live)."""
        with self._lock:
            sessions = list(reversed(self._sessions.values()))
        return sorted(sessions, key=lambda s: -s.started_at)

    def waiting(self) -> list[tuple[LiveSession, pb.ReactStep]]:
        """Sessions paused for an approval, with the request each waits on."""
        found = []
        for session in self.recent():
            step = session.waiting
            if step is not None:
                found.append((session, step))
        return found
