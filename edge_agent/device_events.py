"""The device's events (timers ringing, approvals waiting, pending answered, syncs done),
fanned out to every surface that listens: the terminal, the page, WatchEvents streams.

Publishers run in any thread (the timer ringer's, the agent's workers); each listener is
a callback that must return fast (an asyncio listener hands the event to its loop with
``call_soon_threadsafe``). A listener that raises is dropped from that event only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from datetime import datetime

from edgeloop.v1 import agent_pb2 as pb

log = logging.getLogger(__name__)
Listener = Callable[[pb.DeviceEvent], None]

#: Event kinds by the short names the page and the terminal use.
KIND_NAMES: dict[int, str] = {
    pb.DEVICE_EVENT_KIND_TIMER_FIRED: "timer fired",
    pb.DEVICE_EVENT_KIND_TIMER_MISSED: "timer missed",
    pb.DEVICE_EVENT_KIND_APPROVAL_WAITING: "approval waiting",
    pb.DEVICE_EVENT_KIND_PENDING_RESOLVED: "pending resolved",
    pb.DEVICE_EVENT_KIND_SYNC_DONE: "sync done",
    pb.DEVICE_EVENT_KIND_TIMER_DISMISSED: "timer dismissed",
    pb.DEVICE_EVENT_KIND_TIMER_SNOOZED: "timer snoozed",
}


def device_event(
    kind: pb.DeviceEventKind, text: str, *, at: datetime | None = None, **fields: str
) -> pb.DeviceEvent:
    """An event stamped now (or ``at``); ``fields`` are its string fields (timer_id, ...)."""
    event = pb.DeviceEvent(kind=kind, text=text)
    for name, value in fields.items():
        setattr(event, name, value)
    if at is None:
        event.at.GetCurrentTime()
    else:
        event.at.FromDatetime(at)
    return event


class EventHub:
    """Thread-safe fan-out of device events to the listeners subscribed now."""

    def __init__(self) -> None:
        self._listeners: dict[int, Listener] = {}
        self._next = 0
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> int:
        """Call ``listener`` with every event published from now on; returns its key."""
        with self._lock:
            self._next += 1
            self._listeners[self._next] = listener
            return self._next

    def unsubscribe(self, key: int) -> None:
        """Stop calling the listener ``key``."""
        with self._lock:
            self._listeners.pop(key, None)

    def publish(self, event: pb.DeviceEvent) -> None:
        """Hand ``event`` to every listener (from any thread)."""
        with self._lock:
            listeners = list(self._listeners.values())
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # one broken surface must not silence the others
                log.exception("a device event listener failed")

    def queue(self, loop: asyncio.AbstractEventLoop) -> tuple[int, asyncio.Queue[pb.DeviceEvent]]:
        """Subscribe an asyncio queue on ``loop`` (for a stream); returns its key and queue."""
        queue: asyncio.Queue[pb.DeviceEvent] = asyncio.Queue()

        def hand_over(event: pb.DeviceEvent) -> None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(queue.put_nowait, event)

        return self.subscribe(hand_over), queue
