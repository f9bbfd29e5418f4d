"""Whether a side-effect call's non-free-text arguments are the person's words.

The side-effect policy (``understanding.policy``) keeps a note's text to the words said;
this module does the same for the other arguments a call can get wrong: a timer's
seconds are a duration the words say ("7.5 hours" is 27,000 s, never 18,000), an alarm
needs an alarm's words ("two dishes" is no 02:00 alarm), and a device command names a
device the words name, an action they say and a value they hold, and is no question
("is the plug on?" is a read). The device's router and the cloud's plan check both reach
these through :func:`understanding.policy.check_call`: one implementation.

>>> grounded_values("set_timer", {"seconds": 18000}, "set a timer for 7.5 hours")
'a 18000 s timer where the words say otherwise'
>>> grounded_values("device_control", {"device": "plug", "action": "on"}, "is the plug on?")
"'is the plug on?' is a question, not a command"
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from understanding.arguments.devices import CLEANING_WORDS, DOCKED_WORDS
from understanding.tools.devices import DEVICE_ACTIONS

__all__ = [
    "complained",
    "durations_said",
    "grounded_values",
    "named_devices",
    "unkept_clock_time",
    "unkept_place",
]

PREV = "{prev}"  # a number an earlier call of a plan gives ("that many minutes")

_LISTED = re.compile(
    r"(\d+(?:\.\d+)?)((?:\s*(?:,\s*and|,|and|or|&)\s*\d+(?:\.\d+)?)+)\s*(hours?|minutes?|"
    r"mins?|seconds?|secs?)\b"
)
_UNIT = {"h": 3600, "m": 60, "s": 1}
# A unit said once for the durations after it: "8 minutes for the pasta and 12 for the
# sauce" (12 minutes), "... and a garlic bread one for 8"; a number with a unit of its own,
# or a percentage, is not one.
_CARRIED = re.compile(
    r"(\d+(?:\.\d+)?)\s*(hours?|minutes?|mins?|seconds?|secs?)\b(?:\s+for\s+[a-z' ]+?)?"
    r"\s+and\s+(?:another\s+(?:one\s+)?|(?:(?:a|an|the)\s+)?(?:[a-z']+\s+){0,2}(?:one|timer)\s+)?"
    r"(?:for\s+)?(\d+(?:\.\d+)?)\b"
    r"(?!\s*(?:%|\.\d|(?:hours?|minutes?|mins?|seconds?|secs?|h|m|s|percent)\b))"
    r"(?!\s+(?:for\s+)?\d)"
)
_PIECES = re.compile(r"\s*(?:[,;]|\band\b|\bthen\b|\balso\b|\bplus\b)\s*")


def carried_durations(words: str) -> list[int]:
    """The durations that take their unit from the one before: "8 minutes for the pasta
    and 12 for the sauce" is 480 s, then 720 s (both listed)."""
    found: list[int] = []
    for match in _CARRIED.finditer(words):
        unit = _UNIT[match.group(2)[0]]
        found += [round(float(match.group(1)) * unit), round(float(match.group(3)) * unit)]
    return found


def durations_said(words: str) -> set[int]:
    """Every duration the words say, in seconds: each of a list with one unit ("9 and 20
    minutes"), each piece's own ("an hour and a half, then 10 minutes") and the whole's."""
    from understanding.arguments.durations import parse_duration
    from understanding.arguments.numbers import normalise_numbers

    said = normalise_numbers(words)
    found: set[int] = set()
    for match in _LISTED.finditer(said):
        unit = _UNIT[match.group(3)[0]]
        numbers = [match.group(1), *re.findall(r"\d+(?:\.\d+)?", match.group(2))]
        found |= {round(float(n) * unit) for n in numbers}
    found |= set(carried_durations(said))
    whole = parse_duration(words)
    found |= {whole} if whole else set()
    pieces = _PIECES.split(said)
    for k in range(len(pieces)):
        for width in (1, 2, 3):  # "an hour | and a half" is one duration cut in two
            seconds = parse_duration(" ".join(pieces[k : k + width]))
            if seconds:
                found.add(seconds)
    return found


_ALARM_WORDS = re.compile(
    r"\b(?:alarms?|wake\s+(?:me|us)|at\s+\d|\d\s*(?:am|pm|a\s*m|p\s*m)\b|o'?clock|noon|"
    r"midnight|remind\s+me\s+at|until|till|tomorrow|tonight|morning)\b|\d:\d"
)

