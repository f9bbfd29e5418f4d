"""Scheduled and timed device commands, on the timer machinery.

"Start the coffee at 7" (``device_control`` with ``at``) and "mute for an hour" (``for``:
then the previous state comes back) are timers whose row carries an action: the device
tool call to run when the timer is due, ``{"tool": "device_control", "arguments": {...}}``.
They are listed by ``edge-agent timers`` and ``list_timers``, cancelled like any timer,
kept in memory (so they survive a restart) and synced with the user's other replicas.

The runtime that fires due timers calls :func:`run_due_action` with the timer's row: it
runs the action through the device's own tools (schema, business rules and the
idempotency key of the timer, so a timer fired twice acts once).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from understanding.tools.memory import ToolMemory

ACTION_TOOLS = frozenset({"device_control"})
"""The tools a timer's action may call (the device's scheduled commands)."""

# A command the restore runs for each action, from the state kept before it ran.
_OPPOSITE = {
    "on": "off",
    "off": "on",
    "lock": "lock",  # an unlock for a while locks again; a lock for a while stays locked
    "unlock": "lock",
    "open": "close",
    "close": "open",
    "mute": "unmute",
    "unmute": "mute",
}


def describe(args: dict[str, Any]) -> str:
    """A command in a few words, the label of its timer ("light off: all but hall")."""
    device = str(args.get("device", "device")).replace("_", " ")
    action = str(args.get("action", "")).replace("_", " ")
    value = args.get("value")
    said = f"{device} {action}" + (f" {value:g}" if isinstance(value, int | float) else "")
    room = args.get("room")
    if room == "all":
        left = ", ".join(str(r) for r in args.get("except") or [])
        said += f": all rooms but {left}" if left else ": all rooms"
    elif room:
        said += f": {room}"
    if args.get("for"):
        said += f" for {int(args['for'])} s"
    return said[:80]


def schedule(memory: ToolMemory, args: dict[str, Any], now: datetime) -> dict[str, Any]:
    """Keep ``args`` (a device_control call with ``at``) as a timer that runs it then;
    the observation names the timer and when it fires, in local time."""
    from understanding.tools.timers import alarm_seconds, home_zone

    zone, zone_name = home_zone(memory)
    seconds = alarm_seconds(str(args["at"]), now, zone)
    command = {k: v for k, v in args.items() if k != "at"}
    action = {"tool": "device_control", "arguments": command}
    timer = memory.add_timer(seconds, describe(command), action=action)
    fires = datetime.fromisoformat(str(timer["fires_at"])).astimezone(zone)
    return {
        "device": str(args["device"]),
        "room": args.get("room"),
        "state": "scheduled",
        "value": args.get("value"),
        "timer_id": str(timer["timer_id"]),
        "fires_at": fires.isoformat(timespec="seconds"),
        "timezone": zone_name,
    }


def restore_call(
    args: dict[str, Any], room: str | None, before: dict[str, Any] | None
) -> dict[str, Any]:
    """The device_control call that brings ``room``'s device back to ``before`` (its
    state kept before the command ran): its value, its power, its mute."""
    device, action = str(args["device"]), str(args["action"])
    previous = before or {}
    call: dict[str, Any] = {"device": device, "action": _OPPOSITE.get(action, "set")}
    if room is not None:
        call["room"] = room
    if action in ("on", "off") and previous.get("power") in ("on", "off"):
        call["action"] = previous["power"]
    elif action in ("mute", "unmute"):
        call["action"] = "mute" if previous.get("muted") else "unmute"
    elif call["action"] == "set":
        kept = previous.get("value")
        if kept is None:  # never set before: switch it back off
            call["action"] = "close" if device == "blinds" else "off"
        else:
            call["value"] = kept
    return call


def restore_later(
    memory: ToolMemory,
    args: dict[str, Any],
    before: dict[str | None, dict[str, Any] | None],
    now: datetime,
) -> str:
    """After a command ``for`` a while: one timer per room that restores its previous
    state when the time is up; returns when, in local time."""
    from understanding.tools.timers import home_zone

    zone, _name = home_zone(memory)
    seconds = int(args["for"])
    fires = ""
    for room, previous in before.items():
        call = restore_call(args, room, previous)
        timer = memory.add_timer(
            seconds,
            describe(call),
            action={"tool": "device_control", "arguments": call},
        )
        fires = str(timer["fires_at"])
    del now  # the store stamps the timer with its own clock
    return datetime.fromisoformat(fires).astimezone(zone).isoformat(timespec="seconds")


def run_due_action(memory: Any, timer: dict[str, Any]) -> dict[str, Any]:
    """Run the action a due timer carries through the device's tools; return the
    observation (the tool's output) or raise ValueError with why it could not run.

    ``timer`` is a row of ``MemoryStore.timers()`` (``timer_id`` and ``action``). The
    call goes through the kernel's executor (input schema, business rules, output check)
    keyed on the timer's id: the same timer run twice (two processes, a restart) acts
    once and returns the first run's observation. A plain timer (no action) is refused.
    """
    from react_kernel.executor import ToolExecutor
    from understanding.tools import builtin_tools

    action = timer.get("action")
    if not isinstance(action, dict):
        raise ValueError(f"timer {timer.get('timer_id')!r} carries no action")
    tool, arguments = action.get("tool"), action.get("arguments")
    if tool not in ACTION_TOOLS or not isinstance(arguments, dict):
        raise ValueError(f"a timer may not run {tool!r}")
    registry = builtin_tools(memory)
    spec = registry.get(str(tool))
    if spec is None:
        raise ValueError(f"no device tool {tool!r}")
    idempotency = memory if hasattr(memory, "put") and hasattr(memory, "get") else None
    executor = ToolExecutor(registry, idempotency)
    outcome = executor.call(spec, dict(arguments), session_id=f"timer:{timer['timer_id']}")
    if outcome.error is not None:
        raise ValueError(f"{tool} failed: {outcome.error}")
    return dict(outcome.output)
