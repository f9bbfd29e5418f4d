"""The cloud reasoner's gRPC service: a thin adapter over :class:`RequestHandler`.

The servicer decodes requests, authenticates the caller, hands the work to the
transport-free handler and maps every error to a status code in one place
(:func:`edgeloop.transport.status.abort_with`). :class:`CloudServer` puts it together with
health checking, reflection, TLS, tokens, metrics and (given a memory folder) the memory
sync service on one ``grpc.aio`` server.

Example:
    >>> server = CloudServer(CloudConfig(port=0))        # doctest: +SKIP
    >>> port = await server.start(); ...; await server.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sqlite3
import time
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1.health import HealthServicer

from cloud_agent.backends import build_reasoner
from cloud_agent.config import CloudConfig
from cloud_agent.errors import INTERNAL_MESSAGE, InvalidRequestError, RateLimitedError
from cloud_agent.handler import Event, RequestHandler
from cloud_agent.metrics import CloudMetrics
from cloud_agent.security import rate_key
from edgeloop.transport import status
from edgeloop.transport.auth import AuthInterceptor, Principal, PrincipalLike, TokenAuth
from edgeloop.transport.binding import check_exposure, ensure_port_free
from edgeloop.transport.channels import server_credentials
from edgeloop.transport.guards import CallGuard
from edgeloop.transport.identifiers import is_valid_id
from edgeloop.transport.metadata import TRACE_ID_KEY, metadata_value
from edgeloop.transport.options import SERVER_OPTIONS
from edgeloop.transport.services import add_common_services, service_full_name
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel import Reasoner
from sync.budget import MIB, ByteBudget, SyncLimits, bound_heap, give_back_memory
from sync.cache import CacheBudget
from sync.errors import MemoryUnavailableError
from sync.private import private_folder
from sync.service import add_sync_service
from sync.userstores import UserStores, user_filename

log = logging.getLogger(__name__)
TRIM_EVERY_S = 5.0
"""How often the server hands memory it freed back to the system (``give_back_memory``):
without it, the heap that a burst of large messages grew stays grown."""


async def _give_back_every(seconds: float) -> None:
    while True:
        await asyncio.sleep(seconds)
        await asyncio.to_thread(give_back_memory)


def trace_id_of(context: grpc.aio.ServicerContext[Any, Any]) -> str:
    """The caller's ``x-trace-id`` metadata, or a new id when it is missing or not a
    bounded identifier (``edgeloop.transport.identifiers``)."""
    trace_id = metadata_value(context.invocation_metadata(), TRACE_ID_KEY)
    return trace_id if trace_id and is_valid_id(trace_id) else uuid.uuid4().hex


def deadline_of(context: grpc.aio.ServicerContext[Any, Any]) -> float | None:
    """The caller's deadline as a ``time.monotonic()`` instant (None: no deadline)."""
    remaining = context.time_remaining()
    return None if remaining is None else time.monotonic() + remaining


async def abort_with(context: grpc.aio.ServicerContext[Any, Any], error: BaseException) -> None:
    """End the call with the status that ``error`` maps to (the transport's one table)."""
    await status.abort_with(context, error, internal_message=INTERNAL_MESSAGE)


