"""What the device tells the cloud besides the query: the tools it brings and its own parse.

The device's own tools (``--tools``, ``edgeloop.tools`` entry points, anything registered
beside the built-in ones) are unknown to the cloud, so they go with every hand-off as
``ReasonRequest.declared_tools``; the cloud plans with them for that session and asks the
device to run them. The router's reading of each clause the device could read goes as
``proposed_calls`` (the tool, its arguments and the clause's words), so the cloud can plan
a declared tool from it and need not parse those words again.

    >>> from understanding.structure import clauses
    >>> clauses("water the fern with 200 ml and tell me the weather in Oslo")
    ['water the fern with 200 ml', 'tell me the weather in Oslo']
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolSpec
from react_kernel.declarations import (
    MAX_DECLARATION_BYTES,
    MAX_TOOLS,
    declaration_of,
    fit_declaration,
)
from react_kernel.steps import to_struct

log = logging.getLogger(__name__)

__all__ = ["cloud_extras", "declared_tools", "proposed_calls"]

#: The most clauses the device reads for the cloud (one router decision each).
MAX_CLAUSES = 8


def declared_tools(specs: Iterable[ToolSpec]) -> list[pb.ToolDeclaration]:
    """The declarations of the tools that are not built-in (the cloud knows those), kept
    within the protocol's bounds: a tool that cannot be declared (its name, a schema too
    large, one too many) is left out with a warning, never the whole hand-off refused."""
    from understanding.tools import TOOL_NAMES

    declared: list[pb.ToolDeclaration] = []
    size = 0
    for spec in specs:
        if spec.name in TOOL_NAMES:
            continue
        declaration = declaration_of(spec)
        problem = fit_declaration(declaration)
        if problem is None and len(declared) >= MAX_TOOLS:
            problem = f"the device declares at most {MAX_TOOLS} tools"
        if problem is None and size + declaration.ByteSize() > MAX_DECLARATION_BYTES:
            problem = f"the declarations would be over {MAX_DECLARATION_BYTES} bytes"
        if problem is not None:
            log.warning("tool %s is not declared to the cloud: %s", spec.name, problem)
            continue
        size += declaration.ByteSize()
        declared.append(declaration)
    return declared


def proposed_calls(router: Any, query: str) -> list[pb.ProposedCall]:
    """The router's call for each clause of a query of several it keeps on the device (a
    clause it sends to the cloud, or asks back about, proposes nothing)."""
    from understanding.structure import clauses

    parts = clauses(query)
    if len(parts) < 2 or len(parts) > MAX_CLAUSES:
        return []  # one clause: the router already sent the whole of it to the cloud
    proposals = []
    for part in parts:
        decision = router.decide(part)
        if decision.route != "edge" or not decision.tool or decision.arguments is None:
            continue
        if decision.calls:  # a clause of several calls: not one proposal's words
            continue
        proposals.append(
            pb.ProposedCall(
                tool=decision.tool,
                arguments=to_struct(decision.arguments),
                span=part,
                confidence=float(decision.confidence),
            )
        )
    return proposals


def cloud_extras(tools: Iterable[ToolSpec], router: Any, query: str) -> dict[str, Any]:
    """The keyword arguments of ``CloudLink.run`` beyond the query: ``declared_tools`` when
    the device has tools of its own, ``proposed_calls`` when the router read a clause
    (none: an empty dict, so a runner without these arguments is called as before)."""
    extras: dict[str, Any] = {}
    declared = declared_tools(tools)
    if declared:
        extras["declared_tools"] = declared
    try:
        proposals = proposed_calls(router, query)
    except Exception as exc:  # the device's parse is a help to the cloud, never a need
        log.warning("no proposed calls for the cloud: %s", exc)
        proposals = []
    if proposals:
        extras["proposed_calls"] = proposals
    return extras
