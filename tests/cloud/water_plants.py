"""A tool the cloud has never heard of, as a device declares it: ``water_plants(plant, ml)``,
and the device's side of it (the plants it watered)."""

from __future__ import annotations

from typing import Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolSpec
from react_kernel.declarations import declaration_of
from react_kernel.steps import from_struct

QUERY = "water the fern with 200 ml and tell me the weather in Oslo"
SPAN = "water the fern with 200 ml"
INPUT = {
    "type": "object",
    "properties": {
        "plant": {"type": "string", "description": "which plant"},
        "ml": {"type": "integer", "minimum": 1, "maximum": 2000},
    },
    "required": ["plant", "ml"],
    "additionalProperties": False,
}
OUTPUT = {
    "type": "object",
    "properties": {"plant": {"type": "string"}, "ml": {"type": "integer"}},
    "required": ["plant", "ml"],
}
EXAMPLES = ("water the basil", "give the monstera 100 ml of water", "water my plants")


def water_plants_spec(**changes: Any) -> ToolSpec:
    """The tool as the device knows it (its function waters ``WATERED``)."""
    fields: dict[str, Any] = {
        "name": "water_plants",
        "description": "Water one plant with an amount of water in millilitres.",
        "input_schema": INPUT,
        "output_schema": OUTPUT,
        "side_effects": True,
        "examples": EXAMPLES,
        "func": lambda args: {"plant": args["plant"], "ml": args["ml"]},
    }
    fields.update(changes)
    return ToolSpec(**fields)


def declaration(**changes: Any) -> pb.ToolDeclaration:
    """The declaration the device sends."""
    return declaration_of(water_plants_spec(**changes))


def proposal(span: str = SPAN, **arguments: Any) -> pb.ProposedCall:
    """The device's reading of the watering clause."""
    call = pb.ProposedCall(tool="water_plants", span=span, confidence=0.9)
    call.arguments.update(arguments or {"plant": "fern", "ml": 200})
    return call


class Garden:
    """The device: runs water_plants (or answers with a given observation) and records."""

    def __init__(self, observation: dict[str, Any] | None = None) -> None:
        self.watered: list[dict[str, Any]] = []
        self.actions: list[pb.ReactStep] = []
        self.observation = observation

    def __call__(self, action: pb.ReactStep) -> pb.ReactStep:
        self.actions.append(action)
        step = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION)
        if action.tool != "water_plants":
            step.status = pb.OBSERVATION_STATUS_ERROR
            step.content = f"no tool {action.tool}"
            return step
        args = from_struct(action.arguments)
        self.watered.append(args)
        step.observation.update(self.observation or {"plant": args["plant"], "ml": args["ml"]})
        step.content = f"watered the {args['plant']} with {args['ml']} ml"
        return step
