"""What the cloud's page shows: sessions per device as they run, backends and their
breakers, the Prometheus figures that matter as small charts, and each user's memory.

:class:`CloudConsole` is a :class:`~cloud_agent.handler.SessionWatcher`: the reasoner
tells it about every session (start, each step and device action, the device's
observations, the receipt, the end) on the server's event loop. The figures are read from
the server's own Prometheus registry (no scraping over HTTP) every ``SAMPLE_S`` seconds.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cloud_agent.handler import Event
from edgeloop.transport.auth import Principal
from edgeloop.v1 import agent_pb2 as pb
from understanding.tools.timers import timer_rows
from webui.events import Broadcaster
from webui.live import FAILED, FINISHED, LiveSession, SessionBook
from webui.memory_view import read_memory
from webui.routes import Verification

if TYPE_CHECKING:
    from cloud_agent.service import CloudServer

SAMPLE_S = 1.0
HISTORY = 120  # samples kept per chart (two minutes at one a second)
MAX_DEVICES = 500
"""Devices the page remembers (the most recently seen; a fleet's older ones are dropped)."""
DEVICES_PER_PAGE = 20
"""Devices one page of the devices panel shows (the newest first; the rest are paged)."""
MAX_USERS = 20
"""Users whose memory the page shows (the most recently seen), read every ``SAMPLE_S``."""
STEP_BYTES = 16 * 1024
"""The largest step the page keeps whole (50 sessions of 24 steps: at most about 20 MB)."""
QUERY_CHARS = 120
"""How much of a device's last query the page keeps."""


@dataclass
class DeviceSummary:
    """One device as the cloud has seen it."""

    device_id: str
    user_id: str
    sessions: int = 0
    running: int = 0
    last_query: str = ""
    last_seen: float = field(default_factory=time.time)


@dataclass
class Chart:
    """One figure over time."""

    title: str
    unit: str
    points: deque[float] = field(default_factory=lambda: deque(maxlen=HISTORY))

    @property
    def last(self) -> float:
        """The newest value (0 before the first sample)."""
        return self.points[-1] if self.points else 0.0

    def polyline(self, width: int = 200, height: int = 48) -> str:
        """SVG polyline points, scaled to the chart's own maximum."""
        values = list(self.points)
        if not values:
            return ""
        top = max(values) or 1.0
        step = width / max(len(values) - 1, 1)
        return " ".join(
            f"{i * step:.1f},{height - 2 - (v / top) * (height - 4):.1f}"
            for i, v in enumerate(values)
        )


def quantile(buckets: list[tuple[float, float]], q: float) -> float:
    """The ``q`` quantile of a Prometheus histogram (cumulative (le, count) pairs, sorted),
    interpolated within its bucket as ``histogram_quantile`` does; 0 when empty.

    >>> quantile([(0.01, 5.0), (0.1, 10.0), (float("inf"), 10.0)], 0.5)
    0.01
    """
    if not buckets or buckets[-1][1] <= 0:
        return 0.0
    rank = q * buckets[-1][1]
    lower_le, lower_count = 0.0, 0.0
    for le, count in buckets:
        if count >= rank:
            if le == float("inf"):
                return lower_le
            if count == lower_count:
                return le
            return lower_le + (le - lower_le) * (rank - lower_count) / (count - lower_count)
        lower_le, lower_count = le, count
    return lower_le


def kept_step(step: pb.ReactStep) -> pb.ReactStep:
    """The step as the page keeps it: whole up to ``STEP_BYTES``; past that (a device may
    answer with an observation of megabytes) a copy without its observation and arguments
    and with its text cut, marked ``page_trimmed`` (its receipt then names the gap)."""
    if step.ByteSize() <= STEP_BYTES:
        return step
    kept = pb.ReactStep()
    kept.CopyFrom(step)
    kept.ClearField("observation")
    kept.ClearField("arguments")
    kept.content = kept.content[: QUERY_CHARS * 4]
    kept.metadata.clear()
    kept.metadata["page_trimmed"] = f"{step.ByteSize()} bytes"
    return kept


def _read_user_memory(stores: Any, user: str) -> dict[str, Any] | None:
    """A user's memory through a lease of the budgeted cache (never keeps it loaded);
    None when the backend's lease holds no SQLite store (``--memory-url``)."""
    with stores.lease(user) as store:
        if not hasattr(store, "notes"):
            return None
        return read_memory(store, timer_rows)


class CloudConsole:
    """Watches a :class:`CloudServer`'s sessions, figures and memory for the page."""

    def __init__(self, cloud: CloudServer, broadcaster: Broadcaster | None = None) -> None:
        self.cloud = cloud
        self.broadcaster = broadcaster or Broadcaster()
        self.book = SessionBook(keep=50)
        self.devices: OrderedDict[str, DeviceSummary] = OrderedDict()  # oldest seen first
        self.users: OrderedDict[str, None] = OrderedDict()  # the most recent MAX_USERS
        self.outcomes: dict[str, float] = {}
        self.error_codes: dict[str, float] = {}
        self.charts = {
            "sessions": Chart("sessions/s", "/s"),
            "p50": Chart("step latency p50", "ms"),
            "p99": Chart("step latency p99", "ms"),
            "errors": Chart("errors/s", "/s"),
        }
        self._previous: tuple[float, dict[str, Any]] | None = None
        self._memory: dict[str, Any] = {}
        self._memory_digest = ""
        cloud.handler.add_watcher(self)

    # -- SessionWatcher --------------------------------------------------------------------

    def session_started(
        self, principal: Principal, session_id: str, query: str, trace_id: str
    ) -> None:
        """A session began: show it under its device."""
        self.book.open(LiveSession(session_id, query, device=principal.device_id))
        device = self.devices.get(principal.device_id)
        if device is None:
            device = self.devices[principal.device_id] = DeviceSummary(
                principal.device_id, principal.user_id
            )
            while len(self.devices) > MAX_DEVICES:
                self.devices.popitem(last=False)
        self.devices.move_to_end(principal.device_id)
        device.sessions += 1
        device.running += 1
        device.last_query = query if len(query) <= QUERY_CHARS else query[:QUERY_CHARS] + "…"
        device.last_seen = time.time()
        self.users[principal.user_id] = None  # the memory panel reads each one's memory
        self.users.move_to_end(principal.user_id)
        while len(self.users) > MAX_USERS:
            self.users.popitem(last=False)
        self.broadcaster.publish("sessions", "devices")

    def session_event(self, session_id: str, event: Event) -> None:
        """A step, a device action, the device's observation or the receipt."""
        session = self.book.get(session_id)
        if session is None:
            return
        if event.step is not None:
            session.add(kept_step(event.step))
        if event.receipt is not None:
            session.receipt = event.receipt
        self.broadcaster.publish("sessions")

    def session_ended(self, session_id: str, outcome: str) -> None:
        """The session is over: completed, canceled, deadline, error..."""
        session = self.book.get(session_id)
        if session is None:
            return
        if outcome == "completed":
            session.state = FINISHED
        else:
            session.state, session.error = FAILED, f"ended: {outcome}"
        device = self.devices.get(session.device)
        if device is not None:
            device.running = max(0, device.running - 1)
        self.broadcaster.publish("sessions", "devices")

    def device_page(self, page: int = 0) -> tuple[list[DeviceSummary], int]:
        """One page of devices, the most recently seen first, and how many pages there are."""
        count = len(self.devices)
        pages = max(1, -(-count // DEVICES_PER_PAGE))
        page = min(max(page, 0), pages - 1)
        newest = list(reversed(self.devices.values()))
        start = page * DEVICES_PER_PAGE
        return newest[start : start + DEVICES_PER_PAGE], pages

    # -- receipts --------------------------------------------------------------------------

    async def verify(self, session_id: str) -> Verification:
        """Recompute a session's receipt digest; check its evidence against the steps."""
        from react_kernel import verify_receipt
        from react_kernel.receipts import receipt_digest

        session = self.book.get(session_id)
        if session is None or session.receipt is None:
            raise KeyError(f"session {session_id!r} has no receipt")
        receipt = session.receipt
        problems = verify_receipt(receipt, list(session.steps))
        return Verification(
            receipt.receipt_id, receipt.digest, receipt_digest(receipt), tuple(problems)
        )

    # -- backends --------------------------------------------------------------------------

    def backends(self) -> list[dict[str, str]]:
        """Each configured backend with its breaker state."""
        states_of = getattr(self.cloud.reasoner, "breaker_states", None)
        states = states_of() if callable(states_of) else {}
        rows = []
        for name in self.cloud.config.backends:
            raw = str(states.get(f"backend:{name}", "closed"))
            state = raw.rsplit(".", 1)[-1].lower().replace("-", "_")
            rows.append({"name": name, "state": state})
        return rows

    # -- figures ---------------------------------------------------------------------------

    def sample(self, now: float | None = None) -> None:
        """Read the registry once and add a point to every chart."""
        now = time.monotonic() if now is None else now
        totals: dict[str, float] = {}
        codes: dict[str, float] = {}
        buckets: dict[float, float] = {}
        for metric in self.cloud.metrics.registry.collect():
            for sample in metric.samples:
                if sample.name == "edgeloop_sessions_total":
                    outcome = sample.labels.get("outcome", "")
                    totals[outcome] = totals.get(outcome, 0.0) + sample.value
                elif sample.name == "edgeloop_errors_total":
                    code = sample.labels.get("code", "")
                    codes[code] = codes.get(code, 0.0) + sample.value
                elif sample.name == "edgeloop_step_latency_seconds_bucket":
                    le = float(sample.labels["le"])
                    buckets[le] = buckets.get(le, 0.0) + sample.value
        current = {"totals": totals, "codes": codes, "buckets": buckets}
        self.outcomes = dict(sorted(totals.items()))
        self.error_codes = dict(sorted(codes.items()))
        previous = self._previous
        self._previous = (now, current)
        if previous is None:
            return
        elapsed = max(now - previous[0], 1e-6)
        before = previous[1]
        done = sum(totals.values()) - sum(before["totals"].values())
        failed = sum(codes.values()) - sum(before["codes"].values())
        window = sorted(
            (le, count - before["buckets"].get(le, 0.0)) for le, count in buckets.items()
        )
        self.charts["sessions"].points.append(done / elapsed)
        self.charts["errors"].points.append(failed / elapsed)
        if window and window[-1][1] > 0:  # steps in this window: their latency
            self.charts["p50"].points.append(quantile(window, 0.5) * 1000)
            self.charts["p99"].points.append(quantile(window, 0.99) * 1000)
        else:
            self.charts["p50"].points.append(self.charts["p50"].last)
            self.charts["p99"].points.append(self.charts["p99"].last)

    # -- memory ----------------------------------------------------------------------------

    def memory_users(self) -> list[str]:
        """The users whose memory is shown: those seen, and ``local`` in open mode."""
        users = set(self.users)
        if self.cloud.auth.open_mode:
            users.add("local")
        return sorted(users)

    async def refresh_memory(self) -> bool:
        """Re-read each user's memory; True when it changed since the last read."""
        stores = self.cloud.memory_stores
        if stores is None:
            return False
        views: dict[str, Any] = {}
        for user in self.memory_users():
            view = await asyncio.to_thread(_read_user_memory, stores, user)
            if view is not None:
                views[user] = view
        digest = hashlib.sha256(repr(views).encode("utf-8")).hexdigest()
        self._memory = views
        changed = digest != self._memory_digest
        self._memory_digest = digest
        return changed

    @property
    def memory(self) -> dict[str, Any]:
        """The last read of each user's memory."""
        return self._memory
