"""The cloud's MCP servers (``cloud-agent serve --mcp``): their tools, run by the cloud.

The tools are cloud tools (``executor="cloud"``): every backend that lists the session's
tools can call them (the OpenAI-compatible backend offers them as function tools or in
its ReAct text; ``ListTools`` lists them); the planner plans only the tools it knows.
Approval is the device's (a person at the device approves what the device runs): the
cloud has nobody to ask, so a tool its server does not mark read-only is left out, with
a warning naming it, unless the operator says ``mcp_side_effects`` (then it runs
unapproved, marked as a side effect in steps and receipts).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from react_kernel import ToolSpec
    from understanding.tools.mcp_servers import McpTools

log = logging.getLogger(__name__)

__all__ = ["start_cloud_tools"]


def start_cloud_tools(
    commands: Sequence[str], *, side_effects: bool = False
) -> tuple[McpTools, list[ToolSpec]]:
    """Start the servers; the tools the cloud offers (read-only ones unless
    ``side_effects``). Blocking: call it off the event loop.

    Raises:
        understanding.tools.mcp_servers.McpServerError: a server cannot start (one line).
    """
    from understanding.tools.mcp_servers import McpTools

    servers = McpTools.start(commands, executor="cloud")
    offered = [spec for spec in servers.specs if side_effects or not spec.side_effects]
    left_out = sorted(spec.name for spec in servers.specs if spec not in offered)
    if left_out:
        log.warning(
            "MCP tools not marked read-only are not offered (the cloud cannot ask for "
            "approval; mcp_side_effects = true offers them): %s",
            ", ".join(left_out),
        )
    for server in servers.servers:
        log.info("MCP server %s: %d tools", server.name, len(server.tools))
    return servers, offered
