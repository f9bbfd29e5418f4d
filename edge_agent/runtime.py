"""The device runtime: one long-running process that keeps time and keeps the model loaded.

``edge-agent run`` hosts the :class:`~edge_agent.service.EdgeAgentServicer` (gRPC: Ask,
Approve, WatchEvents, SettleTimer), optionally the device page, and a
:class:`~edge_agent.ringer.TimerRinger`; it prints each device event on its terminal. It
leaves a *runtime file* beside the memory (``edge.db.runtime``: its pid, gRPC address and
the socket of its quick door, :mod:`edge_agent.ask_socket`), so that ``edge-agent ask`` on
the same memory asks through it (no model load, no grpc import) instead of starting
cold. ``serve``, ``ui`` and ``chat`` start a ringer too: timers ring whichever of them
runs, once (the claim is in the memory file).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from edge_agent.device_events import EventHub
from edge_agent.ringer import MISSED_AFTER_S, TimerRinger
from edge_agent.runtime_file import announce, withdraw
from edgeloop.v1 import agent_pb2 as pb

if TYPE_CHECKING:
    from edge_agent.agent import EdgeAgent
    from edge_agent.ask_socket import AskSocket

log = logging.getLogger(__name__)

#: How often the runtime looks for a sync another process made.
SYNC_POLL_S = 1.0


def action_runner(agent: EdgeAgent) -> Callable[[str, dict[str, Any], str], dict[str, Any]]:
    """Runs a timer's scheduled command with :func:`understanding.tools.scheduled.run_due_action`
    (the device's checked tool executor, keyed on the timer, so a command runs once even if
    two processes raced past the claim; only the tools a timer may call)."""
    from understanding.tools.scheduled import run_due_action

    def run(tool: str, arguments: dict[str, Any], timer_id: str) -> dict[str, Any]:
        timer = {"timer_id": timer_id, "action": {"tool": tool, "arguments": arguments}}
        return run_due_action(agent.memory, timer)

    return run


@dataclass
class DeviceRuntime:
    """The agent with its event hub and timer ringer (what every long-running process has)."""

    agent: EdgeAgent
    hub: EventHub = field(default_factory=EventHub)
    missed_after_s: float = MISSED_AFTER_S
    ringer: TimerRinger = field(init=False)
    _stop: threading.Event = field(init=False, default_factory=threading.Event)
    _watcher: threading.Thread | None = field(init=False, default=None)
    _seen_sync: dict[str, Any] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.agent.events = self.hub
        self.ringer = TimerRinger(
            self.agent.memory,
            self.hub,
            run_action=action_runner(self.agent),
            missed_after_s=self.missed_after_s,
        )
        self.agent.ringer = self.ringer  # "stop", "snooze for 5 minutes" by voice

    def start(self) -> None:
        """Start ringing timers, and watching for syncs."""
        self.ringer.start()
        self._stop.clear()
        self._seen_sync = self._last_sync()
        self._watcher = threading.Thread(target=self._watch_syncs, name="sync-watch", daemon=True)
        self._watcher.start()

    def stop(self) -> None:
        """Stop ringing timers and watching."""
        self.ringer.stop()
        self._stop.set()
        if self._watcher is not None:
            self._watcher.join(5)

    def _last_sync(self) -> dict[str, Any] | None:
        try:
            return self.agent.memory.last_sync()
        except Exception:  # a closed or busy store: look again later
            return None

    def _watch_syncs(self) -> None:
        """A sync by any process on this memory (`edge-agent sync`, the page, `pending
        --cloud`) is announced once, as SYNC_DONE."""
        from edge_agent.device_events import device_event

        while not self._stop.wait(SYNC_POLL_S):
            last = self._last_sync()
            if last is None or last == self._seen_sync:
                continue
            self._seen_sync = last
            sent, received = last.get("bytes_sent", 0), last.get("bytes_received", 0)
            text = f"Memory synced with the cloud ({sent} bytes sent, {received} received)."
            self.hub.publish(device_event(pb.DEVICE_EVENT_KIND_SYNC_DONE, text))


@dataclass
class PageOptions:
    """The device page a runtime hosts beside the gRPC service."""

    port: int
    access: Any  # edge_agent.ui.UiAccess
    cloud: str | None = None
    token: str | None = None
    tls_root: str | None = None


def terminal_line(event: pb.DeviceEvent) -> str:
    """How the terminal announces an event ("timer fired: Time's up: ...")."""
    from edge_agent.device_events import KIND_NAMES

    return f"{KIND_NAMES.get(event.kind, 'event')}: {event.text}"


async def host(
    runtime: DeviceRuntime,
    memory: Path,
    *,
    address: tuple[str, int],
    insecure: bool = False,
    page: PageOptions | None = None,
    cloud: str | None = None,
    say: Callable[[str], None] = print,
) -> None:
    """Serve the runtime (gRPC, the page if asked) until cancelled; ring timers meanwhile
    and announce every event with ``say``. Raises OSError/ValueError when it cannot bind."""
    from edge_agent.service import serve

    console = None
    if page is not None:
        from edge_agent.ui import DeviceConsole

        console = DeviceConsole(
            runtime.agent,
            cloud=page.cloud,
            token=page.token,
            tls_root=page.tls_root,
            runtime=runtime,
        )
    server = await serve(
        runtime.agent,
        address[0],
        address[1],
        insecure=insecure,
        runtime=runtime,
        track=console.track if console is not None else None,
    )
    ui = None
    try:
        if console is not None and page is not None:
            from edge_agent.ui import UiServer, device_app

            ui = UiServer(
                device_app(console), page.access, page.port, before_stop=console.broadcaster.close
            )
            await ui.start()
        key = runtime.hub.subscribe(lambda event: say(terminal_line(event)))
        grpc_address = f"{address[0]}:{server.port}"
        door = _open_door(memory, grpc_address)
        announce(memory, grpc_address, cloud, str(door.path) if door is not None else None)
        say(f"edge agent runtime serving on {grpc_address}")
        if ui is not None:
            say(f"edge agent page on {ui.url}")
        runtime.start()  # after those lines: a timer missed meanwhile is announced after them
        try:
            await server.wait()
        finally:
            runtime.hub.unsubscribe(key)
            withdraw(memory)
            if door is not None:
                door.close()
    finally:
        runtime.stop()
        if ui is not None:
            await ui.stop()
        await server.stop(2)


def _open_door(memory: Path, grpc_address: str) -> AskSocket | None:
    """The runtime's quick door for `edge-agent ask`, or None (logged) when no socket can
    be made there (or the platform has no Unix sockets): asks then go through gRPC, only
    slower."""
    import socket

    if not hasattr(socket, "AF_UNIX"):
        return None
    from edge_agent.ask_socket import AskSocket

    try:
        return AskSocket.open(memory, grpc_address)
    except OSError as exc:
        log.warning("no quick door for `edge-agent ask` beside %s: %s", memory, exc)
        return None
