"""A session: one query, its turns, its steps, its state machine and its pauses.

``Session.run()`` drives the state machine until the session finishes or pauses::

    idle ─> reasoning ─> (THOUGHT) ACTION ─> acting ─> observing ─> reasoning ─> ...
                      └> FINAL_ANSWER ─> finished
                      └> ACTION needing a human  ─> awaiting_approval    (approve / deny)
                      └> ACTION for the other side ─> awaiting_observation (provide_observation)

Everything it records is a ``pb.ReactStep``; everything it needs to continue elsewhere is
in ``to_json()``. The observation steps it records are built in
:mod:`react_kernel.observations`; its stored format is :mod:`react_kernel.session_format`.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.approval import ApprovalDecision
from react_kernel.errors import SessionError, UnknownActError
from react_kernel.executor import ToolOutcome, canonical_json
from react_kernel.guards import best_effort_answer, jaccard, stop_reason_text
from react_kernel.observations import (
    observation_step,
    observation_tokens,
    outcome_step,
    render_output,
    screen_observation,
)
from react_kernel.reasoner import CancelToken, ReasoningContext
from react_kernel.receipts import build_receipt
from react_kernel.safety import sandbox_arguments, screen_injection
from react_kernel.session_format import SESSION_FORMAT_VERSION, session_from_json, session_to_json
from react_kernel.state import TERMINAL_STATES, State, StateMachine, Transition
from react_kernel.steps import from_struct, new_act_id

if TYPE_CHECKING:
    from react_kernel.loop import AgentLoop

__all__ = ["SESSION_FORMAT_VERSION", "Session"]

_SIDE = {pb.ORIGIN_EDGE: "edge", pb.ORIGIN_CLOUD: "cloud"}
_ORIGIN = {"edge": pb.ORIGIN_EDGE, "cloud": pb.ORIGIN_CLOUD}
_PAUSED = (State.AWAITING_APPROVAL, State.AWAITING_OBSERVATION)
# The encoder json.dumps(value, ensure_ascii=False, default=str) would build on every
# call, built once (the same text).
_ARGS_JSON = json.JSONEncoder(ensure_ascii=False, default=str)


class Session:
    """One query and its follow-up turns, run by an :class:`~react_kernel.AgentLoop`.

    Create it with ``loop.start(query)``; iterate ``session.run()`` for the steps.

    Example:
        >>> session = loop.start("what is 2+2?")  # doctest: +SKIP
        >>> [s.step_type for s in session.run()]  # doctest: +SKIP
        [2, 3, 4]
    """

    def __init__(
        self,
        loop: AgentLoop,
        query: str,
        *,
        session_id: str | None = None,
        trace_id: str | None = None,
    ) -> None:
        self.loop = loop
        self.query = query
        self.queries: list[str] = [query]
        self.session_id = session_id or uuid.uuid4().hex
        self.trace_id = trace_id or uuid.uuid4().hex
        self.turn_id = 0
        self.steps: list[pb.ReactStep] = []
        self.metadata: dict[str, str] = {}
        self.approvals: list[ApprovalDecision] = []
        self.stop_reason: pb.StopReason = pb.STOP_REASON_UNSPECIFIED
        self.receipt: pb.DecisionReceipt | None = None
        self.pending_act_id: str | None = None
        #: A ``time.monotonic()`` instant the host sets (the caller's deadline): reasoners
        #: see it, with the time budget, as ``ReasoningContext.deadline``.
        self.deadline: float | None = None
        self.cancel_token = CancelToken()
        self._sm = StateMachine()
        self._unsent = 0
        self._persisted = 0
        self._tool_calls: dict[str, int] = {}
        self._action_counts: dict[str, int] = {}
        self._denied: set[str] = set()
        self._executed: set[str] = set()
        self._elapsed_s = 0.0
        self._active_since: float | None = None
        self._turn_steps = 0
        self._errors_in_row = 0
        self._last_obs_tokens: frozenset[str] | None = None

    # -- public state --------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The current state."""
        return self._sm.state

    @property
    def transitions(self) -> list[Transition]:
        """Every transition so far (from, to, duration_ms, input_sha256, at)."""
        return self._sm.log

    @property
    def finished(self) -> bool:
        """Whether the session reached a terminal state."""
        return self._sm.state in TERMINAL_STATES

    @property
    def final_answer(self) -> pb.ReactStep | None:
        """The last FINAL_ANSWER, if any."""
        for step in reversed(self.steps):
            if step.step_type == pb.STEP_TYPE_FINAL_ANSWER:
                return step
        return None

    @property
    def tool_calls(self) -> dict[str, int]:
        """Tool calls run in this session, by tool."""
        return dict(self._tool_calls)

    def query_for_turn(self, turn_id: int) -> str:
        """The query that started turn ``turn_id``."""
        return self.queries[turn_id] if 0 <= turn_id < len(self.queries) else self.query

    def pending_action(self) -> pb.ReactStep | None:
        """The ACTION waiting for approval, for the other side, or about to run."""
        return self._find(self.pending_act_id, pb.STEP_TYPE_ACTION) if self.pending_act_id else None

    # -- running -------------------------------------------------------------------------

    def run(self) -> Iterator[pb.ReactStep]:
        """Yield steps as they happen until a FINAL_ANSWER, a failure or a pause.

        Raises :class:`SessionError` when called while the session waits for
        ``approve``/``deny`` or ``provide_observation``; yields nothing more once finished.
        """
        yield from self._drain()
        if self._sm.state in TERMINAL_STATES:
            return
        if self._sm.state in _PAUSED:
            raise SessionError(
                f"session {self.session_id} is {self._sm.state.value} for act "
                f"{self.pending_act_id}: decide or provide the observation first"
            )
        self._active_since = self.loop.clock()
        try:
            if self._sm.state is State.IDLE:
                self._begin()
                yield from self._drain()
            while True:
                state = self._sm.state
                if state is State.REASONING:
                    self._reason()
                elif state is State.ACTING:
                    self._act()
                elif state is State.OBSERVING:
                    self._after_observation()
                else:
                    break
                yield from self._drain()
        finally:
            self._elapsed_s += self.loop.clock() - self._active_since
            self._active_since = None
            self._persist()
        yield from self._drain()

    def run_to_end(self) -> list[pb.ReactStep]:
        """Run and collect the steps (until a final answer or a pause)."""
        return list(self.run())

    def approve(self, act_id: str, reason: str = "") -> None:
        """Approve the pending action; the next ``run()`` runs it exactly once."""
        self._expect_pending(State.AWAITING_APPROVAL, act_id)
        self.approvals.append(ApprovalDecision(act_id, True, reason, _now()))
        self._sm.transition(State.ACTING, f"approve:{act_id}:{reason}")
        self._persist()

    def deny(self, act_id: str, reason: str = "") -> None:
        """Deny the pending action: a REJECTED observation that the reasoner sees next."""
        action = self._expect_pending(State.AWAITING_APPROVAL, act_id)
        self.approvals.append(ApprovalDecision(act_id, False, reason, _now()))
        self._denied.add(_pair(action.tool, from_struct(action.arguments)))
        text = f"denied by the user: {reason}" if reason else "denied by the user"
        obs = observation_step(action, pb.OBSERVATION_STATUS_REJECTED, {}, text)
        obs.metadata["approval"] = "denied"
        self._record(obs)
        self.pending_act_id = None
        self._sm.transition(State.OBSERVING, f"deny:{act_id}:{reason}")
        self._persist()

    def provide_observation(self, step: pb.ReactStep) -> None:
        """Hand in the OBSERVATION of an ACTION that the other side ran."""
        action = self._expect_pending(State.AWAITING_OBSERVATION, step.act_id)
        if step.step_type not in (pb.STEP_TYPE_OBSERVATION, pb.STEP_TYPE_UNSPECIFIED):
            raise SessionError("provide_observation needs an OBSERVATION step")
        obs = pb.ReactStep()
        obs.CopyFrom(step)
        obs.step_type = pb.STEP_TYPE_OBSERVATION
        obs.tool = action.tool
        if not obs.HasField("arguments"):
            obs.arguments.CopyFrom(action.arguments)
        if obs.origin == pb.ORIGIN_UNSPECIFIED:
            obs.origin = action.executor
        if obs.status == pb.OBSERVATION_STATUS_UNSPECIFIED:
            obs.status = pb.OBSERVATION_STATUS_OK
        spec = self.loop.tools.get(action.tool)
        if obs.status == pb.OBSERVATION_STATUS_OK and spec is not None:
            problem = self.loop.executor.check_output(spec, from_struct(obs.observation))
            if problem is not None:
                obs.status = pb.OBSERVATION_STATUS_ERROR
                obs.content = f"error: {problem}"
        if not obs.content:
            obs.content = render_output(from_struct(obs.observation))
        screen_observation(obs, self.loop.safety)
        self._tool_calls[action.tool] = self._tool_calls.get(action.tool, 0) + 1
        self._executed.add(action.act_id)
        self._record(obs, keep_origin=True)
        self.pending_act_id = None
        self._sm.transition(State.OBSERVING, obs.SerializeToString())
        self._persist()

    def cancel(self, reason: str = "") -> None:
        """Cancel the session (no effect once it has ended)."""
        if self._sm.state in TERMINAL_STATES:
            return
        self.cancel_token.cancel(reason)
        step = pb.ReactStep(
            step_type=pb.STEP_TYPE_ERROR,
            content=f"canceled: {reason}" if reason else "canceled",
            stop_reason=pb.STOP_REASON_CANCELED,
        )
        self._record(step)
        self.stop_reason = pb.STOP_REASON_CANCELED
        self.pending_act_id = None
        self._sm.transition(State.CANCELED, f"cancel:{reason}")
        self._persist()

    def follow_up(self, query: str) -> None:
        """Start the next turn of a finished session with a new query; then ``run()``."""
        if self._sm.state is not State.FINISHED:
            raise SessionError("a follow-up needs a finished turn")
        self._sm.transition(State.IDLE, query)
        self.turn_id += 1
        self.query = query
        self.queries.append(query)
        self.stop_reason = pb.STOP_REASON_UNSPECIFIED
        self._turn_steps = 0
        self._elapsed_s = 0.0
        self._errors_in_row = 0
        self._last_obs_tokens = None

    # -- the steps of the loop -----------------------------------------------------------

    def _begin(self) -> None:
        safety = self.loop.safety
        flags = screen_injection(self.query) if safety.screen_input else []
        if flags:
            self.metadata["input_injection_flags"] = ",".join(flags)
            if safety.injection_policy == "refuse":
                answer = "I can't help with that: " + stop_reason_text(pb.STOP_REASON_REFUSED) + "."
                final = pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content=answer)
                final.metadata["input_injection_flags"] = ",".join(flags)
                self._finish(final, pb.STOP_REASON_REFUSED)
                return
        self._sm.transition(State.REASONING, self.query)

    def _reason(self) -> None:
        guards = self.loop.guards
        if self._turn_steps >= guards.max_steps:
            self._stop(pb.STOP_REASON_MAX_STEPS)
            return
        if self._elapsed() > guards.time_budget_s:
            self._stop(pb.STOP_REASON_TIME_BUDGET)
            return
        budget_end = time.monotonic() + guards.time_budget_s - self._elapsed()
        deadline = budget_end if self.deadline is None else min(budget_end, self.deadline)
        ctx = ReasoningContext(
            self.query,
            self.steps,
            self.loop.tools,
            self.session_id,
            self.turn_id,
            self.metadata,
            deadline=deadline,
            cancel=self.cancel_token,
        )
        self._turn_steps += 1
        start = time.perf_counter()
        try:
            produced = self.loop.reasoner.next_steps(ctx)
        except Exception as exc:  # a broken backend ends the session, it does not crash it
            if self._sm.state in TERMINAL_STATES:
                return  # canceled while the reasoner waited: nothing more to record
            failure = pb.ReactStep(
                step_type=pb.STEP_TYPE_ERROR,
                content=f"reasoner {self.loop.reasoner.name!r} failed: {type(exc).__name__}: {exc}",
                stop_reason=pb.STOP_REASON_ERROR,
            )
            self._record(failure)
            self.stop_reason = pb.STOP_REASON_ERROR
            self._sm.transition(State.FAILED, failure.SerializeToString())
            return
        if self._sm.state in TERMINAL_STATES:
            return  # canceled while the reasoner worked: its steps come too late
        latency = (time.perf_counter() - start) * 1000.0
        if not produced or not all(isinstance(step, pb.ReactStep) for step in produced):
            what = "no step" if not produced else "something other than ReactSteps"
            produced = [
                pb.ReactStep(step_type=pb.STEP_TYPE_ERROR, content=f"the reasoner returned {what}")
            ]
        decisive = produced[-1]
        for step in produced[:-1]:
            if step.step_type == pb.STEP_TYPE_THOUGHT:
                step.latency_ms = latency
                self._record(step, model=True)
        decisive.latency_ms = latency
        kind = decisive.step_type
        if kind == pb.STEP_TYPE_ACTION:
            self._errors_in_row = 0
            self._on_action(decisive)
        elif kind == pb.STEP_TYPE_FINAL_ANSWER:
            self._finish(decisive, pb.STOP_REASON_FINAL_ANSWER, model=True)
        else:
            if kind == pb.STEP_TYPE_THOUGHT:
                self._record(decisive, model=True)
                decisive = pb.ReactStep(
                    step_type=pb.STEP_TYPE_ERROR,
                    content="The reply has a Thought but no Action and no Final Answer.",
                )
            elif kind != pb.STEP_TYPE_ERROR:
                decisive = pb.ReactStep(
                    step_type=pb.STEP_TYPE_ERROR,
                    content=f"a reasoner may not produce {pb.StepType.Name(kind)} steps",
                )
            self._error(decisive)

    def _error(self, step: pb.ReactStep) -> None:
        self._record(step, model=True)
        self._errors_in_row += 1
        if self._errors_in_row >= self.loop.guards.max_consecutive_errors:
            self._stop(pb.STOP_REASON_ERROR)
        else:
            self._sm.transition(State.REASONING, step.SerializeToString())

    def _on_action(self, step: pb.ReactStep) -> None:
        loop = self.loop
        name = loop.tools.match(step.tool)
        spec = loop.tools.get(name) if name else None
        if spec is None:
            available = ", ".join(loop.tools.names()) or "(none)"
            self._error(
                pb.ReactStep(
                    step_type=pb.STEP_TYPE_ERROR,
                    content=f"Unknown tool {step.tool!r}. Available tools: {available}.",
                    metadata={"parse_error": "unknown_tool"},
                )
            )
            return
        raw_args = from_struct(step.arguments)
        args, cut = sandbox_arguments(raw_args, spec.input_schema, loop.safety.max_string)
        if args != raw_args or step.tool != spec.name:
            step.tool = spec.name
            step.arguments.Clear()
            step.arguments.update(json.loads(json.dumps(args, default=str)))
            step.content = f"{spec.name}({_ARGS_JSON.encode(args)})"
            if cut:
                step.metadata["args_truncated"] = ",".join(cut)
        elif not step.content:
            step.content = f"{spec.name}({_ARGS_JSON.encode(args)})"
        pair = _pair(spec.name, args)
        seen = self._action_counts.get(pair, 0)
        if seen >= loop.guards.max_repeats:
            reason = (
                pb.STOP_REASON_DENIED if pair in self._denied else pb.STOP_REASON_REPEATED_ACTION
            )
            self._stop(reason, note=f"{spec.name} {canonical_json(args)}")
            return
        if sum(self._tool_calls.values()) >= loop.guards.max_tool_calls:
            self._stop(pb.STOP_REASON_MAX_STEPS, note="tool call budget")
            return
        self._action_counts[pair] = seen + 1
        if not step.act_id:
            step.act_id = new_act_id()
        step.executor = _ORIGIN[spec.executor]
        key = loop.executor.idempotency_key(spec, self.session_id, args)
        if key:
            step.idempotency_key = key
        needs_approval = loop.approval_policy(spec, args)
        step.requires_approval = needs_approval
        self._record(step, model=True)
        if spec.max_calls is not None and self._tool_calls.get(spec.name, 0) >= spec.max_calls:
            limit = f"tool {spec.name!r} reached its limit of {spec.max_calls} calls per session"
            self._record(observation_step(step, pb.OBSERVATION_STATUS_REJECTED, {}, limit))
            self._sm.transition(State.OBSERVING, step.SerializeToString())
            return
        self.pending_act_id = step.act_id
        if spec.executor != loop.side:
            self._sm.transition(State.AWAITING_OBSERVATION, step.SerializeToString())
            self._persist()
            return
        if needs_approval:
            request = pb.ReactStep(
                step_type=pb.STEP_TYPE_APPROVAL_REQUEST,
                act_id=step.act_id,
                tool=spec.name,
                content=f"Approve {spec.name} with {canonical_json(args)}?",
                requires_approval=True,
                executor=step.executor,
                idempotency_key=step.idempotency_key,
            )
            request.arguments.CopyFrom(step.arguments)
            self._record(request)
            self._sm.transition(State.AWAITING_APPROVAL, request.SerializeToString())
            self._persist()
            return
        self._sm.transition(State.ACTING, step.SerializeToString())

    def _act(self) -> None:
        action = self.pending_action()
        if action is None:
            raise SessionError("acting without a pending action")
        act_id = action.act_id
        if act_id in self._executed:
            # Exactly once: a resume must never run an action a second time.
            self.pending_act_id = None
            self._sm.transition(State.OBSERVING, f"already-executed:{act_id}")
            return
        spec = self.loop.tools.get(action.tool)
        if spec is None:
            # Resumed by a loop that lacks the tool: say so instead of crashing.
            missing = f"error: tool {action.tool!r} is not available on this side"
            obs = observation_step(action, pb.OBSERVATION_STATUS_ERROR, {}, missing)
            self._executed.add(act_id)
            self._record(obs)
            self.pending_act_id = None
            self._sm.transition(State.OBSERVING, obs.SerializeToString())
            return
        args = from_struct(action.arguments)
        self._tool_calls[spec.name] = self._tool_calls.get(spec.name, 0) + 1
        outcome = self.loop.executor.call(spec, args, session_id=self.session_id)
        self._executed.add(act_id)
        obs = self._outcome_step(action, outcome)
        if any(d.act_id == act_id and d.approved for d in self.approvals):
            obs.metadata["approval"] = "approved"
        self._record(obs)
        self.pending_act_id = None
        self._sm.transition(State.OBSERVING, obs.SerializeToString())

    def _after_observation(self) -> None:
        last = self.steps[-1] if self.steps else None
        if last is not None and last.step_type == pb.STEP_TYPE_OBSERVATION:
            current = observation_tokens(last)
            previous = self._last_obs_tokens
            self._last_obs_tokens = current
            if previous is not None and jaccard(previous, current) > self.loop.guards.stall_jaccard:
                self._stop(pb.STOP_REASON_STALLED)
                return
        if self._elapsed() > self.loop.guards.time_budget_s:
            self._stop(pb.STOP_REASON_TIME_BUDGET)
            return
        self._sm.transition(State.REASONING, last.SerializeToString() if last else b"")

    def _stop(self, reason: pb.StopReason, note: str = "") -> None:
        answer = best_effort_answer(self.query, self._turn(), reason)
        final = pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content=answer)
        final.metadata["best_effort"] = "true"
        if note:
            final.metadata["stop_detail"] = note
        self._finish(final, reason)

    def _finish(self, final: pb.ReactStep, reason: pb.StopReason, *, model: bool = False) -> None:
        final.stop_reason = reason
        if "input_injection_flags" in self.metadata:
            final.metadata["input_injection_flags"] = self.metadata["input_injection_flags"]
        self._fill(final, model=model)
        receipt = build_receipt(self.session_id, self.query, self._turn(), final)
        final.receipt_id = receipt.receipt_id
        self.receipt = receipt
        self.stop_reason = reason
        self._append(final)
        self._sm.transition(State.FINISHED, final.SerializeToString())

    # -- step bookkeeping ----------------------------------------------------------------

    def _outcome_step(self, action: pb.ReactStep, outcome: ToolOutcome) -> pb.ReactStep:
        return outcome_step(action, outcome, self.loop.safety, self.loop.redactor)

    def _fill(self, step: pb.ReactStep, *, model: bool = False, keep_origin: bool = False) -> None:
        step.session_id = self.session_id
        step.turn_id = self.turn_id
        step.step_index = len(self.steps)
        step.trace_id = self.trace_id
        if not keep_origin or step.origin == pb.ORIGIN_UNSPECIFIED:
            step.origin = self.loop.origin
        if not step.HasField("created_at"):
            now = time.time_ns()
            stamp = step.created_at
            stamp.seconds, stamp.nanos = divmod(now, 1_000_000_000)
        if model and not step.model:
            step.model = self.loop.reasoner.name

    def _append(self, step: pb.ReactStep) -> None:
        self.steps.append(step)
        self._unsent += 1

    def _record(
        self, step: pb.ReactStep, *, model: bool = False, keep_origin: bool = False
    ) -> None:
        self._fill(step, model=model, keep_origin=keep_origin)
        self._append(step)

    def _drain(self) -> Iterator[pb.ReactStep]:
        while self._unsent:
            step = self.steps[len(self.steps) - self._unsent]
            self._unsent -= 1
            yield step

    def _find(self, act_id: str | None, kind: int) -> pb.ReactStep | None:
        for step in reversed(self.steps):
            if step.act_id == act_id and step.step_type == kind:
                return step
        return None

    def _turn(self) -> list[pb.ReactStep]:
        turn = self.turn_id
        if not self.steps or self.steps[0].turn_id == turn:
            return self.steps
        return [s for s in self.steps if s.turn_id == turn]

    def _expect_pending(self, state: State, act_id: str) -> pb.ReactStep:
        if self._sm.state is not state:
            raise SessionError(
                f"session {self.session_id} is {self._sm.state.value}, not {state.value}"
            )
        if not act_id or act_id != self.pending_act_id:
            raise UnknownActError(f"no pending action with act id {act_id!r}")
        action = self.pending_action()
        if action is None:
            raise UnknownActError(f"no pending action with act id {act_id!r}")
        return action

    def _elapsed(self) -> float:
        since = self._active_since
        return self._elapsed_s + (self.loop.clock() - since if since is not None else 0.0)

    # -- serialisation (the format: react_kernel.session_format) -------------------------

    def to_json(self) -> str:
        """The whole session as JSON text: resume it with :meth:`from_json`, anywhere."""
        return session_to_json(self)

    @classmethod
    def from_json(cls, text: str, loop: AgentLoop) -> Session:
        """Restore a session saved with :meth:`to_json` (in this or another process)."""
        return session_from_json(cls, text, loop)

    def _persist(self) -> None:
        store = self.loop.session_store
        if store is None:
            return
        new = self.steps[self._persisted :]
        if new:
            store.append_steps(self.session_id, new)
            self._persisted = len(self.steps)
        store.save_session(self.session_id, self.to_json())


def _pair(tool: str, args: dict[str, Any]) -> str:
    return tool + "\x00" + canonical_json(args)


def _now() -> str:
    return datetime.now(UTC).isoformat()
