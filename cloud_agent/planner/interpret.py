"""Read one clause: which tool it asks for and which entities it names.

A clause is read with the edge's own argument extractors (``understanding.arguments``) and
gazetteer (``understanding.gazetteer``), so that the cloud and the device fill arguments the same
way; the planner adds what a single-tool device reader does not need: cue words for the
tool of a fragment, the entities a fragment carries over ("... and Berlin"), and the
references back to an earlier result ("add 3 to that").
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from understanding.arguments import extract_arguments
from understanding.arguments.devices import says_on
from understanding.gazetteer import find_cities
from understanding.requests import alarm_time, list_request

WEATHER = "get_weather"
CLOCK = "world_clock"
CALCULATOR = "calculator"
CONVERT = "unit_convert"
DEVICE = "device_control"
TIMER = "set_timer"
ADD_NOTE = "add_note"
SEARCH_NOTES = "search_notes"
REMOVE_NOTE = "remove_note"
STATUS = "device_status"
LIST_TIMERS = "list_timers"
#: The tools whose answer is a reading (a forecast, a clock, a conversion, a result).
READINGS = frozenset({WEATHER, CLOCK, CONVERT, CALCULATOR})

# A question about a device's state ("is the plug on?", "did i lock the front door", "what
# is the thermostat set to"): a read, never a command. An imperative ("turn on the plug",
# "can you lock the door") does not open with these.
_STATUS_QUESTION = re.compile(
    r"^(?:(?:and|so|also|oh|hey|quick\s+question)\s+)*(?:"
    r"(?:is|are|was|were|did|do|does|has|have|had)\s+(?!it\b|there\b|that\b|this\b)"
    r"|(?:what|how)\s+is\s+(?:the|my|our)\b|what\s+(?:state|setting|temperature|level)\b"
    r"|(?:check|see|tell\s+me|find\s+out|let\s+me\s+know)\s+(?:whether|if)\b"
    r"|(?:can|could)\s+you\s+(?:check|see|tell\s+me)\s+(?:whether|if)\b"
    r"|(?:(?:can|could)\s+you\s+)?(?:check|tell\s+me|give\s+me|show\s+me|get)\s+(?:the\s+)?"
    r"(?:current\s+)?(?:status|state|setting)\s+of\b"
    r")"
)

_NOTE_SEARCH = re.compile(
    r"\b(?:search|find|look\s*up|look\s+for|check|anything|look\s+(?:in|through|at)|any|what(?:\s+is)?\s+in|read)"
    r"\b.*\bnotes?\b|\bnotes?\s+(?:about|on|for|regarding|mentioning)\b|\bwhat\s+did\s+i\s+(?:note|write|save)\b|\bdo\s+i\s+have\s+(?:any\s+)?notes?\b"
    # A question about what was written is a search, whatever its verb: "did i note down
    # the code anywhere", "where did i write the plumber's number".
    r"|^(?:\w+\s+){0,2}(?:did|have|had)\s+(?:i|we)\s+(?:\w+\s+)?(?:note|noted|write|written|"
    r"wrote|jot|jotted|save|saved|keep|kept)\b"
)
_NOTE_ADD = re.compile(
    r"\badd\b.+\bto\s+(?:my\s+)?notes\b|\b(?:(?:save|keep|store|put)\s+(?:that|this|it)\s+(?:as|in)\s+(?:a\s+)?notes?|"
    r"add(?:\s+a)?\s+(?:note|one)|make\s+a\s+note|take\s+a\s+note|note\s+(?:that|to)|"
    r"(?:note|write)(?:\s+(?:this|it|these|that))?\s+down|"
    r"note\s+(?:each|all|every\s+one|both|these|the\s+following)|"
    r"(?:add|make|write|take)\s+(?:two|three|four|five|six|\d)\s+notes|"
    r"jot(?:\s+down)?|write\s+down|remind\s+me\s+to|remember\s+(?:that|to)|"
    r"put\s+(?:a\s+note|in\s+my\s+notes)|save\s+a\s+note|new\s+note)\b|^(?:\w+\s+){0,2}note\s*:"
    r"|^(?:and\s+|with\s+)?(?:a|another)\s+note\s*(?:saying|that\s+says|reading|to|that|:)"
)
_TIMER = re.compile(r"\b(?:timers?|countdowns?|remind\s+me\s+in)\b")
# A timer or an alarm called off ("cancel the pasta timer", "kill my 7am alarm", "the
# next timer, cancel it"): no cue of a new timer; the edge's router reads which one.
_CANCEL_TIMER = re.compile(
    r"\b(?:cancel|delete|remove|stop|kill|clear|scrap|abort|dismiss|get\s+rid\s+of|"
    r"turn\s+off|switch\s+off)\b(?:\s+\S+){0,4}?\s+(?:timers?|alarms?|countdowns?|reminders?)\b"
    r"|\b(?:timers?|alarms?|countdowns?)\b.*\b(?:cancel(?:led)?|delete[d]?|off)\b"
)
# A reminder with its time ("remind me to call mum at 6pm", "remind me at 7 to ..."): an
# alarm with its words as the label, as the device reads it, never a note.
_TIMED_REMINDER = re.compile(
    r"\bremind\s+(?:me|us)\b.*?(?:\bat\s+(?:\d|noon|midnight)|\d\s*(?:am|pm)\b|"
    r"\bin\s+(?:\d+|an?|half\s+an)\s+(?:min\w*|hours?|sec\w*)|\btonight\b|\btomorrow\b)"
)
# A question about the timers and alarms still to come: a read ("what timers do i have
# running", "any alarms set for tomorrow", "list my timers").
_LIST_TIMERS = re.compile(
    r"^(?:\w+\s+){0,2}(?:what|which|any|how\s+many|are\s+there\s+any|do\s+i\s+have\s+any)\s+"
    r"(?:\w+\s+){0,2}(?:timers?|alarms?)\s+(?:do|are|have|is|running|set|left|going|on)\b"
    r"(?!.*\b(?:for|at|in)\s+\d)"
    r"|\b(?:list|show\s+me)\s+(?:all\s+)?(?:my\s+|the\s+)?(?:timers|alarms)\b"
)
_CONVERT = re.compile(
    r"\b(?:convert|conversion|how\s+many|in\s+(?:metric|imperial))\b|\b(?:tell\s+me\s+)?that\s+in\b"
    r"|\bwhat\s+is\s+[\d.]+\s*[a-z°]+\s+in\b|\b[\d.]+\s*[a-z°]+\s+(?:in|to|into)\s+[a-z°]+"
)
_CALC = re.compile(
    r"\d\s*(?:[-+*/x×÷^%])\s*[\d(]|\d\s*times\b|\btimes\s+(?:\d|it|that|by|the)|"
    r"\b(?:multipl\w*|divide\w*|divided|plus|minus|"
    r"percent|square\s+root|sqrt|subtract\w*|sum|product|squared|cubed|double|half\s+of|"
    r"triple|calculate|compute|power\s+of)\b|\badd\s+[\d.]+\b|\b\d+\s*%\s*of\b"
)
_DEVICE_WORDS: tuple[tuple[str, str], ...] = (
    (r"\b(?:front\s+door|back\s+door|door\s*lock|doors?|locks?)\b", "door_lock"),
    (r"\b(?:thermostat)\b", "thermostat"),
    (r"\b(?:lights?|lamps?|lighting)\b", "light"),
    (r"\b(?:a/?c|air\s*con\w*|aircon)\b", "ac"),
    (r"\b(?:heater|heating|radiator)\b", "heater"),
    (r"\b(?:fans?)\b", "fan"),
    (r"\b(?:tv|television|telly)\b", "tv"),
    (r"\b(?:speakers?|music|stereo)\b", "speaker"),
    (r"\b(?:blinds|shades|curtains|shutters)\b", "blinds"),
    (r"\b(?:smart\s+)?plugs?\b|\b(?:power\s+)?sockets?\b|\boutlets?\b", "plug"),
    (r"\b(?:robot\s+)?vacuum(?:\s+cleaner)?\b|\broomba\b|\bhoover\b", "vacuum"),
    (r"\bcoffee(?:\s+(?:machine|maker))?\b|\bespresso\s+machine\b", "coffee_machine"),
)
_DEVICE_VERB = re.compile(
    r"\b(?:turn|switch|lock|unlock|locked|unlocked|open|opened|close|closed|shut|dim|brighten|kill|"
    r"set|put|start|stop|mute|unmute|louder|quieter|brew|make|"
    r"power|raise|lower|bump|crank|adjust|change|make|up|down)\b|\b(?:on|off)\b|\b(?:to|at)\s+-?\d"
)
_WEATHER = re.compile(
    r"\b(?:weather|forecast|temperatures?|rain\w*|drizzl\w*|showers|overcast|precipitation|"
    r"sunn\w*|sun|snow\w*|hot|hotter|hottest|cold|"
    r"colder|coldest|warm\w*|cool|cooler|coolest|umbrella|humid\w*|wind\w*|fog\w*|cloud\w*|"
    r"chill(?:y|ier|iest)|mild(?:er|est)?|wett?(?:er|est)|dr(?:y(?!\s+clean)|ier|iest)|breez\w*|freezing|jacket|coat|storm\w*|degrees\s+outside|nic(?:e|er|est)\s+out|outside|"
    r"(?:what|how)\s+is\s+it\s+like\s+(?:in|out|there))\b"
)
_CLOCK = re.compile(
    r"\b(?:what\s+time|time\s+(?:in|is|at|there|now|difference|zone)|the\s+time|local\s+time|"
    r"clock|later|earlier|o'clock|ahead|behind|times?|what\s+day|the\s+date|date\s+in|"
    r"morning|afternoon|evening|night|nighttime|daytime|midnight|noon|dark|awake|asleep|"
    r"hours?\s+(?:difference|ahead|behind|apart)|difference\s+in\s+(?:time|hours))\b"
)
_REFERS_BACK = re.compile(
    r"\b(?:that|it|the\s+result|the\s+answer|this|them|the\s+total|the\s+sum)\b"
)
_ROOMS = (
    "living room",
    "dining room",
    "bedroom",
    "kitchen",
    "bathroom",
    "office",
    "garage",
    "hallway",
    "hall",
    "basement",
    "attic",
    "nursery",
    "study",
    "porch",
    "garden",
    "lounge",
    "kids room",
    "guest room",
    "master bedroom",
)


@dataclass
class Clause:
    """What one clause says: its tool cue and the entities a plan can carry over."""

    text: str
    tool: str | None = None
    cities: list[str] = field(default_factory=list)
    days: list[str] = field(default_factory=list)
    device: str | None = None
    action: str | None = None
    room: str | None = None
    value: float | None = None
    refers_back: bool = False
    args: dict[str, Any] | None = None
    own_tool: str | None = None  # the tool its own words name (None: carried over)
    model_tool: str | None = None  # the tool a joint model gave its words (model split)

    @property
    def has_entity(self) -> bool:
        """Whether the clause names something a carried-over tool can act on."""
        return bool(self.cities or self.days or self.device or self.room)


Extractor = Callable[[str, str], dict[str, Any] | None]


def find_days(text: str) -> list[str]:
    """'today', 'tomorrow', weekdays (the next such day, within the forecast's 7) and a
    span of those days ('week', 'weekend', 'rest_of_week', 'next_days': "this weekend")
    in the order the text names them ('tonight', 'now' = today)."""
    from understanding.arguments.forecast_days import SERVED_SPAN, forecast_day_in

    span = forecast_day_in(text)
    if span is not None and (match := SERVED_SPAN.search(text)) is not None:
        before, after = find_days(text[: match.start()]), find_days(text[match.end() :])
        return list(dict.fromkeys([*before, span, *after]))
    days = []
    for match in re.finditer(
        r"\b(today|tonight|now|currently|tomorrow|monday|tuesday|wednesday|thursday|friday|"
        r"saturday|sunday)s?\b",
        text,
    ):
        word = match.group(1)
        day = word if word not in ("tonight", "now", "currently") else "today"
        if day not in days:
            days.append(day)
    return days


def find_device(text: str) -> str | None:
    """The first device the text names, by position."""
    best: tuple[int, str] | None = None
    for pattern, device in _DEVICE_WORDS:
        match = re.search(pattern, text)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), device)
    if best is None and re.search(
        r"\b(?:set|turn|raise|lower|bump|put|change|make)\b.*\b(?:temperature|heat)\b.*"
        r"\b(?:to|at|on)\s+-?\d",
        text,
    ):
        return "thermostat"  # "set the living room temperature to 21"
    if best is None and re.search(r"\bvolume\b", text):
        return "speaker"
    if best is None and re.search(r"\bbrightness\b", text):
        return "light"
    return best[1] if best else None


_VOLUME_UP = re.compile(
    r"\b(?:volume\s+up|louder|up\s+the\s+volume|turn\s+(?:it\s+|the\s+\w+\s+)?up)\b"
)
_VOLUME_DOWN = re.compile(
    r"\b(?:volume\s+down|quieter|softer|turn\s+(?:it\s+|the\s+\w+\s+)?down)\b"
)


def find_action(text: str, device: str | None) -> str | None:
    """The device action a clause asks for (on, off, set, lock, unlock, open, close; for
    the speaker and the TV also volume_up, volume_down, mute, unmute; for the light
    brightness_up, brightness_down)."""
    if device in ("speaker", "tv"):
        if re.search(r"\bunmute\b", text):
            return "unmute"
        if re.search(r"\bmute\b", text):
            return "mute"
        if not re.search(r"\d", text):
            if re.search(
                r"\b(?:volume\s+up|louder|up\s+the\s+volume|turn\s+(?:it\s+|the\s+\w+\s+)?up)\b",
                text,
            ):
                return "volume_up"
            if re.search(
                r"\b(?:volume\s+down|quieter|softer|turn\s+(?:it\s+|the\s+\w+\s+)?down)\b", text
            ):
                return "volume_down"
    if device == "light" and not re.search(r"\d|\boff\b", text):
        if re.search(r"\b(?:dim|dimmer|darker|turn\s+(?:it\s+|the\s+\w+\s+)?down)\b", text):
            return "brightness_down"  # the tool's step from the kept brightness
        if re.search(r"\b(?:brighten|brighter|turn\s+(?:it\s+|the\s+\w+\s+)?up)\b", text):
            return "brightness_up"
    if re.search(r"\bunlock(?:ed)?\b", text):
        return "unlock"
    if re.search(r"\block(?:ed)?\b", text):
        return "lock"
    if re.search(
        r"\b(?:set|dim|brighten|turn\s+(?:it\s+|the\s+\w+\s+)?(?:up|down|to))\b.*\d", text
    ):
        return "set"
    if device is not None and re.search(
        rf"\b(?:to|at|on)\s+-?\d{_NO_CLOCK}|\d\s*(?:%|percent)", text
    ):
        return "set"  # "put the heater on 25", "bump the thermostat up to 23", "volume at 30"
    if re.search(r"\b(?:to|at)\s+\d", text) and re.search(r"\b(?:volume|brightness)\b", text):
        return "set"
    if re.search(r"\bset\b.*\bto\s+(?:that|it|the\s+result|this)\b", text):
        return "set"  # "set the ac to that": the value comes from the previous result
    if re.search(r"\b(?:open(?:ed)?|raised?)\b", text):
        return "open"
    if re.search(r"\b(?:closed?|shut|lower(?:ed)?|drawn?)\b", text):
        return "lock" if device == "door_lock" else "close"
    if re.search(r"\b(?:off|kill|stop|power\s+down|disable)\b|\b(?:lights?|lamps?)\s+out\b", text):
        return "off"
    if re.search(r"\b(?:start|power\s+up|enable)\b", text) or says_on(text.split()):
        return "on"  # not the "on" of a place: "play some jazz on the speaker"
    runs = ("fan", "ac", "heater", "vacuum", "coffee_machine")
    if device in runs and re.search(r"\b(?:run|running|going)\b", text):
        return "on"  # "run the fan for an hour", "run the vacuum": its run is its being on
    if device == "coffee_machine" and re.search(r"\b(?:make|brew|pour)\b", text):
        return "on"  # "make the coffee at 6:20": its brew
    return None


# A number that is a clock time ("at 6:20", "at 7 pm") is no level of a device.
_NO_CLOCK = r"[\d.]*(?!\s*(?::\d|am\b|pm\b|a\.m|p\.m|o'?clock))"


def find_room(text: str) -> str | None:
    """The room a clause names, if any, by the device's name for it ("the hall" is the
    hallway, the loo the bathroom), as the device's own reading names it; the first one
    said. A name that is an everyday word first ("bath", "yard", "living") is no room here:
    the device's reader weighs those with the words around them."""
    from understanding.arguments.devices import ROOM_NAMES

    for room in _rooms_said(text):
        return ROOM_NAMES.get(room, room)
    return None


