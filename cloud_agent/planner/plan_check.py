"""The plan check: before anything runs, every side effect of a plan is grounded in the
person's words and asked for as many times as it is planned.

One small module on purpose: the device keeps its own side-effect policy
(``understanding/policy.py``), and the two are meant to become one implementation; the
functions here are pure (a call, the words) so that they can be pointed at it.

Checks (``check_call`` for one call, ``check_plan`` for the whole plan):

- a note's text (``add_note``/``remove_note``) is the person's words verbatim and whole:
  a contiguous run of the words that ends where the request ends (the query's end, a
  joiner, "to my notes"), so "add a note soak ohdydzxtqd" never stores "soak";
- a timer's duration is one the words read ("7.5 hours" is 27000 s, never 18000); an
  alarm's clock time needs an alarm's words ("two dishes" is no 02:00 alarm);
- a device command names a device the words name, an action the words say, a value the
  words hold, and is no question ("is the plug on?" is a read);
- counts: "a timer for each" sets one timer per duration listed, and no side effect is
  planned more often than its words ask for it.

A plan that fails is not partly run: the planner declines naming the part
(:func:`refusal_message`); the OpenAI-compatible backend turns a refused call into an
observation its model sees.

    >>> check_call("add_note", {"text": "soak"}, "add a note soak ohdydzxtqd").ok
    False
    >>> check_call("set_timer", {"seconds": 27000}, "set a timer for 7.5 hours").ok
    True
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Verdict",
    "check_call",
    "check_plan",
    "listed_durations",
    "refusal_message",
]

PLAN_CHECK = "plan_check"
"""The ``refusal_kind`` of a plan the check declined."""

PREV = "{prev}"


@dataclass(frozen=True)
class Verdict:
    """Whether a call (or a plan) may run; when not, why and which part of the words."""

    ok: bool
    reason: str = ""
    part: str = ""


ALLOW = Verdict(True)

_JOINER = re.compile(
    r"^(?:[;,.:]|(?:and|then|also|plus|but|so|please|thanks|thank|to\s+(?:my\s+)?(?:notes?|list)|"
    r"in\s+(?:my\s+)?notes|(?:on|off|from|to|in)\s+(?:my\s+|the\s+)?(?:\w+\s+)?(?:list|notes))\b)"
)
_WORD = re.compile(r"\w+(?:'\w+)*|[;,.:]")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _words_of(query: str) -> str:
    from cloud_agent.planner.clauses import normalise

    return normalise(query)


_GAPS = frozenset({";", ",", ".", ":", "and"})


# A request opening after a joiner inside a note's text: the note swallowed another request
# ("note that dinner cost 85 dollars and tell me what a 20% tip would be").
_ANOTHER_REQUEST = re.compile(
    r"(?:\band|\bthen|[;,])\s+(?:also\s+)?(?:tell\s+me|what(?:'s|\s+is|\s+are)?|how|set|turn|"
    r"switch|check|convert|search|find|lock|unlock|open|close|start|can\s+you|could\s+you|"
    r"is|are|do|does|give\s+me|look\s+up|calculate|work\s+out)\b"
)


# The words of the request itself inside a note's text ("add to my notes that ...").
_NOTE_COMMAND = re.compile(
    r"^(?:add|put|save|jot|write|make\s+a\s+note|take\s+a\s+note|note\s+down)\b"
    r"|\b(?:to|in|into)\s+my\s+notes\b"
)


def _note_text(text: str, words: str) -> Verdict:
    """A note's text is a contiguous run of the words (commas and "and" between its words
    aside: "milk, eggs, bread") that ends where its request ends, and holds no other
    request."""
    if _NOTE_COMMAND.search(text.lower()):
        return Verdict(False, "the note holds the request's own words", text)
    swallowed = _ANOTHER_REQUEST.search(text.lower())
    if swallowed is not None:
        rest = text[swallowed.start() :].strip(" ,;")
        return Verdict(False, "the note holds another request", rest)
    said = _tokens(words)
    # Each word that counts, with its index among the words as said.
    plain = [(i, t) for i, t in enumerate(said) if t not in _GAPS]
    note = [t for t in _tokens(text) if t not in _GAPS]
    if not note:
        return Verdict(False, "a note with no words", text)
    for k in range(len(plain) - len(note) + 1):
        if [t for _, t in plain[k : k + len(note)]] != note:
            continue
        rest = " ".join(said[plain[k + len(note) - 1][0] + 1 :])
        if not rest or _JOINER.match(rest):
            return ALLOW
        left = rest.split()[0]
        return Verdict(False, f"the note would leave out {left!r}", f"{text} {left}")
    return Verdict(False, "a note's words that were not said", text)


_DURATION_LIST = re.compile(
    r"(\d+(?:\.\d+)?)((?:\s*(?:,\s*and|,|and|or|&)\s*\d+(?:\.\d+)?)+)\s*(hours?|minutes?|seconds?)\b"
)
_UNIT_SECONDS = {"hour": 3600, "minute": 60, "second": 1}


def listed_durations(words: str) -> list[int]:
    """Each duration a query lists with one unit ("9 and 20 minutes": 540, 1200; "5, 10 and
    15 minutes"), else each duration said on its own, in order."""
    from cloud_agent.planner.clauses import split_clauses
    from understanding.arguments.durations import parse_duration

    found: list[int] = []
    for match in _DURATION_LIST.finditer(words):
        unit = _UNIT_SECONDS[match.group(3).rstrip("s")]
        numbers = [match.group(1), *re.findall(r"\d+(?:\.\d+)?", match.group(2))]
        found += [round(float(n) * unit) for n in numbers]
    if found:
        return found
    return [s for piece in split_clauses(words) if (s := parse_duration(piece))]


def _timer(arguments: dict[str, Any], words: str) -> Verdict:
    seconds = arguments.get("seconds")
    if isinstance(seconds, str) and seconds.startswith(PREV):
        return ALLOW  # a number an earlier call gave ("that many minutes")
    if seconds is not None:
        said = set(listed_durations(words))
        if not said:
            return Verdict(False, "a timer with no duration in the words", "set a timer")
        if round(float(seconds)) not in said:
            return Verdict(
                False, f"a {seconds} s timer where the words say otherwise", "set a timer"
            )
        return ALLOW
    if arguments.get("at") and not _ALARM_WORDS.search(words):
        return Verdict(False, "an alarm the words do not ask for", "an alarm")
    return ALLOW


_ALARM_WORDS = re.compile(
    r"\b(?:alarms?|wake\s+(?:me|us)|at\s+\d|\d\s*(?:am|pm|a\s*m|p\s*m)\b|o'?clock|noon|"
    r"midnight|remind\s+me\s+at|until|till)\b|\d:\d"
)

# The words that say each device action (a device command's action must be said).
_ACTION_WORDS: dict[str, str] = {
    "on": r"\bon\b|\bstart\w*|\bbrew\w*|\bpower\s+up|\benable|\bturn\s+up|\brun\b|\bmake\b|"
    r"\bswitch\s+(?:\w+\s+)*on\b|\bfire\s+up|\bboot",
    "off": r"\boff\b|\bturn\s+of\b|\bstop\w*|\bkill|\bout\b|\bpower\s+down|\bdisable|"
    r"\bshut\b|\bdock\w*|\bturn\s+down",
    "lock": r"\block\w*|\bsecure|\bclose\w*|\bshut\b",
    "unlock": r"\bunlock\w*",
    "open": r"\bopen\w*|\braise\w*|\bup\b|\bpull\s+up",
    "close": r"\bclose\w*|\bshut\b|\blower\w*|\bdraw\w*|\bdown\b",
    "set": r"\d|\bset\b|\bto\s+(?:that|it|the\s+result)|\bdim\w*|\bbright\w*|\bturn\b",
    "volume_up": r"\blouder|\braise|\bincrease|\bvolume|\bturn\s+(?:\w+\s+){0,3}up\b",
    "volume_down": r"\bquieter|\bsofter|\blower|\bdecrease|\bvolume|"
    r"\bturn\s+(?:\w+\s+){0,3}down\b",
    "mute": r"\bmute",
    "unmute": r"\bunmute",
    "brightness_up": r"\bbright\w*|\bup\b|\bincrease",
    "brightness_down": r"\bdim\w*|\bdown\b|\bdarker|\bdecrease|\blower",
}


def _device(arguments: dict[str, Any], words: str) -> Verdict:
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.clauses import split_clauses

    device, action = arguments.get("device"), arguments.get("action")
    named = _named_devices(words)
    part = f"{action} the {str(device).replace('_', ' ')}"
    if device not in named:
        return Verdict(False, f"the words name no {device}", part)
    if not arguments.get("room") and _THERE.search(words) and it.find_room(words):
        # "... in the office and turn the heater on in there": the room it points at.
        return Verdict(False, "'there' names a room the call leaves out", part)
    pattern = _ACTION_WORDS.get(str(action))
    if pattern is None or not re.search(pattern, words):
        return Verdict(False, f"the words do not say {action}", part)
    value = arguments.get("value")
    if isinstance(value, int | float) and not isinstance(value, bool):
        numbers = {float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", words)}
        if float(value) not in numbers and not _REFERS_BACK.search(words):
            return Verdict(False, f"the value {value:g} is not in the words", part)
    questions = [
        piece
        for piece in split_clauses(words)
        if it.find_device(piece) == device
        and it.is_question(piece)
        and not re.search(_ACTION_WORDS["set"], piece)
    ]
    commands = [p for p in split_clauses(words) if it.find_device(p) == device]
    if questions and len(questions) == len(commands):
        return Verdict(False, f"{questions[0]!r} is a question, not a command", questions[0])
    return ALLOW


_REFERS_BACK = re.compile(r"\b(?:that|it|the\s+result|the\s+answer|this)\b")
_THERE = re.compile(
    r"(?<!hey )(?<!hi )(?<!hello )\b(?:in\s+)?there\b(?!\s+(?:is|are|was|were|'s)\b)"
)
# The door lock is named by a door or a lock as a thing, not by the verb ("lock in my
# answer" names no door).
_DOOR = re.compile(
    r"\b(?:doors?|deadbolt|locks|gate|garage|house|front|back)\b"
    r"|\block\s+(?:it|them|up|the|my|our|everything|all)\b"
)


def _named_devices(words: str) -> set[str]:
    """The devices the words name: by their own words; the speaker by "volume" or the
    thermostat by "temperature" only where no other device of the kind is named."""
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.clauses import split_clauses

    named = {d for pattern, d in it._DEVICE_WORDS if re.search(pattern, words)}
    if "door_lock" in named and not _DOOR.search(words):
        named.discard("door_lock")
    inferred = {d for piece in split_clauses(words) if (d := it.find_device(piece))}
    if "speaker" in inferred and "tv" not in named:
        named.add("speaker")  # "turn the volume up"
    if "thermostat" in inferred and not named & {"ac", "heater"}:
        named.add("thermostat")  # "set the temperature to 21"
    if "light" in inferred:
        named.add("light")  # "brightness to 40"
    return named


def check_call(tool: str, arguments: dict[str, Any], words: str) -> Verdict:
    """Whether one side-effect call's arguments are grounded in ``words`` (the normalised
    query, :func:`cloud_agent.planner.clauses.normalise`); reads always pass."""
    if tool in ("add_note", "remove_note") and isinstance(arguments.get("text"), str):
        return _note_text(str(arguments["text"]), words)
    if tool == "set_timer":
        return _timer(arguments, words)
    if tool == "device_control":
        return _device(arguments, words)
    return ALLOW


_FOR_EACH_TIMER = re.compile(
    r"\b(?:a|one|1)\s+timer\s+(?:for|on)\s+(?:each|both|every|all)\b|\btimers?\s+for\s+(?:each|both)\b"
    r"|\beach\s+(?:one\s+|of\s+them\s+)?(?:gets\s+|with\s+)?(?:a|its\s+own)\s+timer\b"
    r"|\bone\s+(?:timer\s+)?(?:for|per)\s+(?:each|every)\b"
)


def wants_timer_each(words: str) -> bool:
    """Whether the words ask for one timer per item ("a timer for each")."""
    return _FOR_EACH_TIMER.search(words) is not None


def check_plan(words: str, calls: list[tuple[str, dict[str, Any]]]) -> Verdict:
    """Every side-effect call grounded (:func:`check_call`) and the counts as asked: one
    timer per listed duration for "a timer for each", no side effect repeated beyond its
    words."""
    for tool, arguments in calls:
        verdict = check_call(tool, arguments, words)
        if not verdict.ok:
            return verdict
    timers = [a for t, a in calls if t == "set_timer" and a.get("seconds") is not None]
    durations = listed_durations(words)
    if wants_timer_each(words) and len(timers) != len(durations):
        return Verdict(
            False,
            f"{len(timers)} timer(s) planned where {len(durations)} duration(s) were listed",
            "a timer for each",
        )
    said = Counter(durations)
    for seconds, count in Counter(
        round(float(a["seconds"])) for a in timers if not isinstance(a["seconds"], str)
    ).items():
        if count > said[seconds]:
            return Verdict(False, f"{count} timers of {seconds} s asked once", "set a timer")
    notes = Counter(str(a.get("text")) for t, a in calls if t == "add_note")
    for text, count in notes.items():
        if count > 1 and len(re.findall(rf"\b{re.escape(text)}\b", words)) < count:
            return Verdict(False, f"the note {text!r} written {count} times", text)
    return ALLOW


def refusal_message(verdict: Verdict) -> str:
    """What the planner says when the check fails: the part named, nothing run."""
    return (
        f"I can't do {verdict.part!r} as I read it ({verdict.reason}), so I did nothing "
        "of this request rather than act on half of it. Could you say that part again?"
    )
