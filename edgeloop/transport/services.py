"""What every server of the project serves beside its own services: health and reflection.

Every server binds to 127.0.0.1 unless told otherwise, serves gRPC health checking and
server reflection, and uses :data:`~edgeloop.transport.options.SERVER_OPTIONS`.

Example:
    >>> service_full_name("MemorySyncService")
    'edgeloop.v1.MemorySyncService'
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from edgeloop.v1 import agent_pb2 as pb


def service_full_name(service: str) -> str:
    """The fully qualified name of one of the protocol's services."""
    return str(pb.DESCRIPTOR.services_by_name[service].full_name)


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
