"""Turn a compound query into a plan: the tool calls to make, in order, and how to answer.

    >>> plan = make_plan("Is Tokyo warmer than Seoul today?")
    >>> [(c.tool, c.args["city"]) for c in plan.calls], plan.compare
    ([('get_weather', 'tokyo'), ('get_weather', 'seoul')], 'warmer')

A plan is a pure function of the query, so a planner that picks up a session midway (after
a backend fallback, or a resume) rebuilds the same plan and continues where it stands.

The pipeline lives here (split into clauses, read them, let the edge's router place the
ones no cue word placed, carry what clauses lend each other, build the calls, decide how
to answer); what clauses lend each other is ``discourse``, each tool's arguments are
``arguments``, and the plan's shape is ``calls``.
"""

from __future__ import annotations

import re
from typing import Any

from cloud_agent.planner import (
    contrast,
    each,
    headings,
    here,
    listed_items,
    model_split,
    namesakes,
    partial,
    places,
    plan_check,
    qualifiers,
    said_times,
    shapes,
    stated,
    tidy,
    word_problems,
)
from cloud_agent.planner import interpret as it
from cloud_agent.planner.arguments import (
    NOTE_PREFIX,
    SCALES,
    TEMPERATURE_SCALE,
    as_long_as,
    as_written,
    convert_call,
    device_call,
    expression,
    own_arguments,
    shared_unit,
    status_call,
    temperature_args,
    whole_note,
    with_names,
    with_qualifiers,
)
from cloud_agent.planner.calls import PREV, Plan, PlannedCall
from cloud_agent.planner.clauses import (
    is_chatter,
    normalise,
    open_knowledge_cues,
    split_clauses,
)
from cloud_agent.planner.discourse import (
    NEEDS_CITY,
    carried_days,
    carry_tools,
    lend_after_reading,
    merge_fragments,
    reading_places,
)
from understanding.arguments.builtin_places import THERE
from understanding.arguments.forecast_days import unserved_weather_day
from understanding.corrections import read_correction
from understanding.gazetteer import find_cities

_ASKS_WEATHER = re.compile(
    r"\b(?:weather|forecast|rain\w*|snow\w*|sunny|storm\w*|wind\w*|temperature|umbrella|"
    r"hot|cold|warm|chilly|freezing)\b"
)


def make_plan(
    query: str,
    extractor: it.Extractor | None = None,
    router: Any = None,
    *,
    home: Any = None,
    split_with_model: bool = True,
) -> Plan:
    """Plan ``query`` (:func:`_plan`): with the model's split, unless the clause rules'
    plan reads more of the places and days the query names (the model may give a list's
    day to its last place only: "for each of paris, rome and vienna, tell me tomorrow's
    weather"), or the model's plan fails the plan check and the rules' passes it."""

    def replan(words: str) -> Plan:
        return make_plan(words, extractor, router, home=home, split_with_model=split_with_model)

    fixed = read_correction(query)
    if fixed is not None and fixed.text is None:
        said_again = "Could you say the request again as you mean it?"
        refusal = f"You corrected yourself ({fixed.said!r}) in a way I cannot place. {said_again}"
        return Plan(query, refusal=refusal, refusal_kind="needs_llm")
    if fixed is not None and fixed.text is not None:
        return replan(fixed.text)  # "the weather in sydney, no wait, melbourne"
    said = (
        headings.framed_plan(query, replan)  # "goodnight routine: tv off, lock the door"
        or word_problems.word_problem_plan(query)  # "154 lb in kg, and how much to lose to 65 kg"
        or listed_items.listed_plan(query, replan)  # "put milk, bread and eggs on the list"
        or contrast.contrasted_plan(query, replan)
        or each.distributed_plan(query, replan)
        or stated.stated_plan(query, replan)
        or shapes.arithmetic_plan(query)  # "how many km longer is 15 miles than 20 km"
    )
    if said is not None:
        return said
    plan = _plan(query, extractor, router, home=home, split_with_model=split_with_model)
    checked = plan.refusal_kind == PLAN_CHECK  # the model's reading failed the plan check
    if not split_with_model or (plan.refusal and not checked):
        return plan
    if not checked and not any(c.tool in NEEDS_CITY for c in plan.calls):
        return plan
    rules = _plan(query, extractor, router, home=home, split_with_model=False)
    if checked:  # "all lights off except the den | and the hall": the rules' cut, checked
        return rules if rules.calls else plan
    read = model_split.coverage
    if rules.refusal is None and read(query, rules.calls) > read(query, plan.calls):
        return rules
    return plan


