"""What the parts of the device agent share: the fields of :class:`~edge_agent.agent.EdgeAgent`
and the few methods one part calls on another, declared once for the type checker.

The agent is one class made of parts by concept (``device_actions``, ``handoff``,
``pending``, ``asking_back``); each part is a base of ``EdgeAgent`` and reads the agent's
fields through ``self``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from edgeloop.v1 import agent_pb2 as pb

if TYPE_CHECKING:
    from edge_agent.device_events import EventHub
    from edge_agent.followups import Context
    from edge_agent.reasoner import RouterReasoner
    from edge_agent.ringer import TimerRinger
    from react_kernel import AgentLoop, Session, ToolRegistry
    from sync.store import MemoryStore
    from understanding.router import RouteDecision, Router


class CloudRunner(Protocol):
    """What the agent needs from ``edge_agent.cloud_link.CloudLink``."""

    def run(
        self,
        query: str,
        *,
        session_id: str,
        trace_id: str,
        history: Any = (),
        run_device_tool: Callable[[pb.ReactStep], pb.ReactStep],
        turn_id: int = 0,
        declared_tools: Any = (),
        proposed_calls: Any = (),
    ) -> Iterator[pb.ReactStep]: ...


class PersonDecision:
    """A person's answer to a cloud session's device action, awaited by the cloud link."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.approved = False
        self.reason = ""

    def decide(self, approved: bool, reason: str) -> None:
        self.approved, self.reason = approved, reason
        self.event.set()


class AgentParts:
    """The fields every part of the agent reads (set in ``EdgeAgent.__init__``)."""

    memory: MemoryStore
    router: Router
    cloud: CloudRunner | None
    tools: ToolRegistry
    reasoner: RouterReasoner
    loop: AgentLoop
    context: Context
    events: EventHub | None
    ringer: TimerRinger | None
    approval_timeout_s: float
    _now: Callable[[], datetime]
    _followup_of: str
    # (session id, act id) -> decision, for device actions the cloud asked for.
    _decisions: dict[tuple[str, str], PersonDecision]
    _decisions_lock: threading.Lock

    if TYPE_CHECKING:  # defined by the parts and the agent; declared here for the others

        def _announce(self, step: pb.ReactStep) -> None: ...

        def _run(self, session: Session) -> Iterator[pb.ReactStep]: ...

        def _remember(self, steps: list[pb.ReactStep]) -> None: ...

        def _cloud(
            self,
            query: str,
            decision: RouteDecision,
            session_id: str,
            fallback: RouteDecision | None = None,
            *,
            turn_id: int = 0,
        ) -> Iterator[pb.ReactStep]: ...

        def run_device_tool(
            self,
            action: pb.ReactStep,
            session_id: str = "",
            *,
            idempotency_scope: str = "",
            asked_s_ago: float = 0.0,
        ) -> pb.ReactStep: ...

        def approve(
            self, session_id: str, act_id: str, approved: bool, reason: str = ""
        ) -> list[pb.ReactStep]: ...

        def _forget_decisions(self, session_id: str) -> None: ...
