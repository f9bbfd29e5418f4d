"""What a plan is: the tool calls to make, in order, and how to answer them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PREV = "{prev}"
"""In a calculator expression (or a value): the result of the call just before."""


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
    # The parts of the request no call answers, by name: the answer says it left them out
    # (``cloud_agent.planner.partial``); only when every call planned is a read.
    unanswered: list[str] = field(default_factory=list)