def _plan(
    query: str,
    extractor: it.Extractor | None = None,
    router: Any = None,
    *,
    home: Any = None,
    split_with_model: bool = True,
) -> Plan:
    """Plan ``query``: clauses read, carried over, and turned into tool calls.

    ``router`` (the edge's ``Router``) reads the clauses that no cue word places: when its
    four gates keep a clause on the device (confident, one request, arguments filled),
    the planner takes its tool and arguments.

    A weather or clock request for a place outside the gazetteer declines the whole query,
    naming the place (``refusal_kind = "unknown_place"``, see ``places``), rather than drop
    it from the plan or answer only the places it knows; so does a forecast for a day the
    7-day forecast cannot serve (``"unserved_day"``: "next week", a date ten days ahead;
    "the weekend" is a span the forecast serves).
    """
    qualified = _qualified(query, home)
    text = normalise(qualified.text)
    plan = Plan(query=query)
    clauses, unknown, by_model = _read_clauses(
        qualified, text, extractor, router, home, split_with_model
    )
    refusal = _refusal(text, clauses, open_only=True)
    if refusal is None:
        declined = _unknown_place_or_day(qualified, clauses, unknown)
        if declined is not None:
            plan.refusal, plan.refusal_kind = declined
            return plan
    refusal = refusal or _refusal(text, clauses)
    if refusal and by_model and not _needs_llm(clauses):
        # Parts of the model's reading no tool places ("note: the suit, | the shoes"):
        # the clause rules read the query alone, and decline what they cannot read.
        return _plan(query, extractor, router, home=home, split_with_model=False)
    if refusal:
        left = [c for c in clauses if _unplaced(c, clauses, text)]
        return _compared_or_declined(plan, text, home, refusal, (clauses, left, by_model))
    unfilled = _build_calls(plan, clauses, text, extractor, home, by_model=by_model)
    if unfilled is not None and by_model:
        # The model's reading cannot be filled ("a timer for 4.5 minutes and another for
        # 12": one request, two times): the clause rules read the query alone.
        return _plan(query, extractor, router, home=home, split_with_model=False)
    if unfilled is not None:
        message = _unfilled_message(unfilled)
        return _compared_or_declined(plan, text, home, message, (clauses, [unfilled], by_model))
    plan.calls = tidy.timer_for_each(text, plan.calls)
    plan.calls = tidy.list_pointed_at(text, tidy.listed_together(text, plan.calls))
    if not plan.calls:
        plan.refusal, plan.refusal_kind = _OPEN_MESSAGE, NEEDS_LLM
        return plan
    return _finish(plan, text, qualified, home)


def _qualified(query: str, home: Any) -> qualifiers.Qualified:
    """The query with its places' qualifiers read."""
    # "Cairo, Egypt" is Cairo (the comma cuts no clause); "Paris, Texas" is read as "Paris",
    # its calls take the place's key ("paris, texas"); "Paris, Nevada" is a place of its own.
    qualified = qualifiers.read_qualifiers(query)
    if getattr(home, "home_city", None) in qualified.picked:
        # The home is a city of the name, so a call for it could not tell the two apart.
        qualified = qualifiers.read_qualifiers(query, pick=False)
    return qualified


def _read_clauses(
    qualified: qualifiers.Qualified,
    text: str,
    extractor: it.Extractor | None,
    router: Any,
    home: Any,
    split_with_model: bool,
) -> tuple[list[it.Clause], list[places.UnknownPlace], bool]:
    """The query's clauses, the places outside the gazetteer found while reading them, and
    whether the device's model split them (else the clause rules did)."""
    parse = model_split.parse_query(router, text) if split_with_model else None
    if parse is not None and parse.declined is not None:
        # The device's model sends out of its scope alike what needs open knowledge and
        # what is one request compared or advised on ("is tokyo warmer than seoul"):
        # the clause rules tell the two apart (and decline the first).
        parse = None
    clauses: list[it.Clause] = []
    unknown: list[places.UnknownPlace] = []
    if parse is not None:
        try:
            clauses, unknown = _model_clauses(parse, qualified.text, extractor, home)
        except model_split.Disagreement:
            # The parse and the rules read the query differently: the rules decide alone
            # (and decline what they cannot read), as for a query the model declines.
            parse = None
    by_model = parse is not None
    if parse is None:
        read = _without_chatter([it.read_clause(piece, extractor) for piece in split_clauses(text)])
        # Places are looked for before the cuts are repaired too: a repair may fold a
        # fragment into the clause before it ("weather in oslo | and rom tomorrow" keeps
        # only the day).
        unknown = places.unknown_places(qualified.text, read)
        clauses = merge_fragments(list(read), extractor)
        carry_tools(clauses)
        if router is not None:
            model_split.place_with_router(router, clauses)
    lend_after_reading(clauses)
    if router is not None:
        model_split.rooms_from_router(router, clauses)
    return clauses, unknown, by_model


