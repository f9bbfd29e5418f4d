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
import math
import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from google.protobuf.timestamp_pb2 import Timestamp

from edge_agent.errors import QueryError
from edge_agent.followups import AskBack, Context, rewrite
from edgeloop.limits import MAX_QUERY_CHARS as LIMIT
from edgeloop.limits import has_words
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import AgentLoop, ReasoningContext, Session, ToolSpec
from react_kernel.executor import canonical_json
from react_kernel.observations import render_output
from react_kernel.steps import from_struct, new_act_id, to_struct
from understanding.answers import failure_answer, offline_answer, smalltalk_answer, tool_answer
from understanding.router import RouteDecision, Router
from understanding.settings import keep_history, load_settings
from understanding.tools import TOOL_NAMES, builtin_tools, requires_approval

if TYPE_CHECKING:
    from edge_agent.device_events import EventHub
    from edge_agent.ringer import TimerRinger
    from sync.store import MemoryStore

MODEL_NAME = "edge-router"
TOP_INTENTS = 3  # intents (with their scores) a routing THOUGHT records
#: How long a cloud session's device action waits for the person's decision; the cloud
#: waits 30 s for the device's observation (``device_tool_timeout_s``), so less than that.
APPROVAL_TIMEOUT_S = 25.0
#: Cloud refusals that another try may get past: the query is kept pending.
TRANSIENT_CODES = frozenset({"UNAVAILABLE", "RESOURCE_EXHAUSTED", "DEADLINE_EXCEEDED"})
#: A side effect in a pending query answered later than this is confirmed first.
LATE_CONFIRM_S = 180.0
#: Longer queries are refused on the device, at the cloud's own limit (one constant).
MAX_QUERY_CHARS = LIMIT
#: Steps that end a turn: the answer, or a question back to the person.
_ENDS_TURN = frozenset({pb.STEP_TYPE_FINAL_ANSWER, pb.STEP_TYPE_CLARIFICATION})
#: The decision recorded for a turn that answers the cloud's question.
_CLOUD_ANSWER = RouteDecision("cloud", None, None, 1.0, "the answer to the cloud's question")
_BUILTIN = frozenset(TOOL_NAMES)
#: The prefix of a question asked again.
_AGAIN = "Sorry, I didn't get that. "


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
        router: the loaded :class:`~understanding.router.Router`; the tools registered on it
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
        #: Where approvals waiting and pending answers are announced (a runtime sets it).
        self.events: EventHub | None = None
        #: The conversation's last list, device, city and timer, for follow-ups.
        self.context = Context()
        self._followup_of = ""  # the words of the query being run, when rewritten
        #: The timer ringer of the runtime this agent runs in (stop/snooze by voice).
        self.ringer: TimerRinger | None = None
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
        for step in self._ask(query, session_id):
            self._announce(step)
            yield step

    def _announce(self, step: pb.ReactStep) -> None:
        """Tell the device's surfaces that an action waits for a person."""
        if self.events is None or step.step_type != pb.STEP_TYPE_APPROVAL_REQUEST:
            return
        from edge_agent.device_events import device_event

        self.events.publish(
            device_event(
                pb.DEVICE_EVENT_KIND_APPROVAL_WAITING,
                step.content,
                session_id=step.session_id,
                act_id=step.act_id,
            )
        )

    def _ask(self, query: str, session_id: str | None) -> Iterator[pb.ReactStep]:
        text = " ".join(query.split())
        if not text:
            raise QueryError("the query is empty")
        if len(text) > MAX_QUERY_CHARS:
            raise QueryError(f"the query is {len(text)} characters; the limit is {MAX_QUERY_CHARS}")
        if "\x00" in text:
            raise QueryError("the query contains a NUL character")
        if not has_words(text):
            raise QueryError("the query has no words")
        settled = self._settle_by_voice(text)
        if settled is not None:
            yield from self._said_only(text, settled, session_id, "a ringing timer, by voice")
            return
        home = load_settings(self.memory)  # set here or synced from elsewhere
        self.router.home = home
        keep_history(self.memory, home)
        question = self.open_question(session_id) if session_id else None
        if question is not None and session_id is not None:
            yield from self._answer(text, question, session_id)  # the answer, as said
            return
        followed = rewrite(text, self.context)
        self._followup_of = text if isinstance(followed, str) else ""
        text = followed if isinstance(followed, str) else text
        decision = self.router.decide(text)
        if isinstance(followed, AskBack) and (decision.route != "edge" or not decision.tool):
            # "it" with nothing to refer to, and no reading of its own ("turn it up" is
            # the volume): a question beats a guess, and beats the cloud's guess too.
            yield from self._said_only(
                text, followed.question, session_id, "a reference the conversation lacks"
            )
            return
        if self.cloud is not None and (stale := self._stale_forecast(decision)) is not None:
            # No fresh forecast kept here: the cloud's provider answers (and the device
            # keeps the week); unreachable, the device answers from what it has.
            # The cloud gets the forecast asked in full words: the city may be the home's.
            args = decision.arguments or {}
            day = str(args.get("day") or "today")
            from understanding.forecast import SPAN_WORDS

            when = day if day in ("today", "tomorrow") else SPAN_WORDS.get(day, f"on {day}")
            asked = f"what's the weather in {args.get('city')} {when}"
            yield from self._cloud(asked, stale, session_id or uuid.uuid4().hex, decision)
        elif decision.route == "edge":
            session = self.loop.start(text, session_id=session_id)
            self.reasoner.prime(session.session_id, decision)
            yield from self._run(session)
        elif decision.route == "ask":
            yield from self._ask_back(text, decision, session_id or uuid.uuid4().hex)
        else:
            yield from self._cloud(text, decision, session_id or uuid.uuid4().hex)

    def _settle_by_voice(self, text: str) -> str | None:
        """ "stop" or "snooze for 10 minutes" while a timer rings: what was done."""
        if self.ringer is None:
            return None
        from edge_agent.ringing_words import ringing_request

        request = ringing_request(text)
        if request is None or not self.ringer.ringing():
            return None
        answer, seconds = request
        return self.ringer.settle("last", answer, seconds)[0]

    def _said_only(
        self, query: str, answer: str, session_id: str | None, why: str
    ) -> Iterator[pb.ReactStep]:
        """A session that is only a thought and an answer: a question asked back ("turn
        it off" with no device in the conversation; nothing runs), or what was done to a
        ringing timer."""
        sid = session_id or uuid.uuid4().hex
        stamp = _Stamper(sid, uuid.uuid4().hex)
        steps = []
        for step in (
            pb.ReactStep(step_type=pb.STEP_TYPE_THOUGHT, content=why, model=MODEL_NAME),
            pb.ReactStep(
                step_type=pb.STEP_TYPE_FINAL_ANSWER,
                content=answer,
                model=MODEL_NAME,
                stop_reason=pb.STOP_REASON_FINAL_ANSWER,
            ),
        ):
            stamp(step, local=True)
            steps.append(step)
            yield step
        with self.memory.batch():
            self.memory.save_steps(sid, steps)
            self.memory.record_session(
                sid, query=query, final_answer=answer, success=True, state="completed"
            )

    def _remember(self, steps: list[pb.ReactStep]) -> None:
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

    # -- asking back -----------------------------------------------------------------------

    def open_question(self, session_id: str) -> pb.ReactStep | None:
        """The CLARIFICATION a session waits on (its last step), or None."""
        steps = self.memory.steps(session_id)
        if steps and steps[-1].step_type == pb.STEP_TYPE_CLARIFICATION:
            return steps[-1]
        return None

    def _ask_back(
        self,
        query: str,
        decision: RouteDecision,
        session_id: str,
        turn_id: int = 0,
        answers: str = "",
    ) -> Iterator[pb.ReactStep]:
        """THOUGHT + CLARIFICATION: the question for the missing argument ends the turn;
        the session waits (``input_required``) for the next turn to answer it."""
        from understanding.asking import argument_schema, question_for

        stamp = _Stamper(session_id, uuid.uuid4().hex)
        thought = decision_thought(decision)
        question = pb.ReactStep(
            step_type=pb.STEP_TYPE_CLARIFICATION,
            content=decision.question,
            tool=decision.tool or "",
            act_id=new_act_id(),
            missing_argument=decision.missing,
            model=MODEL_NAME,
        )
        question.arguments.CopyFrom(to_struct(decision.arguments or {}))
        spec = self.tools.get(decision.tool or "")
        if spec is not None:
            schema = argument_schema(spec.input_schema, decision.missing)
            question.argument_schema.CopyFrom(to_struct(schema))
        question.metadata["query"] = query  # the request the answer completes
        joiner = question_for(decision.tool or "", query)
        question.metadata["joiner"] = joiner.joiner if joiner else ""
        steps = [thought, question]
        for step in steps:
            stamp(step, local=True)
            step.turn_id = turn_id
            step.answers_act_id = answers
        with self.memory.batch():
            self.memory.save_steps(session_id, steps)
            self.memory.record_session(session_id, query=query, state="input_required")
        yield from steps

    def _answer(
        self, answer: str, question: pb.ReactStep, session_id: str
    ) -> Iterator[pb.ReactStep]:
        """The next turn of a session that asked back: the answer completes the request
        (or withdraws it); an answer that does not give the argument asks again."""
        from understanding.asking import fold, is_withdrawal

        turn = question.turn_id + 1
        asked = question.metadata.get("query", "")
        if question.origin == pb.ORIGIN_CLOUD:
            yield from self._cloud(answer, _CLOUD_ANSWER, session_id, turn_id=turn)
            return
        if is_withdrawal(answer):
            yield from self._final(session_id, turn, question, "Okay, I'll leave it.", asked)
            return
        # Free text is the answer, whole; a number, a time or a choice is read by the
        # router from the request completed by the answer.
        completed = fold(asked, question.metadata.get("joiner", ""), answer)
        decision = self._answer_as_text(question, answer) or self.router.decide(completed)
        arguments = decision.arguments or {}
        if (
            decision.route == "edge"
            and decision.tool == question.tool
            and question.missing_argument in arguments
        ):
            session = self.loop.start(completed, session_id=session_id)
            session.turn_id = turn
            self.reasoner.prime(session_id, decision)
            steps = []
            for step in self._run(session):
                step.answers_act_id = question.act_id
                steps.append(step)
                yield step
            self.memory.save_steps(session_id, steps)  # again, with answers_act_id
            return
        again = RouteDecision(
            "ask",
            question.tool,
            from_struct(question.arguments),
            decision.confidence,
            f"the answer {answer!r} does not give {question.missing_argument!r}",
            question.tool,
            missing=question.missing_argument,
            question=f"Sorry, I didn't get that. {question.content.removeprefix(_AGAIN)}",
        )
        yield from self._ask_back(asked, again, session_id, turn, question.act_id)

    def _answer_as_text(self, question: pb.ReactStep, answer: str) -> RouteDecision | None:
        """The call an answer completes when the argument asked for is free text (a note's
        text, a list's name): the answer itself, whole, beside the arguments known, if the
        tool's schema and rules take it; None otherwise (numbers, times and choices are
        read by the router from the completed request, never taken as said)."""
        from understanding.asking import argument_schema

        spec = self.tools.get(question.tool)
        if spec is None:
            return None
        schema = argument_schema(spec.input_schema, question.missing_argument)
        kinds = schema.get("type")
        if (kinds != "string" and kinds != ["string"]) or {"enum", "pattern"} & schema.keys():
            return None
        arguments = {**from_struct(question.arguments), question.missing_argument: answer}
        from understanding.arguments import validate_arguments

        problem = (
            validate_arguments(question.tool, arguments) if question.tool in _BUILTIN else None
        )
        if problem is not None:
            return None
        return RouteDecision(
            "edge",
            question.tool,
            arguments,
            1.0,
            f"the answer gives {question.missing_argument!r}",
            question.tool,
        )

    def _final(
        self, session_id: str, turn: int, question: pb.ReactStep, text: str, query: str
    ) -> Iterator[pb.ReactStep]:
        """A turn that ends with one FINAL_ANSWER (a withdrawn request)."""
        final = pb.ReactStep(
            step_type=pb.STEP_TYPE_FINAL_ANSWER,
            content=text,
            model=MODEL_NAME,
            stop_reason=pb.STOP_REASON_FINAL_ANSWER,
            answers_act_id=question.act_id,
        )
        _Stamper(session_id, question.trace_id)(final, local=True)
        final.turn_id = turn
        with self.memory.batch():
            self.memory.save_steps(session_id, [final])
            self.memory.record_session(
                session_id, query=query, final_answer=text, success=True, state="completed"
            )
        yield final

    def _stale_forecast(self, decision: RouteDecision) -> RouteDecision | None:
        """For a weather decision with no fresh forecast in the cache, the decision to ask
        the cloud instead; None otherwise."""
        from understanding.forecast import needs_fetch

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
        steps = list(self._run(session))
        for step in steps:
            self._announce(step)
        return steps

    def awaiting_cloud_approval(self, session_id: str, act_id: str) -> bool:
        """True while a cloud session's device action waits for this decision."""
        with self._decisions_lock:
            return (session_id, act_id) in self._decisions

    def _run(self, session: Session) -> Iterator[pb.ReactStep]:
        # The kernel persists the session and its steps as it goes; the summary and the
        # receipt follow in one transaction (each commit costs a few ms on a device).
        yield from session.run()
        self._remember(list(session.steps))
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
        *,
        turn_id: int = 0,
    ) -> Iterator[pb.ReactStep]:
        trace_id = uuid.uuid4().hex
        stamp = _Stamper(session_id, trace_id)
        steps: list[pb.ReactStep] = []
        # A turn after the first (it answers the cloud's question) sends the session so far.
        earlier = self.memory.steps(session_id) if turn_id else []

        def emit(step: pb.ReactStep, *, local: bool = True) -> pb.ReactStep:
            stamp(step, local=local)
            if local:
                step.turn_id = turn_id
            steps.append(step)
            return step

        thought = decision_thought(decision)
        if self._followup_of:  # the context travels with the query, in its first step
            thought.metadata["followup_of"] = self._followup_of
            thought.metadata["context"] = json.dumps(self.context.snapshot(), sort_keys=True)
        yield emit(thought)
        final: pb.ReactStep | None = None
        retry_after: float | None = None
        if self.cloud is not None:
            from edge_agent.errors import CloudRequestError, CloudUnavailableError

            try:
                for step in self.cloud.run(
                    query,
                    session_id=session_id,
                    trace_id=trace_id,
                    # An answering turn ends its history with the question it answers.
                    history=earlier or list(steps),
                    # Side effects are keyed on this session id: a pending query keeps it.
                    run_device_tool=lambda action: self.run_device_tool(action, session_id),
                    turn_id=turn_id,
                ):
                    yield emit(step, local=False)
                    self._keep_forecast(step)
                    if step.step_type in _ENDS_TURN:
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
        acted = any(s.step_type == pb.STEP_TYPE_ACTION for s in steps)
        if final is None and fallback is None and not acted:
            # (Once the cloud had the device act, the query stays pending: its retry
            # keeps those actions' idempotency keys, a device run would not.)
            fallback = self._device_only(query)
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
        self._remember(steps)
        self._record_cloud_turn(session_id, query, steps, final)

    def _record_cloud_turn(
        self, session_id: str, query: str, steps: list[pb.ReactStep], final: pb.ReactStep
    ) -> None:
        """Keep a cloud turn's steps, the cloud's receipt and the session's summary (it
        waits, ``input_required``, when the cloud asked back)."""
        receipt = getattr(self.cloud, "last_receipt", None)  # CloudLink keeps the last one
        with self.memory.batch():
            self.memory.save_steps(session_id, steps)
            if final.step_type == pb.STEP_TYPE_CLARIFICATION:
                self.memory.record_session(session_id, query=query, state="input_required")
                return
            if receipt is not None and receipt.receipt_id == final.receipt_id:
                self.memory.save_receipt(receipt)  # the cloud's receipt, kept on the device
            self.memory.record_session(
                session_id,
                query=query,
                final_answer=final.content,
                success=final.metadata.get("offline") != "true",
                state="completed",
            )

    def _device_only(self, query: str) -> RouteDecision | None:
        """With no cloud to plan it, a compound query whose every request has a device
        tool ("turn on the lights and set a 5 minute timer") runs here, each request as
        the router reads it on its own; None when any part needs the cloud."""
        if not self.router.one_request:
            return None
        self.router.one_request = False
        try:
            decision = self.router.decide(query)
        finally:
            self.router.one_request = True
        if decision.route != "edge" or len(decision.calls) < 2:
            return None
        if any(self.tools.get(call.tool) is None for call in decision.calls):
            return None
        return decision

    def _keep_forecast(self, step: pb.ReactStep) -> None:
        """Keep the week a cloud forecast observation carries in the forecast cache."""
        if (
            step.step_type == pb.STEP_TYPE_OBSERVATION
            and step.tool == "get_weather"
            and step.status == pb.OBSERVATION_STATUS_OK
        ):
            from understanding.forecast import remember_observation

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

            late_s = max(0.0, (self._now() - _stored_time(pending["created_at"])).total_seconds())

            def run_tool(
                action: pb.ReactStep, sid: str = session_id, key: str = scope, late: float = late_s
            ) -> pb.ReactStep:
                return self.run_device_tool(action, sid, idempotency_scope=key, asked_s_ago=late)

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
                        self._announce(step)  # WatchEvents and its Approve may answer it
                        if approve is not None:
                            self.approve(step.session_id, step.act_id, approve(step))
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
            self._announce_resolved(pending, final)
        return resolved

    def _announce_resolved(self, pending: dict[str, Any], final: pb.ReactStep) -> None:
        if self.events is None:
            return
        from edge_agent.device_events import device_event

        self.events.publish(
            device_event(
                pb.DEVICE_EVENT_KIND_PENDING_RESOLVED,
                f"Answered now: {pending['query']} -> {final.content}",
                session_id=final.session_id,
                pending_id=str(pending["pending_id"]),
            )
        )

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
        self,
        action: pb.ReactStep,
        session_id: str = "",
        *,
        idempotency_scope: str = "",
        asked_s_ago: float = 0.0,
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
        if asked_s_ago and spec.name == "set_timer" and args.get("seconds"):
            # A countdown runs from when it was asked, not from when the cloud answered.
            remaining = float(args["seconds"]) - asked_s_ago
            if remaining <= 0:
                return self._timer_already_due(observation, args, asked_s_ago)
            args["seconds"] = math.ceil(remaining)
        late = spec.side_effects and asked_s_ago > LATE_CONFIRM_S
        if late or _approval_policy(spec, args):
            if late:
                action.metadata["asked_s_ago"] = str(round(asked_s_ago))
            refusal = self._await_approval(action, spec, args, observation)
            if refusal is not None:
                return refusal
        outcome = self.loop.executor.call(
            spec, args, session_id=idempotency_scope or observation.session_id
        )
        observation.status = outcome.status
        if outcome.status == pb.OBSERVATION_STATUS_OK:
            observation.observation.CopyFrom(to_struct(outcome.output))
            # JSON as the kernel renders its own observations, never a Python repr.
            observation.content = render_output(outcome.output)
        else:
            observation.content = f"error: {outcome.error}"
        observation.latency_ms = outcome.latency_ms
        return observation

    def _timer_already_due(
        self, observation: pb.ReactStep, args: dict[str, Any], asked_s_ago: float
    ) -> pb.ReactStep:
        """A countdown asked for while offline that has run out by the time the cloud
        answered: it is not set again, and the answer says when it was due."""
        from understanding.answers import duration
        from understanding.tools.timers import home_zone

        zone, zone_name = home_zone(self.memory)
        seconds = int(args["seconds"])
        due = self._now() - timedelta(seconds=asked_s_ago - seconds)
        output = {
            "timer_id": "not set",  # the tool's schema: none was stored
            "fires_at": due.astimezone(zone).isoformat(timespec="seconds"),
            "already_due": True,
            "seconds": seconds,
            "due_at": due.astimezone(zone).isoformat(timespec="seconds"),
            "timezone": zone_name,
            "label": str(args.get("label") or ""),
        }
        observation.status = pb.OBSERVATION_STATUS_OK
        observation.observation.CopyFrom(to_struct(output))
        observation.content = (
            f"The {duration(seconds)} timer asked for {duration(round(asked_s_ago))} ago was"
            f" due at {due.astimezone(zone):%H:%M}: not set again."
        )
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
            late = action.metadata.get("asked_s_ago")
            why = ""
            if late:
                from understanding.answers import duration

                why = f" (asked {duration(int(late))} ago, while offline)"
            request = pb.ReactStep(
                step_type=pb.STEP_TYPE_APPROVAL_REQUEST,
                session_id=observation.session_id,
                act_id=action.act_id,
                tool=spec.name,
                content=f"Approve {spec.name} with {canonical_json(args)}{why}?",
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


def _stored_time(value: str) -> datetime:
    """A time the memory store wrote (ISO-8601 UTC with a ``Z``)."""
    moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


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
