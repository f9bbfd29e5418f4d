"""Plan shapes: a comparison over N places (or one place over two days) with one reading
tool, whatever the sentence around it ("A vs B, whose clock is further along", "is A
behind B, by how much", "will tomorrow be any cooler than today here").

The clause rules read a query clause by clause; a comparison is one request spread over
the whole sentence, so when they decline it, this module reads its shape instead: the
places (the gazetteer's), the days, and the one reading the comparison is about (weather
or the clock). The calls are N readings; the answer compares them
(:mod:`cloud_agent.planner.answer`).

    >>> [c.args["city"] for c in comparison_calls("tokyo vs osaka, whose clock is further along")]
    ['tokyo', 'osaka']
"""

from __future__ import annotations

import re
from typing import Any

from cloud_agent.planner import interpret as it
from cloud_agent.planner import rates
from cloud_agent.planner.calls import PREV, Plan, PlannedCall
from cloud_agent.planner.clauses import normalise, open_knowledge_cues, split_clauses
from understanding.gazetteer import find_cities

__all__ = [
    "arithmetic_plan",
    "compares_results",
    "comparison_calls",
    "comparison_kind",
    "comparison_shape",
    "conversion_arithmetic_calls",
    "conversion_comparison_calls",
    "left_over_calls",
    "per_period_calls",
    "per_person_calls",
    "same_day",
    "share_of_sum_calls",
]

# How many of each period a year holds: "1450 a month, what is that for a year" is
# 1450 * 12 / 1; a sum stated with no period ("my bonus is 6000") is a year's.
_PER_YEAR = {"year": 1, "month": 12, "week": 52, "day": 365, "hour": 8760}
_PERIOD = r"(?:year|month|week|day|hour)"
_PERIOD_WORDS = {
    "annual": "year",
    "yearly": "year",
    "monthly": "month",
    "weekly": "week",
    "daily": "day",
    "hourly": "hour",
    "annually": "year",
}
_STATED = re.compile(
    r"^(?P<head>.*?\b(?:is|was|are|of|earn|make|pay|get|costs?)\s+(?:about\s+|around\s+)?"
    r"[$€£]?\s*(?P<value>\d+(?:\.\d+)?))(?P<per>\s*(?:a|an|per|each|every)\s+"
    + _PERIOD
    + r"|\s+(?:annual|yearly|monthly|weekly|daily|hourly)\b)?"
)
_ASKED = re.compile(
    r"\b(?:that|it|this)\s+(?:is\s+)?(?:per|a|an|each|every|for\s+(?:a|an|the|one))\s+(?P<to>"
    + _PERIOD
    + r")\b|\b(?:that|it|this)\s+(?P<word>annually|yearly|monthly|weekly|daily|hourly)\b"
)

_COMPARES = re.compile(
    r"\b(?:than|or|versus|vs|compared?|between|out\s+of|among|of\s+the\s+(?:2|two|3|three)|"
    r"which|whose|where|by\s+how\s+much|how\s+(?:much|far|many\s+(?:hours|degrees))|"
    r"difference|apart|any\s+\w+er)\b"
)
_CLOCK = re.compile(
    r"\b(?:clocks?|ahead|behind|later|latest|earlier|earliest|further\s+along|time\s+zones?|"
    r"hours?\s+(?:apart|ahead|behind|difference)|time\s+difference|what\s+time)\b"
)
_WEATHER = re.compile(
    r"\b(?:warm|warmer|warmest|hot|hotter|hottest|cold|colder|coldest|cool|cooler|coolest|"
    r"sun\w*|rain\w*|snow\w*|wind(?:y|ier|iest)|storm\w*|cloud\w*|fog\w*|"
    r"wett?(?:er|est)|dr(?:ier|iest)|chill(?:y|ier|iest)|mild(?:er|est)?|weather|"
    r"temperatures?|forecast|degrees)\b"
)
_HERE = re.compile(r"\b(?:here|at\s+home|where\s+i\s+(?:am|live))\b")


