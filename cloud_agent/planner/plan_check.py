"""The plan check: before anything runs, every side effect of a plan is grounded in the
person's words and asked for as many times as it is planned.

One implementation with the device: each side-effect call goes through the device's
side-effect policy (``understanding.policy.check_call``: free text the words whole,
durations, alarms and device commands the words', a question no command, every
qualifier consumed), on the words of its own request (:func:`request_words`, the fewest
clauses that ground it). So the device and the cloud refuse the same things for the same
reasons. What is left here is what only a plan has:

- which words are each call's (:func:`request_words`), and the planner's own cut of a
  note (it holds no other request, nor the request's own words);
- a condition, a negation or a recurrence anywhere in the words rules over every side
  effect ("if it rains tomorrow, | close the blinds");
- no clause that asks for an action is left without a call (:func:`unserved_parts`:
  "... and preheat the oven");
- "there" and "it" point at the room and the device named before;
- counts: "a timer for each" sets one timer per duration listed, "both"/"each" are
  served by several calls, and no side effect is planned more often than asked.

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

from cloud_agent.planner.clauses import FILLER
from cloud_agent.planner.each import listed_items, listed_tool, without_head
from cloud_agent.planner.said_times import listed_durations
from understanding import policy
from understanding.arguments.bare_hours import ambiguous_hour
from understanding.arguments.qualifiers import find_qualifiers, tokens_of
from understanding.grounding import unkept_clock_time, unkept_place
from understanding.structure import opens_unserved
from understanding.tools.devices import STEP_ACTIONS

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

# A request opening after a joiner inside a note's text: the note swallowed another request
# ("note that dinner cost 85 dollars and tell me what a 20% tip would be").
_ANOTHER_REQUEST = re.compile(
    r"(?:\band|\bthen|[;,.])\s+(?:" + FILLER + r"\s+)*"
    # a device command said short ("and lights off"), a timer asked for ("then i need a
    # reminder in two hours"), a second thing to keep ("and save this for later:"), a
    # verb of arithmetic ("cube 9")
    r"(?:(?:the\s+)?(?:lights?|lamps?|tv|fan|heater|ac|blinds|speaker|plug|vacuum)\s+"
    r"(?:on|off|up|down)\b|i\s+(?:need|want)\s+(?:a|an)\s+(?:reminder|remind|timer|alarm)|"
    r"(?:save|keep|remember)\s+this|cube|square|halve|double|triple|"
    r"tell\s+me|what(?:'s|\s+is|\s+are)?|how|if\s+i|did|have\s+i|set|turn|wake|remind|"
    r"switch|check|convert|search|find|lock|unlock|open|close|start|can\s+you|could\s+you|"
    r"is|are|do|does|give\s+me|look\s+up|calculate|work\s+out|add\s+(?:a\s+|another\s+)?note|"
    r"another\s+note|a\s+second\s+note|"
    r"the\s+(?:weather|forecast|time|temperature|local\s+time)\s+(?:in|for|at|there)\b)\b"
)


# A note that is to hold a reading the tools give ("a note with whatever the weather is in
# Paris tomorrow"): the reading first, then the note; not the words as they stand.
_FILL_IN = re.compile(
    r"\b(?:whatever|what)\s+the\s+(?:weather|forecast|time|temperature|result|answer)\s+"
    r"(?:is|was|will|comes|says)\b"
)


# The words of the request itself inside a note's text ("add to my notes that ...").
_NOTE_COMMAND = re.compile(
    r"^(?:add|put|save|jot|write|make\s+a\s+note|take\s+a\s+note|note(?:\s+(?:this|it))?\s+down)\b"
    r"|^(?:another|a\s+second|one\s+more)\s+note\b|\b(?:to|in|into)\s+my\s+notes\b"
)


_POINTING_BACK = re.compile(r"^\W*(?:the\s+)?(?:same|it|that|this|them|those|these)\W*$")


def _note_text(text: str) -> Verdict:
    """How the planner cut a note: it holds neither the request's own words ("add to my
    notes that ...") nor another request ("... and tell me the tip"). That the note is
    the words, whole, is the policy's (``understanding.policy``)."""
    if _POINTING_BACK.match(text.lower()):  # "... and put the same on the to do list"
        return Verdict(False, f"the note {text!r} points back at words it does not keep", text)
    if _NOTE_COMMAND.search(text.lower()):
        return Verdict(False, "the note holds the request's own words", text)
    if _FILL_IN.search(text.lower()):
        return Verdict(False, "the note asks for a reading to be filled in", text)
    swallowed = _ANOTHER_REQUEST.search(text.lower())
    if swallowed is not None:
        rest = text[swallowed.start() :].strip(" ,;")
        return Verdict(False, "the note holds another request", rest)
    return ALLOW


