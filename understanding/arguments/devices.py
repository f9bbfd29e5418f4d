"""Devices, rooms and actions by their everyday names ("lamp", "aircon", "lounge", "kill").

``device_arguments`` reads one device command from a query: which device (longest name
first, so "front door" beats "door"), which room, which action and, for ``set``, the
value. It returns None when the query names no device, several different devices, or
an action the device cannot take, so such queries go to the cloud instead of guessing.
"""

from __future__ import annotations

import re
from typing import Any

from understanding.arguments.complaints import complaint_command
from understanding.arguments.numbers import find_numbers, tokenize
from understanding.tools.devices import STEP_ACTIONS, check_arguments

DEVICE_NAMES: dict[str, str] = {}
ROOM_NAMES: dict[str, str] = {}


def _names(table: dict[str, str], canonical: str, *names: str) -> None:
    for name in names:
        table[name] = canonical


_names(DEVICE_NAMES, "light", "light", "lights", "lamp", "lamps", "bulb", "bulbs",
       "light bulb", "light bulbs", "ceiling light", "ceiling lights", "lighting",
       "lites", "lite", "ligths", "ligts", "lihgts", "lightd", "lighs", "desk lamp",
       "floor lamp", "night light", "overhead light", "overhead lights", "lamp light",
       "the big light", "spotlights", "downlights", "brightness", "ligth")  # fmt: skip
_names(DEVICE_NAMES, "ac", "ac", "a/c", "a / c", "a.c.", "aircon", "air con", "air-con",
       "air conditioning", "air conditioner", "airconditioner", "air conditionner",
       "aircondition", "cooling", "the cooler", "cooler", "air-conditioning",
       "air conditioning unit", "climate control")  # fmt: skip
_names(DEVICE_NAMES, "heater", "heater", "heaters", "heating", "radiator", "radiators",
       "space heater", "heat", "the heat", "furnace", "heatr", "boiler", "central heating",
       "underfloor heating", "floor heating")  # fmt: skip
_names(DEVICE_NAMES, "fan", "fan", "fans", "ceiling fan", "desk fan", "standing fan",
       "tower fan", "ventilator", "vent fan")  # fmt: skip
_names(DEVICE_NAMES, "tv", "tv", "t.v.", "t.v", "telly", "television", "tele",
       "televison", "the box", "smart tv", "tv set", "teevee")  # fmt: skip
_names(DEVICE_NAMES, "speaker", "speaker", "speakers", "music", "stereo", "sound system",
       "smart speaker", "sonos", "soundbar", "sound bar", "speeker", "volume",
       "the music", "audio", "radio", "hifi", "hi-fi", "sound", "the sound",
       "the volume")  # fmt: skip
_names(DEVICE_NAMES, "plug", "plug", "plugs", "smart plug", "smart plugs", "socket",
       "sockets", "smart socket", "plug socket", "power socket", "wall socket", "outlet",
       "smart outlet", "power outlet", "wemo", "wemo plug", "wemo socket",
       "wemo plug socket", "smart plug socket")  # fmt: skip
_names(DEVICE_NAMES, "vacuum", "vacuum", "vacuum cleaner", "robot vacuum",
       "robot vacuum cleaner", "robot cleaner", "robovac", "roomba", "hoover", "vac",
       "the cleaning", "cleaning robot", "robot hoover", "house cleaning",
       "floor cleaning")  # fmt: skip
_names(DEVICE_NAMES, "coffee_machine", "coffee machine", "coffee maker", "coffee pot",
       "espresso machine", "coffee", "espresso", "nespresso", "coffeemaker",
       "coffee_machine", "cappuccino", "latte", "americano")  # fmt: skip
_names(DEVICE_NAMES, "door_lock", "door lock", "door", "doors", "front door", "back door",
       "deadbolt", "lock", "locks", "smart lock", "door_lock", "main door", "entrance door",
       "side door", "front-door", "doorlock", "the locks")  # fmt: skip
_names(DEVICE_NAMES, "thermostat", "thermostat", "thermostats", "temperature", "temp",
       "thermostaat", "thermastat", "thermo", "nest", "the heat to")  # fmt: skip
_names(DEVICE_NAMES, "blinds", "blinds", "blind", "shades", "shade", "curtains",
       "curtain", "shutters", "shutter", "drapes", "roller blinds", "window blinds",
       "blinders", "binds")  # fmt: skip

