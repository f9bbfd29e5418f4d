"""Compose the planner's final answer from the observations: one line per result, then the
comparison the query asked for ("Tokyo is warmer: 21°C against 17°C")."""

from __future__ import annotations

from typing import Any

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import Plan, PlannedCall
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct
from understanding.forecast import SYNTHETIC

Done = list[tuple[pb.ReactStep, pb.ReactStep | None]]


def _title(name: Any) -> str:
    return " ".join(word.capitalize() for word in str(name).split())


def describe_call(call: PlannedCall) -> str:
    """A short phrase for a THOUGHT: what the next call is for."""
    a = call.args
    if call.tool == it.WEATHER:
        from understanding.forecast import SPAN_WORDS

        day = str(a.get("day", "today"))
        return f"check the weather in {_title(a.get('city'))} {SPAN_WORDS.get(day, day)}"
    if call.tool == it.CLOCK:
        return f"look up the local time in {_title(a.get('city'))}"
    if call.tool == it.CONVERT:
        return f"convert {a.get('value')} {a.get('from_unit')} to {a.get('to_unit')}"
    if call.tool == it.CALCULATOR:
        return f"calculate {a.get('expression')}"
    if call.tool == it.DEVICE:
        room = f" in the {a['room']}" if a.get("room") else ""
        value = f" to {a['value']:g}" if isinstance(a.get("value"), int | float) else ""
        action = str(a.get("action"))
        verb = {"brightness_up": "brighten", "brightness_down": "dim"}.get(action, action)
        verb = f"switch {action}" if action in ("on", "off") else verb
        device = str(a.get("device")).replace("door_lock", "door lock")
        return f"ask the device to {verb} the {device}{room}{value}"
    if call.tool == it.STATUS:
        room = f" in the {a['room']}" if a.get("room") else ""
        return f"ask the device how the {str(a.get('device')).replace('_', ' ')}{room} is"
    if call.tool == it.LIST_TIMERS:
        return "ask the device which timers and alarms are still to come"
    if call.tool == it.TIMER and a.get("at"):
        return f"ask the device to set an alarm for {a.get('at')}"
    if call.tool == it.TIMER:
        from understanding.answers import duration

        seconds = a.get("seconds")
        span = duration(int(seconds)) if isinstance(seconds, int | float) else str(seconds)
        return f"ask the device to set a timer for {span}"
    if call.tool == it.ADD_NOTE and a.get("list"):
        return f"ask the device to add '{a.get('text')}' to the {a['list']} list"
    if call.tool == it.ADD_NOTE:
        return f"ask the device to note '{a.get('text')}'"
    if call.tool == it.SEARCH_NOTES and a.get("lists"):
        return "ask the device which lists it keeps"
    if call.tool == it.SEARCH_NOTES and a.get("list") and not a.get("query"):
        return f"ask the device to read the {a['list']} list"
    if call.tool == it.SEARCH_NOTES:
        return f"ask the device to search its notes for '{a.get('query')}'"
    if call.tool == it.REMOVE_NOTE:
        where = f"the {a['list']} list" if a.get("list") else "its notes"
        return f"ask the device to take '{a.get('text')}' off {where}"
    return f"call {call.tool}"


def _values(step: pb.ReactStep | None) -> dict[str, Any]:
    if step is None or not step.HasField("observation"):
        return {}
    return from_struct(step.observation)


def render(action: pb.ReactStep, observation: pb.ReactStep | None) -> str:
    """One result as a sentence (or why it failed)."""
    args = from_struct(action.arguments)
    if observation is None:
        return f"{action.tool}: no answer"
    if observation.status not in (pb.OBSERVATION_STATUS_OK, pb.OBSERVATION_STATUS_UNSPECIFIED):
        reason = observation.content or pb.ObservationStatus.Name(observation.status)
        return f"{describe_call(PlannedCall(action.tool, args))} did not work ({reason})"
    v = _values(observation)
    tool = action.tool
    if tool == it.WEATHER and v.get("days"):
        from understanding.answers import forecast_span_summary
        from understanding.forecast import SPAN_WORDS

        city = _title(v.get("city") or args.get("city"))
        when = SPAN_WORDS.get(str(v.get("day")), str(v.get("day")))
        return f"{city} {when}: {forecast_span_summary(list(v['days']))}"
    if tool == it.WEATHER and "temperature" in v:
        city = _title(v.get("city") or args.get("city"))
        day = v.get("day") or args.get("day", "today")
        return f"{city} {day}: {v['temperature']}°C, {v.get('condition', 'unknown')}"
    if tool == it.CLOCK and "time" in v:
        return f"{_title(v.get('city') or args.get('city'))}: {v['time']} ({v.get('timezone', '')})"
    if tool == it.CONVERT and "value" in v:
        return f"{args.get('value')} {args.get('from_unit')} = {v['value']} {v.get('unit', '')}"
    if tool == it.CALCULATOR and "value" in v:
        return f"{args.get('expression')} = {v['value']}"
    if tool == it.STATUS:
        room = f" ({args['room']})" if args.get("room") else ""
        return f"{str(args.get('device')).replace('_', ' ')}{room} is {v.get('state', 'unknown')}"
    if tool == it.DEVICE:
        room = f" ({args['room']})" if args.get("room") else ""
        return f"{args.get('device')}{room}: {v.get('state', 'done')}"
    if tool in (it.TIMER, it.LIST_TIMERS):  # the device's own sentence: local clock time
        from understanding.answers import tool_answer

        return tool_answer(tool, args, v)
    if tool == it.ADD_NOTE and args.get("list"):
        return f"added '{args.get('text')}' to the {v.get('list') or args['list']} list"
    if tool == it.ADD_NOTE:
        return f"noted: '{args.get('text')}'"
    if tool == it.REMOVE_NOTE:
        where = f"the {v['list']} list" if v.get("list") else "your notes"
        return f"took '{v.get('text', args.get('text'))}' off {where}"
    if tool == it.SEARCH_NOTES and v.get("list") is None and v.get("lists") is not None:
        from understanding.answers import lists_answer

        return lists_answer(list(v["lists"])).rstrip(".")
    if tool == it.SEARCH_NOTES and v.get("list") is not None:
        items = [str(r.get("text", "")) for r in v.get("results") or []]
        if not items:
            return f"the {v['list']} list is empty"
        return f"the {v['list']} list: {'; '.join(items)}"
    if tool == it.SEARCH_NOTES:
        results = v.get("results") or []
        if not results:
            return f"no notes found for '{args.get('query')}'"
        found = "; ".join(str(r.get("text", "")) for r in results[:3])
        return f"notes about '{args.get('query')}': {found}"
    said = observation.content.strip()
    if v and (not said or said.startswith(("{", "["))):
        # A tool with no sentence of its own (a device's declared tool, an MCP tool) whose
        # observation came as data: its fields in words, never raw JSON.
        from understanding.answers import generic_answer

        return generic_answer(tool, dict(sorted(v.items())))  # a Struct keeps no order
    return said or f"{tool}: done"


