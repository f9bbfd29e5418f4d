"""The edge agent: the kernel's loop with the router as its reasoner, and the cloud hand-off.

``EdgeAgent.ask(query)`` streams ReactSteps as they happen. For a query the router keeps
on the device, the kernel loop runs it: THOUGHT (the decision and its confidence),
ACTION, OBSERVATION (schema- and rule-checked by the kernel), FINAL_ANSWER in a plain
sentence; unlocking a door pauses for a human's approval. For a query the router sends
to the cloud, the THOUGHT says so and the cloud link streams the cloud's steps, running
the device tools the cloud asks for here. With no cloud configured, or none reachable,
the query is kept as pending in memory and the answer says so plainly.

The agent's parts, by concept: ``reasoner`` (the routing THOUGHT and the loop's
Reasoner), ``handoff`` (the cloud hand-off), ``pending`` (pending queries asked again),
``asking_back`` (a question back and its answer), ``device_actions`` (device tools the
cloud asks for, and their approvals), ``sessions`` (stamping and saving sessions).

Example:
    >>> agent = EdgeAgent(MemoryStore(":memory:"), Router.load())   # doctest: +SKIP
    >>> [step.content for step in agent.ask("what's 2 + 2")][-1]     # doctest: +SKIP
    '2 + 2 = 4.'
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from edge_agent.agent_parts import CloudRunner, PersonDecision
from edge_agent.asking_back import AskingBack
from edge_agent.device_actions import (
    APPROVAL_TIMEOUT_S,
    LATE_CONFIRM_S,
    DeviceActions,
    approval_policy,
)
from edge_agent.errors import QueryError
from edge_agent.followups import AskBack, Context, rewrite
from edge_agent.handoff import TRANSIENT_CODES
from edge_agent.pending import PendingQueries
from edge_agent.reasoner import MODEL_NAME, TOP_INTENTS, RouterReasoner, decision_thought
from edge_agent.sessions import Stamper, save_finished
from edgeloop.limits import MAX_QUERY_CHARS as LIMIT
from edgeloop.limits import query_problem
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import AgentLoop, Session
from react_kernel.steps import from_struct
from understanding.settings import keep_history, load_settings
from understanding.tools import builtin_tools

if TYPE_CHECKING:
    from edge_agent.device_events import EventHub
    from edge_agent.ringer import TimerRinger
    from sync.store import MemoryStore
    from understanding.router import Router

__all__ = [  # the names other modules import from here, wherever they now live
    "APPROVAL_TIMEOUT_S",
    "LATE_CONFIRM_S",
    "MAX_QUERY_CHARS",
    "MODEL_NAME",
    "TOP_INTENTS",
    "TRANSIENT_CODES",
    "CloudRunner",
    "EdgeAgent",
    "RouterReasoner",
    "checked_query",
    "decision_thought",
]

#: Longer queries are refused on the device, at the cloud's own limit (one constant).
MAX_QUERY_CHARS = LIMIT


def checked_query(query: str) -> str:
    """The query with its whitespace folded, or ``QueryError`` saying why it is refused
    (``edgeloop.limits.query_problem``: the same check as the command line's)."""
    problem = query_problem(query, MAX_QUERY_CHARS)
    if problem is not None:
        raise QueryError(problem)
    return " ".join(query.split())


class EdgeAgent(AskingBack, PendingQueries, DeviceActions):
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
        self._decisions: dict[tuple[str, str], PersonDecision] = {}
        self._decisions_lock = threading.Lock()
        self.loop = AgentLoop(
            self.reasoner,
            self.tools,
            idempotency=memory,
            approval_policy=approval_policy,
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
        text = checked_query(query)
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
        stamp = Stamper(sid, uuid.uuid4().hex)
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
        save_finished(self.memory, sid, steps, query=query, final_answer=answer, success=True)

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

    # -- reading back ----------------------------------------------------------------------

    def session_steps(self, session_id: str) -> list[pb.ReactStep]:
        """The stored steps of a session, in order."""
        return self.memory.steps(session_id)