# Appliances a home has that no device tool runs: a command that names one beside a
# device it does run ("switch the oven off and the kitchen light") would drop it.
OTHER_APPLIANCES = re.compile(
    r"\b(?:oven|ovens|hob|stove|cooker|kettle|toaster|microwave|dishwasher|washing machine|"
    r"washer|dryer|tumble dryer|fridge|freezer|iron|boiler|immersion|sprinklers?|garage door|"
    r"gate|doorbell|cameras?|alarm system|burglar alarm|printer|computer|laptop|dehumidifier|"
    r"humidifier|air purifier|purifier|towel rail|hot tub|pool pump|car|fireplace|jacuzzi)\b"
    r"(?!\s+(?:plugs?|sockets?|outlets?|switch|lights?|lamps?|bulbs?))",
    re.IGNORECASE,
)

# A name maps to a room only when it is that room by another name ("lounge", "study");
# a place of its own ("landing", "den", "balcony", "patio") is kept as said: acting on
# the hallway when the landing was asked for is a wrong action.
_names(ROOM_NAMES, "living room", "living room", "livingroom", "lounge", "family room",
       "sitting room", "front room", "living-room", "livin room", "lving room",
       "tv room", "living")  # fmt: skip
_names(ROOM_NAMES, "bedroom", "bedroom", "bed room", "master bedroom", "main bedroom",
       "bedrom", "beedroom", "my room", "sleeping room", "master bed room")  # fmt: skip
_names(ROOM_NAMES, "kitchen", "kitchen", "kitchenette", "kitchn", "kithcen", "kichen",
       "cooking area")  # fmt: skip
_names(ROOM_NAMES, "office", "office", "home office", "work room",
       "workroom", "offce", "ofice")  # fmt: skip
_names(ROOM_NAMES, "bathroom", "bathroom", "bath room", "bath", "washroom", "restroom",
       "loo", "toilet", "wc", "shower room", "bathrom", "ensuite", "en suite")  # fmt: skip
_names(ROOM_NAMES, "hallway", "hallway", "hall", "corridor", "entryway", "entrance",
       "foyer", "hall way", "halway")  # fmt: skip
_names(ROOM_NAMES, "dining room", "dining room", "dining area", "diningroom")
_names(ROOM_NAMES, "garage", "garage")
_names(ROOM_NAMES, "basement", "basement", "cellar")
_names(ROOM_NAMES, "nursery", "nursery", "baby's room", "babys room", "baby room")
_names(ROOM_NAMES, "kids room", "kids room", "kid's room", "kids' room", "childrens room",
       "children's room", "playroom")  # fmt: skip
_names(ROOM_NAMES, "guest room", "guest room", "guest bedroom", "spare room", "spare bedroom")
_names(ROOM_NAMES, "laundry room", "laundry room", "laundry", "utility room")
_names(ROOM_NAMES, "attic", "attic", "loft")
_names(ROOM_NAMES, "garden", "garden", "backyard", "back yard", "yard")
_names(ROOM_NAMES, "porch", "porch", "front porch")
for _place in (
    "landing",
    "den",
    "study",
    "studio",
    "balcony",
    "patio",
    "deck",
    "terrace",
    "conservatory",
    "sunroom",
    "snug",
    "pantry",
    "cloakroom",
    "shed",
    "driveway",
):
    _names(ROOM_NAMES, _place, _place)  # fmt: skip

# A question about a device's state, at the start of the query or of a clause.
_STATE_QUESTION = re.compile(
    r"(?:^|[,;:]\s*|\s[-\u2013\u2014]\s*|\b(?:and|so|but|right|ok|okay|hey)\s+)"
    r"(?:(?:is|are|did|was|were|has|why)"
    r"\s+(?:the|my|all|any|it|they|someone|i|you)|have (?:you|i|they|we|someone))\b",
    re.IGNORECASE,
)
_ON = ("turn on", "switch on", "power on", "put on", "flip on", "start", "fire up",
       "boot up", "activate", "enable", "light up", "crank up", "get on")  # fmt: skip
_OFF = ("turn off", "switch off", "power off", "shut off", "shut down", "kill", "stop",
        "deactivate", "disable", "cut", "turn of", "switch of", "power down", "put out",
        "douse", "turnoff", "switchoff")  # fmt: skip