def request_words(tool: str, arguments: dict[str, Any], words: str) -> str:
    """The words of the request a call answers: the fewest consecutive clauses of the
    words (the planner's cut, ``split_clauses``) that ground it (``policy.grounding``:
    its free text said, its device named, its action and duration said) and, for a note,
    hold the words that ask for it ("make a note that | the code is: 42"), the clauses
    before it lending what a fragment lacks ("turn off the tv | and the speaker"); the
    whole words when none does."""
    return " , ".join(_request_pieces(tool, arguments, words)[2]) or words


def _request_pieces(tool: str, arguments: dict[str, Any], words: str) -> tuple[int, int, list[str]]:
    """(first, end, pieces) of :func:`request_words`; (0, 0, []) when no window grounds."""
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.clauses import split_clauses

    pieces = split_clauses(words)
    cue = tool == "add_note" and it.asks_for_note(words)
    # What the call is: a timer's label rides along, and must be in the words found for
    # its duration (the policy checks it there: "a timer ... and preheat the oven" is no
    # "oven" timer).
    arguments = {k: v for k, v in arguments.items() if not (tool == "set_timer" and k == "label")}
    for width in range(1, len(pieces) + 1):
        for start in range(len(pieces) - width + 1):
            said = " , ".join(pieces[start : start + width])
            if cue and not it.asks_for_note(said):
                continue
            if "at" in arguments and unkept_clock_time(said, [(tool, arguments)]):
                continue  # "the heater on at 6:15 | and an alarm for 6:30": not this one's
            if policy.grounding(tool, arguments, said, listed=True) is None:
                return start, start + width, pieces[start : start + width]
    return 0, 0, []


# Verbs of a request that changes something: a clause opening with one is a request of
# its own, which a side effect of the plan must answer (reads are planned by their cues).
_READ_VERBS = frozenset({"check", "tell", "show", "read", "find", "search", "get", "give"})
_ACTING_VERBS = policy.COMMAND_VERBS - _READ_VERBS
# Verbs of a request for a reading: one no call reads is a part the plan would drop.
_ASKING_VERBS = frozenset({"convert", "calculate", "compute"})
_ALARM = re.compile(r"\b(?:alarms?|wake\s+(?:me|us)(?:\s+up)?)\b")
_LEAD = frozenset({*policy.OPENERS, *policy.GLUE, "and", "then", "also", "plus", "now"})


