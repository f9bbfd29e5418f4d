"""The qualifiers of a request: the words that change what a command means.

"turn off the lights" and "turn off the lights at 11 pm", "... for an hour", "... except the
hall's", "... if it rains", "don't turn off the lights" are different requests. A reader
that drops the qualifier acts on a misunderstanding, so each one is found here, and
either read into an argument the device executes (``device_control``'s ``room: "all"``,
``except``, ``at``, ``for``) or named, so the side-effect policy (``understanding.policy``)
sends the request to the cloud or asks back instead of dropping it.

Kinds: ``time`` (at, in, for, until, before, after, tonight, tomorrow...), ``recurring``
(every day, each morning, daily), ``exception`` (except, but, other than, apart from,
all but), ``condition`` (if, when, unless, once, as soon as), ``negation`` (don't, not,
never) and ``scope`` (all, every, both, everything, everywhere). An exception that
leaves out something other than rooms ("everything but the TV") is no ``except`` the
device executes: :func:`leaves_out_no_room` says so, and the request is the cloud's.
Pure functions over the words.

>>> [q.kind for q in find_qualifiers("turn off all lights except the hall at 11 pm")]
['scope', 'exception', 'time']
>>> device_qualifiers("turn off all lights except the hall")
{'room': 'all', 'except': ['hallway']}
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = [
    "NUMBER_WORDS",
    "PARTS_OF_DAY",
    "Qualifier",
    "contrasted",
    "device_qualifiers",
    "duration_after",
    "find_qualifiers",
    "is_question",
    "is_status_question",
    "leaves_out_no_room",
    "left_out_words",
    "question_words",
    "read_at",
    "read_for",
    "tokens_of",
    "without_times",
]

_TOKEN = re.compile(r"[a-z0-9]+(?:[:'.][a-z0-9]+)*'?")

_NUMBERS_SAID = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty ninety a "
    "an half quarter couple few"
)
NUMBER_WORDS = frozenset(_NUMBERS_SAID.split())
_UNITS_WORDS = (
    "second seconds sec secs minute minutes min mins hour hours hr hrs h m day days week weeks"
)
_UNITS = frozenset(_UNITS_WORDS.split())
_CLOCK_START = frozenset(
    {*NUMBER_WORDS, "noon", "midday", "midnight", "sunrise", "sunset", "dawn", "dusk"}
) - {"a", "an", "couple", "few"}
_WHEN_SAID = (
    "today tonight tomorrow tomorrow's tonight's morning afternoon evening night weekend "
    "monday tuesday wednesday thursday friday saturday sunday later soon shortly"
)
_SOON = frozenset({"tick", "jiffy", "bit", "while", "moment", "mo", "sec", "min", "sec."})
_WHEN_WORDS = frozenset(_WHEN_SAID.split())
_PERIODS_WORDS = (
    "day days morning mornings night nights evening evenings afternoon afternoons week "
    "weekday weekdays weekend weekends hour hours minute minutes month year time monday "
    "tuesday wednesday thursday friday saturday sunday other"
)
_PERIODS = frozenset(_PERIODS_WORDS.split())
_RECURRING = frozenset({"daily", "nightly", "weekly", "hourly", "everyday", "weekdays"})
_CONDITIONS = frozenset({"if", "unless", "whenever", "once", "when"})
# "make sure the heater isn't on": a state denied is no action word of the command.
_NEGATIONS = frozenset({"don't", "dont", "do not", "not", "never", "no", "nothing", "won't",
                        "isn't", "isnt", "aren't", "arent", "wasn't", "weren't"})  # fmt: skip
_SCOPE = frozenset({"all", "every", "everything", "everywhere", "both", "whole", "entire", "each"})
_EXCEPT = ("except", "excepting", "excluding", "not including", "other than", "apart from",
           "aside from", "besides", "but not", "save for", "all but", "not the", "but")  # fmt: skip
_POLITE = frozenset({"can", "could", "would", "will"})


@dataclass(frozen=True)
class Qualifier:
    """One qualifier: its kind, the words that say it, and where (token indices)."""

    kind: str
    word: str
    start: int
    end: int


def tokens_of(words: str) -> list[str]:
    """The words as the readers see them: lower case, "6:45" and "don't" kept whole."""
    return _TOKEN.findall(words.lower().replace("’", "'"))


def _is_number(token: str) -> bool:
    return token[:1].isdigit() or token in NUMBER_WORDS


_DURATION_JOINERS = frozenset({"and", "of", "quarters", "thirds", "halves"})


def duration_after(tokens: list[str], i: int) -> int:
    """How many tokens from ``i`` say a duration ("an hour and a half", "30 minutes",
    "three quarters of an hour", "the next 2 hours"), 0 for none: the longest run of
    number, unit and joining words that the duration reader
    (``understanding.arguments.durations``) reads whole."""
    from understanding.arguments.durations import parse_duration

    j = i
    if j < len(tokens) and tokens[j] in ("the", "next", "another"):
        j += 1 + (tokens[j + 1 : j + 2] == ["next"])
    k = j
    while (
        k < len(tokens)
        and k - j < 8
        and (_is_number(tokens[k]) or tokens[k] in _UNITS or tokens[k] in _DURATION_JOINERS)
    ):
        k += 1
    for end in range(k, j, -1):
        said = tokens[j:end]
        last = said[-1]
        fraction = last in ("half", "quarter", "0.5", "0.25") and said[-2:-1] in (["a"], ["and"])
        whole = last in _UNITS or fraction
        if whole and any(t in _UNITS for t in said) and parse_duration(" ".join(said)):
            return end - i
    return 0


def _clock_after(tokens: list[str], i: int) -> int:
    """How many tokens from ``i`` say a clock time ("6:45", "half past ten", "11 pm",
    "5:30 in the morning", "noon"), 0 for none."""
    if i >= len(tokens):
        return 0
    first = tokens[i]
    if not (_is_number(first) or first in _CLOCK_START):
        return 0
    if duration_after(tokens, i):
        return 0
    k = i + 1
    while k < len(tokens) and (
        tokens[k] in ("am", "pm", "a.m", "p.m", "a.m.", "p.m.", "past", "to", "o'clock", "oclock")
        or _is_number(tokens[k])
    ):
        k += 1
    if tokens[k : k + 3] in (
        ["in", "the", "morning"], ["in", "the", "afternoon"], ["in", "the", "evening"],
        ["at", "night", "x"][:2] + tokens[k + 2 : k + 3],
    ):  # fmt: skip
        k += 3 if tokens[k + 1] == "the" else 2
    while k < len(tokens) and tokens[k] in ("tonight", "tomorrow", "today", "this", "evening"):
        k += 1
    return k - i


def find_qualifiers(words: str) -> list[Qualifier]:
    """Every qualifier the words say, in order (see the module docstring for the kinds)."""
    return list(_qualifiers(words))


@lru_cache(maxsize=64)
def _qualifiers(words: str) -> tuple[Qualifier, ...]:
    """:func:`find_qualifiers`, kept for the few readers of one decision's words."""
    tokens = tokens_of(words)
    found: list[Qualifier] = []
    i = 0
    while i < len(tokens):
        token, before = tokens[i], tokens[i - 1] if i else ""
        pair = " ".join(tokens[i : i + 2])
        span = 1
        kind = ""
        if pair in _EXCEPT or token in _EXCEPT:
            kind, span = "exception", 2 if pair in _EXCEPT else 1
            if token == "but" and not _names_a_place_after(tokens, i + 1):
                kind = "" if tokens[i + 1 : i + 2] != ["only"] else "condition"
        elif pair == "do not" or token in _NEGATIONS:
            kind, span = "negation", 2 if pair == "do not" else 1
            if token == "no" and tokens[i + 1 : i + 2] in (["more"], ["longer"]):
                span = 2
        elif pair in ("as soon", "in case") or (
            token in _CONDITIONS
            and not (token == "when" and (before in _POLITE or _asks_when(tokens, i)))
            and not _polite(tokens, i)
        ):
            kind, span = "condition", 3 if pair == "as soon" else (2 if pair == "in case" else 1)
            if token == "once" and tokens[i + 1 : i + 2] in (["more"], ["again"]):
                kind = ""
        elif token in _RECURRING or (
            token in ("every", "each") and tokens[i + 1 : i + 2] and tokens[i + 1] in _PERIODS
        ):
            kind, span = "recurring", 2 if token in ("every", "each") else 1
        elif token in _SCOPE:
            kind = "scope"
        elif (
            token in ("at", "by")
            and not (token == "by" and before in ("up", "down"))  # "down by 20": an amount
            and (n := _clock_after(tokens, i + 1))
        ) or (token in ("for", "in") and (n := duration_after(tokens, i + 1))):
            kind, span = "time", 1 + n
        elif pair == "in a" and tokens[i + 2 : i + 3] and tokens[i + 2] in _SOON:
            kind, span = "time", 3  # "in a tick", "in a bit": a delay of no length said
        elif (
            (
                token in ("until", "till", "til", "before", "after")
                and tokens[i + 1 : i + 3] != _IDIOM
            )
            or (token in _WHEN_WORDS and not _attributive(token, before))
            or (token == "next" and tokens[i + 1 : i + 2] != ["alarm"])
        ):
            kind = "time"
        if kind:
            found.append(Qualifier(kind, " ".join(tokens[i : i + span]), i, i + span))
            i += span
        else:
            i += 1
    return tuple(found)