_SET = ("set", "dim", "brighten", "adjust", "change", "make", "put", "lower", "raise",
        "turn up", "turn down", "bring", "drop", "bump", "increase", "decrease", "crank",
        "reduce", "boost")  # fmt: skip


def _find_phrases(tokens: list[str], table: dict[str, str]) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        for width in (3, 2, 1):
            phrase = " ".join(tokens[i : i + width])
            if len(tokens[i : i + width]) == width and phrase in table:
                found.append((i, i + width, table[phrase]))
                i += width
                break
        else:
            i += 1
    return found


def _has(text: str, phrases: tuple[str, ...]) -> bool:
    padded = f" {text} "
    return any(f" {p} " in padded for p in phrases)


_LOUDER = ("volume up", "turn up", "turn it up", "louder", "increase", "raise", "up the",
           "pump up", "crank up", "boost", "higher", "bump up", "sound up", "up")  # fmt: skip
_QUIETER = ("volume down", "turn down", "turn it down", "quieter", "lower", "decrease",
            "reduce", "softer", "down", "less loud", "sound down")  # fmt: skip
_MUTE = ("mute", "muted", "silence", "silenced", "silent", "no speaking", "stop talking",
         "shut up")  # fmt: skip
_UNMUTE = ("unmute", "un mute", "off mute", "mute off", "turn off mute", "turn off the mute",
           "stop muting")  # fmt: skip
_BREW = ("make", "brew", "prepare", "pour", "get")
# A machine's own run (the coffee machine's brew, the vacuum's clean): "set the coffee maker
# running", "get the vacuum going".
_RUN = ("run", "running", "going", "get going", "go")
# The machines whose run is their being on (a fan, the heating): "run the fan" is "on".
_RUNS = ("fan", "ac", "heater")
# Asking for a drink is asking the machine to brew it ("can I have an espresso", "I'd like
# some coffee"), unless the words say no to it.
_WANT = ("have", "want", "like", "need", "fancy", "could use", "give me")
_NO = ("don't", "dont", "do not", "no", "not", "no more", "enough", "stop")
_CLEANING = ("clean", "cleaning", "cleanup", "clean up", "vacuum", "vacuuming", "hoover",
             "hoovering", "sweep", "sweeping")  # fmt: skip
_CLEAN = (*_CLEANING, "start")
# Where a robot vacuum goes when it stops: its dock ("send the hoover home", "dock it").
DOCKED_WORDS = (
    r"\b(?:dock\w*|(?:its|your|the|home|charging)\s+base|re?charg\w*|charger|back\s+home|"
    r"(?:go|goes|send\s+(?:\w+\s+){1,3}|return\w*(?:\s+to)?)\s*home)\b"
)
# The vacuum's run said as a verb ("clean the flat", "vacuum the hall", "hoovering"), not
# the machine's name ("dock the robot vacuum").
CLEANING_WORDS = (
    r"\bclean\w*|\bvacuum(?:\w+|\s+(?:the|my|our|this|that|up|upstairs|downstairs)\b)|"
    r"\bhoover\w+|\bhoover\s+(?:the|my|our|up)\b|\bsweep\w*"
)
_DOCKED = re.compile(DOCKED_WORDS)
_CLEANING_SAID = re.compile(CLEANING_WORDS)
# What a robot vacuum cleans: cleaning these (or a room) is the vacuum's job, whatever the
# words call the machine ("clean the flat", "start house cleanup", "clean my carpet").
_CLEANED = ("house", "home", "flat", "apartment", "place", "floor", "floors", "carpet",
            "carpets", "rug", "rugs", "everywhere", "upstairs", "downstairs")  # fmt: skip
_BRIGHTER = ("brighten", "brighter", "brightness up", "turn up", "increase", "raise", "boost",
             "bump up", "crank up", "more light", "more lights", "too dark", "lighten",
             "full brightness", "higher")  # fmt: skip
_DIMMER = ("dim", "dimmer", "darker", "turn down", "lower", "decrease", "reduce", "less bright",
           "too bright", "low", "lower the brightness", "minimize", "minimise", "soften",
           "brightness down", "tone down", "less light")  # fmt: skip
# Words that say which device a step is for when the request names none ("dim it",
# "make it louder"): brightness is the lights', loudness the speaker's. "Turn it up" /
# "turn it down" alone is the volume, as on every home speaker.
_LIGHT_ONLY = ("dim", "dimmer", "brighten", "brighter", "darker", "too dark", "too bright",
               "lighten", "brightness")  # fmt: skip
