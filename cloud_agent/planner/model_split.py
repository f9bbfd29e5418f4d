"""A joint intent + slot model's parse of a compound query, as the planner's clauses.

With a joint model (``understanding.slu``) as the edge's router, the model decides the
structure of a query: which requests it holds (its intents), which words belong to each
and which slots each request has. The planner takes those requests as its clauses and
fills each call from the request's slots with the device's own slot filling
(``understanding.arguments.builtin_slots``), so the cloud and the device read a request the
same way. Rules only normalise what the model found:

- The model gives each *intent* its words, so two requests of the same tool ("turn off the
  tv and lock the door") arrive as one part. A part whose slots name one argument twice
  (two devices, two places, two times) is cut at the joiner ("and", "then", a comma)
  between them; what each piece lacks (the action of "turn off the tv, the speaker", the
  day of "weather in beijing and shanghai tomorrow") is carried over by
  ``cloud_agent.planner.discourse`` as on the rule path.
- A piece the slots cannot fill (a reference to an earlier result, "add 3 to that")
  keeps the model's tool and is built by the planner's own readers of such references.

The model declines (``Parse.declined``) when it reads the query as out of its scope,
as small talk only, or a request under the router's confidence bar; the planner then
says why it cannot plan (see ``cloud_agent.planner.plan``).

>>> cut_points(["lights", "off", "and", "tv", "off"], [(0, 1), (3, 4)])
[2]
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from cloud_agent.planner import interpret as it
from cloud_agent.planner.arguments import own_arguments
from cloud_agent.planner.clauses import is_chatter, open_knowledge_cues, split_clauses
from cloud_agent.planner.discourse import (
    BARE_DURATION,
    NEEDS_CITY,
    SET_PRONOUN,
    carry_tools,
    listed_place,
    merge_fragments,
)
from understanding.arguments.builtin_slots import SLOT_TYPES as BUILTIN_SLOT_TYPES

__all__ = [
    "Disagreement",
    "ModelRequest",
    "Parse",
    "clock_alone",
    "cut_points",
    "model_clauses",
    "parse_query",
    "place_with_router",
]

#: Words that join two requests (the model's own part texts are trimmed of them too).
JOINERS = frozenset({"and", "then", ",", ";", "also", "plus", "&", "after", "that", "."})
_CUT_WORDS = frozenset({"and", "then", ",", ";", "also", "plus", "&"})
SMALLTALK = "smalltalk"


#: The slot types of each tool the planner plans from the model's parse: the built-in
#: tools', and the reads (a device's state, the running timers), which are requests
#: of their own, never small talk ("is it raining in glasgow? | is the porch light on?").
SLOT_TYPES: dict[str, dict[str, list[str]]] = {
    **BUILTIN_SLOT_TYPES,
    it.STATUS: {"device": ["device_type"], "room": ["house_place"]},
    it.LIST_TIMERS: {},
}


@dataclass(frozen=True)
class ModelRequest:
    """One request the model found (or a piece of one, cut between repeated slots)."""

    tool: str
    text: str
    slots: tuple[Any, ...]  # understanding.slu.Slot, at the word indices of ``text``
    confidence: float
    first: bool = True  # the first piece of the model's part (the words naming the tool)
    start: int = 0  # first word index in the utterance, for ordering


@dataclass
class Parse:
    """The model's reading of a query: its requests in order, or why it has none."""

    requests: list[ModelRequest] = field(default_factory=list)
    declined: str | None = None
    words: tuple[str, ...] = ()


def joint_model(router: Any) -> Any:
    """The router's joint model, or None when it reads intents only (frozen heads)."""
    model = getattr(router, "model", None)
    if model is None or not callable(getattr(model, "predict_words", None)):
        return None
    if not hasattr(model, "tags"):
        return None
    return model