_IDIOM = ["i", "forget"]  # "before i forget, close the blinds": no time of the command
_POLITE_IF = re.compile(
    r"^(?:if (?:that'?s|it'?s|its) (?:ok|okay|alright|fine|possible|not too much)|if (?:you|u) "
    r"(?:can|could|don'?t|dont|please|would|wouldn'?t|want|have|get|like)|if possible|when "
    r"(?:you|u) (?:can|get|have|are ready)|whenever (?:you|u) (?:can|get|are ready))\b"
)


_ASKED = frozenset(
    "is are was were does do did will would should can could 's it's".split()  # noqa: SIM905
)


def _asks_when(tokens: list[str], i: int) -> bool:
    """ "when is my alarm", "so when does it go off": a question about time."""
    after = tokens[i + 1 : i + 2]
    return tokens[i] == "when's" or (bool(after) and after[0] in _ASKED)


PARTS_OF_DAY = frozenset({"morning", "afternoon", "evening", "night"})
_BEFORE_A_TIME = frozenset({"the", "this", "in", "tomorrow", "at", "on", "by", "until", "till"})


def _attributive(token: str, before: str) -> bool:
    """ "my morning coffee", "good night", "save this for later": no time of the request."""
    if token == "later":
        return before == "for"
    return token in PARTS_OF_DAY and before not in _BEFORE_A_TIME