_NOT_ROOMS_ALONE = frozenset(
    {"bath", "living", "yard", "entrance", "laundry", "landing", "deck", "snug", "shed", "loft"}
)


@functools.cache
def _room_pattern() -> re.Pattern[str]:
    from understanding.arguments.devices import ROOM_NAMES

    names = [n for n in ROOM_NAMES if n not in _NOT_ROOMS_ALONE and "-" not in n]
    names = sorted({*names, *_ROOMS}, key=len, reverse=True)
    # Any "<word> room" is a room as said ("the server room", "the print room"), the
    # device's own reading (``room_name``); "the room", "every room" name none.
    named = r"|(?<!\S)(?!(?:" + "|".join(_NOT_A_ROOM_NAME) + r")\s)[a-z]+\s+room(?!['\w])"
    return re.compile(r"\b(?:" + "|".join(re.escape(n) for n in names) + r")\b" + named)


_NOT_A_ROOM_NAME = (
    "the", "a", "an", "my", "our", "your", "this", "that", "which", "what", "every",
    "each", "any", "all", "other", "same", "one", "no", "some", "whole", "entire", "more",
    "of", "in", "to", "and", "or", "for", "from", "his", "her", "their", "its", "per",
    "empty", "new", "next", "big", "small", "little", "own", "whose",
)  # fmt: skip