# The words after which a bare number is a device's level ("the thermostat 21").
_LEVEL_NAMES = (
    r"thermostat|heating|heat|heater|ac|aircon|air\s+con|temperature|temp|volume|level|"
    r"brightness|lights?|lamps?|speaker|music|fan|blinds|tv|telly"
)

# The words that say each device action (a device command's action must be said).
_ACTION_WORDS: dict[str, str] = {
    "on": r"\bon\b|\bstart\w*|\bbrew\w*|\bpower\s+up|\benable|\bturn\s+up|\brun\b|\bmake\b|"
    r"\bget\s+(?:\w+\s+){1,3}going\b|"
    r"\bswitch\s+(?:\w+\s+)*on\b|\bfire\s+up|\bboot|\bactivate|"
    rf"{CLEANING_WORDS}|\bhoover\b",  # the vacuum's run: "clean the flat"
    "off": r"\boff\b|\bturn\s+of\b|\bstop\w*|\bkill|\bout\b|\bpower\s+down|\bdisable|"
    rf"\bshut\b|{DOCKED_WORDS}|\bturn\s+down|\bdeactivate|\bcut\b",
    "lock": r"\block\w*|\bsecure|\bclose\w*|\bshut\b",
    "unlock": r"\bunlock\w*",
    "open": r"\bopen\w*|\braise\w*|\bup\b|\bpull\s+up",
    "close": r"\bclose\w*|\bshut\b|\blower\w*|\bdraw\w*|\bdown\b",
    # A level is said as one: "to 21", "40 percent", "the thermostat 21", "volume 30"; a
    # number of another request ("... cube 9") says no "set".
    "set": r"\b(?:to|at|on|by|is|of)\s+(?:about\s+|around\s+)?-?\d|\d\s*(?:%|percent|degrees?|°)|"
    rf"\b(?:{_LEVEL_NAMES})\s+(?:up\s+|down\s+)?(?:at\s+|on\s+|to\s+)?-?\d|"
    r"\bset\b|\bto\s+(?:that|it|the\s+result)|\bdim\w*|\bbright\w*|\bturn\b|"
    r"\b(?:low|medium|high|max\w*|min\w*|half|full)\b",
    "volume_up": r"\blouder|\braise|\bincrease|\bvolume|\bturn\s+(?:\w+\s+){0,3}up\b",
    "volume_down": r"\bquieter|\bsofter|\blower|\bdecrease|\bvolume|"
    r"\bturn\s+(?:\w+\s+){0,3}down\b|\btoo\s+loud",
    "mute": r"(?<!off )(?<!un)\bmute(?!\s+off)|\bsilen",
    "unmute": r"\bunmute|\bun\s+mute|\boff\s+mute|\bmute\s+off|\bstop\s+muting"
    r"|\bturn\s+off\s+(?:the\s+)?mute",
    "brightness_up": r"\bbright\w*|\bup\b|\bincrease|\bdark\w*|\braise|\bboost",
    "brightness_down": r"\bdim\w*|\bdown\b|\bdarker|\bdecrease|\blower|\breduce|\btoo\s+bright",
}
# What opens and closes a switch, as many speakers of other languages say on and off.
_SWITCH_SAID = {"on": "open", "off": "close"}


def _opens_the_device(verb: str, said: str, device: str) -> bool:
    """Whether ``verb`` takes the device itself as its object ("close the bedroom light"),
    not something on it ("close netflix on the tv" switches nothing off)."""
    found = re.search(rf"\b{verb}\s+(?:the\s+|my\s+|that\s+)?(\w+(?:\s+\w+){{0,2}})", said)
    return found is not None and device in named_devices(found.group(1))


_SET_WORDS = re.compile(_ACTION_WORDS["set"])
# A coffee asked for: the coffee machine's brew ("i'd like some coffee", "prepare coffee").
_DRINK_ASKED = re.compile(
    r"\b(?:prepare|pour|fix)\s+(?:me\s+)?(?:a|an|some|my|the)?\s*(?:\w+\s+)?"
    r"(?:coffee|espresso|latte|cappuccino|americano)\b"
    r"|\b(?:like|want|need|have|get|fancy|grab)\s+(?:me\s+)?(?:a|an|some|my)?\s*(?:\w+\s+)?"
    r"(?:coffee|espresso|latte|cappuccino|americano|cup\s+of\s+coffee)\b"
    r"(?!\s+(?:beans?|filters?|pods?|capsules?|grounds|machine|maker|cups?|mugs?|shop|table))"
)
_REFERS_BACK = re.compile(r"\b(?:that|it|the\s+result|the\s+answer|this)\b")
# The door lock is named by a door or a lock as a thing, not by the verb ("lock in my
# answer" names no door).
_DOOR = re.compile(
    r"\b(?:doors?|deadbolt|locks|gate|garage|house|front|back|smart\s+lock|door_lock)\b"
    r"|\block\s+(?:it|them|up|the|my|our|everything|all)\b"
)