def _polite(tokens: list[str], i: int) -> bool:
    """ "if you can", "when you get a chance": politeness, no condition."""
    return _POLITE_IF.match(" ".join(tokens[i : i + 4])) is not None


def _names_a_place_after(tokens: list[str], i: int) -> bool:
    """ "but the hallway('s)", "but the kitchen ones", "but not the bedroom": a room left
    out; "but make it quick" is no exception."""
    from understanding.arguments.devices import ROOM_NAMES

    rest = [t for t in tokens[i : i + 5] if t not in ("the", "not", "in", "my", "leave", "keep")]
    said = " ".join(re.sub(r"'s$", "", t) for t in rest)
    return any(said == name or said.startswith(name + " ") for name in ROOM_NAMES)


_FILLER_START = frozenset(
    {"hey", "ok", "okay", "so", "um", "uh", "quick", "q", "oh", "question", "right", "and"}
)
# A topic said before the question ("telly in the living room - is it still on?", "quick
# question, is the tv in the den on"): a part with none of these verbs is no command.
_COMMANDING_SAID = (
    "turn switch set put start stop lock unlock open close shut dim brighten mute unmute make "
    "play pause add remind note save cancel stick flip kill run raise lower get give please"
)
_COMMANDING = frozenset(_COMMANDING_SAID.split())
_TOPIC_END = re.compile(r"\s*(?:[,;:]|\s[-\u2013\u2014]|\?)\s*")


