"""Turn a compound query into a plan: the tool calls to make, in order, and how to answer.

    >>> plan = make_plan("Is Tokyo warmer than Seoul today?")
    >>> [(c.tool, c.args["city"]) for c in plan.calls], plan.compare
    ([('get_weather', 'tokyo'), ('get_weather', 'seoul')], 'warmer')

A plan is a pure function of the query, so a planner that picks up a session midway (after
a backend fallback, or a resume) rebuilds the same plan and continues where it stands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from cloud_agent.planner import interpret as it
from cloud_agent.planner import places
from cloud_agent.planner.clauses import (
    is_chatter,
    normalise,
    open_knowledge_cues,
    split_clauses,
)
from edge_agent.arguments.durations import parse_duration
from edge_agent.forecast import unserved_day

PREV = "{prev}"
_COMPARES = re.compile(r"\b(?:than|or|versus|compared)\b|\w+er\b")
_NEEDS_CITY = (it.WEATHER, it.CLOCK)


@dataclass
class PlannedCall:
    """One tool call of a plan; a calculator ``expression`` may use ``{prev}``, the value
    of the call just before it (a conversion feeding a calculation)."""

    tool: str
    args: dict[str, Any]


@dataclass
class Plan:
    """The calls to make, or why the planner declines, and how to compare the results."""

    query: str
    calls: list[PlannedCall] = field(default_factory=list)
    refusal: str | None = None
    compare: str | None = None
    refusal_kind: str | None = None  # "needs_llm" or "unknown_place" when declined


def make_plan(query: str, extractor: it.Extractor | None = None, router: Any = None) -> Plan:
    """Plan ``query``: clauses read, carried over, and turned into tool calls.

    ``router`` (the edge's ``Router``) reads the clauses that no cue word places: when its
    four gates keep a clause on the device (confident, one request, arguments filled),
    the planner takes its tool and arguments.

    A weather or clock request for a place outside the gazetteer declines the whole query,
    naming the place (``refusal_kind = "unknown_place"``, see ``places``), rather than drop
    it from the plan or answer only the places it knows; so does a forecast for a day the
    7-day forecast cannot serve (``"unserved_day"``: "next week", "the weekend").
    """
    # "Cairo, Egypt" is Cairo (the comma cuts no clause); "Paris, Texas" is a place of its own.
    qualified = places.read_qualifiers(query)
    text = normalise(qualified.text)
    read = _without_chatter([it.read_clause(piece, extractor) for piece in split_clauses(text)])
    # Places are looked for before the cuts are repaired too: a repair may fold a fragment
    # into the clause before it ("weather in oslo | and rom tomorrow" keeps only the day).
    unknown = places.unknown_places(qualified.text, read)
    clauses = _merge(list(read), extractor)
    plan = Plan(query=query)
    _carry_tools(clauses)
    if router is not None:
        _ask_router(router, clauses)
    refusal = _refusal(text, clauses, open_only=True)
    if refusal is None:
        unknown += [p for p in places.unknown_places(qualified.text, clauses) if p not in unknown]
        unknown = [qualified.place(p) for p in unknown]
        if unknown:
            others = any(
                c.cities or (c.tool is not None and c.tool not in _NEEDS_CITY) for c in clauses
            )
            plan.refusal = places.unknown_place_message(unknown, others)
            plan.refusal_kind = places.UNKNOWN_PLACE
            return plan
        unserved = next(
            (d for c in clauses if c.tool == it.WEATHER and (d := unserved_day(c.text))), None
        )
        if unserved is not None:
            # A day the 7-day forecast cannot serve is declined by name, never read as today.
            plan.refusal = (
                f"I don't have a forecast for {unserved}: only for today, tomorrow and each "
                'day of the next week by its name ("on Friday"). I won\'t guess.'
            )
            plan.refusal_kind = UNSERVED_DAY
            return plan
    refusal = refusal or _refusal(text, clauses)
    if refusal:
        plan.refusal, plan.refusal_kind = refusal, NEEDS_LLM
        return plan
    previous: it.Clause | None = None
    for clause in clauses:
        plan.calls.extend(_calls(clause, previous, clauses, text, extractor))
        previous = clause
    if not plan.calls:
        plan.refusal, plan.refusal_kind = _OPEN_MESSAGE, NEEDS_LLM
        return plan
    plan.calls = _without_repeats(plan.calls)
    if qualified.others:
        # "add a note: drive to Paris, Texas": the place in free text as written.
        plan.calls = [
            PlannedCall(
                c.tool,
                {k: qualified.restore(v) if isinstance(v, str) else v for k, v in c.args.items()},
            )
            for c in plan.calls
        ]
    plan.compare = _comparison(text, plan.calls)
    return plan


def _without_repeats(calls: list[PlannedCall]) -> list[PlannedCall]:
    """A reading asked for twice ("berlin and munich... i mean, berlin and rome") is made
    once; actions (devices, notes, timers) are kept as asked."""
    seen: set[str] = set()
    out = []
    for call in calls:
        key = f"{call.tool}:{sorted(call.args.items())}"
        if call.tool in _NEEDS_CITY and key in seen:
            continue
        seen.add(key)
        out.append(call)
    return out


def _without_chatter(clauses: list[it.Clause]) -> list[it.Clause]:
    """Greetings, thanks and remarks that ask for nothing set aside; when nothing else is
    left, the query keeps them (and is declined as small talk the tools cannot answer)."""
    kept = [c for c in clauses if c.cities or c.device or c.room or not is_chatter(c.text)]
    return kept if kept else clauses


_OPEN_MESSAGE = (
    "I can't answer that with the tools I have (weather, world clock, calculator, unit "
    "conversion, devices, timers and notes): it needs open knowledge or writing, which only "
    "an LLM backend can give. I won't guess."
)


NEEDS_LLM = "needs_llm"
UNSERVED_DAY = "unserved_day"


def _refusal(text: str, clauses: list[it.Clause], *, open_only: bool = False) -> str | None:
    """Why the planner declines (None: it does not); ``open_only`` looks only for open
    knowledge and writing, not for clauses no tool places."""
    if not clauses:
        return _OPEN_MESSAGE
    for clause in clauses:
        cues = open_knowledge_cues(clause.text)
        if it.is_writing(clause.text):
            return _OPEN_MESSAGE
        # Free text (a note's words, a search, a timer's label) may hold any word; a device
        # command may not: "translate 'turn off the lights' into French" is a translation.
        if cues and clause.tool not in (it.ADD_NOTE, it.SEARCH_NOTES, it.TIMER):
            return _OPEN_MESSAGE
        if not open_only and clause.tool is None and not _is_context(clause, clauses):
            return _OPEN_MESSAGE
    return None


def _is_context(clause: it.Clause, clauses: list[it.Clause]) -> bool:
    """A statement that later clauses refer back to ("the pool is 25 m long, | note that")."""
    index = clauses.index(clause)
    quantity = any(
        it.is_unit_word(m.group(0).lstrip("0123456789.,° "))
        for m in it.QUANTITY.finditer(clause.text)
    )
    return quantity and any(
        (c.tool is not None and c.refers_back) or c.tool == it.CONVERT for c in clauses[index + 1 :]
    )


_SET_PRONOUN = re.compile(r"\b(?:set|turn|dim|put|change)\s+(?:it|them|that|those)\b")


def _ask_router(router: Any, clauses: list[it.Clause]) -> None:
    """Let the edge's model place the clauses that no cue word placed."""
    for clause in clauses:
        if (
            clause.tool is not None
            or open_knowledge_cues(clause.text)
            or it.is_writing(clause.text)
        ):
            continue
        try:
            decision = router.decide(clause.text)
        except Exception:  # the model is an aid here; a failure leaves the clause unplaced
            continue
        if decision.route == "edge" and decision.tool:
            clause.tool = clause.own_tool = decision.tool
            clause.args = dict(decision.arguments or {})


_LEADING_VERB = re.compile(
    r"^(?:turn|switch|lock|unlock|open|close|shut|set|dim|brighten|kill|put|start|stop|power|"
    r"raise|lower|bump|crank|make)\b"
)


def _share_device_actions(clauses: list[it.Clause]) -> None:
    """One action for a list of devices, said before or after it: "turn off everything: |
    the tv, | the speaker" (the fragments take the action), "both the fan | and the ac off"
    (the bare device takes the action of the device after it)."""
    for i, clause in enumerate(clauses[:-1]):
        nxt = clauses[i + 1]
        if (
            clause.tool is None
            and clause.action
            and not clause.device
            and not clause.cities
            and nxt.tool is None
            and nxt.device
        ):
            clause.tool = it.DEVICE  # the action alone: its devices follow
    for i in range(len(clauses) - 2, -1, -1):
        clause, nxt = clauses[i], clauses[i + 1]
        if (
            clause.tool is None
            and clause.device
            and not clause.action
            and not clause.cities
            and nxt.tool == it.DEVICE
            and nxt.device
            and nxt.action
            and not _LEADING_VERB.match(nxt.text)  # "the ac off", not "lock up"
        ):
            clause.tool, clause.action = it.DEVICE, nxt.action


def _share_place_tools(clauses: list[it.Clause]) -> None:
    """Places named before the words that say what to ask of them: "check both the Paris |
    and the Rome weather" (the first place takes the tool, and day, of the clause after)."""
    for i in range(len(clauses) - 2, -1, -1):
        clause, nxt = clauses[i], clauses[i + 1]
        before = clauses[i - 1] if i > 0 else None
        if (
            clause.tool is None
            and clause.cities
            and not clause.device
            and nxt.tool in _NEEDS_CITY
            and nxt.cities
            and (before is None or before.tool is None)
        ):
            clause.tool = nxt.tool
            clause.days = clause.days or list(nxt.days)


def _carry_tools(clauses: list[it.Clause]) -> None:
    """A fragment with an entity but no tool of its own takes the tool before it."""
    _share_device_actions(clauses)
    _share_place_tools(clauses)
    previous: it.Clause | None = None
    for clause in clauses:
        if (
            previous is not None
            and previous.tool == it.DEVICE
            and (
                (
                    clause.tool in (None, it.DEVICE)
                    and (
                        clause.refers_back
                        or (
                            clause.device == "speaker"
                            and "volume" in clause.text
                            and previous.device in ("tv", "speaker")
                        )
                    )
                )
                or _SET_PRONOUN.search(clause.text)
            )
            and it.find_action(clause.text, previous.device)
        ):
            # "turn on the heater and | set it to 23", "turn on the tv and | the volume to 40"
            clause.tool, clause.device = it.DEVICE, previous.device
        if (
            clause.tool is None
            and previous is not None
            and previous.tool == it.TIMER
            and _own_arguments(it.TIMER, clause.text)
        ):
            clause.tool = it.TIMER  # "a timer for 10 minutes | and another 5 minutes"
        if clause.tool is None and previous is not None and previous.tool and clause.has_entity:
            clause.tool = previous.tool
            if clause.tool == it.DEVICE:
                clause.device = clause.device or previous.device
                clause.action = clause.action or previous.action
                if clause.room and previous.room is None and previous.own_tool == it.DEVICE:
                    # "turn on the heater | and the lights in the basement": one place for both
                    previous.room = clause.room
        previous = clause


def _merge(clauses: list[it.Clause], extractor: it.Extractor | None) -> list[it.Clause]:
    """Repair cuts that split one request: join fragments that carry nothing on their own."""
    changed = True
    while changed and len(clauses) > 1:
        changed = False
        for i, clause in enumerate(clauses):
            nxt = clauses[i + 1] if i + 1 < len(clauses) else None
            prev = clauses[i - 1] if i > 0 else None
            lacks_city = clause.tool in _NEEDS_CITY and not clause.cities and not clause.refers_back
            # "which city is colder tomorrow, | moscow or stockholm"
            if lacks_city and nxt is not None and nxt.tool is None and nxt.cities:
                clauses[i : i + 2] = [it.read_clause(f"{clause.text} {nxt.text}", extractor)]
                changed = True
                break
            if clause.tool is not None:
                continue
            # "in london, | will tomorrow be warmer than today"; "between paris | and london,
            # | which one is warmer": places listed first, then what to ask of them.
            run = _place_run(clauses, i)
            target = clauses[i + len(run)] if i + len(run) < len(clauses) else None
            if (
                run
                and target is not None
                and target.tool in _NEEDS_CITY
                and not target.cities
                and (prev is None or prev.tool is None)
            ):
                cities = [city for c in run for city in c.cities]
                merged = it.read_clause(f"{target.text} in {' and '.join(cities)}", extractor)
                merged.days = target.days or [d for c in run for d in c.days][:1]
                clauses[i : i + len(run) + 1] = [merged]
                changed = True
                break
            # "is stockholm colder than moscow, | today": a day that belongs to the clause.
            if (
                clause.days
                and not clause.cities
                and not clause.device
                and prev is not None
                and prev.tool in _NEEDS_CITY
                and not prev.days
                and not _ANOTHER_DAY.match(clause.text)
            ):
                prev.days = clause.days
                del clauses[i]
                changed = True
                break
            # "search my notes for recipes | as well as anything about pasta": a second search.
            if (
                prev is not None
                and prev.tool == it.SEARCH_NOTES
                and _ANOTHER_SEARCH.match(clause.text)
            ):
                clause.tool = clause.own_tool = it.SEARCH_NOTES
                changed = True
                break
            # "add a note to buy eggs | milk": a cut inside free text.
            if (
                not clause.has_entity
                and not open_knowledge_cues(clause.text)
                and prev is not None
                and prev.tool in (it.ADD_NOTE, it.SEARCH_NOTES)
            ):
                joined = it.read_clause(f"{prev.text} and {clause.text}", extractor)
                joined.tool = prev.tool
                clauses[i - 1 : i + 1] = [joined]
                changed = True
                break
    return clauses


# "... and what about tomorrow": the same request again for another day.
_ANOTHER_DAY = re.compile(r"^(?:and\s+)?(?:what|how)\s+about\b")

_ANOTHER_SEARCH = re.compile(
    r"^(?:for\s+)?(?:anything|something|stuff|everything|whatever|any\s+notes?|notes?)\s+"
    r"(?:about|on|regarding|mentioning|with|for)\s+\S"
)


def _place_run(clauses: list[it.Clause], start: int) -> list[it.Clause]:
    """The fragments from ``start`` on that name places and nothing else (no tool of their
    own, no device): a list of cities waiting for the clause that says what to ask."""
    run = []
    for clause in clauses[start:]:
        if clause.tool is not None or not clause.cities or clause.device:
            break
        run.append(clause)
    return run


def _carried_days(clause: it.Clause, clauses: list[it.Clause]) -> list[str]:
    """A clause without a day takes the day of the next clause of its tool, else the last."""
    if clause.days:
        return clause.days
    index = clauses.index(clause)
    # Only fragments that carry the tool over share a day ("weather in Beijing | and
    # Shanghai tomorrow"); a clause with words of its own starts afresh ("..., and what's
    # the temperature in Chicago" is today).
    following = clauses[index + 1 :]
    carried = []
    for c in following:
        if c.own_tool is not None or c.tool != clause.tool:
            break
        carried.append(c)
    # Only the fragments that name another place lend it their day ("weather in Beijing |
    # and Shanghai tomorrow"); "| and what about tomorrow" asks for the day on its own.
    later = [c for c in carried if c.days and c.cities and not _ANOTHER_DAY.match(c.text)]
    if later:
        return later[0].days[:1]
    if clause.own_tool is None:
        earlier = [c for c in clauses[:index] if c.tool == clause.tool and c.days]
        if earlier:
            return earlier[-1].days[-1:]
    return ["today"]


def _calls(
    clause: it.Clause,
    previous: it.Clause | None,
    clauses: list[it.Clause],
    text: str,
    extractor: it.Extractor | None,
) -> list[PlannedCall]:
    tool = clause.tool
    if tool is None:
        return []  # a statement the clauses after it refer back to
    if (
        tool == it.WEATHER
        and previous is not None
        and previous.tool == it.WEATHER
        and previous.cities
        and not clause.cities
        and not clause.days
        and clause.own_tool is not None
        and not re.search(r"\bthere\b|\bthan\b", clause.text)
    ):
        return []  # "weather in London tomorrow, | and should I bring an umbrella": same reading
    if tool in _NEEDS_CITY and _compares_results(clause, clauses):
        return []  # "the time in Cairo and Nairobi, | which one is later": a question on results
    if tool in _NEEDS_CITY:
        cities = clause.cities
        if not cities and not clause.refers_back:
            # "what's the time | and weather in Tokyo": the places come after.
            index = clauses.index(clause)
            following = clauses[index + 1] if index + 1 < len(clauses) else None
            if following is not None and following.tool in _NEEDS_CITY and following.cities:
                cities = following.cities
                clause.days = clause.days or following.days
        if not cities and _ALL_OF_THEM.search(clause.text):
            # "weather in Istanbul and Cairo and the time in both": every place named so far.
            index = clauses.index(clause)
            cities = list(dict.fromkeys(city for c in clauses[:index] for city in c.cities))
        there = re.search(r"\bthere\b", clause.text) is not None
        if not cities and previous is not None and (clause.refers_back or there):
            cities = previous.cities
        elif cities and there and previous is not None and _COMPARES.search(clause.text):
            # "what's the time in Rome and | is it warmer there than in Madrid"
            cities = [c for c in previous.cities if c not in cities] + cities
        if not cities and previous is not None and previous.tool in _NEEDS_CITY:
            cities = previous.cities  # "weather in melbourne today | and tomorrow"
        clause.cities = cities
        if tool == it.CLOCK:
            return [PlannedCall(it.CLOCK, {"city": city}) for city in cities]
        days = _carried_days(clause, clauses)
        if len(cities) > 1 and len(days) == len(cities):
            pairs = list(zip(cities, days, strict=True))
        else:
            pairs = [(city, day) for city in cities for day in days]
        calls = [PlannedCall(it.WEATHER, {"city": c, "day": d}) for c, d in pairs]
        scale = _TEMPERATURE_SCALE.search(clause.text)
        if scale:
            # "the temperature in Tokyo in Fahrenheit": each reading converted from °C.
            target = _SCALES[scale.group(1)]
            calls = [
                step
                for call in calls
                for step in (call, PlannedCall(it.CONVERT, _temperature_args(target)))
            ]
        return calls
    if clause.args and tool not in _NEEDS_CITY:
        return [PlannedCall(tool, dict(clause.args))]  # placed by the edge's router
    if tool == it.DEVICE:
        return _device_call(clause, previous, extractor)
    if tool == it.CONVERT:
        return _convert_call(clause, text, extractor, previous)
    if tool == it.CALCULATOR:
        return [PlannedCall(it.CALCULATOR, {"expression": _expression(clause, previous)})]
    if (
        tool == it.ADD_NOTE
        and previous is not None
        and previous.tool is None
        and re.search(r"\b(?:save|note|add|keep|put)\s+(?:that|this|it)\b", clause.text)
    ):
        return [PlannedCall(tool, {"text": previous.text})]
    args = it.edge_arguments(tool, clause.text, extractor) or _own_arguments(tool, clause.text)
    if tool == it.TIMER and not args and re.search(r"\b\d+\s+timers?\b", clause.text):
        return []  # "2 timers: | 6 minutes | and 12 minutes": a count, the durations follow
    if tool == it.TIMER and not args and clause.value is not None:
        args = _shared_unit(clause, clauses, extractor)  # "timers for 10 | and 20 minutes"
    many = re.search(r"\bthat\s+many\s+(seconds|minutes|hours)\b", clause.text)
    if tool == it.TIMER and many and previous is not None:
        factor = {"seconds": 1, "minutes": 60, "hours": 3600}[many.group(1)]
        return [PlannedCall(tool, {"seconds": f"{PREV}*{factor}"})]
    if args and tool == it.ADD_NOTE and _NOTE_PREFIX.match(str(args.get("text", ""))):
        args = _own_arguments(tool, str(args["text"])) or args  # "remind me to buy milk"
    return [PlannedCall(tool, args)] if args else []


_ONLY_COMPARES = re.compile(
    r"^(?:so\s+|and\s+)?(?:which|what|where|who)(?:\s+(?:one|1|city|place|of\s+them|of\s+the\s+2))?"
    r"\s+(?:is|has|'s|will\s+be)\s+(?:it\s+)?(?:the\s+)?(?:\w+er|\w+est|more\s+\w+|ahead|behind)"
    r"(?:\s+(?:now|there|of\s+them|of\s+the\s+2))?$"
)


_ALL_OF_THEM = re.compile(
    r"\b(?:in|for|at)\s+(?:both|each|all)\b|\b(?:both|all|each)\s+(?:of\s+(?:them|those)|places|cities)\b"
)


def _compares_results(clause: it.Clause, clauses: list[it.Clause]) -> bool:
    """Whether a clause only asks which of the results already planned wins ("which one is
    later"), naming no place or day of its own after two or more places of its tool."""
    if clause.cities or clause.days or not _ONLY_COMPARES.match(clause.text):
        return False
    index = clauses.index(clause)
    named = {city for c in clauses[:index] if c.tool == clause.tool for city in c.cities}
    return len(named) >= 2


def _shared_unit(
    clause: it.Clause, clauses: list[it.Clause], extractor: it.Extractor | None
) -> dict[str, Any] | None:
    """A bare number that takes its unit from the next timer fragment."""
    index = clauses.index(clause)
    for later in clauses[index + 1 :]:
        if later.tool != it.TIMER:
            break
        unit = re.search(r"\b(hours?|minutes?|seconds?)\b", later.text)
        if unit:
            probe = f"set a timer for {clause.value:g} {unit.group(1)}"
            return it.edge_arguments(it.TIMER, probe, extractor) or _own_arguments(it.TIMER, probe)
    return None


def _device_call(
    clause: it.Clause, previous: it.Clause | None, extractor: it.Extractor | None
) -> list[PlannedCall]:
    args = it.edge_arguments(it.DEVICE, clause.text, extractor) or {}
    device = clause.device or args.get("device")
    if device is None and previous is not None and previous.tool == it.DEVICE:
        device = previous.device  # "turn on the heater and | set it to 23"
    if device is None and re.search(r"\bvolume\b", clause.text) and previous is not None:
        device = previous.device
    action = clause.action or args.get("action")
    if action is None and previous is not None and previous.tool == it.DEVICE:
        action = previous.action
    if device is None or action is None:
        return []
    clause.device, clause.action = device, action
    out: dict[str, Any] = {"device": device, "action": action}
    room = clause.room or args.get("room")
    if room is None and clause.refers_back and previous is not None and previous.device == device:
        room = previous.room  # "turn on the lights in the living room and set them to 50"
    if room is None and re.search(r"\bthere\b", clause.text) and previous is not None:
        room = previous.room  # "turn off the heater in the nursery and the fan on there"
    if room:
        out["room"] = room
    if action == "set":
        value = args.get("value", clause.value)
        if value is None and re.search(r"\bto\s+(?:that|it|the\s+result)\b", clause.text):
            value = PREV  # "convert 72 f to c and set the ac to that"
        if value is not None:
            out["value"] = value
    return [PlannedCall(it.DEVICE, out)]


_QUANTITY = re.compile(r"(-?\d+(?:\.\d+)?)\s*(°?\s*[a-z]+(?:/[a-z]+)?)")


_TEMPERATURE_SCALE = re.compile(r"\bin\s+(?:degrees\s+)?(fahrenheit|kelvin)\b")
_SCALES = {"fahrenheit": "f", "kelvin": "k", "celsius": "c"}


def _temperature_args(target: str) -> dict[str, Any]:
    return {"value": PREV, "from_unit": "c", "to_unit": target}


def _convert_call(
    clause: it.Clause,
    text: str,
    extractor: it.Extractor | None,
    previous: it.Clause | None = None,
) -> list[PlannedCall]:
    args = it.edge_arguments(it.CONVERT, clause.text, extractor)
    if args and args.get("value") is not None:
        return [PlannedCall(it.CONVERT, args)]
    if clause.refers_back and previous is not None and previous.tool in (it.CALCULATOR, it.CONVERT):
        # "20% of 80 and convert the answer from kg to lb": the value is the last result.
        units = _units_of(clause.text, extractor)
        if units is not None:
            return [PlannedCall(it.CONVERT, {"value": PREV, **units})]
    scale = re.search(r"\b(?:in|to|into)\s+(?:degrees\s+)?(fahrenheit|kelvin)\b", clause.text)
    if scale and previous is not None and previous.tool == it.WEATHER:
        # "weather in Paris | and convert the temperature to Fahrenheit"
        return [PlannedCall(it.CONVERT, _temperature_args(_SCALES[scale.group(1)]))]
    # "note that the fence is 12 feet | and tell me that in meters": the quantity is earlier.
    before = text[: text.find(clause.text)] if clause.text in text else text
    target = re.search(r"\b(?:in|to|into)\s+([a-z°]+)", clause.text)
    for match in reversed(list(_QUANTITY.finditer(before))):
        if target is None:
            break
        probe = f"convert {match.group(1)} {match.group(2)} to {target.group(1)}"
        args = it.edge_arguments(it.CONVERT, probe, extractor)
        if args and args.get("value") is not None:
            return [PlannedCall(it.CONVERT, args)]
    return []


def _units_of(clause_text: str, extractor: it.Extractor | None) -> dict[str, Any] | None:
    """The canonical units of a conversion of an earlier result ("from kg to lb")."""
    pair = re.search(r"\bfrom\s+([a-z°]+)\s+(?:to|into|in)\s+([a-z°]+)", clause_text)
    if pair is None:
        return None
    probe = f"convert 1 {pair.group(1)} to {pair.group(2)}"
    args = it.edge_arguments(it.CONVERT, probe, extractor)
    if not args or not args.get("from_unit") or not args.get("to_unit"):
        return None
    return {"from_unit": args["from_unit"], "to_unit": args["to_unit"]}


_OPS: tuple[tuple[str, str], ...] = (
    (r"\b(?:times|multipl\w*(?:\s+by)?)\s*(?:it\s+|that\s+|them\s+)?(?:by\s+)?(-?[\d.]+)", "*"),
    (r"\bdivide\w*\s*(?:it\s+|that\s+|them\s+)?by\s+(-?[\d.]+)", "/"),
    (r"\b(?:add|plus)\s+(-?[\d.]+)", "+"),
    (r"\b(?:subtract|minus|take\s+away)\s+(-?[\d.]+)", "-"),
    (r"\b(?:to\s+the\s+power\s+of|power\s+of)\s+(-?[\d.]+)", "^"),
)


def _expression(clause: it.Clause, previous: it.Clause | None) -> str:
    """The calculator expression; ``{prev}`` when the clause works on an earlier result."""
    body = clause.text
    uses_prev = previous is not None and clause.refers_back
    if uses_prev:
        for pattern, op in _OPS:
            match = re.search(pattern, body)
            if match:
                return f"{PREV} {op} {match.group(1)}"
        if re.search(r"\bdouble\b", body):
            return f"{PREV} * 2"
        if re.search(r"\bhalf\b", body):
            return f"{PREV} / 2"
        if re.search(r"\bsquared\b", body):
            return f"{PREV} ^ 2"
    expr = body
    for words, symbol in (
        (r"\bdivided\s+by\b|\bover\b", "/"),
        (r"\bmultiplied\s+by\b|\btimes\b|\bx\b", "*"),
        (r"\bplus\b", "+"),
        (r"\bminus\b", "-"),
        (r"\bpercent\b", "%"),
        (r"\bsquared\b", "^2"),
        (r"\bsquare\s+root\s+of\b", "sqrt"),
    ):
        expr = re.sub(words, f" {symbol} ", expr)
    expr = re.sub(r"[^0-9.+\-*/^%()sqrtof ]", " ", expr)
    tokens = re.findall(r"sqrt|of|\d+(?:\.\d+)?|[-+*/^%()]", expr)
    while tokens and tokens[0] in ("of", "+", "*", "/", "^", "%"):
        tokens.pop(0)
    return " ".join(tokens) or "0"


_NOTE_PREFIX = re.compile(
    r"^.*?\b(?:add\s+(?=.+\bto\s+(?:my\s+)?notes\b)|add(?:\s+a)?\s+note(?:\s+(?:to|that|saying|says|:))?|add\s+one\s+saying|"
    r"make\s+a\s+note(?:\s+(?:to|that))?|note\s+(?:that|down|to)|note:|jot(?:\s+down)?|"
    r"write\s+down|remind\s+me\s+to|remember\s+(?:that|to)|save\s+a\s+note(?:\s+to)?|"
    r"new\s+note(?:\s+to)?|(?:a|another)\s+note\s*(?:saying|that\s+says|reading|to|that|:))\s*"
)
_SEARCH_PREFIX = re.compile(
    r"^.*?\bwhat\s+did\s+i\s+(?:note|write|save)\s+(?:about|on|regarding)\s+|"
    r"^.*?\bdo\s+i\s+have\s+(?:any\s+)?notes?\s+(?:about|on|for)\s+|"
    r"^.*?\b(?:search|look|find)\s+(?:for\s+)?(?=.+\s+in\s+my\s+notes)|\s+in\s+my\s+notes.*$|"
    r"^.*?\bnotes?\s+(?:for|about|on|regarding|mentioning)\s+|^.*?\bnote\s+about\s+"
)


def _own_arguments(tool: str, text: str) -> dict[str, Any] | None:
    if tool == it.ADD_NOTE:
        note = _NOTE_PREFIX.sub("", text).strip(" :,.")
        note = re.sub(r"\s+to\s+(?:my\s+)?notes$", "", note).strip(" '\"")
        note = re.sub(r"^(?:to|that|saying)\s+", "", note)
        return {"text": note} if note else None
    if tool == it.SEARCH_NOTES:
        query = _SEARCH_PREFIX.sub("", text).strip(" :,.")
        query = re.sub(r"^(?:the|my)\s+", "", query)
        return {"query": query} if query else None
    if tool == it.TIMER:
        seconds = parse_duration(text)
        return {"seconds": seconds} if seconds else None
    return None


def _comparison(text: str, calls: list[PlannedCall]) -> str | None:
    weather = sum(1 for c in calls if c.tool == it.WEATHER)
    clock = sum(1 for c in calls if c.tool == it.CLOCK)
    if weather >= 2:
        for pattern, kind in (
            (r"\b(?:warmer|hotter|warmest|hottest)\b", "warmer"),
            (r"\b(?:colder|cooler|chillier|coldest|coolest)\b", "colder"),
            (r"\bsunn\w*\b", "sunny"),
            (r"\brain\w*\b", "rainy"),
            (r"\bsnow\w*\b", "snowy"),
            (r"\b(?:compare|or|difference|which|where)\b", "summary"),
        ):
            if re.search(pattern, text):
                return kind
    if clock >= 2:
        for pattern, kind in (
            (r"\b(?:later|ahead)\b", "later"),
            (r"\b(?:earlier|behind)\b", "earlier"),
            (r"\bdifference\b", "difference"),
        ):
            if re.search(pattern, text):
                return kind
    return None
