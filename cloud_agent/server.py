"""Start the cloud reasoner in one call: ``cloud = await serve(config)``.

The same as ``CloudServer(config)`` then ``await cloud.start()`` (what ``cloud-agent
serve``, the demo and the benches do, each with its own handling of a failed start). It
returns the :class:`~cloud_agent.service.CloudServer` handle, which stops everything it
started: the gRPC server (health first, then calls in flight within the grace period), the
handler's worker threads, the metrics endpoint and the memory stores. The shared gRPC
plumbing (options, health, reflection, credentials, auth) is ``edgeloop.transport``'s.

Example:
    >>> cloud = await serve(CloudConfig(port=0))  # doctest: +SKIP
    >>> cloud.port, ...; await cloud.stop()  # doctest: +SKIP
"""

from __future__ import annotations

from cloud_agent.config import CloudConfig
from cloud_agent.service import CloudServer


async def serve(config: CloudConfig | None = None) -> CloudServer:
    """Start the cloud reasoner for ``config`` (default: zero-config localhost) and return
    its handle (``.port``, ``.server``, ``await .stop()``, ``await .wait()``)."""
    cloud = CloudServer(config or CloudConfig())
    await cloud.start()
    return cloud
