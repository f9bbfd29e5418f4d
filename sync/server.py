"""A stand-alone sync server (tests, demos, a home hub): the servicer + health + reflection.

The cloud mounts the same servicer on its own server with ``sync.service.add_sync_service``.

Example:
    >>> server, port = await start_sync_server("/var/lib/edgeloop/memory", port=0)  # doctest: +SKIP
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

import grpc

from edgeloop.transport.auth import Authorize, Principal, TokenAuth
from edgeloop.transport.loop import EventLoopThread
from edgeloop.transport.options import SERVER_OPTIONS
from edgeloop.transport.services import add_common_services
from sync.service import SERVICE_NAME, add_sync_service
from sync.userstores import UserStores


async def start_sync_server(
    root: str | Path | UserStores,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    tokens: dict[str, Principal] | None = None,
    authorize: Authorize | None = None,
) -> tuple[grpc.aio.Server, int]:
    """Start a grpc.aio server with MemorySyncService, health and reflection.

    Args:
        root: the folder of per-user SQLite stores (or a UserStores).
        port: 0 picks a free port; the bound port is returned.
        tokens: bearer token -> Principal; none means open localhost mode.
        authorize: a custom ``authorize(context)`` (overrides ``tokens``).
    """
    stores = root if isinstance(root, UserStores) else UserStores(root)
    server = grpc.aio.server(options=SERVER_OPTIONS)
    add_sync_service(server, stores.memory, authorize or TokenAuth(tokens).authorize)
    add_common_services(server, [SERVICE_NAME])
    bound = server.add_insecure_port(f"{host}:{port}")
    await server.start()
    return server, bound


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
        self.server: grpc.aio.Server | None = None
        self.port = 0

    @property
    def target(self) -> str:
        """``127.0.0.1:<port>``."""
        return f"127.0.0.1:{self.port}"

    def start(self) -> SyncServerThread:
        """Start the loop and the server."""
        self._loop = EventLoopThread()
        self.server, self.port = self._loop.run(start_sync_server(self.stores, **self._options))
        return self

    def stop(self) -> None:
        """Stop the server, the loop and close the stores."""
        if self._loop is not None:
            if self.server is not None:
                self._loop.run(self.server.stop(None))
                self.server = None
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
