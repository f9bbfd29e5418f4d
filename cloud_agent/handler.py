"""The cloud reasoner's request handling, free of any gRPC type: admit, run, pause, resume.

:class:`RequestHandler` checks a request (limits, owner, rate), runs the kernel's session in
a worker thread (backends may block on HTTP), streams each step as it happens, and, when
the plan needs a device tool, hands the ACTION out and waits for the device's
OBSERVATION (``provide_observation``) before it goes on. The servicer only adapts this to
gRPC; the session stops when the caller's deadline passes or it cancels.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

from cloud_agent.config import CloudConfig
from cloud_agent.declared_tools import (
    DeclaredLoops,
    check_declarations,
    check_proposals,
    session_metadata,
    tool_schema,
)
from cloud_agent.errors import (
    InvalidRequestError,
    PermissionDeniedError,
    ReasonerDeadlineError,
    StreamClosedError,
)
from cloud_agent.metrics import CloudMetrics
from cloud_agent.planner.reasoner import HOME_CITY_KEY
from cloud_agent.security import RateLimiter, check_query, rate_key
from cloud_agent.tools import cloud_registry
from edgeloop.transport.auth import Principal
from edgeloop.transport.identifiers import check_id
from edgeloop.v1 import agent_pb2 as pb
from react_kernel import (
    AgentLoop,
    GuardConfig,
    Reasoner,
    SafetyConfig,
    Session,
    SessionError,
    State,
)
from understanding.tools.catalogue import DEVICE_TOOLS

log = logging.getLogger(__name__)
trace_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("trace_id", default="-")
MAX_OWNERS = 100_000
#: Kernel loops kept for request shapes (device tools x step budget); the shapes are
#: bounded (known device tools only) and the least recently used loop goes first.
MAX_LOOPS = 64
#: A request naming more device tools than this, or a longer name, is refused.
MAX_DEVICE_TOOL_NAMES = 64
MAX_TOOL_NAME_CHARS = 64


def known_device_tools(request: pb.ReasonRequest) -> frozenset[str]:
    """The device tools a request offers that the cloud knows how to plan (all of them when
    it names none); names it does not know are dropped, a list too long is refused."""
    names = list(request.device_tools)
    if len(names) > MAX_DEVICE_TOOL_NAMES or any(len(n) > MAX_TOOL_NAME_CHARS for n in names):
        raise InvalidRequestError(
            f"device_tools: at most {MAX_DEVICE_TOOL_NAMES} names of at most "
            f"{MAX_TOOL_NAME_CHARS} characters"
        )
    return frozenset(names or DEVICE_TOOLS) & frozenset(DEVICE_TOOLS)


class TraceIdFilter(logging.Filter):
    """Adds ``trace_id`` to every log record (``%(trace_id)s`` in the format)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.trace_id = trace_id_var.get()
        return True


def answered_query(request: pb.ReasonRequest, query: str) -> str:
    """The request a turn completes when it answers a CLARIFICATION (the last step of its
    ``history``, asked by either side): that question's request with the answer joined
    in ("set a timer" + "5 minutes"); otherwise the query as sent."""
    if not request.history:
        return query
    last = request.history[-1]
    asked = last.metadata.get("query", "")
    if last.step_type != pb.STEP_TYPE_CLARIFICATION or not asked:
        return query
    from understanding.asking import fold

    return fold(asked, last.metadata.get("joiner", ""), query)


@dataclass(frozen=True)
class Event:
    """One thing to send to the client: a step, a device ACTION, or the receipt."""

    kind: str  # "step" | "device_action" | "receipt" (| "device_observation", for watchers)
    step: pb.ReactStep | None = None
    receipt: pb.DecisionReceipt | None = None


#: The device's next answer: an OBSERVATION, a CancelSession, or None when it half-closed.
ObservationSource = Callable[[], Awaitable[pb.ReactStep | pb.CancelSession | None]]


