"""EdgeAgentService over real gRPC on 127.0.0.1: Ask, Approve, GetSession, health."""

from __future__ import annotations

import asyncio
from datetime import datetime

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from edge_agent.agent import EdgeAgent
from edge_agent.errors import QueryError
from edge_agent.service import KERNEL_STATUS, SERVICE_NAME, serve, session_state
from edgeloop.transport.status import status_for
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel import ResumeError, SessionError
from sync.store import MemoryStore
from understanding.router import Router


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (ResumeError("x"), grpc.StatusCode.NOT_FOUND),
        (SessionError("x"), grpc.StatusCode.FAILED_PRECONDITION),
        (QueryError("x"), grpc.StatusCode.INVALID_ARGUMENT),
        (ValueError("a bug"), grpc.StatusCode.INTERNAL),  # not the client's mistake
        (KeyError("a bug"), grpc.StatusCode.INTERNAL),
        (RuntimeError("x"), grpc.StatusCode.INTERNAL),
    ],
)
def test_error_status_table(error: Exception, code: grpc.StatusCode) -> None:
    assert status_for(error, extra=KERNEL_STATUS).code == code


def test_session_states() -> None:
    assert session_state("finished") == pb.SESSION_STATE_COMPLETED
    assert session_state("awaiting_approval") == pb.SESSION_STATE_INPUT_REQUIRED
    assert session_state("") == pb.SESSION_STATE_UNSPECIFIED


def test_service_end_to_end(memory: MemoryStore, stub_router: Router, fixed_now: datetime) -> None:
    agent = EdgeAgent(memory, stub_router, now=lambda: fixed_now)

    async def scenario() -> None:
        server = await serve(agent, "127.0.0.1", 0)
        port = server.port
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.EdgeAgentServiceStub(channel)
                health = health_pb2_grpc.HealthStub(channel)
                status = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME))
                assert status.status == health_pb2.HealthCheckResponse.SERVING

                steps = [r.step async for r in stub.Ask(pb.AskRequest(query="time in tokyo"))]
                assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
                assert steps[-1].content == "It's 21:00 on Monday 2026-06-01 in Tokyo (Asia/Tokyo)."
                session = await stub.GetSession(
                    pb.GetSessionRequest(session_id=steps[-1].session_id)
                )
                assert session.state == pb.SESSION_STATE_COMPLETED
                assert len(session.steps) == len(steps)
                assert session.receipt.receipt_id == steps[-1].receipt_id

                asked = [r.step async for r in stub.Ask(pb.AskRequest(query="unlock the door"))]
                request = asked[-1]
                assert request.step_type == pb.STEP_TYPE_APPROVAL_REQUEST
                approved = await stub.Approve(
                    pb.ApproveRequest(
                        session_id=request.session_id, act_id=request.act_id, approved=True
                    )
                )
                assert approved.steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER

                with pytest.raises(grpc.aio.AioRpcError) as empty:
                    _ = [r async for r in stub.Ask(pb.AskRequest(query=" "))]
                assert empty.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                with pytest.raises(grpc.aio.AioRpcError) as missing:
                    await stub.GetSession(pb.GetSessionRequest(session_id="nope"))
                assert missing.value.code() == grpc.StatusCode.NOT_FOUND
                with pytest.raises(grpc.aio.AioRpcError) as unknown:
                    await stub.Approve(
                        pb.ApproveRequest(session_id="nope", act_id="x", approved=True)
                    )
                assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
        finally:
            await server.stop(None)

    asyncio.run(scenario())
