"""The set_timer tool: a countdown or an alarm at a clock time, kept in the memory store.

``seconds`` starts a countdown; ``at`` (ISO-8601 local date-time, "2026-12-02T05:30", or
a clock time alone, "05:30", meaning its next occurrence) sets an alarm at that time in
the home city's zone (``edge-agent config set home_city``;
the device's own zone without one). Either way the timer is stored as the seconds until
it fires, so it survives restarts and syncs, and the observation gives ``fires_at`` in
local time with its offset. An alarm in the past or more than 7 days ahead is refused.
``edge-agent timers`` lists and cancels them (:func:`list_timers`, :func:`cancel_timer`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta, tzinfo
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from understanding.tools.memory import ToolMemory

MAX_SECONDS = 7 * 24 * 3600

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        # A ``time`` span that is a duration fills ``seconds``; one that is a clock time
        # fills ``at``, with the day of a ``date`` span and the am/pm of a ``timeofday``.
        "seconds": {
            "type": "integer",
            "minimum": 1,
            "maximum": MAX_SECONDS,
            "x-edgeloop-slots": ["time"],
        },
        "at": {
            "type": "string",
            "pattern": r"^(\d{4}-\d{2}-\d{2}[T ])?\d{2}:\d{2}(:\d{2})?$",
            "x-edgeloop-slots": ["time", "date", "timeofday"],
        },
        "label": {"type": "string", "maxLength": 80, "x-edgeloop-slots": ["timer_name"]},
    },
    "oneOf": [{"required": ["seconds"]}, {"required": ["at"]}],
    "additionalProperties": False,
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "timer_id": {"type": "string", "minLength": 1},
        "fires_at": {"type": "string", "minLength": 1},
        "seconds": {"type": "integer"},
        "timezone": {"type": "string"},
        "label": {"type": "string"},
    },
    "required": ["timer_id", "fires_at"],
}


class TimerMemory(Protocol):
    """The memory store methods that listing and cancelling use (the home zone is read
    from the settings' facts when the store has them)."""

    def timers(self, *, active_only: bool = False) -> list[dict[str, Any]]: ...

    def forget(self, kind: str, record_id: str) -> None: ...


def home_zone(memory: Any) -> tuple[tzinfo, str]:
    """The home city's zone (and its name) from the device settings; the device's own
    local zone when no home city is set."""
    from understanding.settings import load_settings

    zone = load_settings(memory).timezone if hasattr(memory, "facts") else None
    if zone:
        return ZoneInfo(zone), zone
    local = datetime.now().astimezone().tzinfo or UTC
    return local, str(local)


def alarm_seconds(at: str, now: datetime, zone: tzinfo) -> int:
    """Seconds from ``now`` until the local date-time ``at`` in ``zone``.

    >>> alarm_seconds("2026-12-02T05:30", datetime(2026, 12, 1, 23, 0, tzinfo=UTC), UTC)
    23400
    >>> alarm_seconds("05:30", datetime(2026, 12, 1, 23, 0, tzinfo=UTC), UTC)
    23400
    """
    try:
        if len(at) <= 8:  # "05:30": the next time the clock shows it
            clock = time.fromisoformat(at)
            local = now.astimezone(zone)
            when = datetime.combine(local.date(), clock, tzinfo=zone)
            if when <= now:
                when = datetime.combine(local.date() + timedelta(days=1), clock, tzinfo=zone)
        else:
            when = datetime.fromisoformat(at)
    except ValueError:
        raise ValueError(f"not a date and time: {at!r}") from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone)
    seconds = math.ceil((when - now).total_seconds())  # never a second early
    if seconds <= 0:
        raise ValueError(f"{at} has already passed")
    if seconds > MAX_SECONDS:
        raise ValueError("an alarm may be at most 7 days ahead")
    return seconds