def unserved_parts(words: str, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The clauses that ask for an action ("... and preheat the oven", "... and book a
    table") which no call of the plan answers: none of its side effects starts or ends
    its words there, none is of the tool or device the clause names, no note keeps its
    verb as its own words."""
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.clauses import split_clauses

    actions = [(t, a) for t, a in calls if t in policy.ACTION_TOOLS]
    pieces = split_clauses(words)
    windows = [_request_pieces(t, a, words) for t, a in actions]
    starts = {w[0] for w in windows} | {w[1] - 1 for w in windows}
    planned = {t for t, _ in actions} | {str(a.get("device")) for _, a in actions}
    reads = [a for t, a in calls if t not in policy.ACTION_TOOLS]
    texts = " ".join(
        str(a.get(k, "")) for t, a in actions for k in policy.FREE_TEXT.get(t, ())
    ).lower()
    unserved = []
    for index, piece in enumerate(pieces):
        tokens = [t for t in tokens_of(piece) if t not in _LEAD]
        if not tokens or index in starts:
            continue
        cue = it.tool_cue(piece)
        if tokens[0] not in _ACTING_VERBS and (tokens[0] in _ASKING_VERBS or cue in it.READINGS):
            # "convert 100 dollars to euros | and add ...": a reading no call reads
            read = cue in {t for t, _ in calls} or any(_read_in(piece, a) for a in reads)
            if not read and not re.search(rf"\b{re.escape(tokens[0])}\b", texts):
                unserved.append(piece)
            continue
        if tokens[0] not in _ACTING_VERBS:
            continue
        if {it.tool_cue(piece), it.find_device(piece)} & planned:
            continue  # "set a timer for each of these: | 5 | and 25 minutes"
        if (it.timed_reminder(piece) or _ALARM.search(piece)) and it.TIMER in planned:
            continue  # "remind me to call mum at 6pm", "set an alarm for 6:30": set_timer
        if any(_read_in(piece, a) for a in reads):
            continue  # "turn 20 c into fahrenheit": the conversion's own words
        if re.search(rf"\b{re.escape(tokens[0])}\b", texts):
            continue  # the verb is a note's own words ("add a note to call mom")
        unserved.append(piece)
    return unserved


def _read_in(piece: str, arguments: dict[str, Any]) -> bool:
    """Whether a read's arguments (a place, a value, a query) are words of ``piece``."""
    said = f" {' '.join(tokens_of(piece))} "
    for value in arguments.values():
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | float):
            value = f"{value:g}"
        words = " ".join(tokens_of(str(value)))
        if words and f" {words} " in said:
            return True
    return False


def _unserved(words: str, calls: list[tuple[str, dict[str, Any]]]) -> Verdict:
    """With side effects planned, a clause asking for an action no call answers
    (:func:`unserved_parts`) runs nothing."""
    if not any(t in policy.ACTION_TOOLS for t, _ in calls):
        return ALLOW
    unserved = unserved_parts(words, calls)
    if unserved:
        return Verdict(False, "a request no call of the plan does", unserved[0])
    return ALLOW


def _device_there(arguments: dict[str, Any], words: str, query: str) -> Verdict:
    """What the words around a device command point at: the room "there" names ("... in
    the office and turn the heater on in there"); the device "it" is ("dim the lights and
    turn it up" is no speaker); the device a word names beside another ("the tv and the
    volume to 40" is the TV's volume, no speaker's); a room said once after two devices
    ("the tv and the speaker in the living room" may be both's: asked, not guessed)."""
    from cloud_agent.planner import interpret as it
    from understanding.grounding import complained, named_devices

    device = str(arguments.get("device"))
    part = f"{arguments.get('action')} the {device.replace('_', ' ')}"
    if complained(words, device, arguments.get("action")):
        return ALLOW  # "it's really dark in the kitchen": the complaint names the light
    there = _THERE.search(words)
    if not arguments.get("room") and there is not None and it.find_room(query):
        return Verdict(False, f"{there.group(0).strip()!r} names a room the call leaves out", part)
    named = named_devices(query, implied=False)
    if device not in named and named and _PRONOUN.search(words):
        return Verdict(False, f"'it' points at the {sorted(named)[0]}, not a {device}", part)
    if device not in named_devices(query):
        beside = f" beside the {sorted(named)[0]}" if named else ""
        return Verdict(False, f"the words name no {device}{beside}", part)
    shared = _room_after(arguments, query)
    if shared is not None:
        return Verdict(False, f"'in the {shared}' may be the {device}'s too", part)
    return ALLOW


def _room_after(arguments: dict[str, Any], query: str) -> str | None:
    """The room of the clause right after a command that names none, when that clause is
    a fragment (no verb of its own: "turn on the tv | and the speaker in the living
    room", "heater off | and fan on in the office"): it may be the command's too."""
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.clauses import split_clauses

    if arguments.get("room"):
        return None
    _, end, _ = _request_pieces("device_control", arguments, query)
    pieces = split_clauses(query)
    if not end or end >= len(pieces):
        return None
    after = pieces[end]
    tokens = [t for t in tokens_of(after) if t not in _LEAD]
    if not tokens or tokens[0] in policy.COMMAND_VERBS or it.find_device(after) is None:
        return None
    return it.find_room(after)


# A pronoun that points at a device; "it" as the subject of a state ("it's really dark in
# the kitchen") points at none.
_PRONOUN = re.compile(
    r"\b(?:it(?!\s*(?:'s|is|was|feels|gets|seems|looks)\b)|them|that|this|those)\b"
)


_THERE = re.compile(
    r"(?<!hey )(?<!hi )(?<!hello )\b(?:in\s+)?there\b(?!\s+(?:is|are|was|were|'s)\b)"
    r"|\b(?:in\s+)?(?:that|the\s+same)\s+room\b"  # "... in the den and the blinds in that room"
)


def _part(tool: str, arguments: dict[str, Any], said: str) -> str:
    if tool in ("add_note", "remove_note") and arguments.get("text"):
        return str(arguments["text"])
    return said


# What a plan's words say that no qualifier of a command is: "check if" asks whether (a
# read), "before i forget" frames a note, "at 60 percent" is a level, not a clock time.
_NOT_QUALIFIERS = (
    (re.compile(r"\b(check|see|tell\s+me|know|wonder|ask|checking)\s+if\b"), r"\1 whether"),
    (re.compile(r"\b(?:right\s*,?\s*)?before\s+(?:i|we)\s+forget\b\W*"), ""),
    (re.compile(r"\bat\s+(\d+(?:\.\d+)?)\s*(percent|%)"), r"to \1 \2"),
)


def plan_words(words: str) -> str:
    """The words as the policy reads a plan's (see ``_NOT_QUALIFIERS``)."""
    for pattern, replacement in _NOT_QUALIFIERS:
        words = pattern.sub(replacement, words)
    return words


_TIMER_ASKED = re.compile(r"\b(?:timers?|alarms?|remind\w*|wake|countdown)\b")


def check_call(
    tool: str,
    arguments: dict[str, Any],
    words: str,
    *,
    several: bool = False,
    kept: tuple[str, ...] = (),
) -> Verdict:
    """Whether one side-effect call is grounded in ``words`` (the normalised query,
    :func:`cloud_agent.planner.clauses.normalise`): the device's side-effect policy
    (``understanding.policy.check_call``) on the words of the call's request
    (:func:`request_words`), and the planner's own cut of a note; reads always pass.
    ``several``: the plan has other calls of this tool ("both", "each" are theirs too);
    ``kept``: the free text of those calls (a list's other items, which this call's words
    need not keep)."""
    if tool not in policy.ACTION_TOOLS:
        return ALLOW
    words = plan_words(words)
    if tool in ("add_note", "remove_note") and isinstance(arguments.get("text"), str):
        cut = _note_text(str(arguments["text"]))
        if not cut.ok:
            return cut
    if tool == "add_note" and not arguments.get("list") and isinstance(arguments.get("text"), str):
        asked = _note_of_a_request(str(arguments["text"]), words)
        if not asked.ok:
            return asked
    said = request_words(tool, arguments, words)
    if tool == "set_timer" and _TIMER_ASKED.search(said) is None and opens_unserved(said):
        # "email my boss that i'll be 20 min late and set a 30 min timer": not two timers
        return Verdict(False, "a request no tool of mine does", said)
    kept = (*kept, *_list_named_before(tool, arguments, words))
    verdict = policy.check_call(
        tool, arguments, said, 1.0, 0.0, kept, one_request=False, several=several
    )
    if verdict.action != "allow":
        return Verdict(False, verdict.reason, _part(tool, arguments, said))
    timed = tool == "device_control" or (tool == "set_timer" and arguments.get("label"))
    if timed and arguments.get("at") and ambiguous_hour(said):
        # "the heater on at 3": morning or evening is a guess, as on the device.
        return Verdict(False, "a bare hour: morning or evening?", _part(tool, arguments, said))
    if tool == "device_control":
        return _device_there(arguments, said, words)
    return ALLOW


def _list_named_before(tool: str, arguments: dict[str, Any], words: str) -> tuple[str, ...]:
    """The clauses before an item's own that name its list, as another request's words
    the item need not keep ("clear the shopping list | and then add rice": "clear" is the
    clearing's, the list is named there); () for a call with no list."""
    listed = arguments.get("list")
    if tool != "add_note" or not isinstance(listed, str):
        return ()
    _first, _end, pieces = _request_pieces(tool, arguments, words)
    text = str(arguments.get("text", "")).lower()
    if len(pieces) < 2 or text not in pieces[-1].lower():
        return ()
    before = pieces[:-1]
    return tuple(p for p in before if listed in p.lower() and text not in p.lower())


_WHOLE_QUERY_KINDS = ("condition", "negation", "recurring")


def _whole_query(words: str, calls: list[tuple[str, dict[str, Any]]]) -> Verdict:
    """A condition, a negation or a recurrence anywhere in the words (outside the free text
    of a call) rules over every side effect of the plan ("if it rains tomorrow, | close the
    blinds"): the policy's reason (``policy.unconsumed``), nothing run."""
    actions = [(t, a) for t, a in calls if t in policy.ACTION_TOOLS]
    if not actions:
        return ALLOW
    tokens = tokens_of(words)
    inside: set[int] = set()
    for tool, arguments in actions:
        inside |= policy.free_text_tokens(tool, arguments, tokens)
    for qualifier in find_qualifiers(words):
        if qualifier.kind not in _WHOLE_QUERY_KINDS:
            continue
        if set(range(qualifier.start, qualifier.end)) <= inside:
            continue
        tool, arguments = actions[0]
        reason = policy.unconsumed(tool, arguments, qualifier)
        if reason is not None:
            return Verdict(False, reason, " ".join(tokens[qualifier.start :]))
    return ALLOW


_FOR_EACH_TIMER = re.compile(
    r"\b(?:a|one|1)\s+timer\s+(?:for|on)\s+(?:each|both|every|all)\b|\btimers?\s+for\s+(?:each|both)\b"
    r"|\beach\s+(?:one\s+|of\s+them\s+)?(?:gets\s+|with\s+)?(?:a|its\s+own)\s+timer\b"
    r"|\bone\s+(?:timer\s+)?(?:for|per)\s+(?:each|every)\b"
    r"|\b(?:a|one|1)\s+timer\s+(?:per|apiece)\b|\btimers?\s+for\s+(?:all|every)\s+(?:of\s+them|\d+)\b"
    # "set timers for 4 and 9 minutes", "two timers, 5 and 10 minutes": a plural is a count
    r"|\b(?:set|start|make|need)\s+(?:(?:two|three|four|2|3|4)\s+)?timers\b"
    r"|\b(?:two|three|four|2|3|4)\s+timers\b"
)


# The verbs that say how a note is asked for: a note's text may open with them.
_NOTE_VERBS = frozenset({"add", "note", "write", "save", "keep", "remind", "put", "make"})


def _note_of_a_request(text: str, words: str) -> Verdict:
    """A note whose text is a request of its own ("order more dog food | and add dog
    treats to the shopping list", "add milk to the list | and get it delivered") only
    where its own clause, or the one just before it (no list's), asks for a note: else the request
    was read as a note, and what it asks (an order, a delivery) is done by nothing."""
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.clauses import split_clauses

    said = [w for w in text.lower().split() if w not in _LEAD]
    if not said or said[0] not in (policy.COMMAND_VERBS | {"buy", "pay", "ring"}) - _NOTE_VERBS:
        return ALLOW
    pieces = split_clauses(words)
    for k, piece in enumerate(pieces):
        if text.lower() in piece:
            before = pieces[k - 1] if k else ""  # "make a note | call the plumber"
            framed = it.asks_for_note(before) and not re.search(r"\blists?\b", before)
            if it.asks_for_note(piece) or framed:
                return ALLOW
            return Verdict(False, f"a request ({text!r}) read as a note", text)
    return ALLOW


def wants_timer_each(words: str) -> bool:
    """Whether the words ask for one timer per item ("a timer for each")."""
    return _FOR_EACH_TIMER.search(words) is not None


# A count of notes said ("two notes:", "3 notes"), or items asked for each ("each").
_NOTE_COUNT = re.compile(
    r"\b(?:\d+|two|three|four|five|several|some)\s+notes\b|\beach\b|\bnotes\s*:"
)


_ANOTHER_NOTE = re.compile(r"\b(?:another|second|one\s+more)\s+note\b")


def _notes_asked(words: str, planned: int, listed: bool) -> Verdict:
    """No more notes than the words ask for: each note needs words of its own that ask
    for one ("add a note ...", "another note ...", "remind me to ..."), unless the words
    list the notes or count them ("remember that. | the recipe wants 400 grams of flour,
    how much is that in kilograms" asks for one note, not two)."""
    from cloud_agent.planner import interpret as it
    from cloud_agent.planner.clauses import split_clauses

    if planned < 2 or listed or _NOTE_COUNT.search(words):
        return ALLOW
    asked = sum(
        1
        for piece in split_clauses(words)
        if it.asks_for_note(piece) or _ANOTHER_NOTE.search(piece)
    )
    if planned <= asked:
        return ALLOW
    return Verdict(False, f"{planned} notes planned where the words ask for {asked}", "notes")


def _schema(tool: str, arguments: dict[str, Any]) -> Verdict:
    """A call's arguments against its tool's JSON Schema (the catalogue's): a plan never
    runs a call its tool would refuse ("add_note" with an "at" and no text, a device's
    "set" with no level: ``check_arguments``, its business rules). A value an
    earlier call gives (``{prev}``) stands in as a number."""
    from jsonschema import Draft202012Validator

    from understanding.tools.catalogue import input_schemas

    schema = input_schemas().get(tool)
    if schema is None:
        return ALLOW
    numeric = {
        key
        for key, prop in schema.get("properties", {}).items()
        if prop.get("type") in ("integer", "number")
    }
    shown = {
        key: 1 if key in numeric and isinstance(value, str) and PREV in value else value
        for key, value in arguments.items()
    }
    error = next(iter(Draft202012Validator(schema).iter_errors(shown)), None)
    if error is not None:
        return Verdict(False, f"a {tool} call its tool does not take ({error.message})", tool)
    if tool == "device_control" and shown == arguments:
        from understanding.tools.devices import check_arguments

        problem = check_arguments(arguments)  # "set" with no level: refused when it ran
        if problem is not None:
            return Verdict(False, f"a device command its device refuses ({problem})", tool)
    return ALLOW


def check_plan(words: str, calls: list[tuple[str, dict[str, Any]]]) -> Verdict:
    """Every side-effect call grounded (:func:`check_call`), no condition, negation or
    recurrence left for the device to drop, and the counts as asked: one timer per listed
    duration for "a timer for each", no side effect repeated beyond its words."""
    words = plan_words(words)
    listed = listed_items(words)
    words = without_head(words, listed)
    for whole in (_whole_query(words, calls), _unserved(words, calls)):
        if not whole.ok:
            return whole
    dropped = unkept_clock_time(words, calls)  # asked only of calls with side effects
    if dropped is not None:
        return Verdict(False, "a time said that no call keeps", dropped)
    place = unkept_place(words, calls)
    if place is not None:
        return Verdict(False, "a place said that no device command keeps", place)
    for tool, arguments in calls:
        shaped = _schema(tool, arguments)
        if not shaped.ok:
            return shaped
    tools = Counter(tool for tool, _ in calls)
    for tool, arguments in calls:
        kept = tuple(
            str(a[key])
            for t, a in calls
            if t == tool and a is not arguments
            for key in policy.FREE_TEXT.get(tool, ())
            if isinstance(a.get(key), str)
        )
        verdict = check_call(tool, arguments, words, several=tools[tool] > 1, kept=kept)
        if not verdict.ok:
            return verdict
    free_notes = sum(1 for tool, a in calls if tool == "add_note" and not a.get("list"))
    asked = _notes_asked(words, free_notes, listed is not None)  # list items are no notes
    if not asked.ok:
        return asked
    each_tool = listed_tool(listed) if listed is not None else None
    if listed is not None and each_tool is not None and 0 < tools[each_tool] != len(listed.items):
        return Verdict(
            False,
            f"{tools[each_tool]} {each_tool} call(s) planned where "
            f"{len(listed.items)} items were listed",
            ", ".join(listed.items),
        )
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
    commands = Counter(
        repr(sorted(a.items()))
        for t, a in calls
        # "up, and up again" steps twice; "the back door and the front door" are two locks
        if t == "device_control" and a.get("room") and a.get("action") not in STEP_ACTIONS
    )
    if any(count > 1 for count in commands.values()):
        # "the dinning room and the hall" read as the hall twice: one room lost, none asked
        return Verdict(False, "the same device command planned twice", "the rooms named")
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
