"""``EdgeAgentService`` over gRPC: any client, in any language, can drive the device agent.

The servicer is a thin adapter: it decodes requests, delegates to :class:`EdgeAgent`
(run in a worker thread, so a slow cloud hand-off never blocks the event loop) and maps
errors to status codes with the transport's one table (``edgeloop.transport.status``; the
kernel is transport-free, so its errors come as ``KERNEL_STATUS`` rows).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import grpc

from edge_agent.agent import EdgeAgent
from edge_agent.errors import QueryError
from edgeloop.transport.binding import check_exposure, ensure_port_free
from edgeloop.transport.guards import CallGuard
from edgeloop.transport.options import SERVER_OPTIONS
from edgeloop.transport.services import add_common_services, service_full_name
from edgeloop.transport.status import StatusRows, abort_with
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel import ResumeError, SessionError, State

if TYPE_CHECKING:
    from edge_agent.runtime import DeviceRuntime

log = logging.getLogger(__name__)
T = TypeVar("T")
Tracker = Callable[[str, Iterator[pb.ReactStep]], Iterator[pb.ReactStep]]
SERVICE_NAME = service_full_name("EdgeAgentService")

# The kernel's errors and the agent's own refusals of bad input, checked before the
# transport's table, subclasses first. A plain ValueError or KeyError is not among them: it
# is a bug in the agent, INTERNAL and logged, never passed off as the client's mistake.
KERNEL_STATUS: StatusRows = (
    (ResumeError, grpc.StatusCode.NOT_FOUND),
    (SessionError, grpc.StatusCode.FAILED_PRECONDITION),
    (QueryError, grpc.StatusCode.INVALID_ARGUMENT),
)
_DONE = object()


def session_state(name: str | None) -> pb.SessionState:
    """The protocol's state for a stored session state name."""
    if not name:
        return pb.SESSION_STATE_UNSPECIFIED
    if name == "completed":  # a finished session, as stores before issue 28 recorded it
        return pb.SESSION_STATE_COMPLETED
    if name == "input_required":  # a question asked back waits for its answer
        return pb.SESSION_STATE_INPUT_REQUIRED
    try:
        return State(name).to_proto()
    except ValueError:
        return pb.SESSION_STATE_WORKING


