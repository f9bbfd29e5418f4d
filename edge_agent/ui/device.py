"""The device page's driver: asks, approves, verifies and syncs through the agent's own API.

Everything goes through :class:`~edge_agent.agent.EdgeAgent`: a query from the page is
``agent.ask`` (as ``edge-agent ask`` does), an approve or deny button is ``agent.approve``
(the path of the ``Approve`` RPC and of the terminal prompt), "resolve pending" is
``agent.resolve_pending`` and "sync" is ``sync.client.sync_with`` on the agent's memory
(as ``edge-agent pending --cloud`` and ``edge-agent sync`` do). The agent runs in worker
threads, one call at a time; each step lands in the :class:`SessionBook` and the pages
are told what changed.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from edgeloop.v1 import agent_pb2 as pb
from understanding.tools.timers import timer_rows
from webui.events import Broadcaster
from webui.live import (
    AWAITING_APPROVAL,
    FAILED,
    FINISHED,
    RUNNING,
    LiveSession,
    SessionBook,
)
from webui.memory_view import read_memory
from webui.routes import Verification

if TYPE_CHECKING:
    from edge_agent.agent import EdgeAgent
    from edge_agent.runtime import DeviceRuntime

T = TypeVar("T")

EVENTS_SHOWN = 10


@dataclass
class SyncState:
    """The last memory sync with the cloud, as the page shows it."""

    target: str = ""
    last_at: float | None = None
    rounds: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    error: str = ""
    vector_after: bytes = b""
    changed_since: bool = False


def _state(stored: str | None) -> str:
    """The page's state for a session state stored in memory."""
    if stored == "awaiting_approval":
        return AWAITING_APPROVAL
    if stored in ("finished", "completed"):  # "completed": stores before issue 28
        return FINISHED
    if stored in ("failed", "canceled"):
        return FAILED
    return RUNNING


def _epoch(stamp: str | None) -> float:
    """Seconds since the epoch of a stored ISO-8601 time (now if unreadable)."""
    from datetime import datetime

    try:
        return datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return time.time()


