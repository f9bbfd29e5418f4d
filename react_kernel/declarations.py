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

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct, to_struct
from react_kernel.tools import ToolSpec

__all__ = ["declaration_of", "spec_of"]


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