_SOUND_ONLY = ("louder", "quieter", "softer", "less loud", "mute", "muted", "unmute", "un mute",
               "turn it up", "turn it down", "no speaking", "speak up", "pump it up")  # fmt: skip
# "Bright" as a verb ("bright the lights"), not "too bright" or "bright enough".
_BRIGHT_VERB = re.compile(r"(?<!\btoo )(?<!\bso )(?<!\bvery )(?<!\bless )\bbright\b(?! enough)")
# A light's own up or down ("lights down", "the lamp up a bit").
_LIGHT_PARTICLE = re.compile(r"\b(?:lights?|lamps?|lighting|brightness)\s+(up|down)\b")

# Level words on a 0-100 scale (volume, brightness, fan speed): "set the volume to low",
# "the loudest setting", "lights on full", "max volume". The device's own scale: minimum
# 10 (never 0, which is off or muted: "turn off" and "mute" say that), low 25, medium 50,
# high 75, maximum 100.
LEVELS: dict[str, int] = {
    **dict.fromkeys(("min", "minimum", "lowest", "quietest", "softest", "dimmest", "slowest"), 10),
    "low": 25,
    **dict.fromkeys(("medium", "mid", "middle", "half", "halfway", "moderate"), 50),
    "high": 75,
    **dict.fromkeys(("max", "maximum", "full", "highest", "loudest", "brightest", "fastest",
                     "top"), 100),
}  # fmt: skip
_LEVEL_WORDS = "|".join(sorted(LEVELS, key=len, reverse=True))
_LEVEL = re.compile(
    r"\b(?:to|at|on|onto)\s+(?:the\s+|its\s+|a\s+)?(?P<after>" + _LEVEL_WORDS + r")\b"
    r"(?!\s+(?:an?|past|hour|of|the)\b)"
    r"|\b(?P<before>" + _LEVEL_WORDS + r")\s+(?:setting|level|volume|brightness|speed|power)\b"
)
LEVEL_DEVICES = frozenset({"light", "fan", "tv", "speaker"})


def _implied_devices(joined: str, room: bool = False) -> set[str]:
    """The devices the words imply without naming one: {"light"}, {"speaker"}, both;
    {"vacuum"} for cleaning a home, a floor or a room (``room``: the words name one)."""
    light, sound = _has(joined, _LIGHT_ONLY), _has(joined, _SOUND_ONLY)
    cleaning = _has(joined, _CLEANING) and (room or _has(joined, _CLEANED))
    return (
        ({"light"} if light else set())
        | ({"speaker"} if sound else set())
        | ({"vacuum"} if cleaning else set())
    )


def _implied_device(joined: str, room: bool = False) -> str | None:
    """The device a request that names none means by its words alone, or None."""
    implied = _implied_devices(joined, room)
    return implied.pop() if len(implied) == 1 else None


def level_value(joined: str) -> int | None:
    """The 0-100 value a level word names ("to low" 25, "the loudest setting" 100), or
    None; two different levels are none.

    >>> level_value("set the volume to low"), level_value("max volume please")
    (25, 100)
    """
    found = {
        LEVELS[match.group("after") or match.group("before")] for match in _LEVEL.finditer(joined)
    }
    return found.pop() if len(found) == 1 else None


def _brightness_action(joined: str, value: float | None) -> str | None:
    """brightness_up / brightness_down for a light with no value to set ("dim the
    lights", "lights brighter", "dim the lights by 30"); None otherwise."""
    if value is not None and not _has(joined, ("by",)):
        return None  # "dim the lights to 30": set, read by the general rule
    up = _has(joined, _BRIGHTER) or bool(_BRIGHT_VERB.search(joined))
    down = _has(joined, _DIMMER)
    if not up and not down and (particle := _LIGHT_PARTICLE.search(joined)):
        up, down = particle.group(1) == "up", particle.group(1) == "down"  # "lights down"
    if not up and not down and (turned := _TURNED.search(joined)):
        up, down = turned.group(1) == "up", turned.group(1) == "down"  # "turn the lights up"
    if up != down:
        return "brightness_up" if up else "brightness_down"
    return None


_TURNED = re.compile(r"\b(?:turn|put|bring)(?:\s+[\w']+){1,3}?\s+(up|down)\b")


