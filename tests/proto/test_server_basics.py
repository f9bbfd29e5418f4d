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


@pytest.mark.parametrize("protocol", ["grpc-v1", "grpc-v1alpha"])
def test_buf_curl_lists_and_describes_over_both_reflection_versions(
    cloud_server,
    protocol: str,  # type: ignore[no-untyped-def]
) -> None:
    import shutil
    import subprocess
    import sys

    buf = Path(sys.executable).parent / "buf"
    if not buf.exists():
        found = shutil.which("buf")
        if found is None:
            pytest.skip("buf is not installed (dev.py setup puts it in the venv)")
        buf = Path(found)
    base = [str(buf), "curl", "--protocol", "grpc", "--http2-prior-knowledge"]
    url = f"http://{cloud_server.target}"
    listed = subprocess.run(
        [*base, "--reflect-protocol", protocol, url, "--list-services"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    services = set(listed.stdout.split())
    assert {"edgeloop.v1.CloudReasonerService", "grpc.reflection.v1.ServerReflection"} <= services
    methods = subprocess.run(
        [*base, "--reflect-protocol", protocol, url, "--list-methods"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "edgeloop.v1.CloudReasonerService/Converse" in methods.stdout.split()
    answer = subprocess.run(
        [*base, "--reflect-protocol", protocol, "--data", '{"sessionId": "b1", "query": "2+2"}',
         f"{url}/edgeloop.v1.CloudReasonerService/Reason"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert "STEP_TYPE_FINAL_ANSWER" in answer.stdout