def parse_query(router: Any, text: str) -> Parse | None:
    """The joint model's parse of ``text`` (None: the router has no joint model)."""
    from understanding.slu.data import split_words

    model = joint_model(router)
    if model is None:
        return None
    words = split_words(text)
    if not words:
        return Parse(declined="empty query")
    prediction = model.predict_words(words)
    parse = Parse(words=tuple(prediction.words))
    if not prediction.in_scope:
        parse.declined = "out of the device model's scope"
        return parse
    threshold = float(getattr(router, "threshold", 0.5))
    action_threshold = float(getattr(router, "action_threshold", threshold))
    from understanding.tools import SIDE_EFFECT_TOOLS

    for part in prediction.parts:
        name = str(part.intent)
        bar = action_threshold if name in SIDE_EFFECT_TOOLS else threshold
        if float(part.confidence) < bar:
            parse.declined = f"low confidence {part.confidence:.2f} for {name}"
            return parse
        indices = _part_indices(list(prediction.words), str(part.text), part.slots)
        if name not in SLOT_TYPES:
            # Small talk (or an intent with no built-in tool): words the planner reads as
            # chatter, or declines.
            start = indices[0] if indices else 0
            parse.requests.append(
                ModelRequest(name, str(part.text), (), part.confidence, True, start)
            )
            continue
        parse.requests.extend(_pieces(name, part, indices, list(prediction.words)))
    parse.requests.sort(key=lambda r: r.start)
    if all(r.tool not in SLOT_TYPES for r in parse.requests):
        parse.declined = "no request a tool serves"
    return parse


def _part_indices(words: list[str], text: str, slots: Sequence[Any]) -> list[int]:
    """The utterance word indices of a part: where its words stand contiguously (the part
    that covers its slots), else [] (the part's words interleave with another's)."""
    tokens = text.split(" ")
    n = len(tokens)
    found = [i for i in range(len(words) - n + 1) if words[i : i + n] == tokens]
    starts = [int(s.start) for s in slots]
    for i in found:
        if all(i <= s < i + n for s in starts):
            return list(range(i, i + n))
    return []


def cut_points(words: Sequence[str], spans: Sequence[tuple[int, int]]) -> list[int]:
    """Where to cut a part whose argument slots repeat: at the first joiner word between
    two consecutive spans of one type (``spans`` sorted (start, end) word ranges); no cut
    where no joiner stands between them ("the kitchen bedroom lights")."""
    cuts: list[int] = []
    for (_, end), (start, _) in itertools.pairwise(spans):
        between = [
            i
            for i in range(end, start)
            if words[i].lower() in _CUT_WORDS and not _inside_duration(words, i)
        ]
        if between:
            cuts.append(between[0])
    return sorted(set(cuts))


_TIME_UNITS = frozenset(
    {"hour", "hours", "minute", "minutes", "min", "mins", "second", "seconds", "sec", "secs"}
)


def _inside_duration(words: Sequence[str], i: int) -> bool:
    """Whether the joiner at ``i`` joins the parts of one duration ("an hour | and a
    half", "2 hours and 30 minutes"): no cut there."""
    if i == 0 or i + 1 >= len(words) or words[i - 1].lower() not in _TIME_UNITS:
        return False
    after = [w.lower() for w in words[i + 1 : i + 3]]
    if after[0] in ("0.5", "half", "a") and (
        after[0] != "a" or after[1:] in (["half"], ["quarter"])
    ):
        return True
    return after[0].replace(".", "", 1).isdigit() and len(after) > 1 and after[1] in _TIME_UNITS