def _volume_action(joined: str, value: float | None) -> str | None:
    """volume_up / volume_down / mute / unmute for a speaker or TV, from the words."""
    if _has(joined, _UNMUTE):
        return "unmute"
    if _has(joined, _MUTE):
        return "mute"
    if value is not None and _has(joined, ("to", "at", "set", "%", "percent")):
        return None  # "volume to 30": set, read by the general rule
    up, down = _has(joined, _LOUDER), _has(joined, _QUIETER)
    if up != down:
        return "volume_up" if up else "volume_down"
    return None


def _action(joined: str, tokens: list[str], device: str, value: float | None) -> str | None:
    if device in ("speaker", "tv"):
        volume = _volume_action(joined, value)
        if volume is not None:
            return volume
    switched = _has(joined, _OFF) or "off" in tokens  # "turn a light off": off, no step
    if device == "light" and not switched and (step := _brightness_action(joined, value)):
        return step
    if device == "coffee_machine" and _has(joined, _BREW + _RUN) and not _has(joined, _OFF):
        return "on"
    if device == "coffee_machine" and _has(joined, _WANT) and not _has(joined, _NO + _OFF):
        return "on"
    if device == "vacuum" and _DOCKED.search(joined):
        # "send the vacuum back to its dock": the vacuum's off is its dock; "vacuum the
        # hall then go home" says both its run and its dock
        return None if _CLEANING_SAID.search(joined) else "off"
    if device == "vacuum" and _has(joined, _CLEAN + _RUN) and not _has(joined, _NO + _OFF):
        return "on"  # "vacuum the living room", "start house cleaning"
    if device in _RUNS and _has(joined, _RUN) and value is None and not _has(joined, _NO + _OFF):
        return "on"  # "run the fan for an hour", "get the heater going"
    if device == "door_lock":
        if _has(joined, ("unlock", "unlocked", "unbolt", "open", "let me in", "unlatch")):
            return "unlock"
        if _has(joined, ("lock", "locked", "bolt", "secure", "close", "shut", "lock up")):
            return "lock"
        return None
    if device == "blinds":
        if value is not None and _has(joined, ("to", "at", "set", "%", "percent")):
            return "set"
        if _has(joined, ("open", "raise", "pull up", "lift", "roll up", "up", "draw back")):
            return "open"
        if _has(joined, ("close", "shut", "lower", "draw", "pull down", "roll down", "down")):
            return "close"
        return None
    if value is not None and (
        _has(joined, _SET) or _has(joined, ("to", "at", "%", "percent", "degrees"))
    ):
        return "set"
    off = _has(joined, _OFF) or "off" in tokens or "of" in tokens[-1:]
    on = _has(joined, _ON) or says_on(tokens)
    if value is not None and not off and not on:
        return "set"  # "brightness 40 in the bedroom", "bedroom lights 40"
    if off and not _has(joined, ("turn on", "switch on", "power on")):
        return "off"
    if on:
        return "on"
    # "close the light", "open the tv": what opens and closes has returned above; for a
    # switch, as many speakers of other languages say it, it is off and on.
    if _has(joined, ("close", "shut")):
        return "off"
    return "on" if _has(joined, ("open",)) else None


# The words after which "on the ..." is still the switch: a switching verb, or "on" as the
# verb itself ("please on the ac in the bedroom").
_SWITCHING = frozenset(
    "turn switch put flick flip power click pop stick please kindly pls you just".split()  # noqa: SIM905
)


# The words a switch's "on" is followed by ("lights on please", "fan on for an hour", "on
# in the hall", "telly on mate", "the heat on because i'm out", "... on, we're heading
# out"); any other word after "on" makes it a place, a service or a day ("on amazon", "on
# spotify", "on monday": in HWU64 and SLURP nearly every such "on" is one).
_AFTER_SWITCH = frozenset((
    "please", "pls", "now", "then", "when", "and", "in", "for", "at", "until", "till", "full",
    "high", "low", "max", "again", "too", "right", "so", "but", "if", "while", "once", "also",
    "here", "there", "everywhere", "upstairs", "downstairs", "all", "every", "both", "brighter",
    "already", "quick", "quickly", "real", "straight", "away", "asap", "thanks", "thx",
    "cheers", "ta", "before", "after", "because", "cos", "mate", "dear", "love", "buddy",
    "pal", "i", "i'm", "we", "we're", "it's", ",", ".", "!", "?", ";", ":", "-",
))  # fmt: skip


