"""The cloud's page: a Starlette app over a :class:`CloudConsole`.

    GET  /                            the page
    GET  /events                      server-sent events, one per changed panel
    GET  /devices?page=N              one page of the devices panel (newest first)
    POST /receipts/{session}/verify   recompute a receipt's digest; the verdict as HTML
    GET  /static/...                  the device page's stylesheet and vendored htmx

Served by ``cloud-agent serve --ui-port N`` beside the gRPC server, on the same host and
under the same rules (loopback unless told otherwise, ``--ui-token`` beyond it).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from cloud_agent.ui.console import SAMPLE_S, CloudConsole
from webui.events import PollErrors
from webui.pages import make_environment
from webui.routes import event_response, static_mount, verify_route, verify_url

CLOUD_PANELS = ("charts", "sessions", "devices", "backends", "memory")
_ENV = make_environment("cloud_agent.ui")


def render_cloud_panel(console: CloudConsole, name: str, page: int = 0) -> str:
    """One panel's HTML (``page``: which page of devices)."""
    context: dict[str, Any] = {}
    template = f"_{name}.html"
    if name == "sessions":
        context = {"sessions": console.book.recent(), "verify_url": verify_url}
    elif name == "devices":
        devices, pages = console.device_page(page)
        context = {
            "devices": devices,
            "page": min(max(page, 0), pages - 1),
            "pages": pages,
            "total": len(console.devices),
        }
    elif name == "backends":
        context = {"backends": console.backends()}
    elif name == "charts":
        context = {
            "charts": list(console.charts.values()),
            "outcomes": console.outcomes,
            "error_codes": console.error_codes,
        }
    elif name == "memory":
        stores = console.cloud.memory_stores
        context = {"memory": None if stores is None else console.memory}
        template = "_cloud_memory.html"
    else:
        raise KeyError(name)
    return _ENV.get_template(template).render(**context)


def cloud_app(console: CloudConsole) -> Starlette:
    """The cloud page's ASGI app (``UiServer`` wraps it in the access guard)."""

    async def render(name: str) -> str:
        return render_cloud_panel(console, name)

    async def page(request: Request) -> HTMLResponse:
        panels = {name: render_cloud_panel(console, name) for name in CLOUD_PANELS}
        html = _ENV.get_template("cloud_page.html").render(panels=panels)
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        return event_response(console.broadcaster, CLOUD_PANELS, render)

    async def devices(request: Request) -> HTMLResponse:
        """GET /devices?page=N: one page of the devices panel (the live panel shows the
        first; older pages are fetched when asked for)."""
        raw = request.query_params.get("page", "0")
        page = int(raw) if raw.isdigit() and len(raw) < 7 else 0
        html = render_cloud_panel(console, "devices", page)
        return HTMLResponse(html, headers={"Cache-Control": "no-store"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        console.broadcaster.bind(asyncio.get_running_loop())
        await console.refresh_memory()
        sampler = asyncio.ensure_future(_sample(console))
        try:
            yield
        finally:
            sampler.cancel()
            console.broadcaster.close()

    return Starlette(
        routes=[
            Route("/", page),
            Route("/events", events),
            Route("/devices", devices),
            verify_route(console),
            static_mount(),
        ],
        lifespan=lifespan,
    )


async def _sample(console: CloudConsole) -> None:
    """Figures and memory, once every ``SAMPLE_S``."""
    errors = PollErrors("the cloud page's sampling")
    while True:
        await asyncio.sleep(SAMPLE_S)
        try:  # a busy store: look again next time, and say so in the log once
            console.sample()
            changed = await console.refresh_memory()
            console.broadcaster.publish("charts", "backends", *(["memory"] if changed else []))
        except Exception as error:
            errors.failed(error)
        else:
            errors.succeeded()


async def serve_page(
    cloud: Any,
    port: int,
    *,
    token: str | None = None,
    host: str | None = None,
) -> Any:
    """Start the page of a started ``CloudServer`` on its host (TLS when it has TLS) and
    return the running ``edge_agent.ui.UiServer``.

    Raises:
        UiAccessError: beyond loopback without a token.
        OSError: the port cannot be bound.
    """
    from webui.access import UiAccess
    from webui.server import UiServer

    access = UiAccess.checked(host or cloud.config.host, token)
    console = CloudConsole(cloud)
    server = UiServer(
        cloud_app(console),
        access,
        port,
        tls_cert=cloud.config.tls_cert,
        tls_key=cloud.config.tls_key,
        before_stop=console.broadcaster.close,
    )
    await server.start()
    return server
