"""A tool a device declares to the cloud (``edgeloop.v1.ToolDeclaration``), to and from the
kernel's own :class:`~react_kernel.tools.ToolSpec`.

Both sides need the conversion: the device declares its own tools (``--tools``, entry
points, MCP servers) from their specs, and the cloud plans with a declared tool as a spec
that the device runs (``executor="edge"``, no function). It lives in the kernel, the layer
both sides share, next to the spec it converts.

    >>> spec = ToolSpec("water_plants", "Water a plant.", {"type": "object"},
    ...                 side_effects=True, examples=("water the fern",))
    >>> spec_of(declaration_of(spec)).examples
    ('water the fern',)
"""

from __future__ import annotations

import re

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct, to_struct
from react_kernel.tools import ToolSpec

__all__ = [
    "MAX_DECLARATION_BYTES",
    "MAX_DESCRIPTION_CHARS",
    "MAX_EXAMPLES",
    "MAX_EXAMPLE_CHARS",
    "MAX_SCHEMA_BYTES",
    "MAX_TOOLS",
    "NAME_PATTERN",
    "declaration_of",
    "fit_declaration",
    "spec_of",
]

# The bounds of docs/protocol.md ("Tools a device declares"): the cloud refuses a
# declaration over them (``cloud_agent.declared_tools``); a device keeps within them.
NAME_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}")
MAX_TOOLS = 32
MAX_DESCRIPTION_CHARS = 1024
MAX_SCHEMA_BYTES = 8 * 1024
MAX_EXAMPLES = 8
MAX_EXAMPLE_CHARS = 200
MAX_DECLARATION_BYTES = 64 * 1024


def declaration_of(spec: ToolSpec) -> pb.ToolDeclaration:
    """The declaration of ``spec`` as the device sends it (``ReasonRequest.declared_tools``)."""
    declaration = pb.ToolDeclaration(
        name=spec.name,
        description=spec.description,
        side_effects=spec.side_effects,
        requires_approval=spec.needs_approval,
        examples=list(spec.examples),
    )
    declaration.input_schema.CopyFrom(to_struct(spec.input_schema))
    if spec.output_schema:
        declaration.observation_schema.CopyFrom(to_struct(spec.output_schema))
    return declaration


def spec_of(declaration: pb.ToolDeclaration) -> ToolSpec:
    """The spec the cloud plans with: run by the device (``executor="edge"``, no function),
    its observation checked against the declared observation schema."""
    output = (
        from_struct(declaration.observation_schema)
        if declaration.HasField("observation_schema")
        else {}
    )
    return ToolSpec(
        name=declaration.name,
        description=declaration.description,
        input_schema=from_struct(declaration.input_schema),
        output_schema=output,
        side_effects=declaration.side_effects,
        needs_approval=declaration.requires_approval,
        executor="edge",
        examples=tuple(declaration.examples),
    )


def fit_declaration(declaration: pb.ToolDeclaration) -> str | None:
    """Keep a declaration within the protocol's bounds where that loses nothing the tool
    needs (the description and examples cut to their bounds, blank examples dropped);
    return why it cannot be declared (its name, a schema too large), or None."""
    if not NAME_PATTERN.fullmatch(declaration.name):
        return "a name is 1-64 lowercase letters, digits or underscores, starting with a letter"
    for field in ("input_schema", "observation_schema"):
        size = getattr(declaration, field).ByteSize()
        if size > MAX_SCHEMA_BYTES:
            return f"{field} is {size} bytes serialized; at most {MAX_SCHEMA_BYTES}"
    declaration.description = declaration.description[:MAX_DESCRIPTION_CHARS]
    examples = [e[:MAX_EXAMPLE_CHARS] for e in declaration.examples if e.strip()]
    del declaration.examples[:]
    declaration.examples.extend(examples[:MAX_EXAMPLES])
    return None