def _pieces(name: str, part: Any, indices: list[int], words: list[str]) -> list[ModelRequest]:
    """The part as one request, or cut in pieces between slots that repeat an argument."""
    from understanding.arguments.slots import _merged
    from understanding.slu.model import Slot

    slots = _merged(list(part.slots))
    confidence = float(part.confidence)
    if not indices:
        start = min((int(s.start) for s in slots), default=0)
        return [ModelRequest(name, str(part.text), tuple(slots), confidence, True, start)]
    kinds = {kind for types in SLOT_TYPES[name].values() for kind in types}
    cuts: set[int] = set()
    for kind in kinds:
        same = sorted((int(s.start), int(s.end)) for s in slots if s.type == kind)
        if len(same) > 1:
            cuts.update(cut_points(words, same))
    pieces: list[list[int]] = [[]]
    for i in indices:
        if i in cuts:
            pieces.append([])
            continue
        pieces[-1].append(i)
    out: list[ModelRequest] = []
    for k, piece in enumerate(p for p in pieces if p):
        while len(piece) > 1 and words[piece[0]].lower() in JOINERS:
            piece = piece[1:]
        while len(piece) > 1 and words[piece[-1]].lower() in JOINERS:
            piece = piece[:-1]
        first = piece[0]
        own = tuple(
            Slot(s.type, s.value, int(s.start) - first, int(s.end) - first)
            for s in slots
            if piece[0] <= int(s.start) and int(s.end) <= piece[-1] + 1
        )
        text = " ".join(words[i] for i in piece)
        out.append(ModelRequest(name, text, own, confidence, k == 0, first))
    return out


def model_clauses(parse: Parse, extractor: it.Extractor | None, home: Any) -> list[it.Clause]:
    """The model's requests as clauses: the model's tool, each call's arguments from the
    request's slots (the device's slot filling); the words read as on the rule path only
    for what the discourse carries (places, days, devices, references back)."""
    from understanding.arguments.builtin_slots import builtin_from_slots

    clauses = []
    _one_clause_one_tool(parse)
    for whole in one_note_each(parse):
        if whole.tool not in SLOT_TYPES:
            clause = it.read_clause(whole.text, extractor)
            clause.tool = clause.own_tool = None  # small talk: chatter, or declined
            clause.args = None
            clauses.append(clause)
            continue
        pieces = _rule_pieces(whole, extractor, after_another=bool(clauses))
        if pieces is None:
            raise Disagreement(whole.text, whole.tool)
        for request in pieces:
            clauses.append(_model_clause(request, extractor, home, builtin_from_slots))
    for prev, clause in itertools.pairwise(clauses):
        listed = listed_place(clause, prev)
        if listed is not None:
            clause.cities = [listed]
    return clauses


def _one_clause_one_tool(parse: Parse) -> None:
    """Raises ``Disagreement`` where the model cut one clause of the rules in two and gave
    the parts different tools while the rules read one request there ("did i note | down
    the code anywhere": a search, read as a search and a note)."""
    for piece in split_clauses(" ".join(parse.words)):
        inside = [r for r in parse.requests if r.text in piece]
        cue = it.tool_cue(piece)
        if len(inside) > 1 and cue is not None and len({r.tool for r in inside}) > 1:
            raise Disagreement(piece, cue)


def one_note_each(parse: Parse) -> list[ModelRequest]:
    """The model's requests, a note it cut in two at a comma or an "and" inside the note's
    own words ("add a note: call the bank, | ask about the rate") made one again: the
    clause rules read the note to the end of its sentence or the next request
    (``clauses.split_clauses``), and the note is those words, whole."""
    pieces = [p for p in split_clauses(" ".join(parse.words)) if it.asks_for_note(p)]
    out: list[ModelRequest] = []
    for request in parse.requests:
        before = out[-1] if out else None
        if before is not None and before.tool == request.tool == it.ADD_NOTE:
            end = request.start + len(request.text.split())
            joined = " ".join(parse.words[before.start : end])
            if any(joined in piece for piece in pieces):
                out[-1] = replace(before, text=joined)
                continue
        out.append(request)
    return out


class Disagreement(Exception):
    """The rules read a request of another tool in words the model gave to one tool."""

    def __init__(self, text: str, tool: str) -> None:
        super().__init__(text)
        self.text, self.tool = text, tool


