"""What not to do set against what to do ("don't turn off the lights, just lock the
door"): the part said is planned alone, and its side effects run only when the device's
policy finds the negation the other part's (``understanding.policy.negated_elsewhere``).
"""

from __future__ import annotations

from collections.abc import Callable

from cloud_agent.planner.calls import Plan
from cloud_agent.planner.clauses import normalise, split_clauses
from understanding import policy
from understanding.arguments.qualifiers import contrasted

__all__ = ["contrasted_plan"]


def contrasted_plan(query: str, plan_said: Callable[[str], Plan]) -> Plan | None:
    """The plan of the part the words say to do (``plan_said`` plans it), or None: the
    words are planned as usual (and a negation that rules a side effect declines them).
    The negated part is one clause ("... but don't lock the door and set a timer" is
    more than one part, planned as usual)."""
    parts = contrasted(normalise(query))
    if parts is None or len(split_clauses(parts[0])) != 1:
        return None
    plan = plan_said(parts[1])
    if plan.refusal is not None or not plan.calls:
        return None
    if not all(
        policy.negated_elsewhere(c.tool, c.args, query)
        for c in plan.calls
        if c.tool in policy.ACTION_TOOLS
    ):
        return None
    plan.query = query
    return plan