def comparison_calls(text: str, home: Any = None) -> list[PlannedCall] | None:
    """The readings a comparison of ``text`` (normalised) needs, or None when the text is
    no comparison of one reading: no comparing word, both or neither reading named, a
    request of another tool beside it, fewer than two things to compare."""
    if not _COMPARES.search(text):
        return None
    clock, weather = bool(_CLOCK.search(text)), bool(_WEATHER.search(text))
    if clock == weather:
        return None
    tool = it.CLOCK if clock else it.WEATHER
    for piece in split_clauses(text):
        cue = it.tool_cue(piece)
        if cue not in (None, it.CLOCK, it.WEATHER):
            return None  # another request beside the comparison: the clause rules' job
    cities = list(dict.fromkeys(city for _, city in find_cities(text)))
    home_city = getattr(home, "home_city", None)
    if not cities and home_city and _HERE.search(text):
        cities = [home_city]
    if tool == it.CLOCK:
        return [PlannedCall(tool, {"city": c}) for c in cities] if len(cities) >= 2 else None
    days = it.find_days(text) or ["today"]
    if len(cities) >= 2 and len(days) == 1:
        return [PlannedCall(tool, {"city": c, "day": days[0]}) for c in cities]
    if len(cities) == 1 and len(days) >= 2:
        return [PlannedCall(tool, {"city": cities[0], "day": d}) for d in days]
    return None


_GREATER = re.compile(
    r"\b(?:which|what'?s|whats|or|more|less|bigger|smaller|longer|shorter|heavier|lighter|"
    r"faster|quicker|slower|hotter|colder|warmer|further|farther)\b"
)


def conversion_comparison_calls(text: str) -> list[PlannedCall] | None:
    """The conversions a comparison of quantities needs ("in centimetres, which is longer:
    40 inches or 3.5 feet?", "which is heavier, 12 lb or 180 oz"), or None: each quantity
    into the unit the words ask for, or into the last quantity's unit when they ask for
    none; a quantity already in that unit needs no call."""
    from understanding.arguments.numbers import find_numbers, tokenize
    from understanding.arguments.units import find_units
    from understanding.tools.units import DIMENSION

    if not _GREATER.search(text) or " or " not in f" {text} ":
        return None
    tokens = tokenize(text)
    units = find_units(tokens)
    numbers = find_numbers(tokens)
    quantities = [(n.value, u[2]) for n in numbers for u in units if u[0] == n.end]
    if len(quantities) < 2 or len({DIMENSION[u] for _, u in quantities}) != 1:
        return None
    attached = {n.end for n in numbers}
    asked = {u[2] for u in units if u[0] not in attached}
    if len(asked) > 1 or any(DIMENSION[u] != DIMENSION[quantities[0][1]] for u in asked):
        return None
    to_unit = asked.pop() if asked else quantities[-1][1]
    calls = [
        PlannedCall(it.CONVERT, {"value": _whole(v), "from_unit": u, "to_unit": to_unit})
        for v, u in quantities
        if u != to_unit
    ]
    return calls or None


# The arithmetic asked of two quantities: their difference, or their sum.
_DIFFERENCE = re.compile(
    r"\b(?:longer|shorter|further|farther|more|less|fewer|heavier|lighter|bigger|smaller|"
    r"taller|over|under|difference|between)\b"
)
_SUM_OF = re.compile(r"\b(?:altogether|all\s+together|in\s+total|total|combined|in\s+all)\b")


