"""The device page: a Starlette app over a :class:`DeviceConsole`.

    GET  /                         the page (every panel rendered on the server)
    GET  /events                   server-sent events: a panel's new HTML each time it changes
    POST /ask        query=...     ask the device (as ``edge-agent ask``); 202
    POST /approve    session_id, act_id, decision=approve|deny
    POST /receipts/{session}/verify   recompute the digest; the verdict as HTML
    POST /sync                     sync memory with the cloud now
    POST /pending/resolve          ask the cloud the pending queries again, then sync
    POST /timers/settle  timer_id, answer=dismiss|snooze   a ringing timer
    GET  /static/...               the stylesheet and the vendored htmx files

htmx (vendored, no build step) posts the forms and swaps each panel's HTML from the
event stream into place; nothing else runs in the browser.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Route

from edge_agent.ui.device import DeviceConsole
from webui.access import UiAccess
from webui.events import PollErrors
from webui.pages import make_environment
from webui.routes import event_response, form_fields, static_mount, verify_route, verify_url
from webui.server import UiServer

DEVICE_PANELS = ("sessions", "approvals", "sync", "memory", "ringing")
MEMORY_POLL_S = 1.0
_ENV = make_environment("edge_agent.ui")


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
    elif name == "ringing":
        context["ringing"] = await asyncio.to_thread(console.ringing)
        context["events"] = list(console.events)
        context["keeps_time"] = console.runtime is not None
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
            session = console.ask(form.get("query", ""), form.get("session_id", ""))
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

    async def settle(request: Request) -> Response:
        try:
            form = await form_fields(request)
            text = await console.settle(form.get("timer_id", ""), form.get("answer", ""))
        except ValueError as exc:
            return PlainTextResponse(str(exc), status_code=404 if "no" in str(exc) else 400)
        return PlainTextResponse(text)

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
            Route("/timers/settle", settle, methods=["POST"]),
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


async def serve_device_page(
    console: DeviceConsole,
    port: int = 0,
    access: UiAccess | None = None,
    *,
    tls_cert: str | None = None,
    tls_key: str | None = None,
) -> UiServer:
    """Serve the device page over ``console`` and return the started server (the one way
    ``edge-agent ui``, the demo and the tests start it). Loopback unless ``access`` says
    otherwise; ``port`` 0 picks a free one (``server.url`` says which)."""
    server = UiServer(
        device_app(console),
        access or UiAccess.checked("127.0.0.1", None),
        port,
        tls_cert=tls_cert,
        tls_key=tls_key,
        before_stop=console.broadcaster.close,
    )
    await server.start()
    return server
