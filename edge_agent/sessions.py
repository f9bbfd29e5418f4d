"""Saving the device's sessions: the fields the kernel fills on its own steps, stamped on
steps that do not come from the loop, and each way a turn outside the kernel loop ends
(finished, waiting for the person's answer, refused) saved in one place. (The loop's own
sessions are saved by ``edge_agent.device_loop``.)"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from google.protobuf.timestamp_pb2 import Timestamp

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.state import State
from react_kernel.steps import new_act_id

if TYPE_CHECKING:
    from sync.store import MemoryStore

#: The state a finished session is recorded with: the kernel's, as the loop records its own.
FINISHED = State.FINISHED.value
#: The state of a session that asked the person back and waits for the answer.
WAITING = "input_required"


def save_finished(
    memory: MemoryStore,
    session_id: str,
    steps: Sequence[pb.ReactStep],
    *,
    query: str,
    final_answer: str,
    success: bool,
    receipt: pb.DecisionReceipt | None = None,
) -> None:
    """Keep a finished turn's steps, its receipt (if any) and the session's summary, in
    one transaction."""
    with memory.batch():
        memory.save_steps(session_id, steps)
        if receipt is not None:
            memory.save_receipt(receipt)
        memory.record_session(
            session_id, query=query, final_answer=final_answer, success=success, state=FINISHED
        )


def save_waiting(
    memory: MemoryStore, session_id: str, steps: Sequence[pb.ReactStep], *, query: str
) -> None:
    """Keep a turn that asked the person back (its question last) and the session's
    summary, waiting (``input_required``) for the next turn to answer, in one transaction."""
    with memory.batch():
        memory.save_steps(session_id, steps)
        memory.record_session(session_id, query=query, state=WAITING)


def save_refused(
    memory: MemoryStore, session_id: str, steps: Sequence[pb.ReactStep], *, query: str, why: str
) -> None:
    """Keep a refused turn's steps and its failed session (not pending: the same request
    would be refused again), in one transaction."""
    with memory.batch():
        memory.save_steps(session_id, steps)
        memory.record_session(
            session_id, query=query, final_answer=why, success=False, state=State.FAILED.value
        )


def stored_time(value: str) -> datetime:
    """A time the memory store wrote (ISO-8601 UTC with a ``Z``)."""
    moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Stamper:
    """Fills the fields the kernel fills on loop steps, for steps of the cloud hand-off."""

    def __init__(self, session_id: str, trace_id: str) -> None:
        self.session_id = session_id
        self.trace_id = trace_id
        self.index = 0

    def __call__(self, step: pb.ReactStep, *, local: bool) -> None:
        step.session_id = step.session_id or self.session_id
        step.trace_id = step.trace_id or self.trace_id
        step.step_index = self.index
        self.index += 1
        if local:
            step.origin = pb.ORIGIN_EDGE
        if step.step_type == pb.STEP_TYPE_ACTION and not step.act_id:
            step.act_id = new_act_id()
        if not step.HasField("created_at"):
            stamp = Timestamp()
            stamp.GetCurrentTime()
            step.created_at.CopyFrom(stamp)