def _unknown_place_or_day(
    qualified: qualifiers.Qualified,
    clauses: list[it.Clause],
    unknown: list[places.UnknownPlace],
) -> tuple[str, str] | None:
    """(refusal, kind) for a place outside the gazetteer or a day the forecast cannot
    serve; None when the query names neither."""
    unknown += [p for p in places.unknown_places(qualified.text, clauses) if p not in unknown]
    unknown = [qualified.place(p) for p in unknown]
    if unknown:
        others = any(c.cities or (c.tool is not None and c.tool not in NEEDS_CITY) for c in clauses)
        return places.unknown_place_message(unknown, others), places.UNKNOWN_PLACE
    # A clause asking for the weather, whichever tool it was read as ("paris forecast
    # on 2026-12-24" may look like arithmetic), names no day the forecast cannot serve.
    unserved = next(
        (
            d
            for c in clauses
            if (c.tool == it.WEATHER or _ASKS_WEATHER.search(c.text))
            and (d := unserved_weather_day(c.text))
        ),
        None,
    )
    if unserved is not None:
        # A day the 7-day forecast cannot serve is declined by name, never read as today.
        return (
            f"I don't have a forecast for {unserved}: only for today, tomorrow, each "
            'day of the next week by its name ("on Friday") and spans of those days '
            '("this week", "the weekend", "the next few days"). I won\'t guess.'
        ), UNSERVED_DAY
    return None


def _compared_or_declined(
    plan: Plan,
    text: str,
    home: Any,
    message: str,
    parts: tuple[list[it.Clause], list[it.Clause], bool] | None = None,
) -> Plan:
    """A query the rules cannot plan: the comparison it has the shape of, else the parts
    that only read answered when ``parts`` (the clauses, those that cannot be planned,
    whether the model split them) leaves some (``partial``), else declined with
    ``message`` for the language model."""
    shaped = shapes.comparison_shape(text, home)
    if shaped is not None:
        plan.calls, plan.compare = shaped, shapes.comparison_kind(text, shaped)
        return plan
    plan.refusal, plan.refusal_kind = message, NEEDS_LLM
    plan.calls = []
    if parts is not None and parts[1] and not _needs_llm(parts[0]):
        return _partly(plan, text, home, *parts)
    return plan


def _needs_llm(clauses: list[it.Clause]) -> bool:
    """A clause asks for open knowledge or writing: the whole query is the model's."""
    return any(open_knowledge_cues(c.text) or it.is_writing(c.text) for c in clauses)


def _unplaced(clause: it.Clause, clauses: list[it.Clause], text: str) -> bool:
    """A clause no tool places that is no statement the others refer to, nor an item."""
    return clause.tool is None and not _is_context(clause, clauses) and not _is_item(clause, text)


def _partly(
    declined: Plan,
    text: str,
    home: Any,
    clauses: list[it.Clause],
    left: list[it.Clause],
    by_model: bool,
) -> Plan:
    """The plan of the clauses that can be planned, when each of its calls only reads and
    it passes the check, naming the ``left`` ones it leaves out; else ``declined`` (with
    the parts named when the others would act)."""
    rest = [c for c in clauses if c not in left]
    plan = Plan(query=declined.query)
    for _ in range(len(clauses)):
        unfilled = _build_calls(plan, rest, text, None, home, by_model=by_model)
        if unfilled is None:
            break
        left, rest, plan.calls = [*left, unfilled], [c for c in rest if c is not unfilled], []
    named = [as_written(c.text, declined.query) for c in left]
    if not partial.reads_only(plan.calls):
        homeless = getattr(home, "home_city", None) is None and all(
            it.tool_cue(part) in (it.WEATHER, it.CLOCK)
            and not find_cities(part)
            and not THERE.search(part)
            for part in named
        )  # "... and what's the weather tomorrow" on a device with no home city
        declined.refusal = partial.declined_message(named, no_home=homeless)
        return declined
    if not plan.calls:
        return declined
    plan.unanswered = named
    finished = _finish(plan, text, _qualified(declined.query, home), home)
    return finished if finished.calls else declined