def make_run(
    memory: ToolMemory, now: Callable[[], datetime] | None = None
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The tool function, storing the timer in ``memory``."""
    clock = now or (lambda: datetime.now(UTC))

    def run(args: dict[str, Any]) -> dict[str, Any]:
        zone, zone_name = home_zone(memory)
        if args.get("at"):
            seconds = alarm_seconds(str(args["at"]), clock(), zone)
        else:
            given = args["seconds"]
            if isinstance(given, float) and given.is_integer():
                given = int(given)
            if not isinstance(given, int) or not 0 < given <= MAX_SECONDS:
                raise ValueError(f"seconds must be a whole number from 1 to {MAX_SECONDS}")
            seconds = given
        label = str(args.get("label") or "")
        timer = memory.add_timer(seconds, label)
        fires = datetime.fromisoformat(str(timer["fires_at"])).astimezone(zone)
        return {
            "timer_id": str(timer["timer_id"]),
            "fires_at": fires.isoformat(timespec="seconds"),
            "seconds": seconds,
            "timezone": zone_name,
            "label": label,
        }

    return run


def list_timers(memory: TimerMemory, *, everything: bool = False) -> list[dict[str, Any]]:
    """The timers that have not fired (or all of them), with ``fires_at`` in local time."""
    zone, _name = home_zone(memory)
    return [_in_zone(timer, zone) for timer in memory.timers(active_only=not everything)]


def _in_zone(timer: dict[str, Any], zone: tzinfo) -> dict[str, Any]:
    fires = datetime.fromisoformat(str(timer["fires_at"])).astimezone(zone)
    return {**timer, "fires_at": fires.isoformat(timespec="seconds")}


def cancel_timer(memory: TimerMemory, prefix: str) -> dict[str, Any]:
    """Cancel the one timer whose id starts with ``prefix`` (at least 4 characters);
    return it, ``fires_at`` in local time as :func:`list_timers` gives it.

    Raises:
        ValueError: no such timer, or the prefix names several.
    """
    key = prefix.strip().lower()
    if len(key) < 4:
        raise ValueError("give at least 4 characters of the timer's id")
    found = [t for t in memory.timers() if str(t["timer_id"]).startswith(key)]
    if not found:
        raise ValueError(f"no timer {prefix!r}")
    if len(found) > 1:
        raise ValueError(f"{prefix!r} names {len(found)} timers: give more of the id")
    memory.forget("timers", str(found[0]["timer_id"]))
    return _in_zone(found[0], home_zone(memory)[0])


def validate(observation: dict[str, Any]) -> str | None:
    """Business rule: the store gave the timer an id and a firing time."""
    if not observation.get("timer_id") or not observation.get("fires_at"):
        return "timer was not stored"
    return None


def timer_rows(store: Any) -> list[dict[str, Any]]:
    """The timers as a person reads them: the length in words, the local clock time it
    goes off (the home city's zone) and whether it rang, never raw seconds."""
    from understanding.answers import duration

    zone, _ = home_zone(store)
    now = datetime.now(zone)
    rung = {ring["timer_id"]: ring for ring in store.rings()}
    rows = []
    for timer in store.timers():
        fires = datetime.fromisoformat(str(timer["fires_at"])).astimezone(zone)
        ring = rung.get(timer["timer_id"])
        state = "waiting" if fires > now else "went off"
        if ring is not None:
            state = {"fired": "rang", "missed": "missed"}.get(str(ring["outcome"]), state)
            state += f", {ring['settled']}" if ring["settled"] else ""
        day = "" if fires.date() == now.date() else f"{fires:%a %d %b} "
        rows.append(
            {
                "label": timer["label"] or "-",
                "length": duration(int(timer["seconds"])),
                "goes off": f"{day}{fires:%H:%M}",
                "state": state,
                "fires_at": timer["fires_at"],
            }
        )
    return rows


# ---- the list_timers and cancel_timer tools -------------------------------------------

LIST_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {},
    "additionalProperties": False,
}
_ENTRY: dict[str, Any] = {
    "type": "object",
    "properties": {
        "timer_id": {"type": "string"},
        "label": {"type": "string"},
        "fires_at": {"type": "string"},
        "seconds": {"type": "integer"},
        # "timer" rings; "command" runs a device command (scheduled or a restore).
        "kind": {"type": "string", "enum": ["timer", "command"]},
        "action": {"type": ["object", "null"]},
    },
    "required": ["timer_id", "label", "fires_at", "kind"],
}
LIST_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 0},
        "timezone": {"type": "string"},
        "timers": {"type": "array", "items": _ENTRY},
    },
    "required": ["count", "timers"],
}
CANCEL_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "label": {
            "type": "string",
            "minLength": 1,
            "maxLength": 80,
            "x-edgeloop-slots": ["timer_name"],
        },
        "at": {
            "type": "string",
            "pattern": r"^(\d{4}-\d{2}-\d{2}[T ])?\d{2}:\d{2}(:\d{2})?$",
            "x-edgeloop-slots": ["time", "date", "timeofday"],
        },
        "next": {"type": "boolean", "const": True, "x-edgeloop-slots": []},
        "all": {"type": "boolean", "const": True, "x-edgeloop-slots": []},
    },
    "oneOf": [
        {"required": ["label"]},
        {"required": ["at"]},
        {"required": ["next"]},
        {"required": ["all"]},
    ],
    "additionalProperties": False,
}
CANCEL_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "count": {"type": "integer", "minimum": 1},
        "cancelled": {"type": "array", "items": _ENTRY, "minItems": 1},
        "timezone": {"type": "string"},
    },
    "required": ["count", "cancelled"],
}