def conversion_arithmetic_calls(text: str) -> list[PlannedCall] | None:
    """Two quantities of one kind in two units, and their difference or their sum asked
    ("how many km longer is a 15 mile route than a 20 km one", "2 lb of flour and 500 g
    of sugar, how many grams is that altogether"): the one not in the asked unit (else
    the other's) converted, then the arithmetic on the result. None unless the words say
    exactly that, and nothing else is asked."""
    from understanding.arguments.numbers import find_numbers, tokenize
    from understanding.arguments.units import find_units
    from understanding.tools.units import DIMENSION

    difference, total = bool(_DIFFERENCE.search(text)), bool(_SUM_OF.search(text))
    if difference == total or " or " in f" {text} ":
        return None  # "which is longer, a or b" is the comparison's (no arithmetic)
    if any(
        it.tool_cue(piece) not in (None, it.CALCULATOR, it.CONVERT) for piece in split_clauses(text)
    ):
        return None
    tokens = tokenize(text)
    units, numbers = find_units(tokens), find_numbers(tokens)
    quantities = [(n.value, u[2]) for n in numbers for u in units if u[0] == n.end]
    if len(quantities) != 2 or len({DIMENSION.get(u) for _, u in quantities}) != 1:
        return None
    attached = {n.end for n in numbers}
    asked = {u[2] for u in units if u[0] not in attached}
    if len(asked) > 1 or any(DIMENSION.get(u) != DIMENSION.get(quantities[0][1]) for u in asked):
        return None
    to_unit = asked.pop() if asked else quantities[-1][1]
    away = [(v, u) for v, u in quantities if u != to_unit]
    if len(away) != 1:
        return None  # both in the asked unit (plain arithmetic), or both to convert
    (value, unit), other = away[0], next(v for v, u in quantities if u == to_unit)
    result = f"abs({PREV} - {_whole(other)})" if difference else f"{PREV} + {_whole(other)}"
    return [
        PlannedCall(it.CONVERT, {"value": _whole(value), "from_unit": unit, "to_unit": to_unit}),
        PlannedCall(it.CALCULATOR, {"expression": result}),
    ]


def arithmetic_plan(query: str) -> Plan | None:
    """The plan of a difference or a sum of two quantities in two units
    (:func:`conversion_arithmetic_calls`), before the clause rules cut the query: they
    would read the conversion and drop the arithmetic."""
    calls = conversion_arithmetic_calls(normalise(query))
    return Plan(query, calls=calls) if calls else None