class CloudReasonerServicer(pb_grpc.CloudReasonerServiceServicer):
    """Thin adapter from gRPC to :class:`RequestHandler`."""

    def __init__(
        self,
        handler: RequestHandler,
        authorize: Callable[[grpc.aio.ServicerContext[Any, Any]], Principal],
    ) -> None:
        self._handler = handler
        self._authorize = authorize

    async def _fail(
        self, context: grpc.aio.ServicerContext[Any, Any], error: BaseException, rpc: str
    ) -> None:
        """Count the error by its status code (``edgeloop_errors_total``), then abort."""
        metrics = self._handler.metrics
        if metrics is not None:
            code = status.status_for(error, internal_message=INTERNAL_MESSAGE).code
            metrics.errors.labels(rpc, code.name).inc()
        await abort_with(context, error)

    async def Reason(
        self, request: pb.ReasonRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> AsyncIterator[pb.ReasonResponse]:
        try:
            principal = self._authorize(context)
            events = self._handler.run(
                principal,
                request,
                trace_id=trace_id_of(context),
                deadline=deadline_of(context),
                peer=context.peer() or "",
            )
            async for event in events:
                if event.kind == "step" and event.step is not None:
                    yield pb.ReasonResponse(step=event.step)
        except Exception as error:
            await self._fail(context, error, "Reason")

    async def Converse(
        self,
        request_iterator: AsyncIterator[pb.ConverseRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[pb.ConverseResponse]:
        try:
            principal = self._authorize(context)
            first = await anext(aiter(request_iterator), None)
            if first is None or first.WhichOneof("event") != "start":
                raise InvalidRequestError("the first Converse message must be 'start'")

            async def next_observation() -> pb.ReactStep | pb.CancelSession | None:
                async for message in request_iterator:
                    kind = message.WhichOneof("event")
                    if kind == "observation":
                        return message.observation
                    if kind == "cancel":
                        return message.cancel
                    raise InvalidRequestError(f"unexpected {kind!r} message mid-conversation")
                return None  # the device half-closed

            events = self._handler.run(
                principal,
                first.start,
                trace_id=trace_id_of(context),
                deadline=deadline_of(context),
                next_observation=next_observation,
                rpc="Converse",
                peer=context.peer() or "",
            )
            async for event in events:
                yield _converse_response(event)
        except Exception as error:
            await self._fail(context, error, "Converse")

    async def ListTools(
        self, request: pb.ListToolsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> pb.ListToolsResponse:
        try:
            self._authorize(context)
            tools = self._handler.tool_schemas(request.device_tools, request.declared_tools)
            return pb.ListToolsResponse(tools=tools)
        except Exception as error:
            await abort_with(context, error)
            raise  # abort_with always raises; this satisfies the type checker


def _converse_response(event: Event) -> pb.ConverseResponse:
    if event.kind == "device_action":
        return pb.ConverseResponse(device_action=event.step)
    if event.kind == "receipt":
        return pb.ConverseResponse(receipt=event.receipt)
    return pb.ConverseResponse(step=event.step)


class CloudServer:
    """The cloud's gRPC server: reasoner, health, reflection, security, metrics, sync."""

    def __init__(
        self, config: CloudConfig | None = None, *, reasoner: Reasoner | None = None
    ) -> None:
        bound_heap()  # freed memory stays returnable: before any of the server's threads
        self.config = config or CloudConfig()
        self.auth = (
            TokenAuth.from_file(self.config.tokens_file) if self.config.tokens_file else TokenAuth()
        )
        self.metrics = CloudMetrics()
        self.reasoner: Reasoner = reasoner or build_reasoner(
            self.config,
            on_fallback=lambda a, b: self.metrics.cloud_fallbacks.labels(a, b).inc(),
            on_route=lambda route, tool: self.metrics.route_decisions.labels(route, tool).inc(),
        )
        # Backends the server built are its to close on stop; a caller's reasoner is not.
        self._close_reasoner = getattr(self.reasoner, "close", None) if reasoner is None else None
        self.metrics_breakers(self.reasoner)
        self.handler = RequestHandler(self.config, self.reasoner, metrics=self.metrics)
        self.server: grpc.aio.Server | None = None
        self.port: int | None = None
        self.metrics_port: int | None = None
        self._stores: Any = None
        self._health: HealthServicer | None = None
        self.guard: CallGuard | None = None
        self.sync: SyncLimits | None = None
        self._memory_names: list[str] = []
        self._monitor: asyncio.Task[None] | None = None
        self._trimmer: asyncio.Task[None] | None = None
        self.memory_check_s = 2.0
        """Seconds between two checks of the memory database (and idle evictions)."""

    @property
    def memory_stores(self) -> Any:
        """The per-user memory (``sync.userstores.UserStores`` with ``memory_dir``,
        ``sync.pgmemory.PostgresMemory`` with ``memory_url``) once started; None otherwise.
        The page reads it."""
        return self._stores

    def metrics_breakers(self, reasoner: Reasoner) -> None:
        """Expose the backends' breaker states on the metrics endpoint."""
        states = getattr(reasoner, "breaker_states", None)
        if callable(states):
            self.metrics.set_breakers(states)

    def exposure_warnings(self) -> list[str]:
        """Refuse (ExposureError) an exposure the config does not protect; the warnings
        to print for the ones ``insecure`` allows."""
        config = self.config
        warnings = check_exposure(
            config.host,
            authenticated=not self.auth.open_mode,
            insecure=config.insecure,
            what="the cloud",
            tls=bool(config.tls_cert),
        )
        if config.metrics_port is not None:
            warnings += check_exposure(
                config.metrics_host, authenticated=False, insecure=config.insecure, what="metrics"
            )
        return warnings + self.auth.warnings  # a token file others may read

    def check_files_and_port(self) -> None:
        """Raise OSError (one line) for an unreadable TLS file, a memory folder open to
        others (never chmodded: ``sync.private``) or a port in use."""
        for path in (self.config.tls_cert, self.config.tls_key):
            if path and not os.access(path, os.R_OK):
                raise OSError(f"cannot read the TLS certificate or key: {path}")
        if self.config.memory_dir and Path(self.config.memory_dir).is_dir():
            private_folder(self.config.memory_dir)  # exists: only checked
        ensure_port_free(self.config.host, self.config.port)

    async def start(self) -> int:
        """Bind and start; return the bound port.

        Raises:
            ExposureError: beyond loopback without tokens (or metrics beyond loopback),
                unless the config says ``insecure``.
            OSError: the port is in use or cannot be bound.
        """
        for warning in self.exposure_warnings():
            log.warning("%s", warning)
        ensure_port_free(self.config.host, self.config.port)
        self.guard = CallGuard(
            max_calls_per_peer=self.config.max_calls_per_peer,
            idle_timeout_s=self.config.stream_idle_s,
        )
        interceptors: list[Any] = [self.guard]
        if not self.auth.open_mode:
            interceptors.append(AuthInterceptor(self.auth))
        server = grpc.aio.server(options=SERVER_OPTIONS, interceptors=interceptors)
        servicer = CloudReasonerServicer(self.handler, self.auth.authorize)
        pb_grpc.add_CloudReasonerServiceServicer_to_server(servicer, server)
        names = [service_full_name("CloudReasonerService")]
        if await self._add_memory_sync(server):
            names.append(service_full_name("MemorySyncService"))
            self._memory_names = [service_full_name("MemorySyncService"), ""]
        self._health = add_common_services(server, names)
        address = f"{self.config.host}:{self.config.port}"
        credentials = None
        if self.config.tls_cert and self.config.tls_key:
            try:
                credentials = server_credentials(self.config.tls_cert, self.config.tls_key)
            except OSError as exc:
                raise OSError(f"cannot read the TLS certificate or key: {exc}") from None
        try:
            if credentials is not None:
                bound = server.add_secure_port(address, credentials)
            else:
                bound = server.add_insecure_port(address)
        except RuntimeError:  # gRPC's own bind failure (it logged the detail)
            bound = 0
        if bound == 0:
            raise OSError(f"cannot bind {address}")
        await server.start()
        self.server, self.port = server, bound
        if self._stores is not None:
            self._monitor = asyncio.create_task(self._watch_memory())
        self._trimmer = asyncio.create_task(_give_back_every(TRIM_EVERY_S))
        if self.config.metrics_port is not None:
            self.metrics_port = self.metrics.serve(
                self.config.metrics_port, self.config.metrics_host
            )
        return bound

    async def _add_memory_sync(self, server: grpc.aio.Server) -> bool:
        """Mount the MemorySyncService on the configured memory: per-user SQLite files in
        ``memory_dir``, or PostgreSQL at ``memory_url`` (shared by every replica).

        Raises:
            OSError: the PostgreSQL database cannot be reached.
        """
        if not self.config.memory_dir and not self.config.memory_url:
            return False
        budget = CacheBudget(
            max_entries=self.config.memory_cache_users,
            max_mb=self.config.memory_cache_mb,
            idle_s=self.config.memory_idle_s,
        )
        if self.config.memory_url:
            try:
                from sync.pgmemory import PostgresMemory
            except ImportError as exc:  # psycopg comes with the postgres extra
                raise OSError(
                    f"--memory-url needs psycopg ({exc}): pip install 'edgeloop[postgres]'"
                ) from None

            memory = PostgresMemory(self.config.memory_url, node_id="cloud", budget=budget)
            try:
                self._stores = await asyncio.to_thread(memory.open)
            except MemoryUnavailableError as exc:
                raise OSError(str(exc)) from None
        else:
            self._stores = UserStores(
                Path(self.config.memory_dir or "."), node_id="cloud", budget=budget
            )
            self.handler.home_city_of = home_city_reader(self._stores)
        self.sync = self.sync_limits()
        add_sync_service(server, self._stores.memory, self.auth.authorize, limits=self.sync)
        return True

    def sync_limits(self) -> SyncLimits:
        """The Sync service's limits: update size, buffer budget, and the rate limit."""
        handler = self.handler

        def admit(principal: PrincipalLike, peer: str) -> None:
            try:
                handler.limiter.acquire(rate_key(principal, peer))
            except RateLimitedError:
                if self.metrics is not None:
                    self.metrics.rate_limited.inc()
                raise

        return SyncLimits(
            max_update_bytes=int(self.config.sync_update_mb * MIB),
            budget=ByteBudget(int(self.config.sync_budget_mb * MIB)),
            admit=admit,
        )

    async def _watch_memory(self) -> None:
        """Every ``memory_check_s`` seconds: unload idle user memories, and report the
        memory's health (NOT_SERVING for the sync service and the server as a whole while
        the database does not answer; the reasoner needs no database and stays SERVING)."""
        from grpc_health.v1 import health_pb2

        serving = True
        while True:
            await asyncio.sleep(self.memory_check_s)
            stores = self._stores
            if stores is None:
                return

            ping = getattr(stores, "ping", None)
            ok = True if ping is None else bool(await asyncio.to_thread(ping))
            if ok != serving and self._health is not None:
                status = (
                    health_pb2.HealthCheckResponse.SERVING
                    if ok
                    else health_pb2.HealthCheckResponse.NOT_SERVING
                )
                for name in self._memory_names:
                    self._health.set(name, status)
                log.log(
                    logging.INFO if ok else logging.ERROR,
                    "memory database %s",
                    "reachable again" if ok else "unreachable: NOT_SERVING",
                )
                serving = ok
            if await asyncio.to_thread(stores.evict_idle):
                await asyncio.to_thread(give_back_memory)  # the unloaded memories' pages

    async def stop(self, grace: float | None = None) -> None:
        """Stop accepting calls, let calls in flight finish within ``grace`` seconds."""
        if self.server is not None:
            if self._health is not None:  # load balancers stop sending new calls first
                self._health.enter_graceful_shutdown()
            await self.server.stop(self.config.grace_s if grace is None else grace)
            self.server = None
        for task in (self._monitor, self._trimmer):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._monitor = self._trimmer = None
        self.handler.close()
        close_reasoner, self._close_reasoner = self._close_reasoner, None
        if callable(close_reasoner):
            await asyncio.to_thread(close_reasoner)
        self.metrics.close()
        if self._stores is not None:
            self._stores.close()
            self._stores = None

    async def wait(self) -> None:
        """Wait until the server stops."""
        if self.server is not None:
            await self.server.wait_for_termination()


__all__ = ["CloudReasonerServicer", "CloudServer", "abort_with"]


def home_city_reader(stores: UserStores) -> Callable[[PrincipalLike], str | None]:
    """The home city the caller's device set (``edge-agent config set home_city``), as the
    user's synced memory holds it, so the planner plans "what's the weather" for it.

    None for a user with no memory here yet (nothing is created for the asking) or a
    memory that cannot be read (the planner then asks for a place instead of guessing).
    PostgreSQL memory is not read (yet): with it, the planner knows no home city and asks
    for a place where the query names none (the device sends no settings with a query).
    """
    from understanding.settings import load_settings

    def home_city_of(principal: PrincipalLike) -> str | None:
        if not (stores.root / user_filename(principal.user_id)).exists():
            return None
        try:
            with stores.lease(principal.user_id) as store:
                return load_settings(store).home_city
        except (ValueError, OSError, sqlite3.Error) as exc:
            log.warning("home city of %s not read: %s", principal.user_id, exc)
            return None

    return home_city_of
