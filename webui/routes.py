"""Routes and responses both pages serve: static files, event streams, forms, receipt checks.

The device's page (``edge_agent.ui``) and the cloud's (``cloud_agent.ui``) mount these, so a
receipt is verified and a form is read the same way on either side.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import parse_qsl

from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from webui.events import Broadcaster, panel_stream
from webui.live import LiveSession, SessionBook
from webui.pages import make_environment

STATIC_DIR = Path(__file__).parent / "static"
MAX_FORM_BYTES = 64 * 1024
_ENV = make_environment()


@dataclass(frozen=True)
class Verification:
    """What "verify" found for a receipt: the stored and recomputed digests, any problems."""

    receipt_id: str
    stored_digest: str
    recomputed_digest: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """True when the digest matches and the steps back every piece of evidence."""
        return not self.problems


def static_mount() -> Mount:
    """The page's stylesheet and vendored scripts (shared with the cloud's page)."""
    return Mount("/static", app=StaticFiles(directory=STATIC_DIR), name="static")


def event_response(
    broadcaster: Broadcaster, panels: tuple[str, ...], render: Callable[[str], Awaitable[str]]
) -> Response:
    """A text/event-stream of ``panels`` that never gets cached or buffered; 503 when
    ``MAX_STREAMS`` pages are open already."""
    inbox = broadcaster.subscribe()
    if inbox is None:
        return PlainTextResponse(
            f"{broadcaster.max_streams} pages are open already; close one", status_code=503
        )
    return StreamingResponse(
        panel_stream(broadcaster, panels, render, inbox),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


async def form_fields(request: Request) -> dict[str, str]:
    """A urlencoded form (what htmx posts), without a multipart parser; read chunk by
    chunk and refused as soon as it passes ``MAX_FORM_BYTES`` (never read whole first)."""
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_FORM_BYTES:
                raise ValueError("the form is too large")
    except ClientDisconnect:  # the access guard cut a body streamed past its limit
        raise ValueError("the form is too large") from None
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def verify_url(session: LiveSession) -> str:
    """Where a session's "verify" button posts (``verify_route`` serves it)."""
    return f"/receipts/{session.session_id}/verify"


class VerifyingConsole(Protocol):
    """What the verify route needs of a page's console (the device's or the cloud's)."""

    book: SessionBook

    async def verify(self, session_id: str) -> Verification: ...


def verify_route(console: VerifyingConsole) -> Route:
    """POST /receipts/{session_id}/verify: recompute a receipt; the verdict as HTML.

    Both pages serve it, so a receipt is checked the same way on either side.
    """

    async def verify(request: Request) -> Response:
        session_id = request.path_params["session_id"]
        try:
            check = await console.verify(session_id)
        except KeyError as exc:
            return PlainTextResponse(str(exc.args[0]), status_code=404)
        session = console.book.get(session_id)
        if session is not None:
            session.verification = check
        return HTMLResponse(_ENV.get_template("_verify.html").render(check=check))

    return Route("/receipts/{session_id}/verify", verify, methods=["POST"])