def says_on(tokens: list[str]) -> bool:
    """Whether an "on" of the words is the switch ("put the tv on", "turn on the lamp"),
    not a place ("play some jazz on the speaker", "order pods on amazon" switch nothing)."""
    for k, token in enumerate(tokens):
        if token != "on":
            continue
        if k == 0 or k + 1 == len(tokens) or tokens[k - 1] in _SWITCHING:
            return True
        after = tokens[k + 1 :]
        if after[0] in _AFTER_SWITCH or _names_at_start(after):
            return True
    return False


def _names_at_start(tokens: list[str]) -> bool:
    """Whether the words begin with a device or a room ("on kitchen lights")."""
    return any(
        start == 0
        for table in (DEVICE_NAMES, ROOM_NAMES)
        for start, _e, _k in _find_phrases(tokens, table)
    )


def device_arguments(text: str) -> dict[str, Any] | None:
    """``{"device", "action", "room"?, "value"?}`` for a device command, or None.

    >>> device_arguments("switch off the lamp in the lounge")
    {'device': 'light', 'action': 'off', 'room': 'living room'}
    """
    return device_command(text)


def device_name(span: str) -> str | None:
    """The one device a span names ("robot vacuum cleaner" -> vacuum, "lights" -> light),
    by the vocabulary above; None for none or several.

    >>> device_name("wemo plug socket")
    'plug'
    """
    said = re.sub(r"'s\b", "", span.lower())  # "the lamp's" is the lamp
    kinds = {kind for _s, _e, kind in _find_phrases(tokenize(said), DEVICE_NAMES)}
    if kinds == {"heater", "thermostat"}:
        kinds = {"thermostat"}
    return kinds.pop() if len(kinds) == 1 else None


def room_name(span: str) -> str | None:
    """The room a span names, by its everyday names ("lounge" -> living room); a room the
    vocabulary does not know is kept as said, without articles ("the sunroom" -> sunroom).

    >>> room_name("bed room")
    'bedroom'
    """
    # "the bedroom's light", "the kids' room"
    tokens = tokenize(re.sub(r"'s\b|(?<=s) ?'(?!\w)", "", span.lower()))
    rooms = {kind for _s, _e, kind in _find_phrases(tokens, ROOM_NAMES)}
    if len(rooms) == 1:
        return rooms.pop()
    if rooms:
        return None
    words = [t for t in tokens if t not in ("the", "my", "our", "in", "of", "room's")]
    said = " ".join(w for w in words if w.isalpha() or w == "'")
    from understanding.arguments.spelling import misspelt_room

    # "dinning room", "kitchin": a command for a room the device does not know would act
    # on no room at all; "den" is no "deck" (names under five letters are left alone)
    return misspelt_room(said) or (said if 0 < len(said) <= 40 else None)