def _rule_pieces(
    request: ModelRequest, extractor: it.Extractor | None, *, after_another: bool = False
) -> list[ModelRequest] | None:
    """The model's request, or its pieces where the clause rules read two requests of its
    tool in it ("turn off the lights and lock the door": one intent, two calls); None
    when the rules read a request of another tool there (the parse and the rules
    disagree: the planner declines rather than guess which is right)."""
    subs = merge_fragments(
        [it.read_clause(piece, extractor) for piece in split_clauses(request.text)], extractor
    )
    if not any(c.own_tool for c in subs) and not _slot_kinds(request) & _argument_kinds(request):
        # Neither a slot for the tool's arguments nor a word the rules read as a request
        # ("lock in my answer: b"): the model alone would be a guess.
        return None
    carry_tools(subs)  # what the discourse makes of them ("set it to 22": the device)
    cues = {
        c.tool
        for k, c in enumerate(subs)
        if c.tool is not None and not ((k or after_another) and _works_on_result(c))
    }
    if cues - {request.tool}:
        return None
    # A request of the tool's own words, or a fragment that names what the tool acts on
    # or points back ("turn off the tv, | the lights", "turn on the ac | and set it to 22").
    # "timer for 2.5 minutes | and another for 45 seconds": a part whose words alone fill
    # the tool's arguments after a part that filled them too is a request of its own
    # ("timer: | 12 minutes" is one: the tool's name, then its arguments).
    asks, filled_before = 0, False
    for c in subs:
        filled = own_arguments(request.tool, c.text) is not None
        asks += (
            c.own_tool == request.tool
            or c.has_entity
            or c.refers_back
            or (c.tool == request.tool and filled_before and (filled or _bare_duration(c)))
        )
        filled_before = filled
    from understanding.slu.data import split_words
    from understanding.slu.model import Slot

    if len(subs) > 1 and any(_serves_nothing(c) for c in _outside_a_note(subs, request)):
        # "set a timer and | give me directions to the airport": the model gave the whole
        # line one tool; the rules name the part no tool serves (and act on none of it).
        return None
    if not any((k or after_another) and _works_on_result(c) for k, c in enumerate(subs)) and (
        len(subs) < 2 or asks < 2
    ):
        return [request]
    pieces = []
    left = list(request.slots)
    for k, sub in enumerate(subs):
        if (k or after_another) and _works_on_result(sub) and sub.own_tool != request.tool:
            # "convert 10 miles to km | and double it": a step on the result before,
            # which the planner's reference reading builds.
            pieces.append(
                ModelRequest(
                    str(sub.own_tool), sub.text, (), request.confidence, True, request.start
                )
            )
            continue
        words = [w.lower() for w in split_words(sub.text)]
        own = []
        for slot in list(left):
            tokens = str(slot.value).lower().split()
            at = next(
                (
                    i
                    for i in range(len(words) - len(tokens) + 1)
                    if words[i : i + len(tokens)] == tokens
                ),
                None,
            )
            if at is not None:
                own.append(Slot(slot.type, str(slot.value), at, at + len(tokens)))
                left.remove(slot)
        pieces.append(
            ModelRequest(
                request.tool,
                sub.text,
                tuple(own),
                request.confidence,
                request.first and (k == 0 or sub.own_tool == request.tool),
                request.start,
            )
        )
    return pieces


_ON_RESULT = re.compile(
    r"^(?:and\s+|then\s+)*(?:times|multiply|multiplied|divide|divided|subtract|minus|plus|add|"
    r"double|triple|halve|half|square|cube|take\s+away|convert\s+(?:that|it|the\s+(?:result|answer)))\b"
)


def _outside_a_note(subs: list[it.Clause], request: ModelRequest) -> list[it.Clause]:
    """The clauses before a free note's words start: what follows may be the note's own
    ("two separate notes: renew the insurance, | email the landlord"); a list's item is
    whole where the list is named ("add eggs to the shopping list | and ...")."""
    if request.tool != it.ADD_NOTE or "list_name" in _slot_kinds(request):
        return subs
    texts = [str(s.value).lower() for s in request.slots if s.type == "note_text"]
    for k, clause in enumerate(subs):
        if clause.own_tool == it.ADD_NOTE or any(t in clause.text.lower() for t in texts):
            return subs[:k]
    return subs