def compose_answer(plan: Plan, done: Done, *, gave_up: bool = False) -> str:
    """The final answer: each result, then the comparison the query asked for."""
    lines = [render(action, observation) for action, observation in done]
    comparison = _compare(plan.compare, done) if plan.compare else None
    if comparison:
        lines.append(comparison)
    if gave_up:
        lines.append("I stopped: several steps failed.")
    if any(a.tool == it.WEATHER and _values(o).get("source") == SYNTHETIC for a, o in done):
        lines.append("Synthetic forecasts: no forecast service is set up")
    return ". ".join(line.rstrip(".") for line in lines) + "." if lines else "Nothing to do."


def _reading(v: dict[str, Any], kind: str | None) -> int:
    """The temperature a comparison uses, as the answer shows it: a day's reading, or for a
    span ("this weekend") its coldest day when asking which is colder, else its warmest,
    both within the range the span's line states."""
    days = [int(d["temperature"]) for d in v.get("days") or [] if "temperature" in d]
    if days:
        return min(days) if kind == "colder" else max(days)
    return int(v["temperature"])


def _weather_compare(kind: str, weather: list[tuple[str, str, dict[str, Any]]]) -> str | None:
    if kind in ("warmer", "colder", "difference") and len(weather) >= 2:
        spans = any(v.get("days") for _, _, v in weather)
        read = [(name, day, _reading(v, kind)) for name, day, v in weather]
        ordered = sorted(read, key=lambda w: w[2], reverse=kind != "colder")
        best, other = ordered[0], ordered[-1]
        label = best[0] if best[0] != other[0] else best[1]
        against = other[0] if best[0] != other[0] else other[1]
        if best[2] == other[2]:
            return f"They are the same temperature, {best[2]}°C"
        gap = abs(best[2] - other[2])
        if kind == "difference":
            return f"{label} is {gap}°C warmer than {against} ({best[2]}°C against {other[2]}°C)"
        word = ("down to " if kind == "colder" else "up to ") if spans else ""
        return f"{label} is {kind}: {word}{best[2]}°C against {word}{other[2]}°C, {gap}°C {kind}"
    if kind in ("sunny", "rainy", "snowy") and weather:
        hits = [
            f"{name} {day}"
            for name, day, v in weather
            if v.get("condition") == kind
            or any(d.get("condition") == kind for d in v.get("days") or [])
        ]
        if not hits:
            return f"None of them is forecast {kind}"
        return f"{kind.capitalize()}: {', '.join(hits)}"
    return None


def _compare(kind: str | None, done: Done) -> str | None:
    """The comparison asked for, computed from the very readings the answer lists."""
    weather = [
        (_title(v.get("city")), str(v.get("day", "today")), v)
        for a, o in done
        if a.tool == it.WEATHER and "temperature" in (v := _values(o))
    ]
    clocks = [
        (_title(v.get("city")), v)
        for a, o in done
        if a.tool == it.CLOCK and "time" in (v := _values(o))
    ]
    if kind == "summary" and len(weather) >= 2:
        return "; ".join(
            f"{n} {d} {v['temperature']}°C {v.get('condition')}" for n, d, v in weather
        )
    if kind in ("later", "earlier", "difference") and len(clocks) >= 2:
        return _clock_compare(kind, clocks)
    if kind is not None:
        return _weather_compare(kind, weather)
    return None


def _clock_compare(kind: str, clocks: list[tuple[str, dict[str, Any]]]) -> str:
    offsets = [(name, _offset_minutes(str(v.get("utc_offset", "+00:00")))) for name, v in clocks]
    by_offset = sorted(offsets, key=lambda o: o[1], reverse=kind != "earlier")
    first, last = by_offset[0], by_offset[-1]
    hours = abs(first[1] - last[1]) / 60
    if hours == 0:
        return f"{first[0]} and {last[0]} have the same local time"
    if kind == "difference":
        return f"{first[0]} is {hours:g} h ahead of {last[0]}"
    relation = "ahead of" if kind == "later" else "behind"
    return f"It is {kind} in {first[0]} ({hours:g} h {relation} {last[0]})"


def _offset_minutes(offset: str) -> int:
    sign = -1 if offset.startswith("-") else 1
    hours, _, minutes = offset.lstrip("+-").partition(":")
    try:
        return sign * (int(hours) * 60 + int(minutes or 0))
    except ValueError:
        return 0
