"""The edge's link to the cloud reasoner: one ``Converse`` stream per hard query.

The cloud plans and the device acts: the link yields the cloud's steps as they arrive, runs
each device ACTION through ``run_device_tool`` and streams the OBSERVATION back, redacted
of personal data. Every call has a deadline; UNAVAILABLE before the first step is retried
with backoff; a circuit breaker stops hammering a cloud that is down. When the cloud cannot
be reached the link raises :class:`CloudUnavailableError` and the edge goes offline
(answers what it can, keeps the query pending, resolves it on reconnect).

    CloudLinkError
    ├── CloudUnavailableError      the cloud cannot be reached (breaker open, UNAVAILABLE
    │   │                          after retries, deadline passed before any step)
    │   └── CloudStreamBrokenError the cloud died or timed out in the middle of a stream
    └── CloudRequestError          the cloud refused the request (auth, limits, rate)

Example:
    >>> link = CloudLink("127.0.0.1:50051", deadline_s=10)        # doctest: +SKIP
    >>> for step in link.run("weather in Paris and Berlin", session_id="s1",  # doctest: +SKIP
    ...                      trace_id="t1", history=[], run_device_tool=run_here):
    ...     print(step.step_type, step.content)
"""

from __future__ import annotations

import logging
import queue
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from edge_agent.errors import CloudLinkError as CloudLinkError  # re-exported: the link's errors
from edge_agent.errors import CloudRequestError as CloudRequestError
from edge_agent.errors import CloudStreamBrokenError as CloudStreamBrokenError
from edge_agent.errors import CloudUnavailableError as CloudUnavailableError
from edgeloop.transport.channels import client_channel
from edgeloop.transport.metadata import call_metadata, retry_after_s
from edgeloop.transport.options import CLIENT_OPTIONS
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel import CircuitBreaker, redact_pii, redact_struct
from react_kernel.steps import from_struct, to_struct
from understanding.tools.catalogue import DEVICE_TOOLS

log = logging.getLogger(__name__)

# The project's client options (message size, keepalive; docs/operations.md), plus
# quick reconnects after an outage: the edge retries on its own schedule.
CHANNEL_OPTIONS: list[tuple[str, int]] = [
    *CLIENT_OPTIONS,
    ("grpc.initial_reconnect_backoff_ms", 200),
    ("grpc.max_reconnect_backoff_ms", 2_000),
]
_UNREACHABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
#: With the breaker open, a health check at most this often tells whether the cloud is back.
PROBE_INTERVAL_S = 1.0
PROBE_TIMEOUT_S = 0.5
_BROKEN = (*_UNREACHABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.INTERNAL)


DeviceToolRunner = Callable[[pb.ReactStep], pb.ReactStep]


def _default_redactor(step: pb.ReactStep) -> pb.ReactStep:
    """Redact personal data from an observation before it leaves the device."""
    clean = pb.ReactStep()
    clean.CopyFrom(step)
    clean.content = redact_pii(step.content)
    if step.HasField("observation"):
        clean.observation.CopyFrom(to_struct(redact_struct(from_struct(step.observation))))
    return clean


class _Requests:
    """The request side of a Converse stream: a queue the link feeds, closed exactly once."""

    _END = object()

    def __init__(self, first: pb.ConverseRequest) -> None:
        self._queue: queue.Queue[object] = queue.Queue()
        self._queue.put(first)

    def send(self, request: pb.ConverseRequest) -> None:
        self._queue.put(request)

    def close(self) -> None:
        self._queue.put(self._END)

    def __iter__(self) -> Iterator[pb.ConverseRequest]:
        while True:
            item = self._queue.get()
            if item is self._END:
                return
            assert isinstance(item, pb.ConverseRequest)
            yield item