class EdgeAgentServicer(pb_grpc.EdgeAgentServiceServicer):
    """Ask, Approve and GetSession, delegated to one :class:`EdgeAgent`; WatchEvents and
    SettleTimer from its :class:`~edge_agent.runtime.DeviceRuntime`."""

    def __init__(
        self,
        agent: EdgeAgent,
        runtime: DeviceRuntime | None = None,
        track: Tracker | None = None,
    ) -> None:
        self.agent = agent
        self.runtime = runtime
        # The page's console, when one shares the agent: it shows (and serialises) asks.
        self.track = track
        # The agent's memory and loop are used from one worker at a time.
        self._lock = asyncio.Lock()

    async def _abort(self, context: grpc.aio.ServicerContext[Any, Any], error: Exception) -> None:
        passed_on = getattr(error, "code", None)  # the cloud's refusal (CloudRequestError)
        if isinstance(passed_on, grpc.StatusCode):
            await context.abort(passed_on, str(error))
        await abort_with(context, error, extra=KERNEL_STATUS)

    async def Ask(  # gRPC method name
        self, request: pb.AskRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[pb.AskResponse]:
        """Stream the steps of one query; with the session_id of a session that asked
        back (its last step a CLARIFICATION), the query answers that question."""
        if not request.query.strip():
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the query is empty")
        async with self._lock:
            steps: Iterator[pb.ReactStep] = self.agent.ask(
                request.query, session_id=request.session_id or None
            )
            if self.track is not None:
                steps = self.track(request.query, steps)
            while True:
                try:
                    step = await asyncio.to_thread(next, steps, _DONE)
                except Exception as error:  # mapped to a status in one place
                    await self._abort(context, error)
                    return
                if step is _DONE:
                    return
                assert isinstance(step, pb.ReactStep)
                yield pb.AskResponse(step=step)

    async def Approve(  # gRPC method name
        self, request: pb.ApproveRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ApproveResponse:
        """Approve or deny a paused action; return the steps that followed."""
        if not request.session_id or not request.act_id:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "session_id and act_id are required"
            )
        if self.agent.awaiting_cloud_approval(request.session_id, request.act_id):
            # The Ask stream of that cloud session holds the lock and waits for this.
            self.agent.approve(request.session_id, request.act_id, request.approved, request.reason)
            return pb.ApproveResponse()
        async with self._lock:
            try:
                steps = await _in_thread(
                    self.agent.approve,
                    request.session_id,
                    request.act_id,
                    request.approved,
                    request.reason,
                )
            except Exception as error:
                await self._abort(context, error)
                raise AssertionError("unreachable") from error
        return pb.ApproveResponse(steps=steps)

    async def GetSession(  # gRPC method name
        self, request: pb.GetSessionRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.GetSessionResponse:
        """A stored session: its state, steps and receipt."""
        memory = self.agent.memory
        record = memory.get_session(request.session_id) if request.session_id else None
        if record is None:
            await context.abort(
                grpc.StatusCode.NOT_FOUND, f"no session {request.session_id!r} in memory"
            )
            raise AssertionError("unreachable")
        steps = memory.steps(request.session_id)
        response = pb.GetSessionResponse(
            session_id=request.session_id,
            state=session_state(str(record.get("state") or "")),
            steps=steps,
        )
        receipt_id = next((s.receipt_id for s in reversed(steps) if s.receipt_id), None)
        if receipt_id:
            receipt = memory.get_receipt(receipt_id)
            if receipt is not None:
                response.receipt.CopyFrom(receipt)
        return response

    async def WatchEvents(  # gRPC method name
        self, request: pb.WatchEventsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[pb.WatchEventsResponse]:
        """Stream the device's events until the client goes away."""
        runtime = self.runtime
        if runtime is None:
            await context.abort(
                grpc.StatusCode.UNIMPLEMENTED, "this server keeps no time: run `edge-agent run`"
            )
            raise AssertionError("unreachable")
        key, queue = runtime.hub.queue(asyncio.get_running_loop())
        try:
            # Subscribed: a client that waits for the headers misses nothing after them.
            await context.send_initial_metadata(())
            if request.include_ringing:
                for event in await asyncio.to_thread(ringing_events, runtime):
                    yield pb.WatchEventsResponse(event=event)
            while True:
                yield pb.WatchEventsResponse(event=await queue.get())
        finally:
            runtime.hub.unsubscribe(key)

    async def SettleTimer(  # gRPC method name
        self, request: pb.SettleTimerRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.SettleTimerResponse:
        """Dismiss or snooze a timer that rang."""
        if self.runtime is None:
            await context.abort(
                grpc.StatusCode.UNIMPLEMENTED, "this server keeps no time: run `edge-agent run`"
            )
            raise AssertionError("unreachable")
        answers = {pb.TIMER_ANSWER_DISMISS: "dismiss", pb.TIMER_ANSWER_SNOOZE: "snooze"}
        if request.answer not in answers:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "answer: dismiss or snooze")
        try:
            text, new_id = await asyncio.to_thread(
                self.runtime.ringer.settle,
                request.timer_id,
                answers[request.answer],
                request.snooze_seconds,
            )
        except ValueError as error:
            code = grpc.StatusCode.NOT_FOUND
            if "ringing" not in str(error) and "no timer" not in str(error):
                code = grpc.StatusCode.INVALID_ARGUMENT
            await context.abort(code, str(error))
            raise AssertionError("unreachable") from error
        return pb.SettleTimerResponse(text=text, snoozed_timer_id=new_id)


def ringing_events(runtime: DeviceRuntime) -> list[pb.DeviceEvent]:
    """An event for each timer that rang and still rings (oldest first)."""
    from datetime import datetime

    from edge_agent.device_events import device_event

    events = []
    for ring in reversed(runtime.ringer.ringing()):
        kind = (
            pb.DEVICE_EVENT_KIND_TIMER_FIRED
            if ring["outcome"] == "fired"
            else pb.DEVICE_EVENT_KIND_TIMER_MISSED
        )
        what = f"the {ring['label']} timer" if ring["label"] else "a timer"
        event = device_event(
            kind,
            f"Still ringing: {what}.",
            at=datetime.fromisoformat(str(ring["rang_at"])),
            timer_id=str(ring["timer_id"]),
            label=str(ring["label"]),
        )
        event.due_at.FromDatetime(datetime.fromisoformat(str(ring["due_at"])))
        events.append(event)
    return events


async def _in_thread(func: Callable[..., T], *args: Any) -> T:
    return await asyncio.to_thread(func, *args)


@dataclass(frozen=True)
class EdgeServer:
    """A running edge agent service: where it listens, and how to stop it.

    The agent (its memory, its cloud link) belongs to the caller, who made it; the handle
    stops what :func:`serve` started.
    """

    server: grpc.aio.Server
    port: int

    async def stop(self, grace: float | None = None) -> None:
        """Stop accepting calls; let calls in flight finish within ``grace`` seconds."""
        await self.server.stop(grace)

    async def wait(self) -> None:
        """Wait until the server stops."""
        await self.server.wait_for_termination()


async def serve(
    agent: EdgeAgent,
    host: str = "127.0.0.1",
    port: int = 50052,
    *,
    insecure: bool = False,
    runtime: DeviceRuntime | None = None,
    track: Tracker | None = None,
) -> EdgeServer:
    """Start the edge agent service (with health and reflection); return its handle.

    The service has no tokens: beyond loopback it is refused (ExposureError, a ValueError)
    unless ``insecure``.

    Raises:
        OSError: ``host:port`` is in use or cannot be bound.
    """
    for warning in check_exposure(
        host, authenticated=False, insecure=insecure, what="the edge agent"
    ):
        log.warning("%s", warning)
    ensure_port_free(host, port)
    server = grpc.aio.server(options=SERVER_OPTIONS, interceptors=[CallGuard()])
    pb_grpc.add_EdgeAgentServiceServicer_to_server(EdgeAgentServicer(agent, runtime, track), server)
    add_common_services(server, [SERVICE_NAME])
    try:
        bound = server.add_insecure_port(f"{host}:{port}")
    except RuntimeError:  # gRPC's own bind failure
        bound = 0
    if bound == 0:
        raise OSError(f"cannot bind {host}:{port}")
    await server.start()
    return EdgeServer(server, bound)
