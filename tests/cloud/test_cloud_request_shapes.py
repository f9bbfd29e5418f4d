"""What a caller chooses may not grow the server: device tool lists are checked against
the tools the cloud knows, and the loops kept per request shape are bounded (issue 14)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from cloud_agent.handler import MAX_LOOPS
from edge_agent.cloud_link import DEVICE_TOOLS
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc


def _converse(target: str, start: pb.ReasonRequest) -> list[pb.ConverseResponse]:
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        return list(stub.Converse(iter([pb.ConverseRequest(start=start)]), timeout=10))


def test_made_up_device_tools_do_not_grow_the_loop_cache(cloud: Any) -> None:
    for n in range(30):
        made_up = [f"tool_{n}_{i}_{'x' * 40}" for i in range(40)]
        start = pb.ReasonRequest(
            session_id=f"s{n}", query="weather in Paris and Berlin", device_tools=made_up
        )
        responses = _converse(cloud.target, start)
        assert responses[-1].WhichOneof("event") in ("step", "receipt")
    for steps in range(1, 30):  # every step budget is a shape too
        start = pb.ReasonRequest(session_id=f"m{steps}", query="weather in Paris", max_steps=steps)
        _converse(cloud.target, start)
    loops = cloud.cloud.handler._loops
    assert len(loops) <= MAX_LOOPS
    assert all(tools <= set(DEVICE_TOOLS) for tools, _ in loops)


def test_an_oversized_device_tool_list_is_invalid(cloud: Any) -> None:
    start = pb.ReasonRequest(session_id="s", query="weather in Paris", device_tools=["t"] * 1000)
    with pytest.raises(grpc.RpcError) as refused:
        _converse(cloud.target, start)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