class SessionWatcher(Protocol):
    """Sees each session as it runs (the page of ``cloud-agent serve --ui-port``).

    Called on the server's event loop: a watcher must be quick; what it raises is logged
    and never reaches the session. ``session_event`` gets every event sent to the device
    and, as ``Event("device_observation", step=...)``, each observation the device sent.
    """

    def session_started(
        self, principal: Principal, session_id: str, query: str, trace_id: str
    ) -> None: ...

    def session_event(self, session_id: str, event: Event) -> None: ...

    def session_ended(self, session_id: str, outcome: str) -> None: ...


"""The session metadata key of the device's home city (see ``RequestHandler.home_city_of``)."""


class RequestHandler:
    """Transport-free handler of ``Reason`` and ``Converse``."""

    def __init__(
        self,
        config: CloudConfig,
        reasoner: Reasoner,
        *,
        metrics: CloudMetrics | None = None,
        limiter: RateLimiter | None = None,
        workers: int = 64,
    ) -> None:
        self.config = config
        self.reasoner = reasoner
        self.metrics = metrics
        self.limiter = limiter or RateLimiter(config.rate_per_s, config.rate_burst)
        self._loops: OrderedDict[tuple[frozenset[str], int], AgentLoop] = OrderedDict()
        self._declared_loops = DeclaredLoops()  # the loops of sessions with declared tools
        self._owners: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="reasoner")
        #: Watchers of every session (``add_watcher``); empty unless a page is served.
        self.watchers: list[SessionWatcher] = []
        #: The home city of the caller's device (its synced ``home_city`` setting), when
        #: the server can tell it: put in the session's metadata as ``home_city``, where
        #: the planner takes it for a request that names no place. Called once per
        #: session on the event loop, so it must answer from memory at hand (a cache).
        self.home_city_of: Callable[[Principal], str | None] | None = None

    def add_watcher(self, watcher: SessionWatcher) -> None:
        """Let ``watcher`` see every session from now on."""
        self.watchers.append(watcher)

    def _tell(self, method: str, *args: Any) -> None:
        for watcher in self.watchers:
            try:
                getattr(watcher, method)(*args)
            except Exception:  # a watcher's bug never breaks a session
                log.exception("session watcher %s failed", method)

    def close(self) -> None:
        """Stop the worker threads (sessions in flight finish their current step)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    def loop_for(self, device_tools: frozenset[str], max_steps: int = 0) -> AgentLoop:
        """The kernel loop for a set of device tools and a step budget (one each, reused).

        ``max_steps`` 0 (or above the server's) means the server's ``max_steps``.
        """
        steps = self.config.max_steps if max_steps <= 0 else min(max_steps, self.config.max_steps)
        key = (device_tools, steps)
        with self._lock:
            loop = self._loops.get(key)
            if loop is not None:
                self._loops.move_to_end(key)
            else:
                loop = AgentLoop(
                    self.reasoner,
                    cloud_registry(device_tools),
                    origin=pb.ORIGIN_CLOUD,
                    guards=GuardConfig(
                        max_steps=steps,
                        time_budget_s=self.config.session_timeout_s,
                        max_repeats=2,
                    ),
                    safety=SafetyConfig(injection_policy="refuse"),
                )
                self._loops[key] = loop
                if len(self._loops) > MAX_LOOPS:
                    self._loops.popitem(last=False)
            return loop

    def tool_schemas(
        self,
        device_tools: Iterable[str] = (),
        declared: Sequence[pb.ToolDeclaration] = (),
    ) -> list[pb.ToolSchema]:
        """The tools a session plans with (cloud tools, then the device tools named, or
        every device tool, then the tools ``declared``, once checked: INVALID_ARGUMENT
        otherwise): the schemas of their arguments and of the observations the cloud
        accepts."""
        specs = check_declarations(declared)
        registry = cloud_registry(frozenset(device_tools or DEVICE_TOOLS))
        schemas = [tool_schema(spec) for spec in registry]
        schemas.sort(key=lambda s: (s.executor != pb.ORIGIN_CLOUD, s.name))
        return schemas + [tool_schema(spec, declared=True) for spec in specs]

    def admit(self, principal: Principal, request: pb.ReasonRequest, peer: str = "") -> str:
        """Check a request; return the query. Raises the errors of cloud_agent.errors."""
        # Bounded before anything is kept or logged, and the rate taken before the session
        # map grows: a flood of calls costs a bucket, never a map entry each.
        check_id(request.session_id, "session_id")
        check_id(principal.device_id, "device id")
        if request.device_id:
            check_id(request.device_id, "device_id")
        if request.max_steps < 0:
            raise InvalidRequestError(f"max_steps must be 0 or more, not {request.max_steps}")
        if request.turn_id < 0:
            raise InvalidRequestError(f"turn_id must be 0 or more, not {request.turn_id}")
        query = check_query(request.query, self.config.max_query_chars)
        if (
            request.device_id
            and principal.user_id != "local"
            and request.device_id != principal.device_id
        ):
            raise PermissionDeniedError(
                f"token is for device {principal.device_id!r}, not {request.device_id!r}"
            )
        try:
            self.limiter.acquire(rate_key(principal, peer))
        except Exception:
            if self.metrics is not None:
                self.metrics.rate_limited.inc()
            raise
        with self._lock:
            owner = self._owners.get(request.session_id)
            if owner is not None and owner != principal.user_id:
                raise PermissionDeniedError(f"session {request.session_id} is another user's")
            self._owners[request.session_id] = principal.user_id
            self._owners.move_to_end(request.session_id)
            if len(self._owners) > MAX_OWNERS:
                self._owners.popitem(last=False)
        return query

    async def run(
        self,
        principal: Principal,
        request: pb.ReasonRequest,
        *,
        trace_id: str,
        deadline: float | None = None,
        next_observation: ObservationSource | None = None,
        rpc: str = "Reason",
        peer: str = "",
    ) -> AsyncIterator[Event]:
        """Stream the events of one session; device ACTIONs need ``next_observation``.

        ``deadline`` is a ``time.monotonic()`` instant; past it the session is canceled and
        ReasonerDeadlineError raised. Cancelling the consuming task cancels the session.

        The session runs in a task of its own, at most ``PIPELINE_DEPTH`` events ahead of
        the consumer: while the transport writes one step, the next one is computed, so a
        step goes out as soon as the previous write completes instead of only then being
        started.
        """
        trace_id_var.set(trace_id)
        query = answered_query(request, self.admit(principal, request, peer))
        device_tools = known_device_tools(request) if next_observation else frozenset()
        # Checked on both calls (a malformed declaration is refused alike); only Converse
        # can run them, on the device.
        declared = check_declarations(request.declared_tools)
        proposals = check_proposals(request.proposed_calls)
        loop = self.loop_for(device_tools, request.max_steps)
        if declared and next_observation:
            loop = self._declared_loops.loop(loop, request.declared_tools, declared)
        session = loop.start(query, session_id=request.session_id, trace_id=trace_id)
        session.metadata.update(session_metadata(declared if next_observation else (), proposals))
        session.turn_id = request.turn_id
        session.deadline = deadline  # backends bound every call by it
        if self.home_city_of is not None:
            home_city = self.home_city_of(principal)
            if home_city:
                session.metadata[HOME_CITY_KEY] = home_city
        if self.watchers:
            self._tell("session_started", principal, session.session_id, query, trace_id)
        log.info("session %s started (%s, device %s)", session.session_id, rpc, principal.device_id)
        pipe = _Pipe(PIPELINE_DEPTH)
        producer = asyncio.ensure_future(
            self._produce(session, pipe, deadline, next_observation, rpc)
        )
        try:
            while True:
                event = await pipe.get()
                if event is None:
                    return
                yield event
        finally:
            if not producer.done():
                producer.cancel()  # the consumer went away: the producer cancels the session
                if not pipe.started:  # cancelled before it ever ran: nothing else will
                    session.cancel("the client canceled")
                    self._ended(session, rpc, "canceled")

    async def _produce(
        self,
        session: Session,
        pipe: _Pipe,
        deadline: float | None,
        next_observation: ObservationSource | None,
        rpc: str,
    ) -> None:
        """Run the session, handing each event to ``pipe``; errors end the pipe with them."""
        pipe.started = True
        outcome = "error"
        from_device: set[str] = set()
        try:
            while True:
                async for step in self._drive(session, deadline):
                    if step.step_type == pb.STEP_TYPE_OBSERVATION and step.act_id in from_device:
                        continue  # the device's own observation: it has it already
                    self._observe(step)
                    paused = session.state is State.AWAITING_OBSERVATION
                    if step.step_type == pb.STEP_TYPE_ACTION and paused:
                        event = Event("device_action", step=step)
                    else:
                        event = Event("step", step=step)
                    if self.watchers:
                        self._tell("session_event", session.session_id, event)
                    await pipe.put(event)
                if session.state is not State.AWAITING_OBSERVATION:
                    break
                if next_observation is None:  # pragma: no cover - Reason has no device tools
                    raise InvalidRequestError("this call cannot run device tools")
                observation = await self._await_observation(next_observation, deadline)
                if not isinstance(observation, pb.ReactStep):
                    outcome = "canceled"
                    await self._end_turn_early(session, pipe, observation)
                    return
                self._observe(observation)
                if self.watchers:
                    event = Event("device_observation", step=observation)
                    self._tell("session_event", session.session_id, event)
                from_device.add(observation.act_id)
                try:
                    session.provide_observation(observation)
                except SessionError as exc:  # the device answered another act, or twice
                    raise InvalidRequestError(f"observation refused: {exc}") from exc
                refusal = _refusal_notice(observation, session.steps[-1])
                if refusal is not None:
                    await pipe.put(Event("step", step=refusal))
            if session.receipt is not None:
                receipt = Event("receipt", receipt=session.receipt)
                if self.watchers:
                    self._tell("session_event", session.session_id, receipt)
                await pipe.put(receipt)
            outcome = "completed" if session.state is State.FINISHED else session.state.value
            pipe.close()
        except asyncio.CancelledError:
            session.cancel("the client canceled")
            outcome = "canceled"
            pipe.close(asyncio.CancelledError())
            raise
        except ReasonerDeadlineError as exc:
            session.cancel("deadline exceeded")
            outcome = "deadline"
            pipe.close(exc)
        except Exception as exc:  # handed to the consumer, which maps it to a status
            pipe.close(exc)
        finally:
            self._ended(session, rpc, outcome)

    async def _end_turn_early(
        self, session: Session, pipe: _Pipe, cancel: pb.CancelSession | None
    ) -> None:
        """The device canceled (``cancel``) or half-closed (None) while an action waited:
        the turn ends with its ERROR step; a half-close also ends the call with a status
        that names the action left without an observation."""
        action = session.pending_action()
        waiting = f"act {action.act_id} ({action.tool})" if action is not None else "an action"
        if cancel is not None:
            session.cancel(f"the device canceled: {cancel.reason}" if cancel.reason else "")
            error = None
        else:
            reason = f"the device closed its stream while {waiting} waited for its observation"
            session.cancel(reason)
            error = StreamClosedError(
                f"{reason}; send the OBSERVATION (or a cancel) before closing the stream"
            )
        last = session.steps[-1] if session.steps else None
        if last is not None and last.step_type == pb.STEP_TYPE_ERROR:
            self._observe(last)
            await pipe.put(Event("step", step=last))
        pipe.close(error)

    def _ended(self, session: Session, rpc: str, outcome: str) -> None:
        log.info("session %s ended: %s", session.session_id, outcome)
        if self.watchers:
            self._tell("session_ended", session.session_id, outcome)
        if self.metrics is not None:
            self.metrics.sessions.labels(rpc, outcome).inc()

    async def _drive(self, session: Session, deadline: float | None) -> AsyncIterator[pb.ReactStep]:
        """Run ``session.run()`` one step at a time within the deadline: inline for backends
        that never block (the planner: a thread hop would cost more than the step), on a
        worker thread for those that may (HTTP backends)."""
        steps: Iterator[pb.ReactStep] = session.run()
        if not getattr(self.reasoner, "blocking", True):
            for step in steps:
                if deadline is not None and time.monotonic() >= deadline:
                    raise ReasonerDeadlineError("the deadline passed")
                yield step
            return
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()
        done = object()
        while True:
            future = loop.run_in_executor(self._pool, _next_in, context, steps, done)
            try:
                step = await _within(future, deadline)
            except BaseException:
                future.cancel()
                raise
            if step is done:
                return
            assert isinstance(step, pb.ReactStep)
            yield step

    async def _await_observation(
        self, next_observation: ObservationSource, deadline: float | None
    ) -> pb.ReactStep | pb.CancelSession | None:
        limit = time.monotonic() + self.config.device_tool_timeout_s
        wait_until = min(limit, deadline) if deadline is not None else limit
        try:
            step: pb.ReactStep | pb.CancelSession | None = await _within(
                asyncio.ensure_future(next_observation()), wait_until
            )
            return step
        except ReasonerDeadlineError:
            if deadline is not None and time.monotonic() >= deadline:
                raise
            raise ReasonerDeadlineError("the device did not answer its action in time") from None

    def _observe(self, step: pb.ReactStep) -> None:
        if self.metrics is not None:
            self.metrics.observe_step(step)


def _refusal_notice(sent: pb.ReactStep, recorded: pb.ReactStep) -> pb.ReactStep | None:
    """An ERROR step telling the device why the cloud did not accept its OBSERVATION as
    OK (the schema check names the field, the expected type and what was sent); None when
    it was accepted as sent. The device's observation itself is never echoed back."""
    sent_ok = sent.status in (pb.OBSERVATION_STATUS_UNSPECIFIED, pb.OBSERVATION_STATUS_OK)
    if not sent_ok or recorded.status == pb.OBSERVATION_STATUS_OK:
        return None
    notice = pb.ReactStep(
        session_id=recorded.session_id,
        turn_id=recorded.turn_id,
        step_type=pb.STEP_TYPE_ERROR,
        act_id=recorded.act_id,
        tool=recorded.tool,
        origin=pb.ORIGIN_CLOUD,
        trace_id=recorded.trace_id,
        step_index=recorded.step_index,
        content=f"the cloud refused the observation of act {recorded.act_id} "
        f"({recorded.tool}): {recorded.content.removeprefix('error: ')}",
    )
    notice.created_at.CopyFrom(recorded.created_at)
    notice.metadata["observation_refused"] = "true"
    return notice


#: How many events a session may run ahead of the transport.
PIPELINE_DEPTH = 8


class _Pipe:
    """Events from a session's producing task to the streaming consumer, at most ``depth``
    queued; ``close(error)`` ends it (the consumer raises ``error``, or stops)."""

    __slots__ = ("_closed", "_depth", "_error", "_getter", "_items", "_putter", "started")

    def __init__(self, depth: int) -> None:
        self._items: deque[Event] = deque()
        self._depth = max(1, depth)
        self._getter: asyncio.Future[None] | None = None
        self._putter: asyncio.Future[None] | None = None
        self._closed = False
        self._error: BaseException | None = None
        self.started = False

    async def put(self, event: Event) -> None:
        while len(self._items) >= self._depth:
            self._putter = asyncio.get_running_loop().create_future()
            try:
                await self._putter
            finally:
                self._putter = None
        self._items.append(event)
        _wake(self._getter)

    def close(self, error: BaseException | None = None) -> None:
        self._closed = True
        self._error = error
        _wake(self._getter)

    async def get(self) -> Event | None:
        while not self._items:
            if self._closed:
                if self._error is not None:
                    raise self._error
                return None
            self._getter = asyncio.get_running_loop().create_future()
            try:
                await self._getter
            finally:
                self._getter = None
        event = self._items.popleft()
        _wake(self._putter)
        return event


def _wake(waiter: asyncio.Future[None] | None) -> None:
    if waiter is not None and not waiter.done():
        waiter.set_result(None)


def _next_in(context: contextvars.Context, steps: Iterator[pb.ReactStep], done: object) -> object:
    """The next step, computed in ``context`` (so log lines carry the trace id)."""
    return context.run(next, steps, done)


async def _within(future: Awaitable[Any], deadline: float | None) -> Any:
    if deadline is None:
        return await future
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        if isinstance(future, asyncio.Future):
            future.cancel()
        raise ReasonerDeadlineError("the deadline passed")
    try:
        return await asyncio.wait_for(future, remaining)
    except TimeoutError:
        raise ReasonerDeadlineError("the deadline passed") from None
