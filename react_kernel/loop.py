"""The agent loop: a reasoner, tools and policies, and the sessions it starts."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Literal

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.approval import ApprovalPolicy, default_approval_policy
from react_kernel.errors import ResumeError
from react_kernel.executor import RetryPolicy, ToolExecutor
from react_kernel.guards import GuardConfig
from react_kernel.idempotency import IdempotencyStore, InMemoryIdempotencyStore, SessionStore
from react_kernel.reasoner import Reasoner
from react_kernel.safety import SafetyConfig
from react_kernel.session import Session
from react_kernel.tools import ToolRegistry

__all__ = ["AgentLoop"]


class AgentLoop:
    """Runs ReAct sessions: one reasoner, one tool registry, one set of policies.

    ``origin`` says which side this loop runs on (``pb.ORIGIN_EDGE`` or
    ``pb.ORIGIN_CLOUD``); an ACTION whose tool's ``executor`` is the other side pauses the
    session in ``awaiting_observation``. ``redactor`` (e.g. :func:`redact_pii`) is applied
    to the observations this loop produces, for loops whose observations leave the device.

    Example:
        >>> from react_kernel.reasoner import ScriptedReasoner
        >>> loop = AgentLoop(ScriptedReasoner(["Final Answer: hi"]), ToolRegistry())
        >>> [step.content for step in loop.start("hello").run()]
        ['hi']
    """

    def __init__(
        self,
        reasoner: Reasoner,
        tools: ToolRegistry,
        *,
        idempotency: IdempotencyStore | None = None,
        guards: GuardConfig | None = None,
        approval_policy: ApprovalPolicy | None = None,
        origin: pb.Origin = pb.ORIGIN_EDGE,
        session_store: SessionStore | None = None,
        redactor: Callable[[str], str] | None = None,
        safety: SafetyConfig | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if origin not in (pb.ORIGIN_EDGE, pb.ORIGIN_CLOUD):
            raise ValueError("origin must be pb.ORIGIN_EDGE or pb.ORIGIN_CLOUD")
        self.reasoner = reasoner
        self.tools = tools
        self.idempotency: IdempotencyStore = (
            idempotency if idempotency is not None else InMemoryIdempotencyStore()
        )
        self.guards = guards or GuardConfig()
        self.approval_policy: ApprovalPolicy = approval_policy or default_approval_policy
        self.origin = origin
        self.side: Literal["edge", "cloud"] = "edge" if origin == pb.ORIGIN_EDGE else "cloud"
        self.session_store = session_store
        self.redactor = redactor
        self.safety = safety or SafetyConfig()
        self.clock = clock
        self.executor = ToolExecutor(tools, self.idempotency, retry=retry, sleep=sleep)

    def start(
        self, query: str, session_id: str | None = None, trace_id: str | None = None
    ) -> Session:
        """A new session for ``query`` (state idle); iterate ``session.run()`` to run it."""
        return Session(self, query, session_id=session_id, trace_id=trace_id)

    def resume(self, session_id: str) -> Session:
        """Load a session saved in the loop's session store."""
        if self.session_store is None:
            raise ResumeError("this loop has no session store")
        text = self.session_store.load_session(session_id)
        if text is None:
            raise ResumeError(f"no saved session {session_id!r}")
        return Session.from_json(text, self)
