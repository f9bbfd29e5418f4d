"""Server plumbing shared by every gRPC server of the project: health, reflection, options.

Every server binds to 127.0.0.1 unless told otherwise, serves gRPC health checking and
server reflection, and uses the same message-size and keepalive options (documented in
docs/operations.md).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterable
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from edgeloop.v1 import agent_pb2 as pb

T = TypeVar("T")

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
# Clients may ping every 20 s even without calls in flight; the server's default policy
# (5 min, no pings without calls) answers such clients with ENHANCE_YOUR_CALM.
SERVER_OPTIONS: list[tuple[str, int]] = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.min_ping_interval_without_data_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]
CLIENT_OPTIONS: list[tuple[str, int]] = [
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.keepalive_time_ms", 20_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.max_pings_without_data", 0),
]


def client_channel(
    target: str,
    *,
    tls_root: str | None = None,
    use_tls: bool = False,
    options: list[tuple[str, int]] = CLIENT_OPTIONS,
) -> grpc.Channel:
    """A blocking channel to ``target``: TLS when given the PEM of a CA or self-signed
    certificate to trust (or ``use_tls``: the system's roots), plaintext otherwise.

    Raises:
        OSError: ``tls_root`` cannot be read.
    """
    if tls_root or use_tls:
        from cloud_agent.security import channel_credentials

        return grpc.secure_channel(target, channel_credentials(tls_root), options=options)
    return grpc.insecure_channel(target, options=options)


def service_full_name(service: str) -> str:
    """The fully qualified name of one of the protocol's services."""
    return pb.DESCRIPTOR.services_by_name[service].full_name


def add_common_services(
    server: grpc.aio.Server, service_names: Iterable[str]
) -> health.HealthServicer:
    """Add health checking and reflection for ``service_names``; mark them all SERVING."""
    names = list(service_names)
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in [*names, ""]:
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        [*names, health.SERVICE_NAME, reflection.SERVICE_NAME], server
    )
    return health_servicer


async def serve(config: Any = None) -> grpc.aio.Server:
    """Start the cloud reasoner for ``config`` (a ``CloudConfig``; defaults: zero-config
    localhost) and return the running ``grpc.aio.Server``.

    ``cloud_agent.service.CloudServer`` is the richer handle (it also stops the worker
    threads, the metrics endpoint and the memory stores); this is the contract's shape.
    """
    from cloud_agent.config import CloudConfig
    from cloud_agent.service import CloudServer

    cloud = CloudServer(config or CloudConfig())
    await cloud.start()
    assert cloud.server is not None
    return cloud.server


class EventLoopThread:
    """An asyncio event loop running in a daemon thread, for blocking code that needs
    an async gRPC server beside it (the demo, tests, a stand-alone sync server).

    Example:
        >>> loop = EventLoopThread()
        >>> async def answer() -> int:
        ...     return 42
        >>> loop.run(answer())
        42
        >>> loop.close()
    """

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run a coroutine on the loop and wait for its result."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout)

    def close(self) -> None:
        """Stop the loop and its thread."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