def _whole(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def same_day(text: str, calls: list[PlannedCall]) -> list[PlannedCall]:
    """A weather comparison across places is of one day: when the words name exactly one
    ("of moscow and stockholm, which will be colder tomorrow"), every reading takes it."""
    days = it.find_days(text)
    if not _COMPARES.search(text):
        return calls  # readings asked one after another, not compared
    weather = [c for c in calls if c.tool == it.WEATHER]
    if len(days) != 1 or len(weather) < 2 or len(weather) != len(calls):
        return calls
    if len({c.args.get("city") for c in weather}) != len(weather):
        return calls
    return [PlannedCall(c.tool, {**c.args, "day": days[0]}) for c in calls]


def per_period_calls(text: str) -> list[PlannedCall] | None:
    """A number stated, then asked for per another period ("my bonus is 6000, what's that
    per month"; "the rent is 1450 a month, what is that for a year"): one calculation."""
    pieces = split_clauses(text)
    if len(pieces) != 2:
        return None
    stated, asked = _STATED.match(pieces[0]), _ASKED.search(pieces[1])
    if stated is None or asked is None or it.tool_cue(pieces[0]) not in (None, it.CALCULATOR):
        return None
    source = "year"
    if stated.group("per"):
        word = stated.group("per").split()[-1]
        source = _PERIOD_WORDS.get(word, word)
    target = asked.group("to") or _PERIOD_WORDS[asked.group("word")]
    if source == target or "hour" in (source, target):
        return None  # hours worked a week are not the words' to say
    value = stated.group("value")
    expression = f"{value} * {_PER_YEAR[source]} / {_PER_YEAR[target]}"
    return [PlannedCall(it.CALCULATOR, {"expression": expression})]


def per_person_calls(text: str) -> list[PlannedCall] | None:
    """A sum stated, shared among a number of people said, then asked for each one's part
    ("the bill is 96 and there are 4 of us, what does each person pay"; "dinner was 120
    for 3 people, how much per person"): one division. None unless the words say all
    three: one sum, one count of people, a question of each one's share."""
    if any(it.tool_cue(piece) not in (None, it.CALCULATOR) for piece in split_clauses(text)):
        return None  # "..., and set a timer for 5 minutes": another request, not the share
    sums = _SUM.findall(text)
    people = _PEOPLE.findall(text)
    if len(sums) != 1 or len(people) != 1 or not _EACH_SHARE.search(text):
        return None
    count = next(n for n in people[0] if n)
    if float(count) < 2:
        return None
    return [PlannedCall(it.CALCULATOR, {"expression": f"{sums[0]} / {count}"})]


# The sum: a number after "is/was/costs/came to" ("the bill is 96", "dinner was 120").
_SUM = re.compile(
    r"\b(?:is|was|costs?|cost\s+us|came\s+to|comes\s+to|totals?|totalled|splitting|"
    r"sharing)\s+(?:about\s+)?"
    r"[$€£]?\s*(\d+(?:\.\d+)?)\b(?!\s*(?:people|persons|of\s+us|ways))"
)
# The people: "there are 4 of us", "for 3 people", "between 5 of us", "split 4 ways".
_PEOPLE = re.compile(
    r"\b(\d+)\s+(?:of\s+us|people|persons|friends|guests|ways)\b"
    r"|\b(?:we\s+are|we're)\s+(\d+)\b"
)
_EACH_SHARE = re.compile(
    r"\b(?:each(?:\s+(?:person|one|1|of\s+us))?\s+(?:pay|owe|put\s+in|chip\s+in|gets?|share)|"
    r"per\s+(?:person|head)|a\s+head|apiece|each\s+one's\s+share|how\s+much\s+each|"
    r"everyone's\s+share|what\s+do\s+we\s+each|split\s+(?:it|that|this)\s+(?:in\s+|into\s+)?\d+\s+ways)\b"
)


def left_over_calls(text: str) -> list[PlannedCall] | None:
    """A sum stated, an amount spent of it, then what is left ("my budget is 500, i spent
    320 already, how much is left"): one subtraction. None unless the words say one sum,
    one amount spent or used, and ask what is left."""
    if any(it.tool_cue(piece) not in (None, it.CALCULATOR) for piece in split_clauses(text)):
        return None
    sums = [one or other for one, other in _HAD.findall(text)]
    spent = _SPENT.findall(text)
    if len(sums) != 1 or len(spent) != 1 or not _LEFT.search(text):
        return None
    return [PlannedCall(it.CALCULATOR, {"expression": f"{sums[0]} - {spent[0]}"})]


def share_of_sum_calls(text: str) -> list[PlannedCall] | None:
    """A sum stated, then a percentage of it asked ("the bill is 86.50 and i want to tip 18%
    so how much is the tip"; "it costs 240, what's 15 percent off"): the part, or what is
    left after the part comes off. None unless one sum and one percentage are said."""
    if any(it.tool_cue(piece) not in (None, it.CALCULATOR) for piece in split_clauses(text)):
        return None
    sums, shares = _SUM.findall(text), _PERCENT.findall(text)
    if len(sums) != 1 or len(shares) != 1 or not re.search(r"\b(?:how\s+much|what)\b", text):
        return None
    if _PERCENT_OF.search(text) or re.search(rf"\b(?:what|how\s+much)\s+is\s+{sums[0]}\b", text):
        return None  # "what is 30% of 150": the percentage and its sum in one question
    if re.search(r"\b(?:off|discount(?:ed)?|after\s+the\s+discount)\b", text):
        return [PlannedCall(it.CALCULATOR, {"expression": f"{sums[0]} * (1 - {shares[0]} / 100)"})]
    return [PlannedCall(it.CALCULATOR, {"expression": f"{sums[0]} * {shares[0]} / 100"})]


# The sum a budget or a balance holds; the amount spent of it; the question of what is left.
_HAD = re.compile(
    r"\b(?:budget|balance|allowance|savings)\s+(?:is|was|of)\s+[$€£]?\s*(\d+(?:\.\d+)?)\b"
    r"|\b(?:i|we)\s+(?:have|had|got)\s+[$€£]?\s*(\d+(?:\.\d+)?)\b(?!\s*(?:kids|people|of))"
)
_SPENT = re.compile(
    r"\b(?:spent|used|paid|gave\s+away|lost)\s+(?:about\s+)?[$€£]?\s*(\d+(?:\.\d+)?)\b"
)
_LEFT = re.compile(r"\b(?:left|remaining|remains|to\s+spare|still\s+have)\b")
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent|per\s+cent)")
_PERCENT_OF = re.compile(r"\d\s*(?:%|percent|per\s+cent)\s+of\s+[$€£]?\s*\d")


