"""The stored form of a session: ``Session.to_json`` / ``Session.from_json``.

One JSON object holds everything a session needs to continue in another process or on
the other side (its steps, state machine log, counters, approvals, receipt). The format
is versioned: :data:`SESSION_FORMAT_VERSION`; a reader refuses any other version with
:class:`~react_kernel.errors.ResumeError` rather than guess.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, cast

from google.protobuf import json_format

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.approval import ApprovalDecision
from react_kernel.errors import ResumeError
from react_kernel.observations import observation_tokens
from react_kernel.state import State, StateMachine, Transition

if TYPE_CHECKING:
    from react_kernel.loop import AgentLoop
    from react_kernel.session import Session

__all__ = ["SESSION_FORMAT_VERSION", "session_from_json", "session_to_json"]

#: Version of the ``to_json`` format; ``from_json`` refuses any other.
SESSION_FORMAT_VERSION = 1

_WAITING = (State.AWAITING_APPROVAL, State.AWAITING_OBSERVATION, State.ACTING)


def session_to_json(session: Session) -> str:
    """The whole session as JSON text (compact, UTF-8 kept)."""
    data = {
        "version": SESSION_FORMAT_VERSION,
        "session_id": session.session_id,
        "trace_id": session.trace_id,
        "query": session.query,
        "queries": session.queries,
        "turn_id": session.turn_id,
        "state": session._sm.state.value,
        "steps": [json_format.MessageToDict(s) for s in session.steps],
        "unsent": session._unsent,
        "persisted": session._persisted,
        "transitions": [t.to_dict() for t in session._sm.log],
        "pending_act_id": session.pending_act_id,
        "tool_calls": session._tool_calls,
        "action_counts": session._action_counts,
        "denied": sorted(session._denied),
        "executed": sorted(session._executed),
        "approvals": [a.to_dict() for a in session.approvals],
        "elapsed_s": session._elapsed(),
        "turn_steps": session._turn_steps,
        "errors_in_row": session._errors_in_row,
        "stop_reason": int(session.stop_reason),
        "receipt": json_format.MessageToDict(session.receipt) if session.receipt else None,
        "metadata": session.metadata,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def session_from_json(cls: type[Session], text: str, loop: AgentLoop) -> Session:
    """A ``cls`` restored from :func:`session_to_json`'s text, run by ``loop``.

    Raises:
        ResumeError: not a session of this format version, or one that waits for an
            action it does not hold.
    """
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ResumeError("a serialised session must be a JSON object")
        if data.get("version") != SESSION_FORMAT_VERSION:
            raise ResumeError(f"unsupported session format version {data.get('version')!r}")
        session = cls(
            loop, str(data["query"]), session_id=data["session_id"], trace_id=data["trace_id"]
        )
        session.queries = [str(q) for q in data.get("queries", [session.query])]
        session.turn_id = int(data["turn_id"])
        session.steps = [json_format.ParseDict(s, pb.ReactStep()) for s in data["steps"]]
        session._unsent = int(data.get("unsent", 0))
        session._persisted = int(data.get("persisted", len(session.steps)))
        log = [Transition.from_dict(t) for t in data["transitions"]]
        session._sm = StateMachine(State(data["state"]), log)
        session.pending_act_id = data.get("pending_act_id")
        session._tool_calls = {str(k): int(v) for k, v in data["tool_calls"].items()}
        session._action_counts = {str(k): int(v) for k, v in data["action_counts"].items()}
        session._denied = set(data.get("denied", []))
        session._executed = set(data.get("executed", []))
        session.approvals = [ApprovalDecision.from_dict(a) for a in data.get("approvals", [])]
        session._elapsed_s = float(data.get("elapsed_s", 0.0))
        session._turn_steps = int(data.get("turn_steps", 0))
        session._errors_in_row = int(data.get("errors_in_row", 0))
        session.stop_reason = cast(pb.StopReason, int(data.get("stop_reason", 0)))
        receipt = data.get("receipt")
        if receipt:
            session.receipt = json_format.ParseDict(receipt, pb.DecisionReceipt())
        session.metadata = {str(k): str(v) for k, v in data.get("metadata", {}).items()}
    except ResumeError:
        raise
    except (KeyError, TypeError, ValueError, json_format.ParseError) as exc:
        raise ResumeError(f"invalid serialised session: {exc}") from None
    for step in reversed(session.steps):
        if step.step_type == pb.STEP_TYPE_OBSERVATION and step.turn_id == session.turn_id:
            session._last_obs_tokens = observation_tokens(step)
            break
    if session.state in _WAITING and session.pending_action() is None:
        raise ResumeError("the serialised session waits for an action it does not hold")
    return session
