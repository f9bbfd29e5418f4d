"""The edge agent: the kernel's loop with the router as its reasoner, and the cloud hand-off.

``EdgeAgent.ask(query)`` streams ReactSteps as they happen. For a query the router keeps
on the device, the kernel loop runs it: THOUGHT (the decision and its confidence),
ACTION, OBSERVATION (schema- and rule-checked by the kernel), FINAL_ANSWER in a plain
sentence; unlocking a door pauses for a human's approval. For a query the router sends
to the cloud, the THOUGHT says so and the cloud link streams the cloud's steps, running
the device tools the cloud asks for here. With no cloud configured, or none reachable,
the query is kept as pending in memory and the answer says so plainly.

The agent is a few small objects, one concept each, which it builds and wires: a
``Decider`` (the router's decision, with the settings of the moment passed in), a
``DeviceLoop`` (a decision run through the kernel loop; the decision travels in the
session's metadata), ``DeviceActions`` (device tools the cloud asks for, a person's
approval first where needed, handed over through ``Approvals``), a ``CloudHandoff`` (the
cloud's turn, or the query kept pending), ``PendingQueries`` (asked again on reconnect),
``AskingBack`` (a question back and its answer) and ``Surfaces`` (events for the page and
the terminal). The query is checked, and the settings read, once, in :meth:`EdgeAgent.ask`;
every finished session is saved through ``edge_agent.sessions.save_finished`` or the
device loop.

Example:
    >>> agent = EdgeAgent(MemoryStore(":memory:"), Router.load())   # doctest: +SKIP
    >>> [step.content for step in agent.ask("what's 2 + 2")][-1]     # doctest: +SKIP
    '2 + 2 = 4.'
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from edge_agent.approvals import Approvals
from edge_agent.asking_back import AskingBack
from edge_agent.decider import Decider
from edge_agent.device_actions import APPROVAL_TIMEOUT_S, LATE_CONFIRM_S, DeviceActions
from edge_agent.device_loop import DeviceLoop
from edge_agent.errors import QueryError
from edge_agent.followups import AskBack, Context, rewrite
from edge_agent.handoff import TRANSIENT_CODES, CloudHandoff, CloudRunner
from edge_agent.pending import PendingQueries
from edge_agent.reasoner import MODEL_NAME, TOP_INTENTS, RouterReasoner, decision_thought
from edge_agent.sessions import Stamper, save_finished
from edge_agent.surfaces import Surfaces
from edgeloop.limits import MAX_QUERY_CHARS as LIMIT
from edgeloop.limits import query_problem
from edgeloop.v1 import agent_pb2 as pb
from understanding.settings import keep_history, load_settings
from understanding.tools import builtin_tools

if TYPE_CHECKING:
    from edge_agent.device_actions import DeviceOutcome
    from edge_agent.device_events import EventHub
    from edge_agent.ringer import TimerRinger
    from sync.store import MemoryStore
    from understanding.decision import RouteDecision
    from understanding.router import Router
    from understanding.settings import Settings

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


class EdgeAgent:
    """Runs queries on the device, or through the cloud, and keeps everything in memory.

    Args:
        memory: the device's ``sync.store.MemoryStore`` (notes, timers, device state,
            sessions, steps, receipts, idempotency keys, pending cloud queries).
        router: the loaded :class:`~understanding.router.Router`; the tools registered on it
            (``Router.load(dir, tools=[...])``) run here beside the built-in ones.
        cloud: a ``CloudLink`` (or anything with its ``run`` and ``last_receipt``); None
            means offline.
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
        clock = now or (lambda: datetime.now(UTC))
        self.tools = builtin_tools(memory, now=now)
        for spec in router.tools.values():  # the user's own tools, for their intents
            self.tools.register(spec)
        #: The conversation's last list, device, city and timer, for follow-ups.
        self.context = Context()
        #: The timer ringer of the runtime this agent runs in (stop/snooze by voice).
        self.ringer: TimerRinger | None = None
        self.surfaces = Surfaces()
        self.approvals = Approvals()
        self.decider = Decider(router, self.tools)
        self.device = DeviceLoop(memory, self.tools, router, self.context)
        self.actions = DeviceActions(
            memory, self.tools, self.device.loop.executor, self.approvals, clock
        )
        self.handoff = CloudHandoff(
            memory,
            cloud,
            device=self.device,
            decider=self.decider,
            approvals=self.approvals,
            run_device_tool=self._device_tool,
            context=self.context,
            now=clock,
        )
        self.pending = PendingQueries(
            memory,
            self.handoff,
            approvals=self.approvals,
            run_device_tool=self._device_tool,
            surfaces=self.surfaces,
            now=clock,
        )
        self.asking = AskingBack(
            memory, self.tools, decider=self.decider, device=self.device, handoff=self.handoff
        )

    # -- what the runtime and the tests set ----------------------------------------------

    @property
    def events(self) -> EventHub | None:
        """Where approvals waiting and pending answers are announced (a runtime sets it)."""
        return self.surfaces.events

    @events.setter
    def events(self, hub: EventHub | None) -> None:
        self.surfaces.events = hub

    @property
    def approval_timeout_s(self) -> float:
        """How long a cloud session's device action waits for a person's decision."""
        return self.actions.timeout_s

    @approval_timeout_s.setter
    def approval_timeout_s(self, seconds: float) -> None:
        self.actions.timeout_s = seconds

    # -- asking ----------------------------------------------------------------------------

    def ask(self, query: str, session_id: str | None = None) -> Iterator[pb.ReactStep]:
        """Stream the steps of one query until its FINAL_ANSWER (or an approval request)."""
        for step in self._ask(query, session_id):
            self.surfaces.approval_waiting(step)
            yield step

    def _ask(self, query: str, session_id: str | None) -> Iterator[pb.ReactStep]:
        text = checked_query(query)
        settled = self._settle_by_voice(text)
        if settled is not None:
            yield from self._said_only(text, settled, session_id, "a ringing timer, by voice")
            return
        settings = load_settings(self.memory)  # set here or synced from elsewhere
        keep_history(self.memory, settings)
        question = self.open_question(session_id) if session_id else None
        if question is not None and session_id is not None:
            # The answer, as said.
            yield from self.asking.answer(text, question, session_id, settings)
            return
        followed = rewrite(text, self.context)
        followup_of = text if isinstance(followed, str) else ""
        text = followed if isinstance(followed, str) else text
        decision = self.decider.decide(text, settings)
        if isinstance(followed, AskBack) and (decision.route != "edge" or not decision.tool):
            # "it" with nothing to refer to, and no reading of its own ("turn it up" is
            # the volume): a question beats a guess, and beats the cloud's guess too.
            yield from self._said_only(
                text, followed.question, session_id, "a reference the conversation lacks"
            )
            return
        yield from self._route(text, decision, session_id, settings, followup_of)

    def _route(
        self,
        text: str,
        decision: RouteDecision,
        session_id: str | None,
        settings: Settings | None,
        followup_of: str,
    ) -> Iterator[pb.ReactStep]:
        """Run ``decision``: on the device, asked back, or through the cloud."""
        sid = session_id or uuid.uuid4().hex
        if self.cloud is not None and (stale := self.handoff.stale_forecast(decision)):
            # No fresh forecast kept here: the cloud's provider answers (and the device
            # keeps the week); unreachable, the device answers from what it has.
            # The cloud gets the forecast asked in full words: the city may be the home's.
            args = decision.arguments or {}
            day = str(args.get("day") or "today")
            from understanding.forecast import SPAN_WORDS

            when = day if day in ("today", "tomorrow") else SPAN_WORDS.get(day, f"on {day}")
            asked = f"what's the weather in {args.get('city')} {when}"
            yield from self.handoff.run(
                asked, stale, sid, decision, settings=settings, followup_of=followup_of
            )
        elif decision.route == "edge":
            units = settings.units if settings else "metric"
            yield from self.device.run(text, decision, units=units, session_id=session_id)
        elif decision.route == "ask":
            yield from self.asking.ask(text, decision, sid)
        else:
            yield from self.handoff.run(
                text, decision, sid, settings=settings, followup_of=followup_of
            )

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

    # -- approvals -------------------------------------------------------------------------

    def approve(
        self, session_id: str, act_id: str, approved: bool, reason: str = ""
    ) -> list[pb.ReactStep]:
        """Approve or deny a paused action and return the steps that follow.

        For a device action of a cloud session (the request's ``metadata["via"]`` is
        ``cloud``) the decision goes to the stream that raised it, which goes on with the
        cloud's session; nothing is returned here.
        """
        said = reason or ("approved" if approved else "denied")
        if self.approvals.decide(session_id, act_id, approved, said):
            return []
        steps = list(self.device.resume(session_id, act_id, approved, reason))
        for step in steps:
            self.surfaces.approval_waiting(step)
        return steps

    def awaiting_cloud_approval(self, session_id: str, act_id: str) -> bool:
        """True while a cloud session's device action waits for this decision."""
        return self.approvals.waiting(session_id, act_id)

    def run_device_tool(
        self,
        action: pb.ReactStep,
        session_id: str = "",
        *,
        idempotency_scope: str = "",
        asked_s_ago: float = 0.0,
    ) -> DeviceOutcome:
        """Run a device ACTION the cloud asked for (``DeviceActions.run``): its OBSERVATION,
        or the APPROVAL_REQUEST and then the OBSERVATION when a person decides first."""
        return self.actions.run(
            action, session_id, idempotency_scope=idempotency_scope, asked_s_ago=asked_s_ago
        )

    def _device_tool(self, action: pb.ReactStep, *args: Any, **kwargs: Any) -> DeviceOutcome:
        # Looked up at each call: a test may put its own ``run_device_tool`` in place.
        return self.run_device_tool(action, *args, **kwargs)

    # -- pending queries and questions asked back ------------------------------------------

    def own_pending(self) -> list[dict[str, Any]]:
        """The pending queries this device kept (``PendingQueries.own_pending``)."""
        return self.pending.own_pending()

    def resolve_pending(
        self, approve: Callable[[pb.ReactStep], bool] | None = None
    ) -> list[tuple[dict[str, Any], list[pb.ReactStep]]]:
        """On reconnect: ask the cloud each pending query again (``PendingQueries``)."""
        return self.pending.resolve_pending(approve)

    def open_question(self, session_id: str) -> pb.ReactStep | None:
        """The CLARIFICATION a session waits on (its last step), or None."""
        return self.asking.open_question(session_id)

    # -- reading back ----------------------------------------------------------------------

    def session_steps(self, session_id: str) -> list[pb.ReactStep]:
        """The stored steps of a session, in order."""
        return self.memory.steps(session_id)