_SPEAKER_BY_SOUND = frozenset({"volume", "the volume", "sound", "the sound"})


def named_devices(words: str, *, implied: bool = True) -> set[str]:
    """The devices the words name, by the device tables (``understanding.arguments.
    devices``): by their own words, or (``implied``) by what they do ("dim" the light,
    "louder" the speaker); the door lock only by a door or a lock as a thing."""
    from understanding.arguments.devices import (
        DEVICE_NAMES,
        ROOM_NAMES,
        _find_phrases,
        _implied_devices,
        device_kinds,
    )
    from understanding.arguments.numbers import tokenize

    tokens = tokenize(words.lower().replace("_", " "))
    rooms = _find_phrases(tokens, ROOM_NAMES)
    phrases = _find_phrases(tokens, DEVICE_NAMES)
    named = {kind for _s, _e, kind in phrases} | device_kinds(tokens, rooms)
    said = {" ".join(tokens[s:e]) for s, e, kind in phrases if kind == "speaker"}
    if "tv" in named and said and said <= _SPEAKER_BY_SOUND:
        named.discard("speaker")  # "turn on the tv and the volume to 40": the tv's volume
    if implied:
        named |= _implied_devices(" ".join(tokens), bool(rooms))
    if "door_lock" in named and not _DOOR.search(" ".join(tokens)):
        named.discard("door_lock")
    if "thermostat" in named or "heater" in named:
        named |= {"thermostat", "heater"}  # "the heat to 21" / "the heating"
    return named


def _timer(args: dict[str, Any], words: str) -> str | None:
    seconds = args.get("seconds")
    if isinstance(seconds, str) and seconds.startswith(PREV):
        return None
    if seconds is not None:
        said = durations_said(words)
        if not said:
            return "a timer with no duration in the words"
        if round(float(seconds)) not in said:
            return f"a {seconds} s timer where the words say otherwise"
        return None
    at = args.get("at")
    if at and not _ALARM_WORDS.search(words.lower()):
        return "an alarm the words do not ask for"
    if at and not _hour_said(str(at), words):
        return f"an alarm at {at} where the words say another time"
    return None


def _hour_said(at: str, words: str) -> bool:
    """Whether the words say the alarm's hour ("6pm" or "six" for 18:00, "quarter to
    seven" for 06:45, "midnight" for 00:00); an alarm of the words' date with no clock
    time (an ISO date alone) passes."""
    from understanding.arguments.numbers import find_numbers, normalise_numbers, tokenize

    clock = re.search(r"(\d{1,2}):(\d{2})", at)
    if clock is None:
        return True
    hour = int(clock.group(1))
    said = normalise_numbers(words.lower())
    if hour in (0, 12) and re.search(r"\b(?:midnight|noon|midday)\b", said):
        return True
    numbers = {float(span.value) for span in find_numbers(tokenize(said))}
    numbers |= {
        float(n) for n in re.findall(r"\b(\d{1,2})(?::\d{2}|\s*(?:am|pm|a\s*m|p\s*m))", said)
    }
    twelve = hour % 12 or 12
    return bool(numbers & {float(hour), float(twelve), float(twelve % 12 + 1)})


def complained(words: str, device: Any, action: Any) -> bool:
    """Whether the words are a complaint this very command ends ("it's dark in here":
    the light on), which says the device and the action as well as naming them would."""
    from understanding.arguments.complaints import complaint_command
    from understanding.arguments.devices import ROOM_NAMES, _find_phrases
    from understanding.arguments.numbers import tokenize

    tokens = tokenize(words.lower())
    placed = bool(_find_phrases(tokens, ROOM_NAMES))
    said = complaint_command(tokens, device=None if device is None else str(device), placed=placed)
    return said is not None and said == (device, action)


