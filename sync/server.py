"""A stand-alone sync server (tests, demos, a home hub): the servicer + health + reflection.

The cloud mounts the same servicer on its own server with ``sync.service.add_sync_service``.

One way to start it: :func:`start_sync_server` returns a :class:`SyncServer` handle whose
``stop`` stops the server and closes the stores it opened; :class:`SyncServerThread` runs
the same in a background event loop for blocking code.

Example:
    >>> sync_server = await start_sync_server("/var/lib/edgeloop/memory", port=0)  # doctest: +SKIP
    >>> sync_server.port, ...; await sync_server.stop()  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import grpc

from edgeloop.transport.auth import Authorize, Principal, TokenAuth
from edgeloop.transport.binding import check_exposure
from edgeloop.transport.guards import CallGuard
from edgeloop.transport.loop import EventLoopThread
from edgeloop.transport.options import SERVER_OPTIONS
from edgeloop.transport.services import add_common_services
from sync.service import SERVICE_NAME, add_sync_service
from sync.userstores import UserStores


@dataclass(frozen=True)
class SyncServer:
    """A running stand-alone sync server: where it listens, and how to stop all of it."""

    server: grpc.aio.Server
    port: int
    stores: UserStores
    owns_stores: bool
    """True when :func:`start_sync_server` opened the stores (then ``stop`` closes them)."""

    async def stop(self, grace: float | None = None) -> None:
        """Stop the server (calls in flight get ``grace`` seconds), then close the stores
        it opened."""
        await self.server.stop(grace)
        if self.owns_stores:
            self.stores.close()


async def start_sync_server(
    root: str | Path | UserStores,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    tokens: dict[str, Principal] | None = None,
    authorize: Authorize | None = None,
) -> SyncServer:
    """Start a grpc.aio server with MemorySyncService, health and reflection.

    Args:
        root: the folder of per-user SQLite stores (or a UserStores, which stays the
            caller's to close).
        port: 0 picks a free port; the handle has the bound one.
        tokens: bearer token -> Principal; none means open localhost mode.
        authorize: a custom ``authorize(context)`` (overrides ``tokens``).

    Raises:
        OSError: ``host:port`` cannot be bound.
    """
    check_exposure(
        host,
        authenticated=bool(tokens) or authorize is not None,
        insecure=False,
        what="memory sync",
    )
    owns = not isinstance(root, UserStores)
    stores = UserStores(root) if not isinstance(root, UserStores) else root
    server = grpc.aio.server(options=SERVER_OPTIONS, interceptors=[CallGuard()])
    add_sync_service(server, stores.memory, authorize or TokenAuth(tokens).authorize)
    add_common_services(server, [SERVICE_NAME])
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        if owns:
            stores.close()
        raise OSError(f"cannot bind {host}:{port}")
    await server.start()
    return SyncServer(server, bound, stores, owns)


class SyncServerThread:
    """Runs a stand-alone sync server in a background event loop (a context manager).

    Example:
        >>> with SyncServerThread(tmp_path, tokens=tokens) as srv:  # doctest: +SKIP
        ...     sync_with(grpc.insecure_channel(srv.target), store, token="t")
    """

    def __init__(self, root: str | Path | UserStores, **options: Any) -> None:
        self.stores = root if isinstance(root, UserStores) else UserStores(root)
        self._options = options
        self._loop: EventLoopThread | None = None
        self._running: SyncServer | None = None
        self.port = 0

    @property
    def target(self) -> str:
        """``127.0.0.1:<port>``."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> SyncServerThread:
        """Start the loop and the server."""
        self._loop = EventLoopThread()
        self._running = self._loop.run(start_sync_server(self.stores, **self._options))
        self.port = self._running.port
        return self

    @property
    def server(self) -> grpc.aio.Server | None:
        """The running grpc.aio server (None when stopped)."""
        return self._running.server if self._running is not None else None

    def stop(self) -> None:
        """Stop the server, the loop and close the stores."""
        if self._loop is not None:
            if self._running is not None:
                self._loop.run(self._running.stop(None))
                self._running = None
            self._loop.close()
            self._loop = None
        self.stores.close()

    def __enter__(self) -> SyncServerThread:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