def _serves_nothing(clause: it.Clause) -> bool:
    """A clause no tool serves and no other clause lends one: neither a cue of its own nor
    a fragment naming what a tool acts on, and no small talk ("give me a recipe for
    banana bread"); or one asking for open knowledge or writing, whatever it names."""
    if clause.own_tool is not None or is_chatter(clause.text):
        return False
    if open_knowledge_cues(clause.text):
        return True
    named = clause.has_entity or clause.refers_back or clause.value is not None
    return clause.tool is None and not named  # "| 4 and | 5 minutes": a list's numbers


def _bare_duration(clause: it.Clause) -> bool:
    """A timer's number whose unit the timer before gave ("| and 9 for the toast")."""
    return clause.tool == it.TIMER and BARE_DURATION.match(clause.text) is not None


def _works_on_result(clause: it.Clause) -> bool:
    """A calculation or conversion on the result before ("times 2", "double it",
    "convert that to km"): the planner's reference reading, not a request of its own."""
    if SET_PRONOUN.search(clause.text):
        return False  # "set them to 50 percent": the device before, set
    return clause.own_tool in (it.CALCULATOR, it.CONVERT) and bool(
        clause.refers_back or _ON_RESULT.match(clause.text)
    )


def _slot_kinds(request: ModelRequest) -> set[str]:
    return {str(s.type) for s in request.slots}


def _argument_kinds(request: ModelRequest) -> set[str]:
    return {k for kinds in SLOT_TYPES.get(request.tool, {}).values() for k in kinds}


def _model_clause(
    request: ModelRequest,
    extractor: it.Extractor | None,
    home: Any,
    builtin_from_slots: Any,
) -> it.Clause:
    """One request of the model's as a clause (see ``_model_clauses``)."""
    clause = it.read_clause(request.text, extractor)
    cue = clause.own_tool
    # The home city is the planner's to add once nothing was carried over.
    filled = builtin_from_slots(
        request.tool,
        request.slots,
        request.text,
        None if request.tool in NEEDS_CITY else home,
    )
    args = filled.arguments
    clause.model_tool = request.tool
    if cue == request.tool or args is not None:
        clause.tool = request.tool
        clause.own_tool = request.tool if request.first or cue == request.tool else None
    else:
        # Neither its slots nor its words make it a request of its own ("both the front
        # door | and the back door locked", "the lights, | and the heater"): a fragment the
        # discourse lends a tool, else declined.
        clause.tool = clause.own_tool = None
    clause.args = None
    if args is not None and request.tool in NEEDS_CITY:
        kinds = {s.type for s in request.slots}
        # The slot's place first; places and days the gazetteer and the day reader
        # find in the request's own words too ("in moscow or stockholm tomorrow": the
        # tagger may mark one of a list).
        if "place_name" in kinds:
            clause.cities = list(dict.fromkeys([str(args["city"]), *clause.cities]))
        if request.tool == it.WEATHER and kinds & {"date", "timeofday"}:
            clause.days = list(dict.fromkeys([str(args["day"]), *clause.days]))
    elif args is not None:
        clause.args = _whole_free_text(request, dict(args))
    return clause


def _whole_free_text(request: ModelRequest, args: dict[str, Any]) -> dict[str, Any]:
    """A note's text as the person said it, entire: the tagger may mark part of it ("add
    a note soak ohdydzxtqd" tagged "soak"; ``arguments.whole_note``)."""
    from cloud_agent.planner.arguments import whole_note
    from cloud_agent.planner.each import TWO_SEARCHES

    if request.tool == it.ADD_NOTE:
        return whole_note(args, request.text)
    if request.tool == it.SEARCH_NOTES and isinstance(args.get("query"), str):
        # "search my notes for the garage code and also for the alarm code": the tagger
        # marks the first thing looked for; the words name both (``each`` splits them).
        said = (own_arguments(it.SEARCH_NOTES, request.text) or {}).get("query")
        tagged = re.sub(r"^(?:the|my|our|a|an)\s+", "", args["query"].lower())
        if isinstance(said, str) and TWO_SEARCHES.match(said) and tagged in said:
            return {**args, "query": said}
    return args