def _rooms_said(text: str) -> list[str]:
    return _room_pattern().findall(text)


def find_value(text: str) -> float | None:
    """The first number in a clause."""
    match = re.search(r"(?<![\w.])(-?\d+(?:\.\d+)?)", text)
    return float(match.group(1)) if match else None


_WRITING = re.compile(
    r"^(?:can\s+you\s+|could\s+you\s+)?(?:write|compose|draft|summari[sz]e|translate|rewrite|"
    r"paraphrase|proofread|analy[sz]e|critique)\b(?!\s+down)"
)
_TARGET_UNIT = re.compile(r"\b(?:in|into|to)\s+(?:degrees\s+)?([a-z°]+)\s*$")
# "how many minutes is that", "how many pounds would that be": the unit asked for a
# quantity said before.
_HOW_MANY_OF_IT = re.compile(
    r"\bhow\s+many\s+([a-z°]+)\s+(?:(?:is|are|makes?)\s+(?:that|it|this)|"
    r"(?:would|will)\s+(?:that|it|this)\s+be|(?:does|would)\s+(?:that|it|this)\s+make)\b"
)


def target_unit(text: str) -> re.Match[str] | None:
    """The unit a conversion's words ask for (group 1): "... in miles", "how many
    minutes is that"."""
    return _TARGET_UNIT.search(text) or _HOW_MANY_OF_IT.search(text)