_ONLY_COMPARES = re.compile(
    r"^(?:so\s+|and\s+)?(?:which|what|where|who)(?:\s+(?:one|1|city|place|of\s+them|of\s+the\s+2))?"
    r"\s+(?:is|has|'s|will\s+be)\s+(?:it\s+)?(?:the\s+)?(?:\w+er|\w+est|more\s+\w+|ahead|behind)"
    r"(?:\s+(?:now|there|of\s+them|of\s+the\s+2))?$"
)


def compares_results(clause: it.Clause, clauses: list[it.Clause]) -> bool:
    """Whether a clause only asks which of the results already planned wins ("which one is
    later"), naming no place or day of its own after two or more places of its tool."""
    if clause.cities or clause.days or not _ONLY_COMPARES.match(clause.text):
        return False
    index = clauses.index(clause)
    named = {city for c in clauses[:index] if c.tool == clause.tool for city in c.cities}
    return len(named) >= 2


def comparison_kind(text: str, calls: list[PlannedCall]) -> str | None:
    """What a plan of N readings compares ("warmer", "later", "difference"...), or None."""
    weather = sum(1 for c in calls if c.tool == it.WEATHER)
    clock = sum(1 for c in calls if c.tool == it.CLOCK)
    if weather >= 2:
        for pattern, kind in (
            (r"\bhow\s+(?:much|many\s+degrees)\b|\bdifference\b|\bby\s+how\s+much\b", "difference"),
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
            (r"\bhow\s+(?:far|many\s+hours|much)\b|\bby\s+how\s+much\b", "difference"),
            (r"\b(?:later|latest|ahead|further\s+along|furthest)\b", "later"),
            (r"\b(?:earlier|earliest|behind)\b", "earlier"),
            (r"\bdifference\b", "difference"),
        ):
            if re.search(pattern, text):
                return kind
    return None


# Open-knowledge cues a comparison of readings may hold ("whose clock is further along").
_COMPARISON_CUES = re.compile(r"^(?:whose|how\s+far)$")


def comparison_shape(text: str, home: Any) -> list[PlannedCall] | None:
    """The readings of a comparison the clause rules declined (``shapes``), unless the
    words ask for open knowledge too ("is oslo colder than rome in january")."""
    if any(not _COMPARISON_CUES.match(cue) for cue in open_knowledge_cues(text)):
        return None
    if it.is_writing(text):
        return None
    calls = comparison_calls(text, home)
    if calls and comparison_kind(text, calls):
        return calls
    return (
        per_period_calls(text)
        or per_person_calls(text)
        or left_over_calls(text)
        or share_of_sum_calls(text)
        or conversion_comparison_calls(text)
        or rates.rate_calls(text)
        or rates.amount_over_rate_calls(text)
    )
