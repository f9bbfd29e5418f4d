"""The session state machine: explicit states, an allowed-transition table and a log.

Every change of state goes through :meth:`StateMachine.transition`, which refuses any
change that is not in :data:`TRANSITIONS` (raising :class:`IllegalTransitionError`) and
appends a :class:`Transition` to the log: from, to, how long the machine stayed in the
``from`` state (ms), the sha256 of the input that caused the change, and when.

::

    idle ──> reasoning ──> acting ──> observing ──> reasoning ... ──> finished
               │  ▲  │                   ▲
               │  └──┘ (ERROR step)      │
               ├──> awaiting_approval ───┤ (deny)      awaiting_approval ──> acting (approve)
               └──> awaiting_observation ┘ (provide_observation)
    any non-terminal state ──> failed | canceled;  finished ──> idle (a follow-up turn)
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.errors import IllegalTransitionError

__all__ = ["TERMINAL_STATES", "TRANSITIONS", "State", "StateMachine", "Transition", "input_sha256"]


class State(StrEnum):
    """The states of a session."""

    IDLE = "idle"
    REASONING = "reasoning"
    ACTING = "acting"
    OBSERVING = "observing"
    AWAITING_APPROVAL = "awaiting_approval"
    AWAITING_OBSERVATION = "awaiting_observation"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELED = "canceled"

    def to_proto(self) -> pb.SessionState:
        """The protocol's (A2A-like) session state for this kernel state."""
        return _PROTO_STATE[self]


_PROTO_STATE: dict[State, pb.SessionState] = {
    State.IDLE: pb.SESSION_STATE_SUBMITTED,
    State.REASONING: pb.SESSION_STATE_WORKING,
    State.ACTING: pb.SESSION_STATE_WORKING,
    State.OBSERVING: pb.SESSION_STATE_WORKING,
    State.AWAITING_APPROVAL: pb.SESSION_STATE_INPUT_REQUIRED,
    State.AWAITING_OBSERVATION: pb.SESSION_STATE_INPUT_REQUIRED,
    State.FINISHED: pb.SESSION_STATE_COMPLETED,
    State.FAILED: pb.SESSION_STATE_FAILED,
    State.CANCELED: pb.SESSION_STATE_CANCELED,
}

TERMINAL_STATES: frozenset[State] = frozenset({State.FINISHED, State.FAILED, State.CANCELED})

_S = State
#: The allowed transitions; anything else raises IllegalTransitionError.
TRANSITIONS: dict[State, frozenset[State]] = {
    _S.IDLE: frozenset({_S.REASONING, _S.FINISHED, _S.FAILED, _S.CANCELED}),
    _S.REASONING: frozenset(
        {
            _S.REASONING,
            _S.ACTING,
            _S.OBSERVING,
            _S.AWAITING_APPROVAL,
            _S.AWAITING_OBSERVATION,
            _S.FINISHED,
            _S.FAILED,
            _S.CANCELED,
        }
    ),
    _S.ACTING: frozenset({_S.OBSERVING, _S.FAILED, _S.CANCELED}),
    _S.OBSERVING: frozenset({_S.REASONING, _S.FINISHED, _S.FAILED, _S.CANCELED}),
    _S.AWAITING_APPROVAL: frozenset({_S.ACTING, _S.OBSERVING, _S.FINISHED, _S.FAILED, _S.CANCELED}),
    _S.AWAITING_OBSERVATION: frozenset({_S.OBSERVING, _S.FINISHED, _S.FAILED, _S.CANCELED}),
    _S.FINISHED: frozenset({_S.IDLE}),
    _S.FAILED: frozenset(),
    _S.CANCELED: frozenset(),
}


def input_sha256(data: bytes | str) -> str:
    """Hex sha256 of a transition's input (bytes, or text encoded as UTF-8)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Transition:
    """One logged change of state (``at_us``: microseconds since the Unix epoch, UTC)."""

    from_state: State
    to_state: State
    duration_ms: float
    input_sha256: str
    at_us: int

    @property
    def at(self) -> str:
        """When the transition happened, ISO 8601 in UTC."""
        return (_EPOCH + timedelta(microseconds=self.at_us)).isoformat()

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dict (used by session serialisation)."""
        return {
            "from": self.from_state.value,
            "to": self.to_state.value,
            "duration_ms": self.duration_ms,
            "input_sha256": self.input_sha256,
            "at": self.at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Transition:
        """Inverse of :meth:`to_dict`."""
        at = datetime.fromisoformat(str(data["at"]))
        if at.tzinfo is None:
            at = at.replace(tzinfo=UTC)
        return cls(
            State(str(data["from"])),
            State(str(data["to"])),
            float(data["duration_ms"]),  # type: ignore[arg-type]
            str(data["input_sha256"]),
            (at - _EPOCH) // timedelta(microseconds=1),
        )


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class StateMachine:
    """The current state plus the log of every transition that led to it.

    A transition records its input as given (bytes or text); the sha256 and the
    :class:`Transition` entry are made when the log is read, so a session nobody audits
    pays for neither.

    Example:
        >>> sm = StateMachine()
        >>> sm.transition(State.REASONING, b"what is 2+2?")
        >>> sm.state, len(sm.log)
        (<State.REASONING: 'reasoning'>, 1)
    """

    __slots__ = ("_entered", "_log", "_pending", "state")

    def __init__(self, state: State = State.IDLE, log: list[Transition] | None = None) -> None:
        self.state = state
        self._log: list[Transition] = log if log is not None else []
        self._pending: list[tuple[State, State, float, bytes | str, int]] = []
        self._entered = time.perf_counter()

    @property
    def log(self) -> list[Transition]:
        """Every transition so far, oldest first (the same list object each time)."""
        pending = self._pending
        if pending:
            self._log.extend(
                Transition(from_state, to_state, duration_ms, input_sha256(data), at_us)
                for from_state, to_state, duration_ms, data, at_us in pending
            )
            pending.clear()
        return self._log

    def can(self, to_state: State) -> bool:
        """Whether moving to ``to_state`` is allowed from the current state."""
        return to_state in TRANSITIONS[self.state]

    def transition(self, to_state: State, data: bytes | str = b"") -> None:
        """Move to ``to_state``, logging the change; raise if the table does not allow it."""
        if to_state not in TRANSITIONS[self.state]:
            raise IllegalTransitionError(self.state.value, to_state.value)
        if not isinstance(data, bytes | str):
            data = bytes(data)  # a mutable buffer: keep what it holds now
        now = time.perf_counter()
        self._pending.append(
            (
                self.state,
                to_state,
                round((now - self._entered) * 1000.0, 3),
                data,
                time.time_ns() // 1000,
            )
        )
        self.state = to_state
        self._entered = now