QUANTITY = re.compile(r"\d(?:[\d.,]*)\s*(?:°\s*)?[a-z]+")


# Words between the question's opening and the device that make it a question about
# devices in general ("what is the difference between a heater and a radiator").
_GENERAL = frozenset(
    {"a", "an", "of", "difference", "between", "best", "better", "kind", "type", "price", "cost"}
)


# The device named first, then asked about ("the coffee machine, is it on?", "the back
# door - did i lock it").
_TOPIC_QUESTION = re.compile(
    r"^(?P<topic>(?:the|my|our)\s[^,;:?]+?)\s*[,;:-]\s*"
    r"(?:(?:is|are|was|were)\s+(?:it|they|that|those)|did\s+i\s+\w+\s+(?:it|them))\b"
)


def is_status_question(text: str) -> bool:
    """Whether a clause asks about the state of one of the home's devices ("is the plug
    on?") rather than changing it, or asking about devices in general."""
    topic = _TOPIC_QUESTION.match(text)
    if topic is not None and any(re.search(p, topic["topic"]) for p, _ in _DEVICE_WORDS):
        return not _GENERAL.intersection(topic["topic"].split())
    opening = _STATUS_QUESTION.search(text)
    if opening is None:
        return False
    starts = [m.start() for pattern, _ in _DEVICE_WORDS if (m := re.search(pattern, text))]
    if not starts or min(starts) < opening.end():
        return False
    between = text[opening.end() : min(starts)].split()
    if between[:1] in (["status"], ["state"], ["current"]) and "of" in between[:3]:
        between = between[between.index("of") + 1 :]  # "what is the status of the vacuum"
    # One of the home's devices is "the plug", "my lights", "the kitchen lights".
    near = text[opening.start() :].split()[:8]
    owned = {"the", "my", "our"}.intersection(near) or find_room(text) is not None
    return len(between) <= 4 and not _GENERAL.intersection(between) and bool(owned)