def _asked(tokens: list[str]) -> bool:
    """Whether the words, filler dropped, open as a question does."""
    tokens = _without_filler(tokens)
    if not tokens:
        return False
    first, second = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if first in ("is", "are", "was", "were", "did", "has", "have", "does", "do") and second not in (
        "not",
        "you",
    ):
        return first != "do" or second in ("i", "we")
    if first in ("should", "shall") and second in ("i", "we"):
        return True  # "should i switch the ac off": advice asked for, no command
    if first in ("what", "what's", "whats", "how", "how's", "hows", "which", "where", "why"):
        return True
    return bool(
        re.match(
            r"(?:(?:can|could|would|will) you (?:please |just )?|please |would you mind )?"
            r"(?:check|checking|tell me|telling me|see|seeing|find out|let me know) (?:if|whether)"
            # "it is on or off?": the question in a statement's order, its answers offered
            r"|(?:it|they) (?:is|are) (?:on|off|open|closed|shut|locked|unlocked|running) or\b",
            " ".join(tokens),
        )
    ) or " ".join(tokens[:2]) in ("status of", "i wonder")


def question_words(words: str) -> list[str] | None:
    """The tokens of the question the words ask, filler and a leading topic dropped
    ("telly in the living room - is it still on?" -> is it still on), or None when they
    ask none."""
    tokens = tokens_of(words)
    if _asked(tokens):
        return _without_filler(tokens)
    parts = _TOPIC_END.split(words, maxsplit=1)
    if len(parts) == 2 and parts[1].strip():
        topic, rest = tokens_of(parts[0]), tokens_of(parts[1])
        if not _COMMANDING.intersection(topic) and _asked(rest):
            return _without_filler(rest)
    return None


def _without_filler(tokens: list[str]) -> list[str]:
    while tokens and tokens[0] in _FILLER_START:
        tokens = tokens[1:]
    return tokens


def is_question(words: str) -> bool:
    """True when the words ask about something rather than command it ("is the plug
    on?", "what's the vacuum doing", "did i leave the heater on", "should i turn the
    heating on", "the hall light - is it on?"): a read, never an action."""
    return question_words(words) is not None


_STATUS_WH = re.compile(
    r"^(?:what(?:'s| is| are)?|whats|how's|hows|which)\b|^how (?:loud|bright|warm|hot|cold|"
    r"high|low|long)\b"
)


# "is it bad to leave the tv on", "does the tv use much power": about a device, not its
# state ("is the tv on", "did i lock the door"); "is it on?" still asks for one.
_ABOUT_A_DEVICE = re.compile(r"(?:is|was) (?:it|that|this)\b|does\b")
_IS_IT_IN_A_STATE = re.compile(r"(?:is|was) it (?:on|off|still|running|locked|open|closed)\b")


# What not to do set against what to do: "don't lock the door, (but) just close the
# blinds"; "close the blinds, but don't lock the door".
_NEGATED_FIRST = re.compile(
    r"^(?:please\s+)?(?P<neg>(?:don'?t|do\s+not|never)\s.+?)[,;]?\s+(?:but\s+)?"
    r"(?:just|only|instead|rather)\b[,;]?\s*(?P<said>.+)$"
)
_NEGATED_LAST = re.compile(
    r"^(?P<said>.+?)[,;]?\s+but\s+(?:please\s+)?(?P<neg>(?:don'?t|do\s+not|never)\s.+)$"
)


def contrasted(words: str) -> tuple[str, str] | None:
    """(the negated part, the part that says what to do) of words that set one against
    the other, or None.

    >>> contrasted("don't lock the door, just close the blinds")
    ("don't lock the door", 'close the blinds')
    >>> contrasted("close the blinds but don't lock the door")
    ("don't lock the door", 'close the blinds')
    """
    said = " ".join(words.lower().replace("’", "'").split())
    for pattern in (_NEGATED_FIRST, _NEGATED_LAST):
        found = pattern.match(said)
        if found is not None:
            negated, rest = found.group("neg").strip(" ,;"), found.group("said").strip(" ,;")
            if negated and rest and not any(q.kind == "negation" for q in find_qualifiers(rest)):
                return negated, rest
    return None


