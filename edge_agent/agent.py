"""The edge agent: the kernel's loop with the router as its reasoner, and the cloud hand-off.

``EdgeAgent.ask(query)`` streams ReactSteps as they happen. For a query the router keeps
on the device, the kernel loop runs it: THOUGHT (the decision and its confidence),
ACTION, OBSERVATION (schema- and rule-checked by the kernel), FINAL_ANSWER in a plain
sentence; unlocking a door pauses for a human's approval. For a query the router sends
to the cloud, the THOUGHT says so and the cloud link streams the cloud's steps, running
the device tools the cloud asks for here. With no cloud configured, or none reachable,
the query is kept as pending in memory and the answer says so plainly.

Example:
    >>> agent = EdgeAgent(MemoryStore(":memory:"), Router.load())   # doctest: +SKIP
    >>> [step.content for step in agent.ask("what's 2 + 2")][-1]     # doctest: +SKIP
    '2 + 2 = 4.'
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from google.protobuf.timestamp_pb2 import Timestamp

from edge_agent.answers import failure_answer, offline_answer, smalltalk_answer, tool_answer
from edge_agent.errors import QueryError
from edge_agent.router import RouteDecision, Router
from edge_agent.settings import keep_history, load_settings
from edge_agent.tools import builtin_tools, requires_approval
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import AgentLoop, ReasoningContext, Session, ToolSpec
from react_kernel.executor import canonical_json
from react_kernel.steps import from_struct, new_act_id, to_struct

if TYPE_CHECKING:
    from sync.store import MemoryStore

MODEL_NAME = "edge-router"
TOP_INTENTS = 3  # intents (with their scores) a routing THOUGHT records
#: How long a cloud session's device action waits for the person's decision; the cloud
#: waits 30 s for the device's observation (``device_tool_timeout_s``), so less than that.
APPROVAL_TIMEOUT_S = 25.0
#: Cloud refusals that another try may get past: the query is kept pending.
TRANSIENT_CODES = frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"})
#: Longer queries are refused on the device (memory keeps texts up to 100,000 characters).
MAX_QUERY_CHARS = 32_000


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
    ) -> Iterator[pb.ReactStep]: ...


def decision_thought(decision: RouteDecision) -> pb.ReactStep:
    """The THOUGHT that records a routing decision (content for people, metadata for code)."""
    where = f"use {decision.tool}" if decision.tool else "answer directly"
    if decision.route == "cloud":
        where = "hand this to the cloud"
    content = f"Route {decision.route} ({decision.confidence:.2f}): {where}; {decision.reason}."
    step = pb.ReactStep(step_type=pb.STEP_TYPE_THOUGHT, content=content, model=MODEL_NAME)
    step.metadata["route"] = decision.route
    step.metadata["confidence"] = f"{decision.confidence:.4f}"
    step.metadata["reason"] = decision.reason
    step.metadata["intent"] = decision.intent
    if decision.tool:
        step.metadata["tool"] = decision.tool
    if decision.scores:  # the runners-up too: why this intent, and how close the others were
        top = sorted(decision.scores.items(), key=lambda kv: -kv[1])[:TOP_INTENTS]
        step.metadata["intents"] = json.dumps({k: round(v, 4) for k, v in top})
    if len(decision.calls) > 1:  # a compound request the device runs call by call
        calls = [{"tool": c.tool, "arguments": c.arguments} for c in decision.calls]
        step.metadata["calls"] = json.dumps(calls, sort_keys=True, default=str)
    return step


class RouterReasoner:
    """The kernel Reasoner of the device: one routing decision, then one answer.

    The agent decides before it starts the loop (a cloud query never enters it) and
    primes the reasoner with that decision, so a query is classified once.
    """

    name = MODEL_NAME

    def __init__(self, router: Router) -> None:
        self.router = router
        self._primed: dict[str, RouteDecision] = {}
        self._plans: dict[str, RouteDecision] = {}  # compound requests still running

    def prime(self, session_id: str, decision: RouteDecision) -> None:
        """Use ``decision`` for the next turn of ``session_id``."""
        self._primed[session_id] = decision

    def next_steps(self, ctx: ReasoningContext) -> list[pb.ReactStep]:
        """[THOUGHT, ACTION] first; after the observation, [FINAL_ANSWER]."""
        turn = [s for s in ctx.history if s.turn_id == ctx.turn_id]
        observation = next(
            (s for s in reversed(turn) if s.step_type == pb.STEP_TYPE_OBSERVATION), None
        )
        if observation is not None:
            home = self.router.home
            units = home.units if home else "metric"
            plan = self._plans.get(ctx.session_id)
            if plan is None:
                return [self._answer(turn, observation, units, ctx.query)]
            done = sum(1 for s in turn if s.step_type == pb.STEP_TYPE_ACTION)
            if done < len(plan.calls) and observation.status == pb.OBSERVATION_STATUS_OK:
                call = plan.calls[done]
                return [_action(call.tool, call.arguments)]
            del self._plans[ctx.session_id]
            return [self._answer_all(turn, units)]
        decision = self._primed.pop(ctx.session_id, None) or self.router.decide(ctx.query)
        thought = decision_thought(decision)
        if decision.route != "edge":
            final = pb.ReactStep(
                step_type=pb.STEP_TYPE_FINAL_ANSWER,
                content="That needs the cloud, which this loop cannot reach.",
                model=MODEL_NAME,
            )
            return [thought, final]
        if decision.tool is None:
            final = pb.ReactStep(
                step_type=pb.STEP_TYPE_FINAL_ANSWER,
                content=smalltalk_answer(ctx.query),
                model=MODEL_NAME,
            )
            return [thought, final]
        if len(decision.calls) > 1:
            self._plans[ctx.session_id] = decision
        return [thought, _action(decision.tool, decision.arguments or {})]

    @classmethod
    def _answer_all(cls, turn: list[pb.ReactStep], units: str = "metric") -> pb.ReactStep:
        """One answer for the observations of a compound request, in order."""
        parts = [
            cls._answer(turn, s, units).content
            for s in turn
            if s.step_type == pb.STEP_TYPE_OBSERVATION
        ]
        return pb.ReactStep(
            step_type=pb.STEP_TYPE_FINAL_ANSWER, content=" ".join(parts), model=MODEL_NAME
        )

    @staticmethod
    def _answer(
        turn: list[pb.ReactStep],
        observation: pb.ReactStep,
        units: str = "metric",
        query: str = "",
    ) -> pb.ReactStep:
        action = next(
            (
                s
                for s in turn
                if s.step_type == pb.STEP_TYPE_ACTION and s.act_id == observation.act_id
            ),
            None,
        )
        tool = observation.tool or (action.tool if action else "")
        args = from_struct(action.arguments) if action is not None else {}
        if observation.status == pb.OBSERVATION_STATUS_OK:
            output = from_struct(observation.observation) or from_struct(observation.arguments)
            try:
                content = tool_answer(tool, args, output, units, query)
            except (KeyError, TypeError, ValueError):
                content = observation.content
        else:
            content = failure_answer(tool, observation.content, args)
        return pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content=content, model=MODEL_NAME)


def _action(tool: str, arguments: dict[str, Any]) -> pb.ReactStep:
    return pb.ReactStep(
        step_type=pb.STEP_TYPE_ACTION, tool=tool, arguments=to_struct(arguments), model=MODEL_NAME
    )


def _approval_policy(spec: ToolSpec, args: dict[str, Any]) -> bool:
    return spec.needs_approval or requires_approval(spec.name, args)


class _Decision:
    """A person's answer to a cloud session's device action, awaited by the cloud link."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.approved = False
        self.reason = ""

    def decide(self, approved: bool, reason: str) -> None:
        self.approved, self.reason = approved, reason
        self.event.set()