def is_question(text: str) -> bool:
    """Whether a clause opens as a question ("is...", "did i...", "what is the...")."""
    return _STATUS_QUESTION.search(text) is not None


def asks_for_note(text: str) -> bool:
    """Whether the words ask to write a note ("add a note", "jot down", "remind me to")."""
    return _NOTE_ADD.search(text) is not None


def is_writing(text: str) -> bool:
    """A request to write something (a letter, a note to someone): an LLM's job."""
    return bool(_WRITING.search(text))


def timed_reminder(text: str) -> bool:
    """Whether the words ask to be reminded at or after a time ("remind me to call mum at
    6pm"): a timer with the words as its label, which the device's router reads."""
    return _TIMED_REMINDER.search(text) is not None


def tool_cue(text: str) -> str | None:
    """The tool a clause's wording points at, strongest cues first; None when none does."""
    if is_writing(text):
        return None
    if _NOTE_SEARCH.search(text):
        return SEARCH_NOTES
    if timed_reminder(text):
        # "remind me to call mum at 6pm": an alarm, the device's router reads it; "remind
        # me in 15 minutes": a timer
        return TIMER if _TIMER.search(text) else None
    if _NOTE_ADD.search(text):
        return ADD_NOTE
    if _LIST_TIMERS.search(text):
        return LIST_TIMERS
    if _CANCEL_TIMER.search(text):
        return None
    if _TIMER.search(text):
        return TIMER
    if find_device(text) and _DEVICE_VERB.search(text):
        return DEVICE
    if (
        _CONVERT.search(text)
        and _mentions_unit(text)
        and (re.search(r"\d", text) or (_REFERS_BACK.search(text) and target_unit(text)))
    ):
        return CONVERT
    target = target_unit(text)
    weather_reading = _WEATHER.search(text) and not re.search(r"\d", text)
    if (
        target
        and _UNIT_WORD.fullmatch(target.group(1))
        and not find_device(text)
        and not (weather_reading and find_cities(text))
    ):
        return CONVERT  # "tell me the length in yards", "what 21 celsius is in fahrenheit"
    if _CALC.search(text):
        return CALCULATOR
    if _WEATHER.search(text):
        return WEATHER
    if _CLOCK.search(text) and (_strong_clock(text) or find_cities(text)):
        return CLOCK
    return None