# "put the fan on in his room": someone's room, which no room of the device's is named
_SOMEONES_ROOM = re.compile(r"\b(?:his|her|their|your|[a-z]+'s)\s+(?:room|bedroom)\b")
# "in reception", "in the storeroom": a place a command is said for.
_IN_PLACE = re.compile(
    r"\bin\s+(?:the\s+|my\s+|our\s+)?(?P<place>[a-z]+(?:'s|s'|')?(?:\s+room)?)(?![a-z])"
    r"(?!\s*(?:minutes?|hours?|mins?))"
)
# What follows "in" in a command without being a room: a time, a scale, the whole home.
_NO_PLACE = frozenset(
    """
    a an one here there every all each both whole house home flat apartment place celsius
    fahrenheit degrees degree morning afternoon evening night minute minutes hour hours
    second seconds bit while moment sec mo half quarter few couple case order time
    background dark mode then now future advance
    """.split()  # noqa: SIM905
)


def _is_city(said: str, first: str) -> bool:
    """Whether the words from ``said``'s start name a city (exactly, by its first word)."""
    from understanding.gazetteer import find_cities

    cities = find_cities(" ".join(said.split()[:3]))
    return bool(cities) and cities[0][0] == 0 and cities[0][1].split()[0] == first


def unkept_place(words: str, calls: Sequence[tuple[str, dict[str, Any]]]) -> str | None:
    """A place the words say a device command is for ("the fan in reception") that no
    device call of ``calls`` keeps (as its room or a room it leaves out): without it,
    the default room's device would be the one run. None when there is none, or when no
    call commands a device."""
    from understanding.arguments.devices import device_name, room_name
    from understanding.arguments.numbers import find_numbers

    commands = [args for tool, args in calls if tool == "device_control"]
    devices = [args for tool, args in calls if tool in ("device_control", "device_status")]
    kept = {room for a in devices for room in (a.get("room"), *(a.get("except") or ()))}
    if not commands or "all" in kept:
        return None
    cities = {str(a.get("city")) for tool, a in calls if tool in ("get_weather", "world_clock")}
    for match in _IN_PLACE.finditer(words.lower()):
        place = match.group("place")
        first = place.split()[0]
        mine = place == "room" and "my" in match.group(0).split()  # "in my room": theirs
        if mine or first in _NO_PLACE or find_numbers([first]) or device_name(place):
            continue
        if place in cities or _is_city(words.lower()[match.start("place") :], first):
            continue  # "... and what time is it in seoul": a reading's place
        following = words.lower()[match.start("place") :].split()
        spans = (" ".join(following[:width]) for width in (1, 2, 3))
        if not kept.intersection(room_name(span) for span in spans):
            return place  # "in the master bedroom": kept as the bedroom
    return None


def _device(args: dict[str, Any], words: str) -> str | None:
    from understanding.arguments.devices import OTHER_APPLIANCES
    from understanding.arguments.numbers import find_numbers, tokenize
    from understanding.arguments.qualifiers import is_question
    from understanding.arguments.speech_acts import not_a_command

    device, action = args.get("device"), args.get("action")
    said = words.lower()
    if is_question(words) and not _SET_WORDS.search(said):
        return f"{words.strip()!r} is a question, not a command"
    if (told := not_a_command(words)) is not None:
        return told
    if (other := OTHER_APPLIANCES.search(said)) is not None:
        return f"the words name the {other.group(0)}, which no device tool runs"
    if not args.get("room") and (whose := _SOMEONES_ROOM.search(said)) is not None:
        return f"the words name {whose.group(0)!r}, a room the device does not know by that"
    value = args.get("value")
    level = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
    tokens = tokenize(said) if level is not None else []
    numbers = {float(span.value) for span in find_numbers(tokens)}
    if not complained(words, device, action):
        if device is not None and device not in named_devices(words):
            return f"the words name no {device}"
        pattern = _ACTION_WORDS.get(str(action))
        said_so = pattern is not None and re.search(pattern, said) is not None
        # "the volume to ninety": a level said in words is a setting; "can i have an
        # espresso": a drink asked for is the coffee machine's brew
        said_so = said_so or (action == "set" and _level_said(tokens, level))
        said_so = said_so or (
            device == "coffee_machine" and action == "on" and _DRINK_ASKED.search(said) is not None
        )
        said_so = said_so or (  # "open the tv", "close the light": a switch's on and off
            not DEVICE_ACTIONS.get(str(device), frozenset()) & {"open", "close", "lock"}
            and action in _SWITCH_SAID
            and _opens_the_device(_SWITCH_SAID[str(action)], said, str(device))
        )
        if action is not None and not said_so:
            return f"the words do not say {action}"
    if level is not None and level not in numbers and not _REFERS_BACK.search(said):
        from understanding.arguments.devices import level_value

        if level_value(" ".join(tokens)) != value:
            return f"the value {value:g} is not in the words"
    return None