def is_status_question(words: str) -> bool:
    """A question about a device's kept state ("is the plug on?", "what's the vacuum
    doing", "how loud is the speaker"); "why does my vacuum keep stopping" and "how do i
    reset the plug" are questions, but no read of the state."""
    tokens = question_words(words)
    if not tokens:
        return False
    said = " ".join(tokens)
    if tokens[0] in ("why", "where", "should", "shall") or re.match(
        r"how (?:do|does|did|can|much|many|to)\b", said
    ):
        return False
    if _ABOUT_A_DEVICE.match(said) and not _IS_IT_IN_A_STATE.match(said):
        return False
    if tokens[0] in ("what", "what's", "whats", "how", "how's", "hows", "which"):
        return _STATUS_WH.match(said) is not None
    return True


def read_at(words: str) -> str | None:
    """ "HH:MM" of the one "at <clock time>" the words say, or None (none, several, or
    no reading)."""
    from understanding.arguments.slots import clock_time

    tokens = tokens_of(words)
    times = [q for q in find_qualifiers(words) if q.kind == "time" and q.word.split()[0] == "at"]
    if len(times) != 1:
        return None
    said = tokens[times[0].start + 1 : times[0].end]
    said = [t for t in said if t not in ("tonight", "today", "this", "evening")]
    text = " ".join(said).replace("a.m.", "am").replace("p.m.", "pm").replace("a.m", "am")
    text = text.replace("p.m", "pm").replace("at night", "pm")
    text = re.sub(r"in the (?:afternoon|evening)", "pm", text).replace("in the morning", "am")
    evening = any(t in ("tonight", "evening") for t in tokens[times[0].start : times[0].end])
    if evening and not re.search(r"\b(?:am|pm)\b|in the", text):
        text += " pm"
    return clock_time(text)


def read_for(words: str) -> int | None:
    """Seconds of the one "for <duration>" the words say, or None."""
    from understanding.arguments.durations import parse_duration

    spans = [q for q in find_qualifiers(words) if q.kind == "time" and q.word.split()[0] == "for"]
    if len(spans) != 1:
        return None
    said = re.sub(r"^for (?:the )?(?:next |another )?", "", spans[0].word)
    if said.split()[0] in _UNITS:
        said = f"1 {said}"  # "for the next hour"
    return parse_duration(said)


def _rooms_in(text: str) -> list[str]:
    from understanding.arguments.devices import ROOM_NAMES, _find_phrases
    from understanding.arguments.numbers import tokenize

    said = re.sub(r"'s\b", "", text)
    return list(dict.fromkeys(kind for _s, _e, kind in _find_phrases(tokenize(said), ROOM_NAMES)))


_AROUND_ROOMS = frozenset({"the", "and", "not", "in", "my", "or", "our", "one", "ones", "room"})


def _exception_end(tokens: list[str], start: int) -> tuple[int, list[str]]:
    """Where the rooms after an exception word end, and the rooms ("except the kitchen
    and the hallway's" -> kitchen, hallway)."""
    from understanding.arguments.devices import ROOM_NAMES

    rooms: list[str] = []
    j = start
    kept = tokens[start : start + 1] in (["leave"], ["keep"])  # "but leave the porch one on"
    j += kept
    while j < len(tokens):
        for k in (3, 2, 1):
            said = " ".join(re.sub(r"'s$", "", t) for t in tokens[j : j + k])
            if said in ROOM_NAMES:
                rooms.append(ROOM_NAMES[said])
                j += k
                break
        else:
            if tokens[j] not in _AROUND_ROOMS:
                break
            j += 1
    if kept and rooms and tokens[j : j + 1] in (["on"], ["off"], ["alone"]):
        j += 1  # the room left as it is
    return j, list(dict.fromkeys(rooms))


def _spans(words: str) -> tuple[list[str], set[int], list[str]]:
    """The words, the indices of their time and exception qualifiers, and the rooms
    left out."""
    tokens = tokens_of(words)
    drop: set[int] = set()
    left_out: list[str] = []
    for q in find_qualifiers(words):
        if q.kind in ("time", "recurring"):
            drop.update(range(q.start, q.end))
        elif q.kind == "exception":
            end, rooms = _exception_end(tokens, q.end)
            if rooms:
                drop.update(range(q.start, end))
                left_out += [r for r in rooms if r not in left_out]
    return tokens, drop, left_out


def left_out_words(words: str) -> set[int]:
    """The indices of the words that leave rooms out ("but leave the porch one on"): no
    request of their own."""
    tokens = tokens_of(words)
    out: set[int] = set()
    for q in find_qualifiers(words):
        if q.kind == "exception":
            end, rooms = _exception_end(tokens, q.end)
            out.update(range(q.start, end) if rooms else ())
    return out


