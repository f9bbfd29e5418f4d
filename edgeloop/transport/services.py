"""What every server of the project serves beside its own services: health and reflection.

Every server binds to 127.0.0.1 unless told otherwise, serves gRPC health checking and
server reflection, and uses :data:`~edgeloop.transport.options.SERVER_OPTIONS`.

Reflection is served under both names tools ask for: ``grpc.reflection.v1alpha`` (grpcurl,
older clients) and ``grpc.reflection.v1`` (``buf curl --reflect-protocol grpc-v1``, newer
grpcurl, Postman). grpcio-reflection ships only v1alpha; v1 is the same protocol under
another package name (identical messages, field for field), so one servicer answers both.

Example:
    >>> service_full_name("MemorySyncService")
    'edgeloop.v1.MemorySyncService'
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc
from grpc_reflection.v1alpha._async import ReflectionServicer  # reflection.aio, typed

from edgeloop.v1 import agent_pb2 as pb

#: The v1 reflection service (wire-identical to v1alpha's).
REFLECTION_V1_SERVICE = "grpc.reflection.v1.ServerReflection"


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
    add_reflection(server, [*names, health.SERVICE_NAME])
    return health_servicer


def _register_reflection_v1() -> None:
    """Put ``grpc/reflection/v1/reflection.proto`` (v1alpha's file under v1's package) in
    the default descriptor pool, so that reflection can describe the v1 service too."""
    pool = descriptor_pool.Default()
    try:
        pool.FindServiceByName(REFLECTION_V1_SERVICE)
        return
    except KeyError:
        pass
    file = descriptor_pb2.FileDescriptorProto()
    reflection_pb2.DESCRIPTOR.CopyToProto(file)
    old, new = f".{file.package}.", ".grpc.reflection.v1."
    file.name = "grpc/reflection/v1/reflection.proto"
    file.package = "grpc.reflection.v1"
    file.options.Clear()
    for message in file.message_type:
        for field in message.field:
            if field.HasField("type_name"):
                field.type_name = field.type_name.replace(old, new)
    for service in file.service:
        for method in service.method:
            method.input_type = method.input_type.replace(old, new)
            method.output_type = method.output_type.replace(old, new)
    pool.Add(file)


def add_reflection(server: grpc.aio.Server, service_names: Iterable[str]) -> None:
    """Serve reflection v1alpha and v1 for ``service_names`` (both reflection services are
    listed too)."""
    _register_reflection_v1()
    listed = [*service_names, reflection.SERVICE_NAME, REFLECTION_V1_SERVICE]
    servicer = ReflectionServicer(listed)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.method_handlers_generic_handler(
        REFLECTION_V1_SERVICE,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((v1,))
