"""What the router decides for one query: where it goes and, on the device, which calls.

Its own module so that the readers around the router (corrections, the evaluation, the
CLI) can name a decision without importing the model that makes it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["Route", "RouteDecision", "ToolCall"]

Route = Literal["edge", "cloud", "ask"]


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a decision (a compound request has several)."""

    tool: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class RouteDecision:
    """Where a query goes and, for the edge, with which tool and arguments.

    ``calls`` lists every call when the query holds several requests (a joint intent +
    slot model found them); ``tool`` and ``arguments`` are then the first one's. Route
    ``ask``: the tool is clear but ``missing`` (an argument's name) is not in the words;
    ``question`` is what to ask the person, ``arguments`` what was understood so far.
    """

    route: Route
    tool: str | None
    arguments: dict[str, Any] | None
    confidence: float
    reason: str
    intent: str = ""
    scores: dict[str, float] = field(default_factory=dict, compare=False)
    calls: tuple[ToolCall, ...] = ()
    # route "ask": the missing argument's name and what to ask the person.
    missing: str = ""
    question: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (for ``--json`` output and step metadata)."""
        data = asdict(self)
        data.pop("scores")
        return data
