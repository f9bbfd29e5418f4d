"""A web page to watch the device agent think, served by ``edge-agent ui``.

Live (server-sent events): each session's steps as they run, its route decision,
approvals waiting with approve and deny buttons, receipts with "verify", memory and the
sync state; a query box asks as ``edge-agent ask`` does. Server-rendered HTML with htmx
vendored into the package: no build step, works offline. The same access rules as the
gRPC servers: loopback unless told otherwise, a bearer token beyond it.

Example:
    >>> console = DeviceConsole(agent)                              # doctest: +SKIP
    >>> access = UiAccess.checked("127.0.0.1", None)                # doctest: +SKIP
    >>> server = UiServer(device_app(console), access, 8765)         # doctest: +SKIP
    >>> await server.start(); print(server.url)                     # doctest: +SKIP
"""

from edge_agent.ui.app import device_app, serve_device_page
from edge_agent.ui.device import DeviceConsole, SyncState
from webui.access import AccessGuard, UiAccess, UiAccessError, is_loopback
from webui.events import Broadcaster, sse_event
from webui.live import LiveSession, SessionBook
from webui.pages import make_environment
from webui.routes import (
    Verification,
    VerifyingConsole,
    event_response,
    static_mount,
    verify_route,
    verify_url,
)
from webui.server import UiServer, page_url

__all__ = [
    "AccessGuard",
    "Broadcaster",
    "DeviceConsole",
    "LiveSession",
    "SessionBook",
    "SyncState",
    "UiAccess",
    "UiAccessError",
    "UiServer",
    "Verification",
    "VerifyingConsole",
    "device_app",
    "event_response",
    "is_loopback",
    "make_environment",
    "page_url",
    "serve_device_page",
    "sse_event",
    "static_mount",
    "verify_route",
    "verify_url",
]
