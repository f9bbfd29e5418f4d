"""Rates: a quantity said per period and asked over a span, or an amount over a rate.

"I sleep 7.5 hours a night, how many hours is that in a week" is 7.5 * 7; "my car gets 38
miles per gallon and the trip is 420 miles, how many gallons will I need" is 420 / 38;
"I'm saving 350 a month toward 5000, how many months will that take" is 5000 / 350. Each
is one calculation whose numbers the words state, and whose operation the shape of the
words decides: a rate times a span, or an amount divided by a rate. Anything else (two
rates, a count of people beside the rate, another request) is no such shape: None.

>>> rate_calls("i sleep 7.5 hours a night, how many hours is that in a week")[0].args
{'expression': '7.5 * 7'}
>>> amount_over_rate_calls("the trip is 420 miles and the car does 38 miles per gallon, "
...     "how many gallons do i need")[0].args
{'expression': '420 / 38'}
"""

from __future__ import annotations

import re

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import PlannedCall
from cloud_agent.planner.clauses import split_clauses

__all__ = ["amount_over_rate_calls", "rate_calls"]

# Days in each period a rate or a span is said in.
_DAYS = {"day": 1, "night": 1, "week": 7, "fortnight": 14, "month": 365 / 12, "year": 365}
_PERIODS = "|".join(_DAYS)
_NUMBER = r"\d+(?:\.\d+)?"
# "7.5 hours a night", "350 a month", "2.5 liters of water a day"
_RATE = re.compile(
    rf"(?P<value>{_NUMBER})\s*(?P<unit>[a-z]+)?(?:\s+of\s+[a-z]+)?\s+(?:a|an|per|each|every)\s+"
    rf"(?P<per>{_PERIODS})\b"
)
# "in a week", "for a 4 day trip", "over 3 months", "in a year"
_SPAN = re.compile(
    rf"\b(?:in|for|over|during)\s+(?:a|an|one|the)?\s*(?:(?P<count>{_NUMBER})[\s-]*)?"
    rf"(?P<to>{_PERIODS})s?\b"
)
_ASKS = re.compile(r"\b(?:how\s+(?:many|much|long)|what(?:'s|\s+is)?)\b")


def _one_request(text: str) -> bool:
    cues = {it.tool_cue(piece) for piece in split_clauses(text)}
    return not cues - {None, it.CALCULATOR, it.CONVERT}  # "how many hours is that in a week"


def _number(value: str) -> str:
    return f"{float(value):g}"


def rate_calls(text: str) -> list[PlannedCall] | None:
    """One rate said, then asked over a span of another period: the product."""
    rates, spans = list(_RATE.finditer(text)), list(_SPAN.finditer(text))
    if len(rates) != 1 or len(spans) != 1 or not _ASKS.search(text) or not _one_request(text):
        return None
    rate, span = rates[0], spans[0]
    if span.start() < rate.end() or re.search(rf"\b{_NUMBER}\b", text[rate.end() : span.start()]):
        return None  # a second number between them is a quantity of its own ("3 kids each")
    if re.search(rf"\b{_NUMBER}\b", text[: rate.start()]):
        return None
    days = _DAYS[span["to"]] * float(span["count"] or 1) / _DAYS[rate["per"]]
    factor = f"{days:g}" if float(days).is_integer() else f"{days:.6g}"
    return [PlannedCall(it.CALCULATOR, {"expression": f"{_number(rate['value'])} * {factor}"})]


# "38 miles per gallon", "350 a month": a rate of an amount per one thing.
_PER_THING = re.compile(
    rf"(?P<value>{_NUMBER})\s*(?P<unit>[a-z]+)?\s+(?:a|an|per|each|every)\s+(?P<per>[a-z]+)\b"
)
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?P<things>[a-z]+?)s?\b")


def amount_over_rate_calls(text: str) -> list[PlannedCall] | None:
    """An amount and a rate per one thing said, then how many of the things asked ("420
    miles ... 38 miles per gallon, how many gallons"): the amount over the rate."""
    rates, asked = list(_PER_THING.finditer(text)), _HOW_MANY.search(text)
    if len(rates) != 1 or asked is None or not _one_request(text):
        return None
    rate = rates[0]
    thing = rate["per"].removesuffix("s")
    if asked["things"].removesuffix("s") != thing:
        return None
    numbers = [m for m in re.finditer(rf"(?<![\w.]){_NUMBER}(?![\w.])", text)]
    amounts = [m for m in numbers if not rate.start() <= m.start() < rate.end()]
    if len(amounts) != 1:
        return None
    expression = f"{_number(amounts[0].group(0))} / {_number(rate['value'])}"
    return [PlannedCall(it.CALCULATOR, {"expression": expression})]
