"""Serving a page's ASGI app with uvicorn: on its own, beside a gRPC server, or in tests.

:class:`UiServer` binds its socket itself (so port 0 gives the bound port at once and a
taken port is an ``OSError`` before anything starts), serves over TLS when given a
certificate, and never touches the process's signal handlers: the command that embeds it
decides how to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable, Generator
from typing import Any

import uvicorn

from edgeloop.transport.binding import check_port
from webui.access import AccessGuard, ASGIApp, UiAccess


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its own signal handling (the caller's loop owns the signals)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port``; raises OSError if it cannot be bound (or
    the port is out of range: getaddrinfo would wrap 99999 into another port)."""
    try:
        check_port(port)
    except ValueError as exc:
        raise OSError(str(exc)) from None
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock


def page_url(host: str, port: int, *, tls: bool = False) -> str:
    """The address to open in a browser."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"{'https' if tls else 'http'}://{shown}:{port}/"


class UiServer:
    """One page's HTTP server on ``access.host:port``, guarded by ``access``.

    Args:
        app: the page's ASGI app (``device_app`` or the cloud's).
        access: the host and token rules (:meth:`UiAccess.checked`).
        port: the port (0 picks a free one).
        tls_cert, tls_key: PEM files: serve HTTPS.
        before_stop: called first when stopping (ends the pages' event streams).
    """

    def __init__(
        self,
        app: ASGIApp,
        access: UiAccess,
        port: int,
        *,
        tls_cert: str | None = None,
        tls_key: str | None = None,
        before_stop: Callable[[], None] | None = None,
    ) -> None:
        self.access = access
        self._before_stop = before_stop
        self.tls = bool(tls_cert and tls_key)
        self._socket = bind_socket(access.host, port)
        self.port: int = self._socket.getsockname()[1]
        options: dict[str, Any] = {}
        if self.tls:
            options = {"ssl_certfile": tls_cert, "ssl_keyfile": tls_key}
        config = uvicorn.Config(
            AccessGuard(app, access),
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=1,
            **options,
        )
        self._server = _EmbeddedServer(config)
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """The page's address."""
        return page_url(self.access.host, self.port, tls=self.tls)

    async def start(self) -> None:
        """Start serving on the running loop; return once the app has started."""
        self._task = asyncio.ensure_future(self._server.serve(sockets=[self._socket]))
        while not self._server.started:
            if self._task.done():  # failed while starting: raise its error
                self._task.result()
                raise OSError("the page's server stopped while starting")
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        """Stop serving (open event streams are ended)."""
        if self._before_stop is not None:
            self._before_stop()
        self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self._socket.close()

    async def wait(self) -> None:
        """Until the server stops."""
        if self._task is not None:
            await self._task