# Words the clock cue reads that say a time of day, not a question about one: "is it
# morning in tokyo" asks the clock; "a haircut for saturday morning" asks nothing of it.
_TIME_OF_DAY = frozenset((
    "morning", "afternoon", "evening", "night", "nighttime", "daytime", "midnight", "noon",
    "dark", "awake", "asleep", "later", "earlier",
))  # fmt: skip


def _strong_clock(text: str) -> bool:
    """Whether a clock cue of the words is more than a time of day said."""
    return any(m.group(0) not in _TIME_OF_DAY for m in _CLOCK.finditer(text))


_UNIT_WORD = re.compile(
    r"\b(?:mm|cm|m|km|kms|in|inch\w*|ft|feet|foot|yd|yards?|mi|miles?|mg|g|grams?|kg|kilos?|"
    r"kilograms?|oz|ounces?|lbs?|pounds?|ml|l|liters?|litres?|gal|gallons?|c|f|k|celsius|"
    r"fahrenheit|kelvin|centigrade|degrees|kph|km/h|kmh|mph|s|seconds?|minutes?|h|hours?|"
    r"meters?|metres?|kilometers?|kilometres?|centimeters?|centimetres?|millimeters?|"
    r"millimetres?|milligrams?|kilogram|milliliters?|millilitres?)\b"
)