class DeviceConsole:
    """Drives one :class:`EdgeAgent` for the page and keeps what the page shows.

    Args:
        agent: the device's agent (its memory is the page's memory).
        cloud: the cloud's HOST:PORT for memory sync (None: no sync button).
        token, tls_root: the device's bearer token and CA for the cloud, as on the CLI.
        broadcaster: where changes are announced (one is made if not given).
    """

    def __init__(
        self,
        agent: EdgeAgent,
        *,
        cloud: str | None = None,
        token: str | None = None,
        tls_root: str | None = None,
        broadcaster: Broadcaster | None = None,
        runtime: DeviceRuntime | None = None,
    ) -> None:
        self.agent = agent
        self.runtime = runtime
        #: The device's latest events (timers rung, approvals, answers, syncs), newest first.
        self.events: deque[pb.DeviceEvent] = deque(maxlen=EVENTS_SHOWN)
        if runtime is not None:
            runtime.hub.subscribe(self._on_event)
        self.cloud = cloud
        self.token = token
        self.tls_root = tls_root
        self.broadcaster = broadcaster or Broadcaster()
        self.book = SessionBook()
        self.sync = SyncState(target=cloud or "")
        self._lock = threading.Lock()  # the agent and its memory: one call at a time
        self._tasks: set[asyncio.Task[Any]] = set()
        self._memory_mark: tuple[int, int] | None = None
        if cloud:
            self._update_sync_state()  # synced before this page started

    # -- device events ---------------------------------------------------------------------

    def _on_event(self, event: pb.DeviceEvent) -> None:
        """A device event (any thread): shown in the timers panel, which rings the page;
        an approval the page is not showing yet (a late pending query's side effect,
        being resolved) joins the approvals panel, where its buttons answer it."""
        self.events.appendleft(event)
        self.broadcaster.publish("ringing")
        if (
            event.kind == pb.DEVICE_EVENT_KIND_APPROVAL_WAITING
            and self.book.get(event.session_id) is None
            and self.agent.awaiting_cloud_approval(event.session_id, event.act_id)
        ):
            session = LiveSession(event.session_id, "a query kept pending while offline")
            session.add(
                pb.ReactStep(
                    step_type=pb.STEP_TYPE_APPROVAL_REQUEST,
                    session_id=event.session_id,
                    act_id=event.act_id,
                    content=event.text,
                )
            )
            self.book.open(session)
            self.broadcaster.publish("sessions", "approvals")

    def ringing(self) -> list[dict[str, Any]]:
        """The timers ringing now (not dismissed or snoozed), with their due time in words."""
        if self.runtime is None:
            return []
        from understanding.tools.timers import home_zone

        zone, _ = home_zone(self.agent.memory)
        shown = []
        for ring in self.runtime.ringer.ringing():
            due = datetime.fromisoformat(str(ring["due_at"])).astimezone(zone)
            shown.append({**ring, "due_clock": due.strftime("%H:%M")})
        return shown

    async def settle(self, timer_id: str, answer: str) -> str:
        """Dismiss or snooze a ringing timer (ValueError: none such, or a bad answer)."""
        if self.runtime is None:
            raise ValueError("this page keeps no time")
        ringer = self.runtime.ringer
        text, _new = await asyncio.to_thread(ringer.settle, timer_id, answer)
        self.broadcaster.publish("ringing", "memory")
        return text

    # -- running the agent -----------------------------------------------------------------

    async def _call(self, func: Callable[[], T]) -> T:
        def locked() -> T:
            with self._lock:
                return func()

        return await asyncio.to_thread(locked)

    def _background(self, coroutine: Any) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def ask(self, query: str, session_id: str = "") -> LiveSession:
        """Start a query (as ``edge-agent ask`` does); its steps stream to the pages. With
        the ``session_id`` of a session that asked back, the query answers its question
        (the session's next turn, shown in the same session).

        Raises ValueError for an empty query or a session waiting for no answer.
        """
        from edgeloop.limits import query_problem

        if (problem := query_problem(query)) is not None:
            raise ValueError(problem)
        text = " ".join(query.split())
        if session_id:
            shown = self.book.get(session_id)
            if shown is None or shown.question is None:
                raise ValueError(f"session {session_id} is not waiting for an answer")
            shown.state = RUNNING
            self._background(self._call(lambda: self._run_ask(shown, text)))
            self.broadcaster.publish("sessions")
            return shown
        session = self.book.open(LiveSession(uuid.uuid4().hex, text))
        self.broadcaster.publish("sessions")
        self._background(self._call(lambda: self._run_ask(session)))
        return session

    def _run_ask(self, session: LiveSession, text: str = "") -> None:
        try:
            for step in self.agent.ask(text or session.query, session_id=session.session_id):
                session.add(step)
                self.broadcaster.publish("sessions", "approvals")
        except Exception as exc:  # shown on the page, never a dead worker
            session.state, session.error = FAILED, f"{type(exc).__name__}: {exc}"
        self._finish(session)

    def track(self, query: str, steps: Iterable[pb.ReactStep]) -> Iterator[pb.ReactStep]:
        """Show a session that another caller drives (``steps`` from ``agent.ask``), passing
        each step through as it comes; the agent is held for the page meanwhile.

        Example:
            >>> for step in console.track(query, agent.ask(query)): ...   # doctest: +SKIP
        """
        with self._lock:
            session: LiveSession | None = None
            try:
                for step in steps:
                    if session is None:
                        session = self.book.open(LiveSession(step.session_id, query))
                    session.add(step)
                    self.broadcaster.publish("sessions", "approvals")
                    yield step
            finally:
                if session is not None:
                    self._finish(session)

    def approve(self, session_id: str, act_id: str, approved: bool) -> LiveSession:
        """Approve or deny a waiting action (the ``Approve`` RPC's path); the steps follow.

        Raises KeyError if no such request is waiting on the page.
        """
        session = self.book.get(session_id)
        waiting = session.waiting if session is not None else None
        if session is None or waiting is None or waiting.act_id != act_id:
            raise KeyError(f"no approval {act_id!r} waiting in session {session_id!r}")
        session.decided.add(act_id)
        session.source = "page"  # resumed here: the page follows it live from now on
        reason = "approved on the page" if approved else "denied on the page"
        self.broadcaster.publish("approvals")
        if self.agent.awaiting_cloud_approval(session_id, act_id):
            # A cloud session's device action: its stream (which holds the agent) waits
            # for this decision, so it is handed over at once, not queued behind it.
            self.agent.approve(session_id, act_id, approved, reason)
            if session.state == AWAITING_APPROVAL:
                session.state = RUNNING
            return session

        def run() -> None:
            try:
                for step in self.agent.approve(session_id, act_id, approved, reason):
                    session.add(step)
                    self.broadcaster.publish("sessions", "approvals")
            except Exception as exc:
                session.state, session.error = FAILED, f"{type(exc).__name__}: {exc}"
            self._finish(session)

        self._background(self._call(run))
        return session

    def _finish(self, session: LiveSession) -> None:
        """Called in the worker: the receipt of a finished session, and memory changed."""
        final = session.final
        if final is not None and session.state != FAILED:
            session.state = FINISHED
            if session.waiting is None and final.receipt_id:
                session.receipt = self.agent.memory.get_receipt(final.receipt_id)
            last = getattr(self.agent.cloud, "last_receipt", None)
            if (
                session.receipt is None
                and isinstance(last, pb.DecisionReceipt)
                and last.session_id == session.session_id
            ):
                session.receipt = last
        self.broadcaster.publish("sessions", "approvals", "memory", "sync")

    # -- receipts --------------------------------------------------------------------------

    async def verify(self, session_id: str) -> Verification:
        """Recompute a session's receipt digest and check its evidence against the stored
        steps. Raises KeyError when the session has no receipt."""
        from react_kernel import verify_receipt
        from react_kernel.receipts import receipt_digest

        session = self.book.get(session_id)
        if session is None or session.receipt is None:
            raise KeyError(f"session {session_id!r} has no receipt")
        receipt = session.receipt
        stored = await self._call(lambda: self.agent.memory.steps(session_id))
        if receipt.session_id != session_id or session.route.get("route") == "cloud":
            # The cloud's receipt covers the cloud's turn: its steps and the device's
            # observations, not the device's routing thought.
            stored = [
                s
                for s in stored
                if s.origin == pb.ORIGIN_CLOUD or s.step_type == pb.STEP_TYPE_OBSERVATION
            ]
        steps = stored or list(session.steps)
        problems = verify_receipt(receipt, steps)
        return Verification(
            receipt.receipt_id, receipt.digest, receipt_digest(receipt), tuple(problems)
        )

    # -- memory and sync -------------------------------------------------------------------

    async def memory_view(self) -> dict[str, Any]:
        """What memory holds, per kind: the count and the newest rows."""
        return await self._call(lambda: read_memory(self.agent.memory, timer_rows))

    async def adopt_stored(self, limit: int = 10) -> bool:
        """Show the newest sessions in memory that this page did not run (``edge-agent
        ask`` or ``serve`` in another process, a page before a restart): their stored steps,
        and an approval they wait for, which the buttons resume through ``agent.approve``
        like any other. Returns True when something new was shown."""
        return await self._call(lambda: self._adopt(limit))

    def _adopt(self, limit: int) -> bool:
        memory = self.agent.memory
        rows = memory.db.execute(
            "SELECT id, created_at, query, state FROM sessions"
            " ORDER BY created_at DESC, id DESC LIMIT ?",
            [limit],
        ).fetchall()
        changed = False
        for session_id, created_at, query, state in rows:
            shown = self.book.get(session_id)
            if shown is not None and shown.source != "memory":
                continue  # run here: the page has it live
            steps = memory.steps(session_id)
            if (
                shown is not None
                and len(shown.steps) == len(steps)
                and shown.state == _state(state)
            ):
                continue
            session = LiveSession(
                session_id, str(query or ""), started_at=_epoch(created_at), source="memory"
            )
            for step in steps:
                session.add(step)
            session.state = _state(state)
            final = session.final
            if final is not None and final.receipt_id:
                session.receipt = memory.get_receipt(final.receipt_id)
            self.book.open(session)
            changed = True
        return changed

    async def memory_changed(self) -> bool:
        """True when memory changed since the last look (this process or another one)."""
        if self._lock.locked():
            return False  # the agent is writing: its own notice will come

        def mark() -> tuple[int, int]:
            conn = self.agent.memory.db.conn
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            return int(version), conn.total_changes

        now = await self._call(mark)
        changed = self._memory_mark is not None and now != self._memory_mark
        self._memory_mark = now
        if changed:
            self._update_sync_state()
        return changed

    def _update_sync_state(self) -> None:
        last = self.agent.memory.last_sync()  # a sync by any process on this memory
        if last is not None and self.cloud:
            at = _epoch(str(last["at"]))
            if self.sync.last_at is None or at > self.sync.last_at + 0.5:
                self.sync.last_at = at
                self.sync.rounds = int(last["rounds"])
                self.sync.bytes_sent = int(last["bytes_sent"])
                self.sync.bytes_received = int(last["bytes_received"])
                self.sync.error = ""
                self.sync.vector_after = self.agent.memory.state_vector()
                self.sync.changed_since = False
                return
        if self.sync.last_at is not None:
            self.sync.changed_since = self.agent.memory.state_vector() != self.sync.vector_after

    async def sync_now(self) -> SyncState:
        """One memory sync with the cloud (``edge-agent sync``); the result is kept."""
        if not self.cloud:
            raise KeyError("no cloud to sync with (start the page with --cloud)")
        await self._call(self._sync)
        self.broadcaster.publish("sync", "memory")
        return self.sync

    def _sync(self) -> None:
        import grpc

        from edgeloop.transport.channels import client_channel
        from sync.client import sync_with

        assert self.cloud is not None
        try:
            channel = client_channel(self.cloud, tls_root=self.tls_root)
        except OSError as exc:
            self.sync.error = f"cannot read the CA {self.tls_root}: {exc}"
            return
        store = self.agent.memory
        try:
            result = sync_with(channel, store, self.token, device_id="" if self.token else None)
        except grpc.RpcError as exc:
            code = exc.code()  # type: ignore[attr-defined]
            self.sync.error = f"{code.name}: {exc.details() or code.name}"  # type: ignore[attr-defined]
            return
        except Exception as exc:  # the store refused the cloud's update: say so
            self.sync.error = f"{type(exc).__name__}: {exc}"
            return
        finally:
            channel.close()
        self.sync.last_at = time.time()
        self.sync.rounds = result.rounds
        self.sync.bytes_sent = result.bytes_sent
        self.sync.bytes_received = result.bytes_received
        self.sync.error = ""
        self.sync.vector_after = store.state_vector()
        self.sync.changed_since = False

    async def resolve_pending(self) -> int:
        """Ask the cloud the pending queries again (``edge-agent pending --cloud``), then sync."""
        resolved = await self._call(self.agent.resolve_pending)
        for record, steps in resolved:
            session = self.book.open(LiveSession(steps[0].session_id, record["query"]))
            for step in steps:
                session.add(step)
            session.state = FINISHED
        self.broadcaster.publish("sessions", "memory")
        if resolved and self.cloud:
            await self.sync_now()
        return len(resolved)

    async def close(self) -> None:
        """Wait for the calls in flight."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
