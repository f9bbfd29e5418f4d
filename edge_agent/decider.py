"""The device's routing decisions: the router's, read with the device's settings of the
moment, which are passed in and never kept (``Router.decide(query, settings)`` is pure).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from react_kernel import ToolRegistry
    from understanding.decision import RouteDecision
    from understanding.router import Router
    from understanding.settings import Settings


class Decider:
    """Decides where a query runs: on the device, through the cloud, or asked back."""

    def __init__(self, router: Router, tools: ToolRegistry) -> None:
        self.router = router
        self.tools = tools

    def decide(self, query: str, settings: Settings | None) -> RouteDecision:
        """The router's decision for ``query`` on a device with ``settings``."""
        return self.router.decide(query, settings)

    def without_cloud(self, query: str, settings: Settings | None) -> RouteDecision | None:
        """With no cloud to plan it, a compound query whose every request has a device
        tool ("turn on the lights and set a 5 minute timer") runs here, each request as
        the router reads it on its own; None when any part needs the cloud."""
        if not self.router.one_request:
            return None
        decision = self.router.decide(query, settings, one_request=False)
        if decision.route != "edge" or len(decision.calls) < 2:
            return None
        if any(self.tools.get(call.tool) is None for call in decision.calls):
            return None
        return decision
