"""A session's decision receipt as the device keeps it: find it, show it, verify it.

Every answer carries a ``DecisionReceipt`` (``react_kernel.receipts``): the query, the
answer, the reasoning and a hash of every observation it rests on, sealed by a digest.
The device keeps the receipts of its own sessions and of the cloud's (``CloudLink`` hands
them over), so ``edge-agent receipt SESSION --verify`` can check, offline, that the answer
in memory is the one the receipt vouches for and that the evidence is unchanged.

The device's routing THOUGHT (the step that says "hand this to the cloud") is the
device's, not the cloud reasoner's: a cloud receipt (its FINAL_ANSWER came from the cloud)
is checked against the steps the cloud produced and the observations the device gave it;
a device receipt against all of its session's steps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from edge_agent.errors import ReceiptNotFoundError
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import verify_receipt


class ReceiptMemory(Protocol):
    """What this module reads from the device's memory (``sync.MemoryStore``)."""

    def steps(self, session_id: str) -> list[pb.ReactStep]: ...

    def get_receipt(self, receipt_id: str) -> pb.DecisionReceipt | None: ...


@dataclass(frozen=True)
class SessionReceipt:
    """A session's last answer, its receipt (None if memory has none) and its steps."""

    session_id: str
    final: pb.ReactStep
    receipt: pb.DecisionReceipt | None
    steps: list[pb.ReactStep]

    def problems(self) -> list[str]:
        """What does not match (empty: the receipt vouches for the stored answer)."""
        if self.receipt is None:
            return [f"no receipt {self.final.receipt_id or '(none named)'} in memory"]
        steps = self.steps
        if self.final.origin == pb.ORIGIN_CLOUD:  # the cloud's receipt: its steps only
            steps = [s for s in steps if not _routing_thought(s)]
        return verify_receipt(self.receipt, steps)


def session_receipt(memory: ReceiptMemory, session_id: str) -> SessionReceipt:
    """The receipt of a session's last FINAL_ANSWER, with the steps to check it against."""
    steps = memory.steps(session_id)
    if not steps:
        raise ReceiptNotFoundError(f"no session {session_id!r} in memory")
    finals = [s for s in steps if s.step_type == pb.STEP_TYPE_FINAL_ANSWER]
    if not finals:
        raise ReceiptNotFoundError(f"session {session_id!r} has no final answer")
    final = finals[-1]
    receipt = memory.get_receipt(final.receipt_id) if final.receipt_id else None
    return SessionReceipt(session_id, final, receipt, steps)


def _routing_thought(step: pb.ReactStep) -> bool:
    return (
        step.step_type == pb.STEP_TYPE_THOUGHT
        and step.origin == pb.ORIGIN_EDGE
        and "route" in step.metadata
    )