def without_times(words: str) -> str:
    """The words of the command itself, its time and its exception left out ("turn off
    the lights at 11 pm" -> "turn off the lights"; "... except the hall" -> "turn off the
    lights"): a clock time's number is no level, a room left out no room of the command."""
    tokens, drop, _ = _spans(words)
    return " ".join(t for k, t in enumerate(tokens) if k not in drop)


def device_qualifiers(words: str) -> dict[str, Any]:
    """The qualifiers of a device command the device executes, as ``device_control``
    arguments: ``room: "all"`` for every room (all, every, everywhere), ``except`` (the
    rooms after except / but / other than / apart from / all but), ``at`` ("HH:MM") and
    ``for`` (seconds). "all the lights in the kitchen" is the kitchen's: no ``all``."""
    tokens, drop, left_out = _spans(words)
    qualifiers = find_qualifiers(words)
    scoped = any(q.kind == "scope" and q.word != "both" for q in qualifiers)
    everywhere = "everywhere" in tokens or "every room" in " ".join(tokens)
    kept = " ".join(t for k, t in enumerate(tokens) if k not in drop)
    out: dict[str, Any] = {}
    if (scoped or everywhere or left_out) and not _rooms_in(kept):
        out["room"] = "all"
        if left_out:
            out["except"] = left_out
    at = read_at(words)
    if at is not None:
        out["at"] = at
    seconds = read_for(words)
    if seconds is not None:
        out["for"] = seconds
    return out


# The guard on an exception: what follows the exception word, read as rooms or not.
_ALL_WORDS = re.compile(r"\b(all|every|everything|each)\b", re.IGNORECASE)
# The words that open an exception; the planner's clause cutter keeps a listed exception
# whole with the same words.
EXCEPTION_WORDS = (
    r"except(?:\s+for)?|but(?:\s+not)?|other\s+than|apart\s+from|besides|save\s+for|"
    r"excluding|not\s+including|all\s+but"
)
_LEFT_OUT = re.compile(rf"\b(?:{EXCEPTION_WORDS})\s+(?P<rest>.+)$", re.IGNORECASE)
# Words that leave something out even with no "all" before them ("the lights off except
# in the kitchen" covers every other room).
_STRICT_EXCEPT = re.compile(
    r"except|other\s+than|apart\s+from|excluding|not\s+including|but\s+not", re.IGNORECASE
)
_LEFT_OUT_PARTS = re.compile(r"\s*(?:,|\band\b|\bor\b|&)\s*", re.IGNORECASE)
_AROUND_A_ROOM = re.compile(
    r"'s\b|\b(?:in|the|my|our|one|ones|please|light|lights|lamp|lamps|room)\b|[.!?]",
    re.IGNORECASE,
)


def leaves_out_no_room(words: str, arguments: dict[str, Any]) -> bool:
    """True when a device command leaves out something that is no room of it: "turn
    everything off but the TV", "all the lights except the lamp" (a device). The ``except``
    of :func:`device_qualifiers` holds rooms only, so such an exception would be dropped:
    the request is the cloud's. "turn on the lights but dim them" leaves nothing out ("but"
    alone, with no all/every before it, is no exception); "... but only after nine" is a
    condition, :func:`find_qualifiers`' to name."""
    from understanding.arguments.devices import ROOM_NAMES, device_name, room_name

    said = " ".join(words.split())
    found = _LEFT_OUT.search(said)
    if found is None:
        return False
    if _ALL_WORDS.search(said[: found.start()]) is None and not _STRICT_EXCEPT.match(
        found.group(0)
    ):
        return False
    rooms = 0
    for part in _LEFT_OUT_PARTS.split(found.group("rest")):
        if not part.strip():
            continue
        room = room_name(_AROUND_A_ROOM.sub(" ", part))
        if room is None:
            return True
        named = device_name(part)
        if named is not None and (
            named != arguments.get("device") or room not in frozenset(ROOM_NAMES.values())
        ):
            return True  # "everything but the TV": a device left out, not a room
        rooms += 1
    return rooms == 0