def _build_calls(
    plan: Plan,
    clauses: list[it.Clause],
    text: str,
    extractor: it.Extractor | None,
    home: Any,
    *,
    by_model: bool,
) -> it.Clause | None:
    """Each clause's calls into ``plan``, in order. Returns the first request (the
    model's, or one its clause's own words ask for) that the slots and readers cannot
    fill, as half a plan would drop it silently; else None ("a timer for each" is built
    afterwards)."""
    previous: it.Clause | None = None
    for clause in clauses:
        calls = _calls(clause, previous, clauses, text, extractor, home)
        if calls is None and clause.tool == it.TIMER and _is_item(clause, text):
            calls = []  # "a timer for each": the timers come from the durations listed
        if calls is None and (by_model or clause.own_tool is not None or clause.has_entity):
            return clause  # a place, room or device the carried tool cannot serve: named
        calls = with_names([with_qualifiers(c, clause.text) for c in calls or []], clause.text)
        if model_split.clock_alone(clause.text) and plan.calls and calls:
            calls = tidy.reminder_again(plan.calls[-1], calls)  # "... pills at 8 am | and 20:00"
        if previous is not None and tidy.said_again(clause, previous, calls, plan.calls):
            calls = []  # "it's too quiet, | i can barely hear the music": one volume up
        plan.calls.extend(calls)
        previous = clause
    return None


def _finish(plan: Plan, text: str, qualified: qualifiers.Qualified, home: Any) -> Plan:
    """The built calls given their places' keys, repeats dropped, checked (a plan that
    fails the check runs nothing: declined naming the part), free text restored as
    written, and how to compare the results."""
    if qualified.picked:
        plan.calls = qualified.keyed(plan.calls)
    plan.calls = with_names(each.for_each_item(text, plan.calls), text, several_only=True)
    plan.calls = tidy.without_repeats(plan.calls)
    plan.unanswered = each.still_left(plan.unanswered, plan.calls)
    if here.read_here(plan, text, getattr(home, "home_city", None)).refusal is not None:
        return plan  # "warmer here or in chicago" with no home city: half a comparison
    if namesakes.one_city_each(plan, home).refusal is not None:
        return plan  # "the weather in springfield and ...": which one
    verdict = plan_check.check_plan(text, [(c.tool, c.args) for c in plan.calls])
    if not verdict.ok:
        # Nothing of a plan that fails its check runs: declined naming the part.
        plan.refusal, plan.refusal_kind = plan_check.refusal_message(verdict), PLAN_CHECK
        plan.calls = []
        return plan
    if partial.reads_only(plan.calls) and plan.calls and partial.relayed(text):
        return partial.relay_declined(plan)  # "text my sister the weather in rome"
    if partial.reads_only(plan.calls) and plan.calls:
        # "convert 200 g to oz and book a table": the reads answered, the rest named.
        left = plan_check.unserved_parts(text, [(c.tool, c.args) for c in plan.calls])
        named = [as_written(p, plan.query) for p in left]
        plan.unanswered += [p for p in named if p not in plan.unanswered]
    plan.calls = [tidy.written(call, query=plan.query) for call in plan.calls]
    if qualified.others or qualified.picked_written:
        # "add a note: drive to Paris, Texas": the place in free text as written.
        plan.calls = [
            PlannedCall(
                c.tool,
                {
                    k: qualified.restore(v) if isinstance(v, str) and k != "city" else v
                    for k, v in c.args.items()
                },
            )
            for c in plan.calls
        ]
    plan.compare = shapes.comparison_kind(text, plan.calls)
    if plan.compare is not None:
        plan.calls = shapes.same_day(text, plan.calls)
    return plan


def _model_clauses(
    parse: model_split.Parse, text: str, extractor: it.Extractor | None, home: Any
) -> tuple[list[it.Clause], list[places.UnknownPlace]]:
    """The model's requests as clauses, and the places they name that no gazetteer knows.

    Raises ``model_split.Disagreement`` where the parse and the rules read the query
    differently (a request of another tool in words the model gave one tool, or the
    discourse lending a fragment another tool than the model gave it).
    """
    read = _without_chatter(model_split.model_clauses(parse, extractor, home))
    unknown = places.tagged_unknown(parse.requests, places.unknown_places(text, read))
    clauses = list(read)
    carry_tools(clauses)
    lent = next((c for c in clauses if c.tool and c.model_tool not in (None, c.tool)), None)
    if lent is not None:
        raise model_split.Disagreement(lent.text, str(lent.model_tool))
    return clauses, unknown


def _unfilled_message(clause: it.Clause) -> str:
    return (
        f"I can't tell what to do for {clause.text!r} with {clause.tool}: I won't guess, "
        "and half the plan would leave it out."
    )


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
PLAN_CHECK = plan_check.PLAN_CHECK
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
            if _is_item(clause, text):
                continue
            return _OPEN_MESSAGE
    return None


