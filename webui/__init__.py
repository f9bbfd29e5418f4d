"""The web plumbing both pages share: access rules, the server, event streams, live sessions.

The device's page (``edge_agent.ui``) and the cloud's (``cloud_agent.ui``) are built on
these; neither agent imports the other's page. Loopback unless told otherwise, a bearer
token beyond it (:class:`UiAccess`).
"""

from webui.access import AccessGuard, UiAccess, UiAccessError, is_loopback
from webui.events import Broadcaster, sse_event
from webui.live import LiveSession, SessionBook
from webui.memory_view import read_memory
from webui.pages import make_environment
from webui.routes import (
    Verification,
    VerifyingConsole,
    event_response,
    form_fields,
    static_mount,
    verify_route,
    verify_url,
)
from webui.server import UiServer, page_url

__all__ = [
    "AccessGuard",
    "Broadcaster",
    "LiveSession",
    "SessionBook",
    "UiAccess",
    "UiAccessError",
    "UiServer",
    "Verification",
    "VerifyingConsole",
    "event_response",
    "form_fields",
    "is_loopback",
    "make_environment",
    "page_url",
    "read_memory",
    "sse_event",
    "static_mount",
    "verify_route",
    "verify_url",
]