# The words a level follows ("to ninety", "the volume at 30") or that follow it ("40
# percent"): a number said otherwise ("... and cube 9") says no setting.
_BEFORE_A_LEVEL = frozenset(
    """
    to at on by is of about around volume level brightness thermostat heating heat heater
    temperature temp ac aircon speaker music fan blinds tv telly light lights lamp
    """.split()  # noqa: SIM905
)
_AFTER_A_LEVEL = frozenset({"%", "percent", "per", "degrees", "degree", "°", "c", "f"})


def _level_said(tokens: list[str], level: float | None) -> bool:
    from understanding.arguments.numbers import find_numbers

    for span in find_numbers(tokens):
        if float(span.value) != level:
            continue
        before = tokens[span.start - 1] if span.start else ""
        after = tokens[span.end] if span.end < len(tokens) else ""
        if before in _BEFORE_A_LEVEL or after in _AFTER_A_LEVEL:
            return True
    return False


def grounded_values(tool: str, args: dict[str, Any], words: str) -> str | None:
    """Why a call's durations, alarm time or device command are not the words' (see the
    module docstring), or None when they are. Only the arguments a call has are checked:
    a call with none yet (the router's ask-back) has nothing to ground."""
    if not args:
        return None
    if tool == "set_timer":
        return _timer(args, words)
    if tool == "device_control":
        return _device(args, words)
    if tool == "remove_note":
        return _removal(args, words.lower())
    return None


def _removal(args: dict[str, Any], said: str) -> str | None:
    """A removal is said, and the verb nearest before the item is no adding one ("remove
    eggs from the list and add cream instead": cream is added, not removed)."""
    if not _REMOVED.search(said):
        return "the words say no removal"
    at = said.find(str(args.get("text", "")).lower()) if args.get("text") else -1
    verbs = list(re.finditer(rf"{_REMOVED.pattern}|{_ADDED.pattern}", said[: max(at, 0)]))
    if at > 0 and verbs and _ADDED.fullmatch(verbs[-1].group(0)):
        return f"{args['text']!r} is added, not removed"
    return None


# What taking an item off a list is said with ("take eggs off", "cross out", "we got the
# milk", "scratch bread").
_REMOVED = re.compile(
    r"\b(?:remove\w*|take|took|taking|delete\w*|cross\w*|strike|scratch|drop|rid|off|erase|"
    r"clear|bought|got|done|tick\w*|un-?list|forget)\b"
)
_ADDED = re.compile(r"\b(?:add|put|stick|write|jot|pop|include|append)\b")


# The tools whose calls keep a clock time said: a timer's or a command's ``at``, a note's.
_TIMED = frozenset({"set_timer", "device_control", "add_note"})
# "6:30", "6:30 pm", "6.30pm" (a decimal is no clock time without its am or pm: "0.25")
_SAID_CLOCK = re.compile(
    r"\b(\d{1,2})(?::(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?|\.(\d{2})\s*(am|pm|a\.m\.|p\.m\.))(?![\d.])"
)


def unkept_clock_time(words: str, calls: Sequence[tuple[str, dict[str, Any]]]) -> str | None:
    """The first clock time said that no call keeps (a timer's or a command's ``at``, a
    note's words), else None: "set an alarm for 6:15 and another for 6:30" read as one
    alarm would drop the second. Only calls with side effects are asked about."""
    if not any(t in _TIMED for t, _ in calls):
        return None
    kept = set()
    for _, arguments in calls:
        at = re.search(r"(\d{2}):(\d{2})$", str(arguments.get("at", "")))
        if at:
            kept.add(int(at[1]) * 60 + int(at[2]))
    said_in = " ".join(str(v) for _, a in calls for v in a.values() if isinstance(v, str))
    for match in _SAID_CLOCK.finditer(words):
        hour, minute = int(match[1]), int(match[2] or match[4])
        part = (match[3] or match[5] or "")[:1]
        if hour > 23 or minute > 59 or match.group(0).strip() in said_in:
            continue
        day = {hour % 12 * 60 + minute + (720 if part == "p" else 0)} if part else set()
        day = day or {hour * 60 + minute, (hour + 12) % 24 * 60 + minute}
        if not day & kept:
            return str(match.group(0).strip())
    return None
