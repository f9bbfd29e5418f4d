"""Final answers in plain sentences, from a tool's observation or the router's decision.

The device has no language model, so each tool has a sentence pattern ("It's 18°C and
cloudy in Paris today."). Numbers are shown the way people write them (no "12.0", at
most a few decimals), units by their names, cities capitalised.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from understanding.arguments.gear import Concern, gear_question
from understanding.tools.units import UNIT_NAMES

_SMALLTALK_CAPABILITIES = (
    "I can do arithmetic, convert units, give the weather for the next 7 days in 32,000 cities, "
    "control your lights, heating and other devices, set timers, take and find notes, "
    "and tell the time around the world. Anything harder I pass to the cloud."
)


def number(value: float | int) -> str:
    """``12`` for 12.0, ``7.72`` for 7.7161..., thousands separated."""
    if isinstance(value, float) and not value.is_integer():
        text = f"{value:,.4f}".rstrip("0").rstrip(".")
        if abs(value) < 0.01:
            text = f"{value:.6g}"
        return text
    return f"{int(value):,}"


def city_name(city: str) -> str:
    """``new york`` -> ``New York``."""
    return " ".join(part.capitalize() for part in city.split())


def duration(seconds: int) -> str:
    """``5400`` -> ``1 hour 30 minutes``."""
    parts = []
    for size, name in ((86400, "day"), (3600, "hour"), (60, "minute"), (1, "second")):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {name}{'s' if count != 1 else ''}")
    return " ".join(parts) or "0 seconds"


def _unit(code: str, value: float) -> str:
    singular, plural = UNIT_NAMES.get(code, (code, code))
    return singular if abs(value) == 1 else plural


def _quantity(value: float, code: str) -> str:
    name = _unit(code, value)
    return f"{number(value)}{name}" if name.startswith("°") else f"{number(value)} {name}"


# The small talk the device answers itself, in order: kind -> pattern.
_SMALLTALK: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        (
            "thanks",
            r"\b(?:thank\w*|thx|ty|ta|cheers|appreciate[d]?|you're the best|owe you|"
            r"grateful|gratitude|glad you|happy you|kind of you|nice of you|much obliged)\b",
        ),
        (
            "goodbye",
            r"\b(?:bye|goodbye|see you|see ya|cya|good night|later|that's all|never mind|"
            r"until next time|peace out|take care|farewell|ttyl|talk soon|nice chat|"
            r"enjoyed (?:our|this|the|speaking|talking|chatting))\b",
        ),
        (
            "how_are_you",
            r"\bhow (?:are|r|ya|you|u|is|are ya|have you been|ya been|'s) ?(?:you|ya|u|it|"
            r"things|life|doin\w*|going|been)?\b.*|\bhow'?s (?:it going|life|things)\b|"
            r"\bare you (?:good|ok|okay|well)\b|\bwhat'?s up\b|\bhows are ya\b",
        ),
        ("identity", r"\b(?:who are you|what are you|your name|are you a (?:robot|bot|human))\b"),
        (
            "capabilities",
            r"\b(?:what|how|which)\b(?=.*\b(?:can|do|could|able)\b)(?=.*\b(?:you|u|ya)\b)|"
            r"\byour (?:features|skills|abilities|capabilities)\b|\bwhat are you able\b|"
            r"\b(?:what|how)\b.*\b(?:features|tools|skills|capabilities)\b|"
            r"\bwhat can i (?:ask|say|do)\b|\bask (?:you|the ai|this|it)\b|\bhelp\b|"
            r"\blist your\b|\b(?:kinds?|types?|sorts?|categories) of "
            r"(?:things|questions|stuff|requests)\b",
        ),
        (
            "greeting",
            r"\b(?:hi|hello+|helo|hallo|hullo|hey+|heyo|hiya|yo|sup|greetings|howdy|morning|"
            r"evening|afternoon|"
            r"nice to meet you|are you there)\b",
        ),
        ("ack", r"^\W*(?:ok(?:ay)?|cool|nice|great|awesome|perfect|good job|sorry)\b"),
    )
]


def smalltalk_kind(query: str) -> str | None:
    """Which small talk the device can answer ("thanks", "greeting"...), or None."""
    for kind, pattern in _SMALLTALK:
        if pattern.search(query):
            return kind
    return None


_COURTESY = frozenset({"greeting", "thanks", "goodbye", "how_are_you"})


def without_courtesy(parts: list[Any], smalltalk: str) -> list[Any]:
    """A model's requests (``intent``, ``text``) without the greeting or thanks said beside
    a request ("hello dear, it's nana, | could you tell me if it will rain"): courtesy
    asks for nothing. ``smalltalk`` is the small-talk intent's name; a line of courtesy
    alone keeps it."""
    kept = [
        p
        for p in parts
        if str(p.intent) != smalltalk or smalltalk_kind(str(p.text)) not in _COURTESY
    ]
    return kept if kept and len(kept) < len(parts) else parts


# A favour asked before the request, joined to it by "and": "could you be a love and ...",
# "do me a favour and ...", "be a dear and ...". It asks for nothing itself.
_FAVOUR = re.compile(
    r"^\W*(?:(?:hey|oh|ok|okay|so|now|right)\W+)*(?:(?:could|would|can|will)\s+"
    r"(?:you|u|ya)\s+)?(?:please\s+)?(?:just\s+)?(?:be\s+(?:a|an|my)\s+(?:dear|love|darling|"
    r"star|angel|sweetheart|sweetie|doll|pal|mate|treasure|gem|good\s+\w+|peach|lamb|champ)|"
    r"do\s+(?:me|us)\s+a\s+(?:favou?r|solid|kindness))\W*(?:and|&)\s+(?:please\s+)?",
    re.IGNORECASE,
)


def without_favour(text: str) -> str:
    """``text`` without a favour asked before its request ("could you be a love and put the
    light on" -> "put the light on"): the favour asks for nothing, and read as a request of
    its own it sends the whole to the cloud.

    >>> without_favour("do me a favour and switch off the hall light")
    'switch off the hall light'
    """
    return _FAVOUR.sub("", text, count=1) or text


def smalltalk_answer(query: str) -> str:
    """A reply to a greeting, thanks or "what can you do"."""
    kind = smalltalk_kind(query)
    if kind == "thanks":
        return "You're welcome!"
    if kind == "goodbye":
        return "Goodbye!"
    if kind == "how_are_you":
        return "All good here, thanks. What can I do for you?"
    if kind == "identity":
        return "I'm the edgeloop assistant on this device. " + _SMALLTALK_CAPABILITIES
    if kind == "capabilities":
        return _SMALLTALK_CAPABILITIES
    if kind == "greeting":
        return "Hi! What can I do for you?"
    return "Okay! " + _SMALLTALK_CAPABILITIES


def _forecast_note(output: dict[str, Any]) -> str:
    """Where a reading came from, when the user should know: synthetic, or old."""
    if output.get("source") == "synthetic":
        return " (synthetic forecast: no forecast service is set up)"
    age = int(output.get("age_s") or 0)
    if age >= 3 * 3600:
        hours = age // 3600
        when = f"{hours} hours" if hours < 48 else f"{hours // 24} days"
        return f" (forecast from {when} ago; no newer one could be fetched)"
    return ""


def tool_answer(
    tool: str,
    args: dict[str, Any],
    output: dict[str, Any],
    units: str = "metric",
    query: str = "",
) -> str:
    """One natural sentence for a tool's successful observation; ``query``, the words
    asked, picks what a forecast leads with when they ask about weather gear."""
    answer = _ANSWERS.get(tool)
    if answer is not None:
        return answer(args, output, units, query)
    return generic_answer(tool, output)


def _calculator_answer(
    args: dict[str, Any], output: dict[str, Any], _units: str, _query: str
) -> str:
    expression = " ".join(str(args.get("expression", "")).split())
    expression = re.sub(r"\s*%\s*", "% ", expression).strip()
    return f"{expression} = {number(output['value'])}."


def _unit_convert_answer(
    args: dict[str, Any], output: dict[str, Any], _units: str, _query: str
) -> str:
    source = _quantity(float(args["value"]), str(args["from_unit"]))
    target = _quantity(float(output["value"]), str(output["unit"]))
    return f"{source} is {target}."


def _weather_answer(args: dict[str, Any], output: dict[str, Any], units: str, query: str) -> str:
    if output.get("days"):
        city = city_name(str(output.get("city", args.get("city", ""))))
        label = SPAN_LABELS.get(str(output.get("day")), "Over those days")
        summary = forecast_span_summary(list(output["days"]), units)
        return f"{label} in {city}: {summary}{_forecast_note(output)}."
    city, day = city_name(str(output.get("city", args.get("city", "")))), output.get("day")
    temperature = int(output["temperature"])
    if units == "imperial":
        reading = f"{round(temperature * 9 / 5 + 32)}°F and {output['condition']}"
    else:
        reading = f"{temperature}°C and {output['condition']}"
    note = _forecast_note(output)
    if query and (concern := gear_question(query)) is not None:
        return _gear_answer(concern, output, city, reading, note)
    if day == "tomorrow":
        return f"Tomorrow it'll be {reading} in {city}{note}."
    if day and day != "today":
        return f"On {str(day).capitalize()} it'll be {reading} in {city}{note}."
    return f"It's {reading} in {city} today{note}."


def _device_answer(args: dict[str, Any], output: dict[str, Any], units: str, query: str) -> str:
    if output.get("until"):  # "for an hour": then back
        said = _device_answer(args, {k: v for k, v in output.items() if k != "until"}, units, query)
        return f"{said.removesuffix('.')}{_until(output)}."
    if output.get("state") == "scheduled" or output.get("rooms"):
        return device_plan_answer(output)
    device = str(output.get("device", args.get("device", "device"))).replace("_", " ")
    device = {"ac": "AC", "tv": "TV"}.get(device, device)
    room = f"{output['room']} " if output.get("room") else ""
    state = str(output.get("state", ""))
    if device == "blinds":
        return f"Done: the {room}blinds are {state}."
    if state.startswith("volume "):
        return f"Done: the {room}{device} volume is {state.removeprefix('volume ')}."
    if state.startswith("brightness "):
        return f"Done: the {room}{device} brightness is {state.removeprefix('brightness ')}%."
    if state.startswith("set to") and output.get("fahrenheit") is not None:
        fahrenheit = number(output["fahrenheit"])
        return f"Done: the {room}{device} is {state}°C ({fahrenheit}°F)."
    return f"Done: the {room}{device} is {state}."


def _set_timer_answer(
    args: dict[str, Any], output: dict[str, Any], _units: str, _query: str
) -> str:
    if output.get("already_due"):
        # Asked while offline, answered after it would have run out (docs/edge.md).
        due = re.search(r"T(\d{2}:\d{2})", str(output.get("due_at", "")))
        label = f" {output['label']}" if output.get("label") else ""
        span = duration(int(output.get("seconds") or 0))
        at = f" at {due.group(1)}" if due else ""
        return (
            f"Your {span}{label} timer would have gone off{at}, while the device was offline:"
            " that time has passed, so I didn't set a new one."
        )
    fires = str(output.get("fires_at", ""))
    match = re.match(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})", fires)
    clock, day = (match.group(2), match.group(1)) if match else (fires, "")
    zone = str(output.get("timezone") or "UTC")
    if args.get("at"):
        return f"Alarm set for {clock} on {day} ({zone})."
    seconds = int(output.get("seconds") or args.get("seconds") or 0)
    return f"Timer set for {duration(seconds)} (it goes off at {clock}, {zone})."


def _add_note_answer(args: dict[str, Any], output: dict[str, Any], _units: str, _query: str) -> str:
    if output.get("created") is True:
        return f"Created your {output['list']} list. It's empty for now."
    if output.get("created") is False:
        count = int(output.get("count") or 0)
        held = f"{count} item{'s' if count != 1 else ''}" if count else "empty"
        return f"You already have a {output['list']} list ({held})."
    if output.get("list"):
        return f"Added “{output.get('text', '')}” to your {output['list']} list."
    return f"Noted: “{output.get('text', args.get('text', ''))}”."


def _remove_note_answer(
    args: dict[str, Any], output: dict[str, Any], _units: str, _query: str
) -> str:
    if output.get("list"):
        return f"Removed “{output.get('text', '')}” from your {output['list']} list."
    return f"Removed the note “{output.get('text', '')}”."


def _search_notes_answer(
    args: dict[str, Any], output: dict[str, Any], _units: str, _query: str
) -> str:
    if output.get("list") is not None:
        items = [str(hit["text"]) for hit in output.get("results", [])]
        name = output["list"]
        only = " (your only list)" if output.get("lists") is not None else ""
        if not items:
            return f"Your {name} list{only} is empty."
        return f"Your {name} list{only}: {'; '.join(items)}."
    if output.get("lists") is not None:
        return lists_answer(list(output["lists"]))
    results = list(output.get("results", []))
    query = args.get("query", "")
    if not results:
        return f"I couldn't find any notes about “{query}”."
    shown = "; ".join(f"“{hit['text']}”" for hit in results[:3])
    count = len(results)
    return f"I found {count} note{'s' if count != 1 else ''} about “{query}”: {shown}."


def _world_clock_answer(
    args: dict[str, Any], output: dict[str, Any], _units: str, _query: str
) -> str:
    city = city_name(str(output.get("city", args.get("city", ""))))
    if output.get("asked_date") and output.get("asked_weekday"):
        asked = date.fromisoformat(str(output["asked_date"]))
        return (
            f"{asked.strftime('%B')} {asked.day}, {asked.year} is a "
            f"{str(output['asked_weekday']).capitalize()}{_days_away(asked, output)} "
            f"(today in {city} is "
            f"{str(output.get('weekday', '')).capitalize()} {output.get('date', '')})."
        )
    when = ""
    if output.get("weekday") and output.get("date"):
        when = f" on {str(output['weekday']).capitalize()} {output['date']}"
    return f"It's {output['time']}{when} in {city} ({output['timezone']})."


# One sentence function per tool: (args, output, units, query) -> the sentence (the
# newer tools' are added below, after their functions).
_ANSWERS: dict[str, Callable[[dict[str, Any], dict[str, Any], str, str], str]] = {
    "calculator": _calculator_answer,
    "unit_convert": _unit_convert_answer,
    "get_weather": _weather_answer,
    "device_control": _device_answer,
    "set_timer": _set_timer_answer,
    "add_note": _add_note_answer,
    "remove_note": _remove_note_answer,
    "search_notes": _search_notes_answer,
    "world_clock": _world_clock_answer,
}


def _days_away(asked: date, output: dict[str, Any]) -> str:
    """How far the asked date is from the place's today, in days (", 23 days from
    today"): "how many days until christmas" is answered with the count, not only the
    weekday."""
    try:
        today = date.fromisoformat(str(output.get("date", "")))
    except ValueError:
        return ""
    days = (asked - today).days
    if days == 0:
        return ", today"
    if days == 1:
        return ", tomorrow"
    if days > 0:
        return f", {days} days from today"
    return f", {-days} days ago" if days < -1 else ", yesterday"


def _gear_answer(
    concern: Concern, output: dict[str, Any], city: str, reading: str, note: str
) -> str:
    """The forecast for a question about weather gear, leading with the reading the item
    depends on (rain for an umbrella, the temperature for clothes); no advice beyond it:
    "No rain is forecast in London today: 12°C and cloudy."."""
    day = str(output.get("day") or "today")
    when = {"today": "today", "tomorrow": "tomorrow"}.get(day, f"on {day.capitalize()}")
    if concern == "rain":
        condition = str(output.get("condition"))
        said = {"rainy": "Rain is", "snowy": "Snow is"}.get(condition, "No rain is")
        return f"{said} forecast in {city} {when}: {reading}{note}."
    temperature, _and, condition = reading.partition(" and ")
    return f"It'll be {temperature} in {city} {when}, and {condition}{note}."


SPAN_LABELS = {
    "week": "This week",
    "weekend": "This weekend",
    "rest_of_week": "For the rest of the week",
    "next_days": "Over the next few days",
}


def _days_said(names: list[str]) -> str:
    """ "today, tomorrow and on Friday", "on Thursday and Friday"."""

    def listed(items: list[str]) -> str:
        return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]

    near = [n for n in names if n in ("today", "tomorrow")]
    weekdays = [n.capitalize() for n in names if n not in ("today", "tomorrow")]
    return listed([*near, *([f"on {listed(weekdays)}"] if weekdays else [])])


def forecast_span_summary(days: list[dict[str, Any]], units: str = "metric") -> str:
    """A span's days summed up by condition, in the order they come, then the range:
    "rainy on Thursday and Friday, sunny today and tomorrow; 4 to 11°C"."""
    groups: dict[str, list[str]] = {}
    for entry in days:
        groups.setdefault(str(entry["condition"]), []).append(str(entry["name"]))
    if len(groups) == 1:
        said = f"{next(iter(groups))} every day"
    else:
        said = ", ".join(f"{condition} {_days_said(names)}" for condition, names in groups.items())
    temperatures = [int(entry["temperature"]) for entry in days]
    low, high = min(temperatures), max(temperatures)
    if units == "imperial":
        low, high = round(low * 9 / 5 + 32), round(high * 9 / 5 + 32)
    scale = "°F" if units == "imperial" else "°C"
    return f"{said}; {low}{scale}" if low == high else f"{said}; {low} to {high}{scale}"


def _device_name(device: Any) -> str:
    name = str(device or "device").replace("_", " ")
    return {"ac": "AC", "tv": "TV"}.get(name, name)


def _local_clock(stamp: Any) -> str:
    """ "07:00 on 2026-12-03" from a local ISO time ("" when there is none)."""
    match = re.match(r"^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})", str(stamp or ""))
    return f"{match.group(2)} on {match.group(1)}" if match else str(stamp or "")


def _until(output: dict[str, Any]) -> str:
    return f" until {_local_clock(output['until'])}" if output.get("until") else ""


def device_plan_answer(output: dict[str, Any]) -> str:
    """A scheduled command ("at") or one run in every room ("all", "except")."""
    device = _device_name(output.get("device"))
    if output.get("state") == "scheduled":
        where = f"{output['room']} " if output.get("room") not in (None, "all") else ""
        if output.get("room") == "all":
            where = "every room's "
        return f"Scheduled: the {where}{device} at {_local_clock(output.get('fires_at'))}."
    rooms = [f"the {r['room']}" if r.get("room") else "the house" for r in output["rooms"]]
    left = [f"the {r}" for r in output.get("except") or []]
    but = f" (not {_and(left)})" if left else ""
    state = str(output.get("state", ""))
    return f"Done: {device} {state} in {_and(rooms)}{but}."


def _and(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _status_answer(args: dict[str, Any], output: dict[str, Any], _units: str, _query: str) -> str:
    device = _device_name(output.get("device", args.get("device")))
    room = f"{output['room']} " if output.get("room") else ""
    if not output.get("known"):
        return f"I don't know: the {room}{device} hasn't been used through me yet."
    readings = list(output.get("rooms", []))
    if len(readings) == 1:
        reading = readings[0]
        where = f"{reading['room']} " if reading.get("room") else ""
        return f"The {where}{device} is {reading['state']}."
    parts = [f"{r['room'] or 'house'}: {r['state']}" for r in readings]
    return f"The {device}: {'; '.join(parts)}."


def _timer_entry(entry: dict[str, Any]) -> str:
    label = str(entry.get("label") or "")
    kind = "command" if entry.get("kind") == "command" else "timer"
    named = f"{kind} “{label}”" if label else kind
    return f"{named} at {_local_clock(entry.get('fires_at'))}"


def _timers_answer(args: dict[str, Any], output: dict[str, Any], _units: str, _query: str) -> str:
    entries = list(output.get("timers", []))
    if not entries:
        return "You have no timers or alarms set."
    shown = "; ".join(_timer_entry(e) for e in entries[:5])
    more = f" and {len(entries) - 5} more" if len(entries) > 5 else ""
    count = len(entries)
    return f"You have {count} timer{'s' if count != 1 else ''}: {shown}{more}."


def _cancel_answer(args: dict[str, Any], output: dict[str, Any], _units: str, _query: str) -> str:
    entries = list(output.get("cancelled", []))
    if len(entries) == 1:
        return f"Cancelled the {_timer_entry(entries[0])}."
    return f"Cancelled {len(entries)} timers: {'; '.join(_timer_entry(e) for e in entries[:5])}."


def _clear_answer(args: dict[str, Any], output: dict[str, Any], _units: str, _query: str) -> str:
    removed = int(output.get("removed") or 0)
    if not removed:
        return f"Your {output['list']} list was already empty."
    return f"Cleared your {output['list']} list ({removed} item{'s' if removed != 1 else ''})."


_ANSWERS.update(
    {
        "device_status": _status_answer,
        "list_timers": _timers_answer,
        "cancel_timer": _cancel_answer,
        "clear_list": _clear_answer,
    }
)


def lists_answer(lists: list[dict[str, Any]]) -> str:
    """ "You have 2 lists: shopping (3 items) and to do (1 item)." """
    if not lists:
        return "You have no lists yet."
    named = [
        f"{entry['name']} ({entry['count']} item{'s' if entry['count'] != 1 else ''})"
        for entry in lists
    ]
    joined = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
    return f"You have {len(lists)} list{'s' if len(lists) != 1 else ''}: {joined}."


def generic_answer(tool: str, output: dict[str, Any]) -> str:
    """The answer of a tool with no sentence of its own (a user's tool): its ``answer``,
    ``message``, ``text`` or ``summary`` when it gives one, else its fields."""
    for key in ("answer", "message", "text", "summary"):
        value = output.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    fields = "; ".join(f"{key.replace('_', ' ')}: {value}" for key, value in output.items())
    name = tool.replace("_", " ")
    return f"Done ({name}): {fields}." if fields else f"Done ({name})."


def failure_answer(tool: str, detail: str, args: dict[str, Any] | None = None) -> str:
    """The answer when a tool failed or was refused (denied by the user)."""
    lowered = detail.lower()
    if "denied" in lowered or "reject" in lowered or "not approved" in lowered:
        args = args or {}
        if tool == "device_control" and args.get("device") == "door_lock":
            return "Okay, I left the door as it was: nobody approved unlocking it."
        return f"Okay, I didn't run {tool.replace('_', ' ')}: it wasn't approved."
    return f"Sorry, I couldn't do that on the device: {detail}"


def offline_answer(pending_id: str, retry_after_s: float | None = None) -> str:
    """What the user hears when a hard query cannot reach the cloud (or the cloud asks
    to come back later: ``retry_after_s`` is its hint)."""
    if retry_after_s is not None:
        return (
            "I can't answer that on the device and the cloud is busy right now (it asks to "
            f"retry in {max(retry_after_s, 0.1):.1f} s). I've saved your question (pending "
            f"{pending_id[:8]}) and will answer it with `edge-agent pending --cloud`."
        )
    return (
        "I can't answer that on the device and the cloud isn't reachable right now. "
        f"I've saved your question (pending {pending_id[:8]}) and will answer it when "
        "the connection is back."
    )
