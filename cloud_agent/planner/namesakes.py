"""A city name several big cities share, in a plan: one of them, or a question.

The device asks "which Springfield?" for a bare name that two or more big cities share
(``understanding.arguments.builtin_places.one_of_namesakes``); a plan that read the name
would answer for one of them by chance. So each reading's city goes through the same
rule: a key with its region ("springfield, illinois") stands, the country of the other
places the request names (else the home city's) picks one where just one is there, and
otherwise the plan asks, naming the cities.
"""

from __future__ import annotations

from typing import Any

from cloud_agent.planner import interpret as it
from cloud_agent.planner.calls import Plan, PlannedCall
from understanding.arguments.builtin_places import one_of_namesakes
from understanding.gazetteer import place, read_places

__all__ = ["one_city_each"]


def one_city_each(plan: Plan, home: Any) -> Plan:
    """``plan`` with each reading's city one city (the home's country may pick it), or
    declined with the question when a name is several cities' and nothing picks one."""
    if read_places(plan.query).text != plan.query:
        return plan  # a region said ("springfield missouri"): the reading's key keeps it
    calls = []
    named = [c.args.get("city") for c in plan.calls if c.tool in (it.WEATHER, it.CLOCK)]
    for call in plan.calls:
        city = call.args.get("city")
        if call.tool not in (it.WEATHER, it.CLOCK) or not isinstance(city, str):
            calls.append(call)
            continue
        others = {place(str(c)) for c in named if c != city}
        countries = frozenset(p.country for p in others if p is not None)
        filled = one_of_namesakes(city, home, clock=call.tool == it.CLOCK, countries=countries)
        if filled.arguments is None:
            question = filled.reason.split(": ", 1)[1]
            plan.refusal = f"Several cities are called {city.title()}. {question}"
            plan.refusal_kind, plan.calls = "unknown_place", []
            return plan
        calls.append(PlannedCall(call.tool, {**call.args, "city": filled.arguments["city"]}))
    plan.calls = calls
    return plan
