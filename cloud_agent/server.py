"""The contract's way to start the cloud reasoner: ``await serve(config)``.

The shared gRPC plumbing (options, health, reflection, credentials, auth) lives in
``edgeloop.transport``; the cloud's server itself is :class:`cloud_agent.service.CloudServer`.
"""

from __future__ import annotations

import grpc

from cloud_agent.config import CloudConfig


async def serve(config: CloudConfig | None = None) -> grpc.aio.Server:
    """Start the cloud reasoner for ``config`` (default: zero-config localhost) and return
    the running ``grpc.aio.Server``.

    ``cloud_agent.service.CloudServer`` is the richer handle (it also stops the worker
    threads, the metrics endpoint and the memory stores); this is the contract's shape.
    """
    from cloud_agent.service import CloudServer

    cloud = CloudServer(config or CloudConfig())
    await cloud.start()
    assert cloud.server is not None
    return cloud.server
