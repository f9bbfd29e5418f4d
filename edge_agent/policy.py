"""The side-effect policy: when a tool that changes the world may run on the device.

A wrong action costs more trust than a hundred trips to the cloud, so a call with a side
effect runs only when every check here passes; otherwise the device asks back (the tool
is clear, an argument is not) or hands the query to the cloud, with a reason that names
the cause. Pure functions over the words, the call and its confidence: the router's
decision goes through them, and the cloud planner's plan check can call the same ones.
"""

from __future__ import annotations

from edge_agent.tools import SIDE_EFFECT_TOOLS, TOOL_NAMES

# The catalogue's newer tools (docs/edge.md): a decision may name them before this build
# registers them; reads have no side effect, the others do.
NEW_READ_TOOLS: tuple[str, ...] = ("device_status", "list_timers")
NEW_ACTION_TOOLS: tuple[str, ...] = ("cancel_timer", "clear_list")
CATALOGUE: tuple[str, ...] = tuple(dict.fromkeys((*TOOL_NAMES, *NEW_READ_TOOLS, *NEW_ACTION_TOOLS)))
ACTION_TOOLS: frozenset[str] = SIDE_EFFECT_TOOLS | frozenset(NEW_ACTION_TOOLS)