def is_reading_word(word: str) -> bool:
    """Whether ``word`` is one the weather or clock cues read ("sunny", "later", "clock")."""
    return bool(_WEATHER.fullmatch(word) or _CLOCK.fullmatch(word))


def is_unit_word(word: str) -> bool:
    """Whether ``word`` names a unit ("feet", "kg", "celsius")."""
    return bool(_UNIT_WORD.fullmatch(word))


def _mentions_unit(text: str) -> bool:
    return len(_UNIT_WORD.findall(text)) >= 1


def read_clause(text: str, extractor: Extractor | None = None) -> Clause:
    """Read the tool cue and entities of one normalised clause."""
    clause = Clause(text=text)
    clause.tool = tool_cue(text)
    clause.cities = [city for _, city in find_cities(text)]
    clause.days = find_days(text)
    clause.device = find_device(text)
    clause.action = find_action(text, clause.device)
    clause.room = find_room(text)
    clause.value = find_value(text)
    clause.refers_back = bool(_REFERS_BACK.search(text))
    if clause.tool is None and clause.device and clause.action:
        clause.tool = DEVICE  # "lights out in the kids room": a device and what to do with it
    if clause.tool in (WEATHER, CLOCK) and clause.device and not clause.cities:
        clause.tool = DEVICE if clause.action else clause.tool
    _read_list_or_alarm(clause)
    if clause.tool in (None, DEVICE, WEATHER, CLOCK) and is_status_question(text):
        clause.tool, clause.args = STATUS, None  # "is the plug on?": a read
    elif clause.tool == DEVICE and is_question(text):
        clause.tool, clause.args = None, None  # a question is never a command
    clause.own_tool = clause.tool
    if clause.tool is None or (clause.tool == WEATHER and clause.room and not clause.cities):
        _read_complaint(clause)  # "it's freezing in the office" is no forecast
    return clause


def _read_complaint(clause: Clause) -> None:
    """A complaint that a device command ends ("it's really dark in the kitchen": the
    kitchen's light on), as the device reads one; never the device of the clause before."""
    from understanding.arguments.complaints import complaint_command
    from understanding.arguments.qualifiers import tokens_of

    ended = complaint_command(
        tokens_of(clause.text), device=clause.device, placed=clause.room is not None
    )
    if ended is not None and not is_question(clause.text):
        # The command the complaint ends, which is no cue of a request of its own.
        clause.tool, clause.own_tool, (clause.device, clause.action) = DEVICE, None, ended


def _read_list_or_alarm(clause: Clause) -> None:
    """A named list's request ("add milk to the shopping list") or an alarm at a clock time
    ("wake me up at 5:30"), with its arguments (``understanding.requests``)."""
    request = list_request(clause.text)
    if request is not None:
        kind, item, name = request
        clause.tool = {"add": ADD_NOTE, "remove": REMOVE_NOTE, "read": SEARCH_NOTES}[kind]
        clause.args = {"text": item, "list": name} if item else {"list": name}
        return
    at = alarm_time(clause.text)
    if at is not None:
        clause.tool, clause.args = TIMER, {"at": at}


def edge_arguments(tool: str, text: str, extractor: Extractor | None) -> dict[str, Any] | None:
    """The edge extractor's arguments for ``tool`` from ``text`` (None when it cannot)."""
    extract = extractor if extractor is not None else extract_arguments
    try:
        return extract(tool, text)
    except Exception:  # a reader's bug must not sink the plan: fall back to our own reading
        logging.getLogger(__name__).exception("the argument reader failed for %s", tool)
        return None
