"""The README's first command: a walkthrough of the protocol on 127.0.0.1.

Foundation version: starts the cloud reasoner on a free loopback port, checks its health,
and streams a query's ReactSteps to a client, rendering each as it arrives.
"""

from __future__ import annotations

import asyncio
import uuid

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rich.console import Console

from cloud_agent.server import CLIENT_OPTIONS
from cloud_agent.service import start_server
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

console = Console()


async def run_demo() -> None:
    """Start the server, stream one session to a client, stop the server."""
    server, port = await start_server("127.0.0.1", 0)
    target = f"127.0.0.1:{port}"
    console.rule(f"cloud reasoner on {target}")
    try:
        async with grpc.aio.insecure_channel(target, options=CLIENT_OPTIONS) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            status = await health.Check(health_pb2.HealthCheckRequest(service=""))
            serving = health_pb2.HealthCheckResponse.ServingStatus.Name(status.status)
            console.print(f"health: {serving}")
            stub = pb_grpc.CloudReasonerServiceStub(channel)
            request = pb.ReasonRequest(session_id=uuid.uuid4().hex, query="hello from the edge")
            async for response in stub.Reason(request, timeout=10):
                step = response.step
                console.print(f"[bold]{pb.StepType.Name(step.step_type)}[/] {step.content}")
    finally:
        await server.stop(grace=1)


def main() -> None:
    """Entry point for ``python -m cloud_agent.demo``."""
    asyncio.run(run_demo())


if __name__ == "__main__":
    main()
