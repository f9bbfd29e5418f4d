"""Word problems: a conversion, then one calculation on its result with a number the words state.

"I weigh 154 lb, what's that in kg? My goal is 65 kg, so how much do I still have to lose"
is a conversion and then ``abs({prev} - 65)``; "convert 3 gallons to liters, how many half
liter bottles can I fill" is ``{prev} / 0.5``; "60 mph in kph, and how far would I get in
2.5 hours at that" is ``{prev} * 2.5``. The clause rules read the conversion and lose the
arithmetic (or read the stated number as a calculation of its own), so this reading comes
first, and it reads the operation from the quantities' kinds before the words:

- the other number in the converted unit: a difference ("still to lose", "gained"), or
  a count of containers when "how many" sizes it ("how many half liter bottles");
- a duration beside a speed: the distance covered; a distance beside a speed, with a time
  asked: the time it takes;
- a rate per the converted unit ("4.50 per lb", "9 minutes a mile"): the product;
- an amount with a price asked per the converted unit ("24 dollars, the price per kilo"):
  the amount over the result;
- a percentage: that share of the result (taken off, or added, when the words say so);
- a plain count: the one operation its verb names (off, plus, split over, lengths, times).

Anything else (two other numbers, a second conversion, another tool's request, two
operations named) is no word problem: None, and the clause rules plan the query.

>>> [c.args for c in word_problem_calls("convert 350 f to c, then knock 20 degrees off that")]
[{'value': 350, 'from_unit': 'f', 'to_unit': 'c'}, {'expression': '{prev} - 20'}]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import PREV, Plan, PlannedCall
from cloud_agent.planner.clauses import normalise, split_clauses
from understanding.arguments.numbers import FRACTIONS, find_numbers, tokenize
from understanding.arguments.units import AMBIGUOUS, NAMES, find_units
from understanding.tools.units import DIMENSION, convert

__all__ = ["word_problem_calls", "word_problem_plan"]


Units = list[tuple[int, int, str]]
"""Unit mentions as ``find_units`` gives them: (start, end, code)."""


@dataclass(frozen=True)
class Quantity:
    """A number said in the query, with the unit said right after it (None: a count or a sum
    of money), at token positions [start, end)."""

    value: float
    unit: str | None
    start: int
    end: int


# Where a unit said alone is the unit asked for ("in kg", "how many lb", "into liters").
_TARGET_BEFORE = frozenset(("to", "into", "in", "many", "much", "as"))
# Words between a number and "per"/"a" that leave it a rate ("4.50 dollars per lb").
_MONEY = frozenset(("dollars", "dollar", "euros", "euro", "bucks", "quid", "$", "€", "£"))
_RATE_WORDS = frozenset(("per", "a", "an", "each", "every", "/"))
_PERCENT = frozenset(("%", "percent", "per cent"))
_SPEED_LENGTH = {"kph": "km", "mph": "mi"}

_DIFFERENCE = re.compile(
    r"\b(?:lose|left|to\s+go|gain\w*|grew|grown|put\s+on|difference|still|short|remain\w*|"
    r"need\s+to|more\s+than|less\s+than|how\s+(?:much|many)\s+(?:more|less|further|fewer))\b"
)
_TIME_ASKED = re.compile(r"\bhow\s+long\b|\bhow\s+many\s+(?:minutes|mins|hours|hrs)\b|\btake\b")
_PRICE_ASKED = re.compile(r"\b(?:price|cost|costs|pay|paid|spend|spent)\b")
# A plain count's operation, by the verb that names it.
_COUNT_OPERATIONS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:off|minus|subtract\w*|take\s+away|less|lower|cooler|reduce\w*)\b"), "-"),
    (re.compile(r"\b(?:plus|add|extra|on\s+top)\b"), "+"),
    (re.compile(r"\b(?:split\w*|share\w*|divide\w*|between|among|across|each)\b"), "/"),
    (re.compile(r"\b(?:times|multipl\w*|lengths?|laps?|loops?|rounds?|trips?|of\s+them)\b"), "*"),
)


def word_problem_plan(query: str) -> Plan | None:
    """The plan of a conversion and a calculation on its result (:func:`word_problem_calls`),
    before the clause rules cut the query."""
    calls = word_problem_calls(normalise(query))
    return Plan(query, calls=calls) if calls else None


def word_problem_calls(text: str) -> list[PlannedCall] | None:
    """The conversion and the calculation on its result, or None when the words are no
    such problem (see the module's docstring)."""
    pieces = split_clauses(text)
    if len(pieces) < 2 or any(
        it.tool_cue(p) not in (None, it.CALCULATOR, it.CONVERT) for p in pieces
    ):
        return None
    tokens = tokenize(text)
    units = find_units(tokens)  # read once: every step below asks where units are said
    quantities = _quantities(tokens, units)
    found = _conversion(tokens, units, quantities)
    if found is None:
        return None
    source, target, at = found
    others = [q for q in quantities if q.start != source.start]
    if len(others) != 1:
        return None
    calculation = _operation(tokens, units, others[0], target, at)
    if calculation is None:
        return None
    value = int(source.value) if source.value.is_integer() else source.value
    return [
        PlannedCall(it.CONVERT, {"value": value, "from_unit": source.unit, "to_unit": target}),
        PlannedCall(it.CALCULATOR, {"expression": calculation}),
    ]


def _quantities(tokens: list[str], said: Units) -> list[Quantity]:
    """Every number said, with its unit ("6.1 in," is inches where the clause ends), a
    fraction said before a unit ("half liter" is 0.5 l) and "a" unit (one)."""
    units = {start: (end, code) for start, end, code in said}
    found = []
    for number in find_numbers(tokens):
        unit, end = None, number.end
        if number.end in units:
            end, unit = units[number.end][0], units[number.end][1]
        elif (
            number.end < len(tokens)
            and tokens[number.end] == "in"
            and _ends(tokens, number.end + 1)
        ):
            end, unit = number.end + 1, "in"
        found.append(Quantity(number.value, unit, number.start, end))
    for start, (end, code) in units.items():
        if start == 0 or any(q.end == start for q in found):
            continue
        before = tokens[start - 1]
        if before in FRACTIONS:
            found.append(Quantity(FRACTIONS[before], code, start - 1, end))  # "half liter"
        elif before in ("a", "an") and not (start > 1 and tokens[start - 2] in FRACTIONS):
            found.append(Quantity(1.0, code, start - 1, end))  # "how many ml is a gallon"
    return sorted(found, key=lambda q: q.start)


def _ends(tokens: list[str], i: int) -> bool:
    return i >= len(tokens) or tokens[i] in (",", ";", ".", "?", "and", "then")


def _conversion(
    tokens: list[str], units: Units, quantities: list[Quantity]
) -> tuple[Quantity, str, int] | None:
    """The quantity converted, the unit it is asked in, and where that unit is said: the
    first unit said alone in a target's place ("in kg") after a quantity of its kind."""
    attached = {i for q in quantities for i in range(q.start, q.end)}
    for start, _end, code in _units_asked(tokens, units):
        if start in attached or start == 0 or tokens[start - 1] not in _TARGET_BEFORE:
            continue
        # The quantity said before the unit asked ("154 lb, what's that in kg"), else the
        # one after "how many <unit> is" ("how many ml is 2 gallons").
        first = tokens[start - 1] in ("many", "much")
        for quantity in quantities:
            unit = quantity.unit
            if unit == "k" and DIMENSION.get(code) == "length":
                unit = "km"  # "a 5k is how many miles": a race's length
            placed = quantity.start < start or (
                first and quantity.start == _next_number(quantities, start)
            )
            if placed and unit and unit != code and _kind(unit) == _kind(code):
                return Quantity(quantity.value, unit, quantity.start, quantity.end), code, start
        return None
    return None


def _units_asked(tokens: list[str], units: Units) -> Units:
    """The units said, and a one-letter unit in a target's place that the unit reader
    leaves to its context ("convert 400 f to c and ..." : Celsius)."""
    found = list(units)
    starts = {start for start, _end, _code in found}
    for i, token in enumerate(tokens[1:], start=1):
        if (
            i not in starts
            and token in AMBIGUOUS
            and token in NAMES
            and tokens[i - 1] in ("to", "into")
        ):
            found.append((i, i + 1, NAMES[token]))
    return sorted(found)


def _next_number(quantities: list[Quantity], after: int) -> int:
    return next((q.start for q in quantities if q.start > after), -1)


def _kind(unit: str | None) -> str | None:
    return DIMENSION.get(unit) if unit else None


def _operation(
    tokens: list[str], units: Units, other: Quantity, target: str, at: int
) -> str | None:
    """The calculation on the converted result (``{prev}``) with the other quantity."""
    after = " ".join(tokens[at + 1 :])
    n = _number(other.value)
    if other.end < len(tokens) and tokens[other.end] in _PERCENT:
        counted = _count_operation(after)
        if counted == "-":
            return f"{PREV} * (100 - {n}) / 100"
        if counted == "+":
            return f"{PREV} * (100 + {n}) / 100"
        return f"{PREV} * {n} / 100"
    if other.unit == target:
        if tokens[max(0, other.start - 2) : other.start] == ["how", "many"]:
            return f"{PREV} / {n}"  # "how many half liter bottles"
        return f"abs({PREV} - {n})" if _DIFFERENCE.search(after) else None
    if other.unit is not None and _kind(other.unit) == _kind(target):
        return None  # a second quantity to convert, not a number to calculate with
    if _kind(target) == "speed":
        return _with_speed(other, target, after)
    if _is_rate_per(tokens, units, other, target):
        return f"{PREV} * {n}"  # "shipping is 4.50 per lb", "9 minutes a mile"
    if other.unit is not None:
        return None
    if _compared_in_target(tokens, units, other, target):
        return f"abs({PREV} - {n})"  # "how many cm over 170 is that"
    if _priced_per(tokens, units, target, at) and _PRICE_ASKED.search(after):
        return f"{n} / {PREV}"  # "24 dollars ... the price per kilo"
    counted = _count_operation(after)
    return f"{PREV} {counted} {n}" if counted else None


def _with_speed(other: Quantity, target: str, after: str) -> str | None:
    """A speed and a duration: the distance; a speed and a distance, a time asked: the time."""
    if _kind(other.unit) == "time" and other.unit:
        return f"{PREV} * {_number(convert(other.value, other.unit, 'h'))}"
    length = _SPEED_LENGTH[target]
    if _kind(other.unit) == "length" and other.unit and _TIME_ASKED.search(after):
        hours = f"{_number(convert(other.value, other.unit, length))} / {PREV}"
        minutes = re.search(r"\bhow\s+many\s+(?:minutes|mins)\b", after)
        return f"{hours} * 60" if minutes else hours
    return None


def _is_rate_per(tokens: list[str], units: Units, other: Quantity, target: str) -> bool:
    """Whether the other number is said per one of the converted unit ("4.50 per lb")."""
    i = other.end + (other.end < len(tokens) and tokens[other.end] in _MONEY)
    if i + 1 >= len(tokens) or tokens[i] not in _RATE_WORDS:
        return False
    return any(start == i + 1 and code == target for start, _end, code in units)


def _compared_in_target(tokens: list[str], units: Units, other: Quantity, target: str) -> bool:
    """Whether a bare number is compared with the result in the unit asked ("how many cm
    over 170", "how many kg under 80"): the number is in that unit."""
    before = tokens[max(0, other.start - 4) : other.start]
    if not before or before[-1] not in ("over", "above", "under", "below", "than"):
        return False
    asked = {code for start, _end, code in units if start < other.start}
    return "many" in before and target in asked


def _priced_per(tokens: list[str], units: Units, target: str, at: int) -> bool:
    """Whether the words ask a price per one of the converted unit ("the price per kilo")."""
    return any(
        code == target and start > at and tokens[start - 1] in ("per", "a", "each")
        for start, _end, code in units
    )


def _count_operation(words: str) -> str | None:
    """The one operation the words name for a plain count; None for none or several."""
    named = {op for pattern, op in _COUNT_OPERATIONS if pattern.search(words)}
    return named.pop() if len(named) == 1 else None


def _number(value: float) -> str:
    return f"{value:g}" if not float(value).is_integer() else str(int(value))