def _is_item(clause: it.Clause, text: str) -> bool:
    """One of the items a "for each" names ("rice and lentils, 18 and 25 minutes, a timer
    for each"): words the timers stand for, asking for nothing of their own."""
    return (
        plan_check.wants_timer_each(text)
        and len(said_times.listed_durations(text)) >= 2
        and not clause.has_entity
    )


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


def _calls(
    clause: it.Clause,
    previous: it.Clause | None,
    clauses: list[it.Clause],
    text: str,
    extractor: it.Extractor | None,
    home: Any = None,
) -> list[PlannedCall] | None:
    """The calls of one clause; [] when it asks for none of its own (a statement, a
    repeat of the reading before), None when it asks for a call that cannot be built."""
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
    if tool in NEEDS_CITY and shapes.compares_results(clause, clauses):
        return []  # "the time in Cairo and Nairobi, | which one is later": a question on results
    if tool in NEEDS_CITY:
        cities = reading_places(clause, previous, clauses, home)
        if not cities:
            return None
        clause.cities = cities
        if tool == it.CLOCK:
            return [PlannedCall(it.CLOCK, {"city": city}) for city in cities]
        days = carried_days(clause, clauses)
        if len(cities) > 1 and len(days) == len(cities):
            pairs = list(zip(cities, days, strict=True))
        else:
            pairs = [(city, day) for city in cities for day in days]
        calls = [PlannedCall(it.WEATHER, {"city": c, "day": d}) for c, d in pairs]
        scale = TEMPERATURE_SCALE.search(clause.text)
        if scale:
            # "the temperature in Tokyo in Fahrenheit": each reading converted from °C.
            target = SCALES[scale.group(1)]
            calls = [
                step
                for call in calls
                for step in (call, PlannedCall(it.CONVERT, temperature_args(target)))
            ]
        return calls
    if tool == it.STATUS:
        return status_call(clause, previous)
    if tool == it.LIST_TIMERS:
        return [PlannedCall(tool, {})]  # "what timers do i have running": a read
    searched = previous is not None and previous.tool == it.SEARCH_NOTES
    if tool == it.SEARCH_NOTES and searched and not set(clause.text.split()) - _BARE_SEARCH:
        return []  # "have i saved anything on the boiler? | check my notes": the same

    if clause.args and tool not in NEEDS_CITY:
        return [PlannedCall(tool, dict(clause.args))]  # placed by the edge's router
    if tool == it.DEVICE:
        return device_call(clause, previous, extractor) or None
    if tool == it.CONVERT:
        return convert_call(clause, text, extractor, previous) or None
    if tool == it.CALCULATOR:
        said = expression(clause, previous)
        return [PlannedCall(it.CALCULATOR, {"expression": said})] if said else None
    if (
        tool == it.ADD_NOTE
        and previous is not None
        and previous.tool is None
        and re.search(r"\b(?:save|note|add|keep|put)\s+(?:that|this|it)\b", clause.text)
    ):
        return [PlannedCall(tool, {"text": previous.text})]
    args = it.edge_arguments(tool, clause.text, extractor) or own_arguments(tool, clause.text)
    if tool == it.TIMER and not args and re.search(r"\b\d+\s+timers?\b", clause.text):
        return []  # "2 timers: | 6 minutes | and 12 minutes": a count, the durations follow
    if tool == it.TIMER and not args and clause.value is not None:
        args = shared_unit(clause, clauses, extractor)  # "timers for 10 | and 20 minutes"
    many = re.search(r"\bthat\s+many\s+(seconds|minutes|hours)\b", clause.text)
    if tool == it.TIMER and many and previous is not None:
        factor = {"seconds": 1, "minutes": 60, "hours": 3600}[many.group(1)]
        return [PlannedCall(tool, {"seconds": f"{PREV}*{factor}"})]
    unit = as_long_as(clause, previous) if tool == it.TIMER else None
    if unit:  # "what is 8 minutes in seconds, | and set a timer for that long"
        return [PlannedCall(tool, {"seconds": f"{PREV}*{unit}"})]
    if args and tool == it.ADD_NOTE and NOTE_PREFIX.match(str(args.get("text", ""))):
        args = own_arguments(tool, str(args["text"])) or args  # "remind me to buy milk"
    if args and tool == it.ADD_NOTE:
        args = whole_note(args, clause.text)
    return [PlannedCall(tool, args)] if args else None


# The words of a search of the notes that names nothing to look for ("check my notes").
_BARE_SEARCH = frozenset(("check", "look", "search", "in", "through", "at", "my", "the",
    "notes", "note", "please", "can", "you", "could", "and", "then", "also"))  # fmt: skip


__all__ = ["make_plan"]
