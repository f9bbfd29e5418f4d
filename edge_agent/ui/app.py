"""The device page: a Starlette app over a :class:`DeviceConsole`.

    GET  /                         the page (every panel rendered on the server)
    GET  /events                   server-sent events: a panel's new HTML each time it changes
    POST /ask        query=...     ask the device (as ``edge-agent ask``); 202
    POST /approve    session_id, act_id, decision=approve|deny
    POST /receipts/{session}/verify   recompute the digest; the verdict as HTML
    POST /sync                     sync memory with the cloud now
    POST /pending/resolve          ask the cloud the pending queries again, then sync
    GET  /static/...               the stylesheet and the vendored htmx files

htmx (vendored, no build step) posts the forms and swaps each panel's HTML from the
event stream into place; nothing else runs in the browser.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from edge_agent.ui.device import DeviceConsole, Verification
from edge_agent.ui.events import Broadcaster, PollErrors, panel_stream
from edge_agent.ui.live import LiveSession, SessionBook
from edge_agent.ui.pages import make_environment

STATIC_DIR = Path(__file__).parent / "static"
DEVICE_PANELS = ("sessions", "approvals", "sync", "memory")
MEMORY_POLL_S = 1.0
MAX_FORM_BYTES = 64 * 1024
_ENV = make_environment()


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


async def _render_device_panel(console: DeviceConsole, name: str) -> str:
    context: dict[str, Any] = {"verify_url": verify_url}
    if name == "sessions":
        context["sessions"] = console.book.recent()
    elif name == "approvals":
        context["approvals"] = console.book.waiting()
    elif name == "sync":
        context["sync"] = console.sync
    elif name == "memory":
        context["memory"] = await console.memory_view()
    else:
        raise KeyError(name)
    return _ENV.get_template(f"_{name}.html").render(**context)


def device_app(console: DeviceConsole) -> Starlette:
    """The device page's ASGI app (wrap it in ``AccessGuard``, as :class:`UiServer` does)."""

    async def render(name: str) -> str:
        return await _render_device_panel(console, name)

    async def page(request: Request) -> HTMLResponse:
        panels = {name: await render(name) for name in DEVICE_PANELS}
        html = _ENV.get_template("device_page.html").render(panels=panels)
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        return event_response(console.broadcaster, DEVICE_PANELS, render)

    async def ask(request: Request) -> Response:
        try:
            form = await form_fields(request)
            session = console.ask(form.get("query", ""))
        except ValueError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        return PlainTextResponse(session.session_id, status_code=202)

    async def approve(request: Request) -> Response:
        try:
            form = await form_fields(request)
        except ValueError as exc:
            return PlainTextResponse(str(exc), status_code=400)
        decision = form.get("decision", "")
        if decision not in ("approve", "deny"):
            return PlainTextResponse("decision must be approve or deny", status_code=400)
        try:
            console.approve(
                form.get("session_id", ""),
                form.get("act_id", ""),
                decision == "approve",
            )
        except KeyError as exc:
            return PlainTextResponse(str(exc.args[0]), status_code=404)
        return PlainTextResponse("", status_code=202)

    async def sync_now(request: Request) -> Response:
        try:
            state = await console.sync_now()
        except KeyError as exc:
            return PlainTextResponse(str(exc.args[0]), status_code=409)
        if state.error:
            return PlainTextResponse(state.error, status_code=502)
        return PlainTextResponse("synced")

    async def resolve(request: Request) -> Response:
        count = await console.resolve_pending()
        return PlainTextResponse(f"{count} resolved")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        console.broadcaster.bind(asyncio.get_running_loop())
        watcher = asyncio.ensure_future(_watch_memory(console))
        try:
            yield
        finally:
            watcher.cancel()
            console.broadcaster.close()
            await console.close()

    return Starlette(
        routes=[
            Route("/", page),
            Route("/events", events),
            Route("/ask", ask, methods=["POST"]),
            Route("/approve", approve, methods=["POST"]),
            verify_route(console),
            Route("/sync", sync_now, methods=["POST"]),
            Route("/pending/resolve", resolve, methods=["POST"]),
            static_mount(),
        ],
        lifespan=lifespan,
    )


async def _watch_memory(console: DeviceConsole) -> None:
    """Memory written elsewhere (another process on the same file, a sync) shows up too,
    and so do the sessions other processes ran."""
    errors = PollErrors("the device page's memory watch")
    try:
        await console.adopt_stored()
    except Exception as error:  # a busy database: look again next time, and say so
        errors.failed(error)
    while True:
        await asyncio.sleep(MEMORY_POLL_S)
        try:
            if await console.memory_changed():
                console.broadcaster.publish("memory", "sync")
                if await console.adopt_stored():
                    console.broadcaster.publish("sessions", "approvals")
        except Exception as error:
            errors.failed(error)
        else:
            errors.succeeded()
