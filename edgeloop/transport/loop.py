"""An asyncio event loop in a daemon thread, for blocking code that needs an async gRPC
server beside it (the demo, tests, a stand-alone sync server).

Example:
    >>> loop = EventLoopThread()
    >>> async def answer() -> int:
    ...     return 42
    >>> loop.run(answer())
    42
    >>> loop.close()
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class EventLoopThread:
    """An event loop running in its own daemon thread until :meth:`close`."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float = 30.0) -> T:
        """Run a coroutine on the loop and wait for its result."""
        return self.submit(coroutine).result(timeout)

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start a coroutine on the loop; cancelling the future cancels it."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def close(self) -> None:
        """Stop the loop and its thread."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
