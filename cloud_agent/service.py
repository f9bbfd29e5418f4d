"""The cloud reasoner service (foundation version: streams a fixed walk of ReactSteps).

The real reasoner (planner and LLM backends) replaces ``_foundation_steps`` in the cloud
issue; the server plumbing, health and reflection stay as they are.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc

from cloud_agent.server import SERVER_OPTIONS, add_common_services, service_full_name
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel.steps import new_act_id, to_struct


def _foundation_steps(request: pb.ReasonRequest) -> list[pb.ReactStep]:
    act_id = new_act_id()
    return [
        pb.ReactStep(
            step_type=pb.STEP_TYPE_THOUGHT,
            content=f"Received: {request.query}",
            session_id=request.session_id,
            turn_id=request.turn_id,
            origin=pb.ORIGIN_CLOUD,
        ),
        pb.ReactStep(
            step_type=pb.STEP_TYPE_ACTION,
            act_id=act_id,
            tool="echo",
            arguments=to_struct({"text": request.query}),
            session_id=request.session_id,
            turn_id=request.turn_id,
            origin=pb.ORIGIN_CLOUD,
        ),
        pb.ReactStep(
            step_type=pb.STEP_TYPE_OBSERVATION,
            act_id=act_id,
            tool="echo",
            status=pb.OBSERVATION_STATUS_OK,
            observation=to_struct({"text": request.query}),
            content=request.query,
            session_id=request.session_id,
            turn_id=request.turn_id,
            origin=pb.ORIGIN_CLOUD,
        ),
        pb.ReactStep(
            step_type=pb.STEP_TYPE_FINAL_ANSWER,
            content=request.query,
            session_id=request.session_id,
            turn_id=request.turn_id,
            origin=pb.ORIGIN_CLOUD,
        ),
    ]


class CloudReasonerServicer(pb_grpc.CloudReasonerServiceServicer):
    """Thin adapter from gRPC to the reasoner."""

    async def Reason(
        self,
        request: pb.ReasonRequest,
        context: grpc.aio.ServicerContext[pb.ReasonRequest, pb.ReasonResponse],
    ) -> AsyncIterator[pb.ReasonResponse]:
        if not request.query.strip():
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "query must not be empty")
        for index, step in enumerate(_foundation_steps(request)):
            step.step_index = index
            step.created_at.GetCurrentTime()
            step.latency_ms = 0.0
            yield pb.ReasonResponse(step=step)


async def start_server(host: str = "127.0.0.1", port: int = 50051) -> tuple[grpc.aio.Server, int]:
    """Start the cloud reasoner on ``host:port`` (port 0: a free one); return it and its port."""
    server = grpc.aio.server(options=SERVER_OPTIONS)
    pb_grpc.add_CloudReasonerServiceServicer_to_server(CloudReasonerServicer(), server)
    add_common_services(server, [service_full_name("CloudReasonerService")])
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot bind {host}:{port}")
    await server.start()
    return server, bound
