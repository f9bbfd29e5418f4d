"""Live updates: which panels changed, pushed to every open page as server-sent events.

The agent runs in worker threads; :meth:`Broadcaster.publish` may be called from any of
them. Each open page has a queue of panel names; its event stream coalesces what queued
up and sends each changed panel once, re-rendered whole (a page that missed an event is
right again at the next one, and a reconnecting page gets every panel).

Example:
    >>> sse_event("memory", "<p>a</p>\\n<p>b</p>")
    'event: memory\\ndata: <p>a</p>\\ndata: <p>b</p>\\n\\n'
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

log = logging.getLogger(__name__)
KEEPALIVE_S = 15.0
MAX_STREAMS = 16
PACE_S = 0.5
"""The shortest time between two rounds of changes sent to one page."""
"""Event streams (open pages) a server keeps at once; more are refused with 503."""


def sse_event(name: str, data: str) -> str:
    """One server-sent event (each line of ``data`` on a ``data:`` line of its own)."""
    lines = data.splitlines() or [""]
    return f"event: {name}\n" + "".join(f"data: {line}\n" for line in lines) + "\n"


class Inbox:
    """One page's changed panels: a set, so however many notices arrive between two reads
    it holds each panel once (bounded by the number of panels, never by the traffic)."""

    def __init__(self) -> None:
        self.pending: set[str] = set()
        self.closed = False
        self.ready = asyncio.Event()

    def put(self, panels: Iterable[str | None]) -> None:
        for panel in panels:
            if panel is None:
                self.closed = True
            else:
                self.pending.add(panel)
        self.ready.set()

    def take(self) -> set[str]:
        taken, self.pending = self.pending, set()
        self.ready.clear()
        return taken


class Broadcaster:
    """Fans "panel changed" notices out to every subscribed page; thread-safe."""

    def __init__(self, max_streams: int = MAX_STREAMS) -> None:
        self.max_streams = max_streams
        self._loop: asyncio.AbstractEventLoop | None = None
        self._inboxes: set[Inbox] = set()
        self._lock = threading.Lock()
        self._closed = False

    def bind(self, loop: asyncio.AbstractEventLoop) -> None:
        """The event loop the pages are served on (set when the app starts)."""
        self._loop = loop
        self._closed = False

    def publish(self, *panels: str) -> None:
        """Tell every page that ``panels`` changed (from any thread)."""
        loop = self._loop
        if loop is None or loop.is_closed() or not panels:
            return
        with contextlib.suppress(RuntimeError):  # the loop is shutting down
            loop.call_soon_threadsafe(self._put, panels)

    def _put(self, panels: Iterable[str | None]) -> None:
        with self._lock:
            inboxes = list(self._inboxes)
        for inbox in inboxes:
            inbox.put(panels)

    def close(self) -> None:
        """End every open stream (the server is stopping)."""
        self._closed = True
        if self._loop is not None and not self._loop.is_closed():
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._put, [None])

    def subscribe(self) -> Inbox | None:
        """A page's inbox of changed panels, registered now (nothing after this is missed);
        None when ``max_streams`` are open already."""
        inbox = Inbox()
        with self._lock:
            if len(self._inboxes) >= self.max_streams:
                return None
            self._inboxes.add(inbox)
        return inbox

    async def changes(self, inbox: Inbox) -> AsyncIterator[set[str]]:
        """Sets of changed panels from a subscribed inbox; an empty set every ``KEEPALIVE_S``."""
        while not self._closed:
            try:
                await asyncio.wait_for(inbox.ready.wait(), KEEPALIVE_S)
            except TimeoutError:
                yield set()
                continue
            changed = inbox.take()
            if inbox.closed:
                return
            yield changed

    def unsubscribe(self, inbox: Inbox) -> None:
        """Forget a page's inbox (its stream ended)."""
        with self._lock:
            self._inboxes.discard(inbox)


async def panel_stream(
    broadcaster: Broadcaster,
    panels: Iterable[str],
    render: Callable[[str], Awaitable[str]],
    inbox: Inbox | None = None,
) -> AsyncIterator[str]:
    """The text of one page's event stream: every panel first, then each change. A panel
    whose HTML is what this page got last is not sent again, and a page gets at most one
    round of changes every ``PACE_S`` (what changed meanwhile is sent once, as it is then):
    a busy fleet costs a page a few renders a second, not one per session event."""
    names = list(panels)
    inbox = inbox or broadcaster.subscribe()
    if inbox is None:
        return
    sent: dict[str, str] = {}
    try:
        yield "retry: 2000\n\n"
        for name in names:
            sent[name] = await render(name)
            yield sse_event(name, sent[name])
        async for changed in broadcaster.changes(inbox):
            if not changed:
                yield ": keepalive\n\n"
            for name in names:
                if name in changed:
                    html = await render(name)
                    if html != sent.get(name):
                        sent[name] = html
                        yield sse_event(name, html)
            if changed:
                await asyncio.sleep(PACE_S)
    finally:
        broadcaster.unsubscribe(inbox)


class PollErrors:
    """A page's polling loop's failures: each new one logged once (with its traceback),
    never swallowed in silence, and not repeated every second while it lasts."""

    def __init__(self, what: str) -> None:
        self.what = what
        self.last = ""

    def failed(self, error: Exception) -> None:
        """The loop's pass failed with ``error``: log it unless it is the same as before."""
        key = f"{type(error).__name__}: {error}"
        if key != self.last:
            log.warning("%s failed (tried again each pass): %s", self.what, key, exc_info=error)
            self.last = key

    def succeeded(self) -> None:
        """The loop's pass worked: say so once after a failure."""
        if self.last:
            log.info("%s works again", self.what)
            self.last = ""
