"""The device's own runs: a routing decision run through the kernel's loop (THOUGHT,
ACTION, OBSERVATION checked by the kernel, FINAL_ANSWER), and a session paused for a
person's approval resumed.

The decision travels in the session's metadata (``edge_agent.reasoner.DECISION_KEY``), not
in the reasoner, so a paused session resumes with it, here or in another process.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from edge_agent.device_actions import approval_policy
from edge_agent.reasoner import DECISION_KEY, UNITS_KEY, RouterReasoner, pack_decision
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import AgentLoop, Session
from react_kernel.steps import from_struct

if TYPE_CHECKING:
    from edge_agent.followups import Context
    from react_kernel import ToolRegistry
    from sync.store import MemoryStore
    from understanding.decision import RouteDecision
    from understanding.router import Router


class DeviceLoop:
    """Runs decisions on the device through the kernel loop, and keeps what they did."""

    def __init__(
        self, memory: MemoryStore, tools: ToolRegistry, router: Router, context: Context
    ) -> None:
        self.memory = memory
        self.tools = tools
        self.context = context
        self.loop = AgentLoop(
            RouterReasoner(router),
            tools,
            idempotency=memory,
            approval_policy=approval_policy,
            origin=pb.ORIGIN_EDGE,
            session_store=memory,
        )

    def run(
        self,
        query: str,
        decision: RouteDecision,
        *,
        units: str = "metric",
        session_id: str | None = None,
        turn_id: int = 0,
    ) -> Iterator[pb.ReactStep]:
        """Stream the steps of ``decision`` run for ``query`` (in the home's ``units``)."""
        session = self.loop.start(query, session_id=session_id)
        session.turn_id = turn_id
        session.metadata[DECISION_KEY] = pack_decision(decision)
        session.metadata[UNITS_KEY] = units
        yield from self._run(session)

    def resume(
        self, session_id: str, act_id: str, approved: bool, reason: str = ""
    ) -> Iterator[pb.ReactStep]:
        """Go on with a session paused for approval, approved or denied."""
        session = self.loop.resume(session_id)
        if approved:
            session.approve(act_id, reason)
        else:
            session.deny(act_id, reason or "denied by the user")
        yield from self._run(session)

    def _run(self, session: Session) -> Iterator[pb.ReactStep]:
        # The kernel persists the session and its steps as it goes; the summary and the
        # receipt follow in one transaction (each commit costs a few ms on a device).
        yield from session.run()
        self.remember(list(session.steps))
        final = session.final_answer
        with self.memory.batch():
            if session.finished and final is not None:
                if session.receipt is not None:
                    self.memory.save_receipt(session.receipt)
                self.memory.record_session(
                    session.session_id,
                    query=session.query,
                    final_answer=final.content,
                    success=final.stop_reason == pb.STOP_REASON_FINAL_ANSWER,
                    state=session.state.value,
                )
            else:
                self.memory.record_session(
                    session.session_id, query=session.query, state=session.state.value
                )

    def remember(self, steps: list[pb.ReactStep]) -> None:
        """The entities of the tool calls that ran on the device, for follow-ups."""
        actions = {s.act_id: s for s in steps if s.step_type == pb.STEP_TYPE_ACTION}
        for step in steps:
            action = actions.get(step.act_id)
            if (
                step.step_type == pb.STEP_TYPE_OBSERVATION
                and step.status == pb.OBSERVATION_STATUS_OK
                and action is not None
                and self.tools.get(action.tool) is not None
            ):
                self.context.remember(
                    action.tool, from_struct(action.arguments), from_struct(step.observation)
                )