def _entry(timer: dict[str, Any]) -> dict[str, Any]:
    action = timer.get("action")
    return {
        "timer_id": str(timer["timer_id"]),
        "label": str(timer.get("label") or ""),
        "fires_at": str(timer["fires_at"]),
        "seconds": int(timer.get("seconds") or 0),
        "kind": "command" if action else "timer",
        "action": action,
    }


def make_list(memory: TimerMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The list_timers tool: the timers, alarms and scheduled commands still to come."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        del args
        entries = [_entry(t) for t in list_timers(memory)]
        return {"count": len(entries), "timezone": home_zone(memory)[1], "timers": entries}

    return run


def _label_matches(asked: str, label: str) -> bool:
    """A label asked matches a timer's when every word asked is in it ("pasta" names
    "pasta timer"; "the pasta timer" names "pasta")."""
    filler = {"the", "my", "a", "an", "timer", "alarm", "reminder", "for"}
    wanted = [w for w in asked.lower().split() if w not in filler]
    words = set(label.lower().split())
    return bool(wanted) and all(w in words for w in wanted)


def _at_matches(asked: str, fires_local: str) -> bool:
    """An ``at`` names a timer firing at that local minute ("07:00"), on that day when
    the ``at`` has one."""
    when = asked.replace(" ", "T")
    if "T" in when:
        return fires_local[:16] == when[:16]
    return fires_local[11:16] == when[:5]


def choose(timers: list[dict[str, Any]], args: dict[str, Any]) -> list[dict[str, Any]]:
    """The timers (local times, soonest first) that a cancel_timer call names.

    Raises:
        ValueError: none does.
    """
    if not timers:
        raise ValueError("there are no timers or alarms to cancel")
    if args.get("all"):
        return timers
    if args.get("next"):
        return timers[:1]
    if args.get("label"):
        found = [t for t in timers if _label_matches(str(args["label"]), str(t.get("label", "")))]
        if not found:
            raise ValueError(f"no timer or alarm is labelled {args['label']!r}")
        return found
    if args.get("at"):
        found = [t for t in timers if _at_matches(str(args["at"]), str(t["fires_at"]))]
        if not found:
            raise ValueError(f"no timer or alarm goes off at {args['at']}")
        return found
    raise ValueError("say which timer: its label, its time, the next one, or all")


def make_cancel(memory: TimerMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The cancel_timer tool: cancels by label, time, the next one, or all (approved)."""

    def run(args: dict[str, Any]) -> dict[str, Any]:
        chosen = choose(list_timers(memory), args)
        for timer in chosen:
            memory.forget("timers", str(timer["timer_id"]))
        entries = [_entry(t) for t in chosen]
        return {"count": len(entries), "cancelled": entries, "timezone": home_zone(memory)[1]}

    return run


def validate_list(observation: dict[str, Any]) -> str | None:
    """Business rule: the count is the number of timers listed."""
    if observation.get("count") != len(observation.get("timers", [])):
        return "timer count does not match the list"
    return None


def validate_cancel(observation: dict[str, Any]) -> str | None:
    """Business rule: something was cancelled."""
    if not observation.get("cancelled"):
        return "no timer was cancelled"
    return None
