"""The reasoner interface and a scripted reasoner for tests and benchmarks.

A reasoner looks at the query and the history and returns the next steps:
``[THOUGHT?, ACTION]``, ``[THOUGHT?, FINAL_ANSWER]`` or ``[ERROR]``. It only fills what it
decides (type, content, tool, arguments, model, token usage); the kernel fills the rest
(session id, turn, step index, act id, timestamps, origin, trace id).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.parser import parse_model_output
from react_kernel.tools import ToolRegistry

__all__ = ["CancelToken", "Reasoner", "ReasoningContext", "ScriptedReasoner", "ScriptedReply"]


class CancelToken:
    """Set once when a session is canceled; a reasoner blocked on I/O registers a callback
    to abort it (thread-safe: the session is canceled from another thread than the one
    that reasons).
    """

    __slots__ = ("_callbacks", "_lock", "reason")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], object]] | None = []
        self.reason = ""

    @property
    def canceled(self) -> bool:
        """Whether the session was canceled."""
        return self._callbacks is None

    def cancel(self, reason: str = "") -> None:
        """Cancel (once) and run the registered callbacks."""
        with self._lock:
            callbacks, self._callbacks = self._callbacks, None
            if callbacks is not None:
                self.reason = reason
        for callback in callbacks or ():
            callback()

    def add_callback(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Run ``callback`` on cancel (now, if already canceled); return its remover."""
        with self._lock:
            callbacks = self._callbacks
            if callbacks is not None:
                callbacks.append(callback)

        def remove() -> None:
            with self._lock:
                if self._callbacks is not None and callback in self._callbacks:
                    self._callbacks.remove(callback)

        if callbacks is None:
            callback()
        return remove


@dataclass(slots=True)
class ReasoningContext:
    """What a reasoner sees: the query, every step so far, the tools, ids and metadata.

    ``history`` is the session's own list of steps (not a copy, to keep each turn cheap):
    read it, never change it.
    """

    query: str
    history: list[pb.ReactStep]
    tools: ToolRegistry
    session_id: str
    turn_id: int = 0
    metadata: dict[str, str] = field(default_factory=dict)
    #: The ``time.monotonic()`` instant by which the session must end (None: no limit):
    #: a reasoner that waits on I/O bounds every wait by it.
    deadline: float | None = None
    #: Canceled when the session is; a reasoner blocked on I/O aborts on it.
    cancel: CancelToken = field(default_factory=CancelToken)

    def remaining_s(self) -> float | None:
        """Seconds left before ``deadline`` (None: no deadline)."""
        return None if self.deadline is None else self.deadline - time.monotonic()

    def last_observation(self) -> pb.ReactStep | None:
        """The most recent OBSERVATION, if any."""
        for step in reversed(self.history):
            if step.step_type == pb.STEP_TYPE_OBSERVATION:
                return step
        return None


@runtime_checkable
class Reasoner(Protocol):
    """Decides the next step. Implemented by the edge model, the cloud planner, LLM backends."""

    name: str

    def next_steps(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
        """The next steps given the context (see the module docstring for the shapes)."""
        ...


ScriptedReply = str | pb.ReactStep | Sequence[pb.ReactStep] | Callable[[ReasoningContext], str]


class ScriptedReasoner:
    """Replays replies in order: model texts (run through the parser), steps, lists of
    steps, or callables of the context returning a text. When the script runs out it
    returns an ERROR step.

    Example:
        >>> reasoner = ScriptedReasoner([
        ...     'Action: calculator\\nAction Input: {"expression": "2+2"}',
        ...     "Final Answer: 4",
        ... ])
    """

    def __init__(self, replies: Iterable[ScriptedReply], *, name: str = "scripted") -> None:
        self.replies: list[ScriptedReply] = list(replies)
        self.name = name
        self.position = 0
        self.contexts_seen = 0

    def next_steps(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
        """The next scripted reply, as steps (copies: the script is never mutated)."""
        self.contexts_seen += 1
        if self.position >= len(self.replies):
            return [
                pb.ReactStep(step_type=pb.STEP_TYPE_ERROR, content="the script has no more replies")
            ]
        reply = self.replies[self.position]
        self.position += 1
        if callable(reply) and not isinstance(reply, pb.ReactStep):
            reply = reply(ctx)
        if isinstance(reply, str):
            return parse_model_output(reply, ctx.tools).steps
        if isinstance(reply, pb.ReactStep):
            return [_copy(reply)]
        return [_copy(step) for step in reply]


def _copy(step: pb.ReactStep) -> pb.ReactStep:
    clone = pb.ReactStep()
    clone.CopyFrom(step)
    return clone