def coverage(query: str, calls: Sequence[Any]) -> int:
    """How much of what the query names a plan's readings are for: each place named that
    some reading is for, and each weather reading for a day the query names (when it
    names one): the model may give a list's day to its last place only."""
    from cloud_agent.planner.clauses import normalise
    from understanding.gazetteer import find_cities

    text = normalise(query)
    named = {city for _, city in find_cities(text)}
    cities = {str(c.args.get("city")) for c in calls if c.tool in NEEDS_CITY}
    days = set(it.find_days(text))
    dated = sum(
        1 for c in calls if c.tool == it.WEATHER and str(c.args.get("day", "today")) in days
    )
    return len(named & cities) + dated


_CLOCK_ALONE = re.compile(
    r"(?:(?:and|also|then|plus)\s+)*(?:at\s+)?(?P<time>\d{1,2}(?::\d{2})?\s*(?:am|pm)?)"
)


def clock_alone(text: str) -> bool:
    """Whether a clause is a clock time and nothing else ("6:15", "and 7 am")."""
    return _CLOCK_ALONE.fullmatch(text) is not None


_TIMER_NAMED = re.compile(
    r"^(?:(?:and|also|then|plus)\s+)*(?:the|my)\s+[a-z ]{1,30}\s(?:timer|alarm|one)$"
)


def place_with_router(router: Any, clauses: list[it.Clause]) -> None:
    """Let the edge's model place the clauses that no cue word placed; a timer named
    after a cancelled one is cancelled too ("cancel the pizza timer | and the laundry one")."""
    for before, clause in zip([None, *clauses], clauses, strict=False):
        named = before is not None and before.tool == "cancel_timer"
        named = named and _TIMER_NAMED.match(clause.text) is not None
        # "set alarms at 6, | 6:15 | and 6:30": each clock time one more alarm
        kept = before.args or {} if before is not None else {}
        alarm = before is not None and before.tool == it.TIMER and "label" not in kept
        clock = _CLOCK_ALONE.fullmatch(clause.text)
        alarm = alarm and "at" in kept and clause.tool is None and clock is not None
        if (
            (clause.tool is not None and not named)
            or open_knowledge_cues(clause.text)
            or it.is_writing(clause.text)
        ):
            continue
        words = f"cancel {clause.text}" if named else clause.text
        words = f"set an alarm for {clock['time']}" if alarm and clock else words
        try:
            decision = router.decide(words)
        except Exception:  # the model is an aid here; a failure leaves the clause unplaced
            logging.getLogger(__name__).exception("the router failed on a clause; unplaced")
            continue
        if decision.route == "edge" and decision.tool:
            clause.tool = clause.own_tool = decision.tool
            clause.args = dict(decision.arguments or {})


def rooms_from_router(router: Any, clauses: list[it.Clause]) -> None:
    """A device clause whose room the planner's vocabulary does not know ("the workshop
    fan", "the plug in the reception") takes the room the edge's model reads in it: a
    command without it would act on the default room instead."""
    for clause in clauses:
        if clause.tool not in (it.DEVICE, it.STATUS) or clause.room or clause.device is None:
            continue
        try:
            decision = router.decide(clause.text)
        except Exception:  # the model is an aid here; a failure leaves the room unread
            logging.getLogger(__name__).exception("the router failed on a clause's room")
            continue
        said = dict(decision.arguments or {})
        same = decision.tool in (it.DEVICE, it.STATUS) and said.get("device") == clause.device
        room = said.get("room")
        if same and isinstance(room, str) and room and room != "all":
            clause.room = room
