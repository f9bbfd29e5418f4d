"""The side-effect policy: when a tool that changes the world may run on the device.

A wrong action costs more trust than a hundred trips to the cloud, so a call with a side
effect (a device command, a timer, a note written or removed) runs only when

(a) its confidence clears the side-effect floor (the router's ``action_threshold``,
    calibrated for side effects apart from the lookups' threshold);
(b) every argument is grounded in the person's words: a note's text is their words,
    whole (nothing of what they said to keep is left out); a timer's seconds, an alarm
    and a device command's device, action and value are the words' too, and a question
    is no command (``understanding.grounding``);
(c) no qualifier is left unconsumed (``understanding.arguments.qualifiers``: a time, an
    exception, a condition, a negation, a scope the arguments do not carry);
(d) the utterance holds no second request.

Otherwise the verdict is ``cloud`` with a reason naming the cause ("the condition 'if'
..."), or ``ask`` when the tool is clear and only an argument is missing (``missing``
names it, ``question`` is what to ask; :func:`ask_back` is the one rule for it, on every
path of the router). Lookups change nothing and pass. Pure functions
over the call and the words: the router's decision goes through :func:`check_call`, and
the cloud planner's plan check can call the same ones.

>>> check_call("device_control", {"device": "light", "action": "off"},
...            "turn off the lights if it rains", 0.9, 0.6).reason
"the condition 'if' is not one the device can wait for"
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from understanding.arguments.builtin_notes import ran_out_words
from understanding.arguments.builtin_places import NAMESAKES_SAID, THERE_UNSAID
from understanding.arguments.newer_tools import known_list
from understanding.arguments.qualifiers import (
    Qualifier,
    contrasted,
    find_qualifiers,
    left_out_words,
    tokens_of,
)
from understanding.corrections import unplaced_fix
from understanding.grounding import grounded_values, unkept_clock_time, unkept_place
from understanding.structure import unserved_about_it
from understanding.tools.catalogue import SIDE_EFFECT_TOOLS

# The tools whose calls change the world: the catalogue's side-effect column
# (``understanding.tools.catalogue``), the one list of them.
ACTION_TOOLS: frozenset[str] = SIDE_EFFECT_TOOLS
# Free-text arguments: the person's words, kept as said.
FREE_TEXT: dict[str, tuple[str, ...]] = {
    "add_note": ("text",),
    "remove_note": ("text",),
    "set_timer": ("label",),
    "cancel_timer": ("label",),
}

Action = Literal["allow", "ask", "cloud"]
# What a calendar keeps, not a note: removing one is the cloud's.
_CALENDAR = re.compile(
    r"\b(?:appointment|meeting|event|booking|reservation|calendar|flight|interview)s?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Verdict:
    """What the device does with a call: run it, ask back, or hand the query on."""

    action: Action
    reason: str = ""
    missing: str = ""
    question: str = ""


ALLOW = Verdict("allow")

# One more of the same asked after the first: "and another for 10", "then a second one".
_ANOTHER = re.compile(
    r"\b(?:and|then|plus|also)\s+(?:then\s+|also\s+)?(?:another|a\s+second(?:\s+one)?|one\s+more)\b",
    re.IGNORECASE,
)

# A request cut off after the word that brings in its value: the argument and the question.
_CUT_OFF = {
    "to": ("value", "To what?"),
    "into": ("value", "Into what?"),
    "at": ("at", "At what time?"),
    "for": ("for", "For how long?"),
    "until": ("until", "Until when?"),
    "till": ("until", "Until when?"),
    "by": ("value", "By how much?"),
}

# Verbs that start a request of their own after "and" / "then" ("... and warm up the oven").
_VERBS_SAID = (
    "turn switch set start stop lock unlock open close shut add put remind wake make play "
    "call text send book order warm heat cool check tell show read remove delete cancel "
    "mute unmute dim brighten clean vacuum brew water feed get give find search note "
    "write save keep run boil preheat record email message leave"
)
COMMAND_VERBS = frozenset(_VERBS_SAID.split())
_JOINERS = frozenset({"and", "then", "also", "plus", "after", "but"})
# Words that open an utterance without being a request of their own ("oh and ...").
OPENERS = frozenset({"oh", "ok", "okay", "so", "um", "uh", "and", "right", "hey", "well", "yeah"})
GLUE = frozenset({"then", "also", "please", "can", "could", "you", "would", "that", "i", "me"})
# Words that frame a note and are no part of it ("add a note:", "can you note it?").
_NOTE_FRAME_WORDS = (
    "a an the this that it these my me to for of down note notes new add write jot save "
    "keep remember make take put please can could would you will i want need just quick "
    "and so oh ok okay hey hi um list memo later in on up self this: say saying reminder "
    "hang onto store log create something here thanks thank thx pls be sure don't dont "
    "forget let know"
)
_NOTE_FRAME = frozenset(_NOTE_FRAME_WORDS.split())
# Words that frame one note of a plan's several ("... and another note to", "right, before
# i forget, note that"): the device sends such an utterance to the cloud as two requests.
_PLAN_FRAME = frozenset(
    ["another", "second", "one", "more", "also", "right", "before", "forget", "instead", "too"]
)


def note_frame(word: str) -> bool:
    """Whether ``word`` frames a note rather than being part of it ("jot this down:")."""
    return word.lower() in _NOTE_FRAME or word.lower() in _PLAN_FRAME


def check_call(
    tool: str,
    arguments: dict[str, Any] | None,
    words: str,
    confidence: float,
    floor: float,
    kept: Sequence[str] = (),
    *,
    one_request: bool = True,
    several: bool = False,
) -> Verdict:
    """The verdict on one call read from ``words`` (see the module docstring). ``kept``:
    the free text of the utterance's other calls (the other items of a list), which this
    call's words need not keep; ``one_request`` False: the words are one request of a plan
    whose other requests have calls of their own (the cloud's plan check), so (d) is the
    plan's to check; ``several``: the plan makes several calls of this tool for these words,
    which carry a scope of several ("both", "each") between them."""
    if tool not in ACTION_TOOLS:
        return ALLOW
    args = arguments or {}
    if confidence < floor:
        return Verdict("cloud", f"low confidence {confidence:.2f} < {floor:.2f} for {tool}")
    tokens = tokens_of(words)
    listed = not one_request
    inside = _free_text_tokens(tool, args, tokens, listed)
    for other in kept:
        inside |= _free_text_tokens(
            tool, {**args, **dict.fromkeys(FREE_TEXT.get(tool, ()), other)}, tokens, listed
        )
    ungrounded = grounding(tool, args, words, listed=listed)
    if ungrounded is not None:
        return Verdict("cloud", ungrounded)
    calendar = _CALENDAR.search(str(args.get("text", ""))) if tool == "remove_note" else None
    if calendar is not None and not args.get("list"):
        return Verdict("cloud", f"an {calendar.group(0)} is the calendar's, not a note")
    about = (
        unserved_about_it(str(args["text"])) if tool == "add_note" and args.get("text") else None
    )
    if about is not None:
        return Verdict("cloud", f"{about!r} asks for what no tool of mine does with a note")
    kept_words = " ".join(str(args.get(k, "")) for k in FREE_TEXT.get(tool, ()))
    fix = unplaced_fix(kept_words) if tool in ("add_note", "set_timer") else None
    if fix is not None:
        return Verdict("cloud", f"the words to keep correct themselves ({fix!r}): which is meant?")
    if tool == "add_note":
        inside = inside | ran_out_words(words)  # "we're out of coffee, | put it on the list"
    left_out = _note_left_out(tool, args, tokens, inside, plan=listed)
    if left_out is not None:
        return Verdict("cloud", f"the note leaves out {left_out!r} of what was said")
    for qualifier in find_qualifiers(words):
        if set(range(qualifier.start, qualifier.end)) <= inside:
            continue  # the note's or the label's own words
        if qualifier.kind == "negation" and negated_elsewhere(tool, args, words):
            continue  # "don't lock the door, just close the blinds": the blinds' command
        if several and qualifier.kind == "scope" and qualifier.word in ("both", "each"):
            continue
        reason = unconsumed(tool, args, qualifier)
        if reason is not None:
            return Verdict("cloud", reason)
    place = unkept_place(words, [(tool, args)]) if one_request else None
    if place is not None:  # the plan check asks it of the plan's commands together
        return Verdict(
            "cloud", f"the words say the place {place!r}, which the command does not keep"
        )
    if tool in ("set_timer", "device_control") and not several:
        dropped = unkept_clock_time(words, [(tool, args)])
        if dropped is not None:  # "an alarm for 6:15 and another for 6:30": two asked
            return Verdict("cloud", f"the time {dropped!r} is said and not kept")
        another = _ANOTHER.search(words)
        if another is not None and tool == "set_timer":  # "... for 5 minutes and another for 10"
            return Verdict("cloud", f"a second timer asked ({another.group(0)!r})")
    if tool == "device_control":
        inside = inside | left_out_words(words)  # "..., but leave the porch one on"
    second = second_request(tokens, inside) if one_request else None
    if second is not None:
        return Verdict("cloud", f"a second request ({second!r}): the cloud plans it")
    if tokens and tokens[-1] in _CUT_OFF and len(tokens) - 1 not in inside:
        # "dim the lights to", "set a timer for": the value was never said, and a guess at
        # it ("dim" as a step down) is another command.
        word = tokens[-1]
        missing, question = _CUT_OFF[word]
        if tool in ("add_note", "remove_note") and word == "to":
            missing, question = "list", "To which list?"
        elif tool == "set_timer":
            missing = "seconds" if word == "for" else "at"
        elif missing == "until":
            missing = "for"  # a command's end is its duration
        return Verdict("ask", f"the words stop at {word!r}", missing, question)
    return ALLOW


def grounding(tool: str, args: dict[str, Any], words: str, *, listed: bool = False) -> str | None:
    """Why a call's arguments are not the person's ``words`` (its free text not said, its
    duration, alarm or device command not theirs: ``understanding.grounding``), or None.
    ``listed``: a list's "and"s are no words of its items ("milk, eggs, bread" keeps "milk
    and eggs and bread"; the cloud's plans)."""
    ungrounded = _ungrounded(tool, args, tokens_of(words), listed=listed)
    return ungrounded or grounded_values(tool, args, words)


def free_text_tokens(tool: str, args: dict[str, Any], tokens: list[str]) -> set[int]:
    """The indices of the words a call's free-text arguments keep (a note's text, its
    list's "and"s aside: the cloud's plans)."""
    return _free_text_tokens(tool, args, tokens, listed=True)


def negated_elsewhere(tool: str, args: dict[str, Any], words: str) -> bool:
    """Whether the words' negation rules a command of its own beside the call ("don't
    lock the door, just close the blinds"; ``qualifiers.contrasted``): the other part
    says the call whole (its device, action and value), the negated part none of it."""
    if tool != "device_control":
        return False
    parts = contrasted(words)
    if parts is None:
        return False
    negated, said = parts
    if grounded_values(tool, args, said) is not None:
        return False  # the call is not the other part's, whole
    return grounded_values(tool, args, negated) is not None


def unconsumed(tool: str, args: dict[str, Any], qualifier: Qualifier) -> str | None:
    """Why ``qualifier`` is left unconsumed by the call, or None when an argument
    carries it."""
    kind, word = qualifier.kind, qualifier.word
    if kind == "condition":
        return f"the condition {word!r} is not one the device can wait for"
    if kind == "negation":
        return f"the negation {word!r}: the device does not act on what it is told not to do"
    if kind == "recurring":
        return f"a recurring request ({word!r}) is the cloud's for now"
    if kind == "exception":
        if tool == "device_control" and args.get("except"):
            return None
        return f"the exception {word!r} is not one {tool} leaves out"
    if kind == "scope":
        if tool == "device_control" and args.get("room") and word != "both":
            return None  # every room, or every light of the room named
        if tool == "cancel_timer" and args.get("all"):
            return None
        if tool == "clear_list":
            return None
        return f"the scope {word!r} is not one {tool} covers"
    return _time_unconsumed(tool, args, word)


_TIME_OF_DAY = frozenset({"morning", "afternoon", "evening", "tonight", "night", "tonight's"})


def _time_unconsumed(tool: str, args: dict[str, Any], word: str) -> str | None:
    first = word.split()[0]
    if first in ("at", "by") and "at" in args:
        return None
    if first in ("for", "in") and ("for" in args or "seconds" in args):
        return None
    if tool in ("set_timer", "cancel_timer") and "at" in args and first not in ("for", "in"):
        return None  # the alarm's day and time of day are read into its ``at``
    if tool == "cancel_timer" and first == "next" and args.get("next"):
        return None
    if tool == "device_control" and "at" in args and first in _TIME_OF_DAY:
        return None
    return f"the time {word!r} is not one {tool} runs at"


def _squashed(tokens: Sequence[str], listed: bool = False) -> tuple[str, list[int]]:
    """The words' letters and digits run together, and each character's word index: "3pm"
    and "3 pm" are the same words; ``listed``: so are "milk, eggs, bread" and "milk and
    eggs and bread" (an "and" between items is no word of theirs)."""
    chars: list[str] = []
    owners: list[int] = []
    for k, token in enumerate(tokens):
        if listed and token == "and":
            continue
        for char in token:
            if char.isalnum():
                chars.append(char)
                owners.append(k)
    return "".join(chars), owners


def _free_text_tokens(
    tool: str, args: dict[str, Any], tokens: list[str], listed: bool = False
) -> set[int]:
    """The indices of the words a free-text argument keeps."""
    inside: set[int] = set()
    said, owners = _squashed(tokens, listed)
    for key in FREE_TEXT.get(tool, ()):
        value = args.get(key)
        if not isinstance(value, str) or not value:
            continue
        wanted, _ = _squashed(tokens_of(value), listed)
        at = said.find(wanted) if wanted else -1
        if at >= 0:
            inside.update(owners[at : at + len(wanted)])
    return inside


def _ungrounded(
    tool: str, args: dict[str, Any], tokens: list[str], listed: bool = False
) -> str | None:
    said, _ = _squashed(tokens, listed)
    for key in FREE_TEXT.get(tool, ()):
        value = args.get(key)
        if isinstance(value, str) and value:
            wanted, _ = _squashed(tokens_of(value), listed)
            if wanted not in said:
                return f"the {key} {value!r} is not the person's words"
    named = args.get("list") if tool in ("add_note", "remove_note") else None
    if isinstance(named, str) and named and not _list_said(named, tokens):
        return f"the list {named!r} is not named"  # the item's words hold no list's name
    return None


def _list_said(named: str, tokens: list[str]) -> bool:
    """Whether the words name the list ("the to do list", "my shoping list", "groceries")
    or point back at one named before ("add renew passport to it", "... instead")."""
    if re.search(r"\b(?:to|on|onto|off|from)\s+(?:it|that|there)\b|\binstead\b", " ".join(tokens)):
        return True
    wanted = tokens_of(named)
    spans = (" ".join(tokens[k : k + len(wanted)]) for k in range(len(tokens)))
    return any(span == " ".join(wanted) or known_list(span) == named for span in spans) or any(
        known_list(token) == named for token in tokens
    )


def _note_left_out(
    tool: str, args: dict[str, Any], tokens: list[str], inside: set[int], plan: bool = False
) -> str | None:
    """The first word the person said to keep that a note or a list item leaves out."""
    if tool != "add_note" or not args.get("text"):
        return None
    listed = set(tokens_of(str(args.get("list") or "")))
    for k, token in enumerate(tokens):
        if k in inside or token in _NOTE_FRAME or token in listed:
            continue
        if plan and token in _PLAN_FRAME:
            continue
        if listed and known_list(token) == args.get("list"):
            continue  # the list's name as said ("shoping")
        if len(token) > 2 and not token.startswith(("note", "remind")):
            return token
    return None


def second_request(tokens: Sequence[str], inside: set[int] = frozenset()) -> str | None:  # type: ignore[assignment]
    """The words that start a second request ("and warm up the oven"), or None."""
    for k, token in enumerate(tokens):
        if k in inside or token not in _JOINERS or all(t in OPENERS for t in tokens[:k]):
            continue
        j = k + 1
        while j < len(tokens) and tokens[j] in GLUE and j - k < 4:
            j += 1
        if j < len(tokens) and j not in inside and tokens[j] in COMMAND_VERBS:
            if token == "after" and tokens[k + 1 : k + 2] != ["that"]:
                continue
            return " ".join(tokens[k : j + 1])
    return None


_MISSING = re.compile(r"required argument '([^']+)'")


# The words of a bare request ("set a timer", "turn it off", "add this to the list"):
# with nothing else said, only the missing argument stands between it and the tool.
_BARE_WORDS = (
    "set timer timers alarm alarms wake me up remind reminder start turn switch it on off "
    "them something thing stuff item one to list shopping grocery do my a an the this that "
    "please can could you i need want new take make note add put write down remove delete "
    "cancel from thermostat light lights tv fan heater ac speaker get rid of is are still "
    "warmer cooler colder hotter brighter dimmer louder quieter bit little"
)
_BARE = frozenset(_BARE_WORDS.split())


def ask_back(
    tool: str, reason: str, arguments: dict[str, Any] | None = None, words: str = ""
) -> Verdict | None:
    """The one rule for asking back: an ``ask`` verdict for a call with a side effect whose
    arguments did not fill, or None (the cloud's).

    A timer or an alarm with no word a time could be read from is asked for its duration
    or its time (``understanding.asking.question_for``: "set a timer for the pasta" ->
    "For how long?"). Any other call is asked only when the fill failed for a missing
    required argument (the fill's ``reason`` names it) and the words say nothing but the
    request and what its other arguments keep ("remind me to call dad": the label); "set
    a timer for the right time to boil an egg" names a time the device cannot read, and is
    the cloud's."""
    if tool in ("get_weather", "world_clock") and THERE_UNSAID in reason:
        return Verdict("ask", f"{tool} needs its city", "city", "Where do you mean?")
    if tool in ("get_weather", "world_clock") and NAMESAKES_SAID in reason:
        question = reason.split(": ", 1)[1]  # "Which one do you mean: Springfield, ...?"
        return Verdict("ask", f"{tool} needs one of the cities of its name", "city", question)
    if tool == "device_status" and "device" in reason and set(tokens_of(words)) <= _BARE:
        return Verdict("ask", "device_status needs its device", "device", "Which device?")
    if tool not in ACTION_TOOLS:
        return None
    from understanding.asking import question_for as timer_question

    timer = timer_question(tool, words)  # "set a timer": for how long; "wake me": what time
    if timer is not None:
        return Verdict("ask", f"{tool} needs its {timer.missing}", timer.missing, timer.question)
    found = _MISSING.search(reason)
    if found is None:
        return None
    tokens = tokens_of(words)
    inside = _free_text_tokens(tool, arguments or {}, tokens)
    if any(k not in inside and t not in _BARE for k, t in enumerate(tokens)):
        return None
    missing = found.group(1).split("'")[0]
    return Verdict(
        "ask", f"{tool} needs its {missing}", missing, question_for(tool, missing, arguments)
    )


def question_for(tool: str, missing: str, arguments: dict[str, Any] | None = None) -> str:
    """What to ask the person for ``tool``'s ``missing`` argument."""
    args = arguments or {}
    if tool == "set_timer":
        return "For what time, or for how long?"
    if tool == "add_note":
        listed = args.get("list")
        return f"What should I add to the {listed} list?" if listed else "What should I write down?"
    if tool == "remove_note":
        return "What should I take off?"
    if tool == "device_control" and missing == "at":
        return "At what time: morning or evening?"
    if tool == "device_control":
        return "Which device?"
    if tool == "cancel_timer":
        return "Which timer or alarm?"
    if tool == "clear_list":
        return "Which list?"
    return f"What {missing}?"
