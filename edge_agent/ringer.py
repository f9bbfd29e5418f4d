"""The timer ringer: rings each due timer and alarm once, and says which came due while
nothing ran on the device.

A long-running device process (``edge-agent run``, ``serve``, ``ui``, ``chat``) starts one
:class:`TimerRinger`; it looks at the memory every ``poll_s`` seconds. Each due timer is
*claimed* with one INSERT into the replica's ``timer_rings`` table
(:meth:`sync.records.RecordStore.claim_ring`): of every process sharing the memory file,
and across restarts, exactly one rings it, once. A timer found more than ``missed_after_s``
late came due while nothing ran: it is reported as missed (once, the same way); one more
than a day late is only marked (nobody wants yesterday's egg timer). A timer that
carries a scheduled device command (``{"tool", "arguments"}``) runs it through the
device's tools when it rings on time; a missed one is not run late (a wrong action is
worse than none) and the event says so.

Each ring is published on the :class:`~edge_agent.device_events.EventHub` (terminal, page,
WatchEvents). A ringing timer stays ringing until dismissed or snoozed (:meth:`settle`).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from edge_agent.device_events import EventHub, device_event
from edgeloop.v1 import agent_pb2 as pb
from sync.store import MemoryStore
from sync.views import iso
from understanding.answers import duration
from understanding.tools.timers import home_zone

log = logging.getLogger(__name__)

POLL_S = 0.25
#: A timer found later than this came due while nothing ran: "missed".
MISSED_AFTER_S = 10.0
#: A timer found later than this is only marked, not reported.
FORGOTTEN_AFTER_S = 24 * 3600.0
SNOOZE_S = 300

#: Runs a scheduled device command; returns what it did (the tool's output) or raises.
ActionRunner = Callable[[str, dict[str, Any], str], dict[str, Any]]


def timer_action(memory: MemoryStore, timer_id: str) -> dict[str, Any] | None:
    """The scheduled command a timer carries (``{"tool", "arguments"}``), if any."""
    record = memory.get_record("timers", timer_id) or {}
    action = record.get("action")
    if isinstance(action, str) and action:
        action = json.loads(action)
    if isinstance(action, dict) and isinstance(action.get("tool"), str):
        return action
    return None


class TimerRinger:
    """Claims and rings due timers; see the module docstring."""

    def __init__(
        self,
        memory: MemoryStore,
        hub: EventHub,
        *,
        run_action: ActionRunner | None = None,
        action_of: Callable[[str], dict[str, Any] | None] | None = None,
        now: Callable[[], datetime] | None = None,
        poll_s: float = POLL_S,
        missed_after_s: float = MISSED_AFTER_S,
    ) -> None:
        self.memory = memory
        self.hub = hub
        self.run_action = run_action
        self.action_of = action_of or (lambda timer_id: timer_action(memory, timer_id))
        self._now = now or (lambda: datetime.now(UTC))
        self.poll_s = poll_s
        self.missed_after_s = missed_after_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the loop ----------------------------------------------------------------------

    def start(self) -> None:
        """Ring in a daemon thread until :meth:`stop`."""
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="timer-ringer", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop ringing (waits for the tick in progress)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
            except Exception:  # a closed or busy store: try again at the next tick
                log.exception("the timer ringer failed a tick")
            self._stop.wait(self.poll_s)

    def tick(self) -> list[pb.DeviceEvent]:
        """Claim and ring every due timer; return the events published."""
        now = self._now()
        events = []
        for timer in self.memory.due_timers(iso(now)):
            late = (now - datetime.fromisoformat(str(timer["fires_at"]))).total_seconds()
            if late > FORGOTTEN_AFTER_S:
                self.memory.claim_ring(timer, "expired")
                continue
            outcome = "missed" if late > self.missed_after_s else "fired"
            if not self.memory.claim_ring(timer, outcome):
                continue  # another process rang it
            event = self._event(timer, outcome)
            self._run_scheduled(timer, outcome, event)
            self.hub.publish(event)
            events.append(event)
        return events

    # -- what a ring says and does -----------------------------------------------------

    def _event(self, timer: dict[str, Any], outcome: str) -> pb.DeviceEvent:
        zone, _ = home_zone(self.memory)
        due = datetime.fromisoformat(str(timer["fires_at"]))
        set_at = datetime.fromisoformat(str(timer["created_at"])).astimezone(zone)
        label = str(timer.get("label") or "")
        clock = due.astimezone(zone).strftime("%H:%M")
        what = f"the {label} timer" if label else "your timer"
        span = f"{duration(int(timer['seconds']))}, set at {set_at:%H:%M}"
        if outcome == "fired":
            text = f"Time's up: {what} is done ({span})."
        else:
            text = f"Missed while the device was off: {what} went off at {clock} ({span})."
        kind = (
            pb.DEVICE_EVENT_KIND_TIMER_FIRED
            if outcome == "fired"
            else pb.DEVICE_EVENT_KIND_TIMER_MISSED
        )
        event = device_event(kind, text, timer_id=str(timer["timer_id"]), label=label)
        event.due_at.FromDatetime(due.astimezone(UTC))
        return event

    def _run_scheduled(self, timer: dict[str, Any], outcome: str, event: pb.DeviceEvent) -> None:
        """Run the scheduled command a timer carries (only when it rings on time)."""
        timer_id = str(timer["timer_id"])
        action = self.action_of(timer_id)
        if action is None:
            return
        tool, arguments = str(action["tool"]), dict(action.get("arguments") or {})
        event.details["tool"] = tool
        event.details["arguments"] = json.dumps(arguments, sort_keys=True)
        if outcome != "fired" or self.run_action is None:
            event.details["error"] = "not run: it was due while the device was off"
            event.text += f" The scheduled {tool.replace('_', ' ')} was not run."
        else:
            try:
                result = self.run_action(tool, arguments, timer_id)
            except Exception as error:  # the tool refused: say so on every surface
                event.details["error"] = str(error)
                event.text += f" The scheduled {tool.replace('_', ' ')} failed: {error}."
            else:
                event.details["result"] = json.dumps(result, sort_keys=True, default=str)
                event.text += f" Done: {_said(tool, arguments)}."
        self.memory.note_ring(timer_id, dict(event.details))

    # -- dismiss and snooze -------------------------------------------------------------

    def ringing(self) -> list[dict[str, Any]]:
        """The timers that rang (or were missed) and were not dismissed or snoozed."""
        return self.memory.rings(unsettled_only=True)

    def settle(self, prefix: str, answer: str, snooze_s: int = 0) -> tuple[str, str]:
        """Dismiss or snooze (``answer``) the rung timer whose id starts with ``prefix``
        ("" or "last": the latest one still ringing); return the sentence and the new
        timer's id (snooze).

        Raises:
            ValueError: no such ringing timer, or an unknown answer.
        """
        if answer not in ("dismiss", "snooze"):
            raise ValueError(f"answer must be dismiss or snooze, not {answer!r}")
        ring = self._find(prefix)
        label = str(ring["label"])
        what = f"the {label} timer" if label else "the timer"
        new_id = ""
        if answer == "snooze":
            seconds = snooze_s or SNOOZE_S
            if not 0 < seconds <= 24 * 3600:
                raise ValueError("snooze for 1 second to 24 hours")
            new_id = str(self.memory.add_timer(seconds, label)["timer_id"])
            self.memory.settle_ring(str(ring["timer_id"]), "snoozed", {"snoozed_as": new_id})
            zone, _ = home_zone(self.memory)
            until = (self._now() + timedelta(seconds=seconds)).astimezone(zone)
            text = f"Snoozed {what} for {duration(seconds)} (until {until:%H:%M})."
            kind = pb.DEVICE_EVENT_KIND_TIMER_SNOOZED
        else:
            self.memory.settle_ring(str(ring["timer_id"]), "dismissed")
            text = f"Dismissed {what}."
            kind = pb.DEVICE_EVENT_KIND_TIMER_DISMISSED
        self.hub.publish(device_event(kind, text, timer_id=str(ring["timer_id"]), label=label))
        return text, new_id

    def _find(self, prefix: str) -> dict[str, Any]:
        ringing = self.ringing()
        key = prefix.strip().lower()
        if key in ("", "last"):
            if not ringing:
                raise ValueError("no timer is ringing")
            return ringing[0]
        if len(key) < 4:
            raise ValueError("give at least 4 characters of the timer's id")
        found = [r for r in ringing if str(r["timer_id"]).startswith(key)]
        if not found:
            raise ValueError(f"no ringing timer {prefix!r}")
        if len(found) > 1:
            raise ValueError(f"{prefix!r} names {len(found)} ringing timers: give more of the id")
        return found[0]


def _said(tool: str, arguments: dict[str, Any]) -> str:
    """A scheduled command in words ("light off in the kitchen")."""
    if tool == "device_control":
        device = str(arguments.get("device", "device")).replace("_", " ")
        room = arguments.get("room")
        where = f" in the {room}" if room and room != "all" else ""
        if room == "all":
            where = " in every room"
        value = arguments.get("value")
        action = str(arguments.get("action", ""))
        if action == "set" and value is not None:
            return f"{device} set to {value}{where}"
        return f"{device} {action.replace('_', ' ')}{where}"
    return tool.replace("_", " ")