def _code_name(error: Exception) -> str:
    code = getattr(error, "code", None)
    return str(getattr(code, "name", "UNKNOWN"))


class EdgeAgent:
    """Runs queries on the device, or through the cloud, and keeps everything in memory.

    Args:
        memory: the device's ``sync.store.MemoryStore`` (notes, timers, device state,
            sessions, steps, receipts, idempotency keys, pending cloud queries).
        router: the loaded :class:`~edge_agent.router.Router`; the tools registered on it
            (``Router.load(dir, tools=[...])``) run here beside the built-in ones.
        cloud: a ``CloudLink`` (or anything with its ``run``); None means offline.
        now: UTC clock for the world clock tool (tests pass a fixed one).
    """

    def __init__(
        self,
        memory: MemoryStore,
        router: Router,
        cloud: CloudRunner | None = None,
        *,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self.memory = memory
        self.router = router
        self.cloud = cloud
        self._now = now or (lambda: datetime.now(UTC))
        self.tools = builtin_tools(memory, now=now)
        for spec in router.tools.values():  # the user's own tools, for their intents
            self.tools.register(spec)
        self.reasoner = RouterReasoner(router)
        self.approval_timeout_s = APPROVAL_TIMEOUT_S
        # (session id, act id) -> decision, for device actions the cloud asked for.
        self._decisions: dict[tuple[str, str], _Decision] = {}
        self._decisions_lock = threading.Lock()
        self.loop = AgentLoop(
            self.reasoner,
            self.tools,
            idempotency=memory,
            approval_policy=_approval_policy,
            origin=pb.ORIGIN_EDGE,
            session_store=memory,
        )

    # -- asking ----------------------------------------------------------------------------

    def ask(self, query: str, session_id: str | None = None) -> Iterator[pb.ReactStep]:
        """Stream the steps of one query until its FINAL_ANSWER (or an approval request)."""
        text = " ".join(query.split())
        if not text:
            raise QueryError("the query is empty")
        if len(text) > MAX_QUERY_CHARS:
            raise QueryError(f"the query is {len(text)} characters; the limit is {MAX_QUERY_CHARS}")
        if "\x00" in text:
            raise QueryError("the query contains a NUL character")
        home = load_settings(self.memory)  # set here or synced from elsewhere
        self.router.home = home
        keep_history(self.memory, home)
        decision = self.router.decide(text)
        if self.cloud is not None and (stale := self._stale_forecast(decision)) is not None:
            # No fresh forecast kept here: the cloud's provider answers (and the device
            # keeps the week); unreachable, the device answers from what it has.
            # The cloud gets the forecast asked in full words: the city may be the home's.
            args = decision.arguments or {}
            day = str(args.get("day") or "today")
            from edge_agent.forecast import SPAN_WORDS

            when = day if day in ("today", "tomorrow") else SPAN_WORDS.get(day, f"on {day}")
            asked = f"what's the weather in {args.get('city')} {when}"
            yield from self._cloud(asked, stale, session_id or uuid.uuid4().hex, decision)
        elif decision.route == "edge":
            session = self.loop.start(text, session_id=session_id)
            self.reasoner.prime(session.session_id, decision)
            yield from self._run(session)
        else:
            yield from self._cloud(text, decision, session_id or uuid.uuid4().hex)

    def _stale_forecast(self, decision: RouteDecision) -> RouteDecision | None:
        """For a weather decision with no fresh forecast in the cache, the decision to ask
        the cloud instead; None otherwise."""
        from edge_agent.forecast import needs_fetch

        if decision.route != "edge" or decision.tool != "get_weather":
            return None
        if not needs_fetch(self.memory, decision.arguments or {}, self._now()):
            return None
        city = (decision.arguments or {}).get("city")
        return RouteDecision(
            "cloud",
            None,
            None,
            decision.confidence,
            f"no fresh forecast for {city} on the device",
            decision.intent,
        )

    def approve(
        self, session_id: str, act_id: str, approved: bool, reason: str = ""
    ) -> list[pb.ReactStep]:
        """Approve or deny a paused action and return the steps that follow.

        For a device action of a cloud session (the request's ``metadata["via"]`` is
        ``cloud``) the decision goes to the stream that raised it, which goes on with the
        cloud's session; nothing is returned here.
        """
        with self._decisions_lock:
            decision = self._decisions.get((session_id, act_id))
        if decision is not None:
            decision.decide(approved, reason or ("approved" if approved else "denied"))
            return []
        session = self.loop.resume(session_id)
        if approved:
            session.approve(act_id, reason)
        else:
            session.deny(act_id, reason or "denied by the user")
        return list(self._run(session))

    def awaiting_cloud_approval(self, session_id: str, act_id: str) -> bool:
        """True while a cloud session's device action waits for this decision."""
        with self._decisions_lock:
            return (session_id, act_id) in self._decisions

    def _run(self, session: Session) -> Iterator[pb.ReactStep]:
        # The kernel persists the session and its steps as it goes; the summary and the
        # receipt follow in one transaction (each commit costs a few ms on a device).
        yield from session.run()
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

    # -- the cloud -------------------------------------------------------------------------

    def _cloud(
        self,
        query: str,
        decision: RouteDecision,
        session_id: str,
        fallback: RouteDecision | None = None,
    ) -> Iterator[pb.ReactStep]:
        trace_id = uuid.uuid4().hex
        stamp = _Stamper(session_id, trace_id)
        steps: list[pb.ReactStep] = []

        def emit(step: pb.ReactStep, *, local: bool = True) -> pb.ReactStep:
            stamp(step, local=local)
            steps.append(step)
            return step

        yield emit(decision_thought(decision))
        final: pb.ReactStep | None = None
        retry_after: float | None = None
        if self.cloud is not None:
            from edge_agent.errors import CloudRequestError, CloudUnavailableError

            try:
                for step in self.cloud.run(
                    query,
                    session_id=session_id,
                    trace_id=trace_id,
                    history=list(steps),
                    # Side effects are keyed on this session id: a pending query keeps it.
                    run_device_tool=lambda action: self.run_device_tool(action, session_id),
                ):
                    yield emit(step, local=False)
                    self._keep_forecast(step)
                    if step.step_type == pb.STEP_TYPE_FINAL_ANSWER:
                        final = step
            except CloudUnavailableError:
                final = None
            except CloudRequestError as error:
                if _code_name(error) not in TRANSIENT_CODES and fallback is None:
                    self._record_refusal(session_id, query, steps, error)
                    raise
                retry_after = error.retry_after_s
            finally:
                self._forget_decisions(session_id)
        if final is None and fallback is not None:
            # The cloud was only asked for a fresher forecast: the device answers itself.
            self.memory.save_steps(session_id, steps)
            session = self.loop.start(query)
            self.reasoner.prime(session.session_id, fallback)
            yield from self._run(session)
            return
        if final is None:
            pending_id = self.memory.add_pending(query, session_id)
            answer = pb.ReactStep(
                step_type=pb.STEP_TYPE_FINAL_ANSWER,
                content=offline_answer(pending_id, retry_after),
                model=MODEL_NAME,
                stop_reason=pb.STOP_REASON_ERROR,
            )
            if retry_after is not None:
                answer.metadata["retry_after_ms"] = str(round(retry_after * 1000))
            answer.metadata["pending_id"] = pending_id
            answer.metadata["offline"] = "true"
            final = emit(answer)
            yield final
        receipt = getattr(self.cloud, "last_receipt", None)  # CloudLink keeps the last one
        with self.memory.batch():
            self.memory.save_steps(session_id, steps)
            if receipt is not None and receipt.receipt_id == final.receipt_id:
                self.memory.save_receipt(receipt)  # the cloud's receipt, kept on the device
            self.memory.record_session(
                session_id,
                query=query,
                final_answer=final.content,
                success=final.metadata.get("offline") != "true",
                state="completed",
            )

    def _keep_forecast(self, step: pb.ReactStep) -> None:
        """Keep the week a cloud forecast observation carries in the forecast cache."""
        if (
            step.step_type == pb.STEP_TYPE_OBSERVATION
            and step.tool == "get_weather"
            and step.status == pb.OBSERVATION_STATUS_OK
        ):
            from edge_agent.forecast import remember_observation

            remember_observation(self.memory, from_struct(step.observation))

    def _record_refusal(
        self, session_id: str, query: str, steps: list[pb.ReactStep], error: Exception
    ) -> None:
        """Keep a refused cloud query's steps and its failed session (not pending: the
        same request would be refused again)."""
        with self.memory.batch():
            self.memory.save_steps(session_id, steps)
            self.memory.record_session(
                session_id,
                query=query,
                final_answer=f"The cloud refused this query: {error}",
                success=False,
                state="failed",
            )

    def _forget_decisions(self, session_id: str) -> None:
        with self._decisions_lock:
            for key in [k for k in self._decisions if k[0] == session_id]:
                del self._decisions[key]

    def own_pending(self) -> list[dict[str, Any]]:
        """The pending queries this device kept. Another device of the same user may have
        synced its own here: that device answers them (both would run their side effects)."""
        own = self.memory.node_id
        return [p for p in self.memory.pending() if p.get("node", own) == own]

    def resolve_pending(
        self, approve: Callable[[pb.ReactStep], bool] | None = None
    ) -> list[tuple[dict[str, Any], list[pb.ReactStep]]]:
        """On reconnect: ask the cloud each pending query again and record its answer.

        Each answered query gets a session of its own (linked by ``metadata.pending_id``)
        and is marked resolved in memory, so the next sync carries query and answer to the
        cloud's copy too. Its device actions keep the idempotency keys of the first try
        (keyed on the pending query's original session id), so a note the device already
        wrote before the cloud went away is not written twice. A query the cloud refuses
        for good (INVALID_ARGUMENT: too long, bad text) is resolved with that refusal; a
        transient failure stops here, that query and the rest stay pending; UNAUTHENTICATED
        and PERMISSION_DENIED raise ``CloudRequestError`` (nothing changes). ``approve``
        answers device actions that need a person's yes (None: denied). Returns the
        resolved pending records with their steps.
        """
        if self.cloud is None:
            return []
        from edge_agent.errors import CloudRequestError, CloudUnavailableError

        resolved: list[tuple[dict[str, Any], list[pb.ReactStep]]] = []
        for pending in self.own_pending():
            session_id, trace_id = uuid.uuid4().hex, uuid.uuid4().hex
            scope = pending["session_id"] or pending["pending_id"]
            stamp = _Stamper(session_id, trace_id)
            steps: list[pb.ReactStep] = []

            def run_tool(
                action: pb.ReactStep, sid: str = session_id, key: str = scope
            ) -> pb.ReactStep:
                return self.run_device_tool(action, sid, idempotency_scope=key)

            try:
                for step in self.cloud.run(
                    pending["query"],
                    session_id=session_id,
                    trace_id=trace_id,
                    history=[],
                    run_device_tool=run_tool,
                ):
                    stamp(step, local=False)
                    step.metadata["pending_id"] = pending["pending_id"]
                    steps.append(step)
                    if step.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
                        approved = approve(step) if approve is not None else False
                        self.approve(step.session_id, step.act_id, approved)
            except CloudUnavailableError:
                break
            except CloudRequestError as error:
                if _code_name(error) in TRANSIENT_CODES:
                    break
                if _code_name(error) != "INVALID_ARGUMENT":
                    raise
                steps.append(self._refusal_step(session_id, trace_id, error))
            finally:
                self._forget_decisions(session_id)
            final = next(
                (s for s in reversed(steps) if s.step_type == pb.STEP_TYPE_FINAL_ANSWER), None
            )
            if final is None:
                break
            receipt = getattr(self.cloud, "last_receipt", None)
            with self.memory.batch():
                self.memory.save_steps(session_id, steps)
                if receipt is not None and receipt.receipt_id == final.receipt_id:
                    self.memory.save_receipt(receipt)
                self.memory.record_session(
                    session_id,
                    query=pending["query"],
                    final_answer=final.content,
                    success=final.stop_reason != pb.STOP_REASON_REFUSED,
                    state="completed",
                )
                self.memory.resolve_pending(pending["pending_id"], final.content)
            resolved.append((pending, steps))
        return resolved

    @staticmethod
    def _refusal_step(session_id: str, trace_id: str, error: Exception) -> pb.ReactStep:
        step = pb.ReactStep(
            step_type=pb.STEP_TYPE_FINAL_ANSWER,
            content=f"The cloud cannot answer this query: {error}",
            model=MODEL_NAME,
            stop_reason=pb.STOP_REASON_REFUSED,
            session_id=session_id,
            trace_id=trace_id,
            origin=pb.ORIGIN_EDGE,
        )
        step.created_at.GetCurrentTime()
        return step

    def run_device_tool(
        self, action: pb.ReactStep, session_id: str = "", *, idempotency_scope: str = ""
    ) -> pb.ReactStep:
        """Run a device ACTION the cloud asked for, through the kernel's checked executor.

        Side effects are keyed on ``idempotency_scope`` (default: the session id), so a
        query asked again keeps the keys of its first try. An action that needs the
        user's approval first returns an APPROVAL_REQUEST (``metadata["via"] = "cloud"``);
        the cloud link yields it and calls again, and that second call waits (at most
        ``approval_timeout_s``) for :meth:`approve` before it runs or refuses the action.
        """
        spec = self.tools.get(action.tool)
        observation = pb.ReactStep(
            step_type=pb.STEP_TYPE_OBSERVATION,
            act_id=action.act_id,
            tool=action.tool,
            origin=pb.ORIGIN_EDGE,
            session_id=action.session_id or session_id,
            trace_id=action.trace_id,
        )
        if spec is None:
            observation.status = pb.OBSERVATION_STATUS_ERROR
            observation.content = f"unknown device tool {action.tool!r}"
            return observation
        args = from_struct(action.arguments)
        if _approval_policy(spec, args):
            refusal = self._await_approval(action, spec, args, observation)
            if refusal is not None:
                return refusal
        outcome = self.loop.executor.call(
            spec, args, session_id=idempotency_scope or observation.session_id
        )
        observation.status = outcome.status
        if outcome.status == pb.OBSERVATION_STATUS_OK:
            observation.observation.CopyFrom(to_struct(outcome.output))
            observation.content = str(outcome.output)
        else:
            observation.content = f"error: {outcome.error}"
        observation.latency_ms = outcome.latency_ms
        return observation

    def _await_approval(
        self,
        action: pb.ReactStep,
        spec: ToolSpec,
        args: dict[str, Any],
        observation: pb.ReactStep,
    ) -> pb.ReactStep | None:
        """None when the person approved; else the step to return instead of running."""
        key = (observation.session_id, action.act_id)
        with self._decisions_lock:
            decision = self._decisions.get(key)
            if decision is None:
                self._decisions[key] = _Decision()
        if decision is None:  # first call: ask the person
            request = pb.ReactStep(
                step_type=pb.STEP_TYPE_APPROVAL_REQUEST,
                session_id=observation.session_id,
                act_id=action.act_id,
                tool=spec.name,
                content=f"Approve {spec.name} with {canonical_json(args)}?",
                requires_approval=True,
                executor=pb.ORIGIN_EDGE,
                origin=pb.ORIGIN_EDGE,
                trace_id=action.trace_id,
            )
            request.arguments.CopyFrom(action.arguments)
            request.metadata["via"] = "cloud"
            return request
        decided = decision.event.wait(self.approval_timeout_s)
        with self._decisions_lock:
            self._decisions.pop(key, None)
        if decided and decision.approved:
            return None
        observation.status = pb.OBSERVATION_STATUS_REJECTED
        why = decision.reason if decided else "no one approved it in time"
        observation.content = f"{spec.name} was not approved on the device: {why}"
        return observation

    # -- reading back ----------------------------------------------------------------------

    def session_steps(self, session_id: str) -> list[pb.ReactStep]:
        """The stored steps of a session, in order."""
        return self.memory.steps(session_id)


class _Stamper:
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