class CloudLink:
    """A resilient ``Converse`` client for the edge agent (sync; safe to share across threads).

    Args:
        target: ``HOST:PORT`` of the cloud reasoner.
        token: per-device bearer token, sent as ``authorization: Bearer ...``.
        tls_root: PEM file of the CA (or self-signed certificate) to trust; enables TLS.
        deadline_s: deadline of each call, the whole stream included.
        device_id: this device's id (sent in the request and the metadata).
        retries: extra attempts on UNAVAILABLE before the first step.
        backoff_s: base of the exponential backoff between attempts (with jitter).
        breaker: a ``react_kernel.CircuitBreaker``; one is made when None.
        redactor: applied to every observation sent to the cloud (``redact_pii`` by default).
        use_tls: force TLS with the system's roots even without ``tls_root``.
    """

    def __init__(
        self,
        target: str,
        *,
        token: str | None = None,
        tls_root: str | None = None,
        deadline_s: float = 30.0,
        device_id: str = "edge",
        retries: int = 2,
        backoff_s: float = 0.2,
        breaker: CircuitBreaker | None = None,
        redactor: Callable[[pb.ReactStep], pb.ReactStep] | None = None,
        use_tls: bool = False,
        health_timeout_s: float = 2.5,
    ) -> None:
        self.target = target
        self.deadline_s = deadline_s
        self.device_id = device_id
        self.retries = max(0, retries)
        self.backoff_s = backoff_s
        self.breaker = breaker if breaker is not None else CircuitBreaker(3, 10.0)
        self.health_timeout_s = health_timeout_s
        self.last_receipt: pb.DecisionReceipt | None = None
        self._token = token
        self._redactor = redactor or _default_redactor
        self._lock = threading.Lock()
        self._probed_at = float("-inf")
        self._channel = client_channel(
            target, tls_root=tls_root, use_tls=use_tls, options=CHANNEL_OPTIONS
        )
        self._stub = pb_grpc.CloudReasonerServiceStub(self._channel)
        self._health = health_pb2_grpc.HealthStub(self._channel)

    def __enter__(self) -> CloudLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the channel; calls in flight end with CANCELLED."""
        self._channel.close()

    def _metadata(self, trace_id: str) -> list[tuple[str, str]]:
        return call_metadata(token=self._token, device_id=self.device_id, trace_id=trace_id)

    def healthy(self, timeout_s: float | None = None) -> bool:
        """True when the cloud answers its health check with SERVING (used on reconnect).

        Waits up to ``timeout_s`` (default ``health_timeout_s``, longer than the channel's
        longest reconnect backoff) for the connection, so a cloud that just came back is
        seen as back.
        """
        try:
            response = self._health.Check(
                health_pb2.HealthCheckRequest(service=""),
                timeout=self.health_timeout_s if timeout_s is None else timeout_s,
                metadata=self._metadata("health"),
                wait_for_ready=True,
            )
        except grpc.RpcError:
            return False
        serving = bool(response.status == health_pb2.HealthCheckResponse.SERVING)
        if serving and self.breaker.state != "closed":
            # The cloud is back: let the next call through without waiting for the reset.
            self.breaker.record_success()
        return serving

    def _probe(self) -> bool:
        """With the breaker open, whether the cloud is back: one short health check at most
        every ``PROBE_INTERVAL_S`` (a cloud restarted after a second's outage is used again
        within a second, not after the breaker's whole reset timeout; a cloud that stays
        down gets one cheap check a second, not the calls)."""
        now = time.monotonic()
        with self._lock:
            if now - self._probed_at < PROBE_INTERVAL_S:
                return False
            self._probed_at = now
        return self.healthy(timeout_s=PROBE_TIMEOUT_S) and self.breaker.allow()

    def run(
        self,
        query: str,
        *,
        session_id: str,
        trace_id: str,
        history: Sequence[pb.ReactStep] = (),
        run_device_tool: DeviceToolRunner,
        device_tools: Sequence[str] = DEVICE_TOOLS,
        turn_id: int = 0,
        declared_tools: Sequence[pb.ToolDeclaration] = (),
        proposed_calls: Sequence[pb.ProposedCall] = (),
    ) -> Iterator[pb.ReactStep]:
        """Stream the cloud's steps for ``query``; device ACTIONs run through ``run_device_tool``.

        Yields every step of the cloud (device ACTIONs included) and the OBSERVATION that
        the device produced for each. Raises CloudUnavailableError (offline), its subclass
        CloudStreamBrokenError (the stream died midway) or CloudRequestError (refused).
        ``declared_tools`` are the device's own tools (the cloud plans with them and asks
        for them as device ACTIONs), ``proposed_calls`` its router's reading of the query
        (``edge_agent.declaring``).
        """
        start = pb.ReasonRequest(
            session_id=session_id,
            query=query,
            device_id=self.device_id,
            history=list(history),
            device_tools=list(device_tools),
            turn_id=turn_id,
            declared_tools=list(declared_tools),
            proposed_calls=list(proposed_calls),
        )
        self.last_receipt = None
        attempt = 0
        while True:
            if not self.breaker.allow() and not self._probe():
                raise CloudUnavailableError(f"cloud {self.target} circuit breaker is open")
            received = False
            try:
                for step in self._converse(start, trace_id, run_device_tool):
                    received = True
                    yield step
            except grpc.RpcError as error:
                code = error.code() if callable(getattr(error, "code", None)) else None
                details = error.details() if callable(getattr(error, "details", None)) else ""
                if received:
                    if code in _BROKEN:
                        self.breaker.record_failure()
                        raise CloudStreamBrokenError(
                            f"the cloud stream broke mid-session ({code}): {details}"
                        ) from None
                    raise self._request_error(error) from None
                if code in _UNREACHABLE:
                    self.breaker.record_failure()
                    if code == grpc.StatusCode.UNAVAILABLE and attempt < self.retries:
                        attempt += 1
                        delay = self.backoff_s * (2 ** (attempt - 1))
                        time.sleep(delay * (0.5 + random.random()))
                        continue
                    raise CloudUnavailableError(
                        f"cloud {self.target} unreachable ({code.name}): {details}"
                    ) from None
                raise self._request_error(error) from None
            self.breaker.record_success()
            return

    @staticmethod
    def _request_error(error: Any) -> CloudRequestError:
        code: grpc.StatusCode = error.code()
        retry_after = retry_after_s(error.trailing_metadata())
        return CloudRequestError(code, str(error.details() or ""), retry_after)

    def _converse(
        self, start: pb.ReasonRequest, trace_id: str, run_device_tool: DeviceToolRunner
    ) -> Iterator[pb.ReactStep]:
        requests = _Requests(pb.ConverseRequest(start=start))
        call = self._stub.Converse(
            iter(requests), timeout=self.deadline_s, metadata=self._metadata(trace_id)
        )
        try:
            for response in call:
                kind = response.WhichOneof("event")
                if kind == "step":
                    yield response.step
                elif kind == "device_action":
                    action = response.device_action
                    yield action
                    observation = self._run_device_tool(action, run_device_tool)
                    if observation.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
                        # A person decides first (EdgeAgent.approve) before the consumer
                        # asks for the next step; the runner then runs or refuses it.
                        yield observation
                        observation = self._run_device_tool(action, run_device_tool)
                        if observation.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
                            rejected = pb.ReactStep(
                                step_type=pb.STEP_TYPE_OBSERVATION,
                                status=pb.OBSERVATION_STATUS_REJECTED,
                                content=f"{action.tool} was not approved on the device",
                            )
                            observation = self._run_device_tool(action, _returning(rejected))
                    requests.send(pb.ConverseRequest(observation=self._redactor(observation)))
                    yield observation
                elif kind == "receipt":
                    self.last_receipt = response.receipt
        finally:
            requests.close()
            call.cancel()

    @staticmethod
    def _run_device_tool(action: pb.ReactStep, run: DeviceToolRunner) -> pb.ReactStep:
        try:
            observation = run(action)
            if observation.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
                return observation
        except Exception as exc:  # the cloud must get an answer, never silence
            log.warning("device tool %s failed: %s", action.tool, exc)
            observation = pb.ReactStep(
                step_type=pb.STEP_TYPE_OBSERVATION,
                status=pb.OBSERVATION_STATUS_ERROR,
                content=f"device tool {action.tool} failed: {exc}",
            )
        observation.session_id = observation.session_id or action.session_id
        observation.turn_id = observation.turn_id or action.turn_id
        observation.act_id = action.act_id
        observation.tool = observation.tool or action.tool
        observation.trace_id = observation.trace_id or action.trace_id
        if observation.step_type != pb.STEP_TYPE_OBSERVATION:
            observation.step_type = pb.STEP_TYPE_OBSERVATION
        if observation.origin == pb.ORIGIN_UNSPECIFIED:
            observation.origin = pb.ORIGIN_EDGE
        return observation


def _returning(step: pb.ReactStep) -> DeviceToolRunner:
    """A runner that answers every action with ``step``."""

    def run(_action: pb.ReactStep) -> pb.ReactStep:
        return step

    return run