def device_command(
    text: str,
    *,
    device: str | None = None,
    room: str | None = None,
    value: float | None = None,
    strict: bool = False,
) -> dict[str, Any] | None:
    """A device command read from ``text``, with what a slot tagger found (``device``,
    ``room``, ``value``) in place of what the words would give; None when the words name
    no device (or several), no action the device takes, or a state question.

    ``strict`` (the slot path, where no clause rules run): "lock" beside another device
    is no verb on it but a second request ("turn off the lights and lock the door"), so
    the words name several devices."""
    if _STATE_QUESTION.search(text):
        return None  # "is the door locked?" asks about state; it commands nothing
    tokens = tokenize(text)
    joined = " ".join(tokens)
    rooms = _find_phrases(tokens, ROOM_NAMES)
    if device is None:
        device = _device_of(tokens, rooms, strict=strict)
        if device is None and not device_kinds(tokens, rooms, strict=strict):
            device = _implied_device(joined, room=bool(rooms) or room is not None)
            if device is None:
                # No device named or implied: a complaint may name the fix ("it's dark in here")
                fix = complaint_command(tokens, placed=bool(rooms) or bool(room))
                device = fix[0] if fix is not None else None
        if device is None:
            return None
        implied = _implied_devices(joined)
        if ("speaker" in implied and device == "light") or (
            "light" in implied and device in ("speaker", "tv")
        ):
            return None  # "dim the lights and turn it up": two requests, two devices
    elif strict and device_kinds(tokens, rooms, strict=True) - {device}:
        # The tagger found one device, the words name another too: a second request of
        # the same intent ("turn off the lights and lock the door"), not one command.
        return None
    if room is None:
        room_names = {r[2] for r in rooms}
        if len(room_names) > 1:
            return None
        room = next(iter(room_names)) if room_names else None
    numbers = find_numbers(tokens)
    if value is None:
        if len(numbers) > 1:
            return None
        value = numbers[-1].value if numbers else None
    if device == "heater" and value is not None and _has(joined, ("heat", "the heat")):
        device = "thermostat"
    level = level_value(joined) if device in LEVEL_DEVICES else None
    action: str | None = "set"
    if level is not None and value is None and not _has(joined, _OFF + _MUTE):
        value = level  # "set the volume to low", "the loudest setting"
    else:
        action = _action(joined, tokens, device, value)
    if action is None and value is None:
        # No verb: a complaint about the device says what to do ("the tv is too loud")
        fix = complaint_command(tokens, device=device, placed=bool(rooms) or bool(room))
        action = fix[1] if fix is not None else None
    if action is None:
        return None
    stepped = action in STEP_ACTIONS and _has(joined, ("by",))
    if value is not None and action == "on" and re.search(r"\bon (?:to |at )?[\d.]+\b", joined):
        action = "set"  # "stick the thermostat on 20": the number is what it is set to
    elif value is not None and action not in ("set", "mute", "unmute") and not stepped:
        return None  # a number said and no use for it: acting would drop it
    args: dict[str, Any] = {"device": device, "action": action}
    if room:
        args["room"] = room
    if value is not None and (action == "set" or stepped):
        args["value"] = int(value) if float(value).is_integer() else value
    if check_arguments(args) is not None:
        return None
    return args


def _owned(
    tokens: list[str], devices: list[tuple[int, int, str]], kind: str, owners: set[str]
) -> bool:
    """Whether the device named by ``kind``'s word belongs to an owner named beside it, in
    one phrase ("the volume on the tv", "the tv volume"; not "the volume to 50 and turn off
    the tv")."""
    mine = [d for d in devices if d[2] == kind]
    theirs = [d for d in devices if d[2] in owners]
    if not mine or not theirs or {d[2] for d in devices} - {kind} - owners:
        return False
    for s, e, _ in mine:
        for os_, oe, _ in theirs:
            between = tokens[min(e, oe) : max(s, os_)]
            if len(between) <= 3 and not {"and", ",", "then"} & set(between):
                return True
    return False


def _device_of(
    tokens: list[str], rooms: list[tuple[int, int, str]], *, strict: bool = False
) -> str | None:
    """The one device the words name (longest name first), or None."""
    kinds = device_kinds(tokens, rooms, strict=strict)
    return next(iter(kinds)) if len(kinds) == 1 else None


def device_kinds(
    tokens: list[str], rooms: list[tuple[int, int, str]], *, strict: bool = False
) -> set[str]:
    """Every device the words name, once the words that name a device only beside
    another are set aside ("the volume of the tv" is the tv); ``strict``: see
    :func:`device_command`."""
    devices = _find_phrases(tokens, DEVICE_NAMES)
    room_spans = {(s, e) for s, e, _ in rooms}
    # A room word inside a device phrase ("living room lamp") is still the room, but a
    # device word that is part of a room phrase ("tv room") is not a device.
    devices = [d for d in devices if (d[0], d[1]) not in room_spans]
    kinds = {d[2] for d in devices}
    # "set the heat/temperature to 21" is the thermostat; "the heater" on/off is the heater.
    if kinds == {"heater", "thermostat"}:
        kinds = {"thermostat"}
    for kind, words, owners in (
        ("door_lock", ("lock", "locks"), None),
        ("thermostat", ("temperature", "temp"), None),
        ("speaker", ("volume", "sound"), {"tv"}),  # "the volume of the tv"; not "... the lights"
        ("coffee_machine", ("coffee", "espresso"), None),
    ):
        if strict and kind == "door_lock":
            continue
        if (
            kind in kinds
            and len(kinds) > 1
            and (owners is None or _owned(tokens, devices, kind, owners))
            and any(d[2] == kind and set(tokens[d[0] : d[1]]) & set(words) for d in devices)
        ):
            kinds.discard(kind)
    return kinds
