"""A real server on 127.0.0.1: health checking, reflection, a streamed step.

The Node.js client test (same server, stronger checks) is tests/cloud/test_node_client.py.
"""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

NODE_DIR = Path(__file__).resolve().parent.parent / "node"


def test_health_and_reflection(cloud_server) -> None:  # type: ignore[no-untyped-def]
    with grpc.insecure_channel(cloud_server.target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for service in ["", "edgeloop.v1.CloudReasonerService"]:
            reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        services = set(ProtoReflectionDescriptorDatabase(channel).get_services())
        assert "edgeloop.v1.CloudReasonerService" in services
        assert "grpc.health.v1.Health" in services


def test_reason_streams_steps_ending_in_final_answer(cloud_server) -> None:  # type: ignore[no-untyped-def]
    with grpc.insecure_channel(cloud_server.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        request = pb.ReasonRequest(session_id="s1", query="what is 2 + 2")
        steps = [r.step for r in stub.Reason(request, timeout=30)]
    assert steps
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert all(step.session_id == "s1" for step in steps)


def test_empty_query_is_invalid_argument(cloud_server) -> None:  # type: ignore[no-untyped-def]
    with grpc.insecure_channel(cloud_server.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        with pytest.raises(grpc.RpcError) as error:
            list(stub.Reason(pb.ReasonRequest(session_id="s", query="  "), timeout=10))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
