"""ReactStep helpers: build steps and convert tool arguments between dicts and Structs.

The kernel has no step class of its own: a step is the protocol's ``ReactStep`` message,
so what the loop records is exactly what goes on the wire and into memory.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from google.protobuf import json_format
from google.protobuf.struct_pb2 import Struct

from edgeloop.v1 import agent_pb2 as pb

ReactStep = pb.ReactStep
StepType = pb.StepType
Origin = pb.Origin
ObservationStatus = pb.ObservationStatus
StopReason = pb.StopReason

THOUGHT = pb.STEP_TYPE_THOUGHT
ACTION = pb.STEP_TYPE_ACTION
OBSERVATION = pb.STEP_TYPE_OBSERVATION
FINAL_ANSWER = pb.STEP_TYPE_FINAL_ANSWER
ERROR = pb.STEP_TYPE_ERROR
APPROVAL_REQUEST = pb.STEP_TYPE_APPROVAL_REQUEST
CLARIFICATION = pb.STEP_TYPE_CLARIFICATION

STEP_KINDS: dict[int, str] = {
    THOUGHT: "thought",
    ACTION: "action",
    OBSERVATION: "observation",
    FINAL_ANSWER: "answer",
    ERROR: "error",
    APPROVAL_REQUEST: "approval",
    CLARIFICATION: "question",
}
"""Each step type's short name, as the terminal and the pages show it (others: "step")."""


def new_act_id() -> str:
    """A fresh, unique act id (uuid4 hex) for an ACTION and its OBSERVATION."""
    # uuid.uuid4().hex without building a UUID object: 16 random bytes, with the version
    # nibble set to 4 and the variant bits to RFC 4122 (10xx), as uuid.UUID(version=4) does.
    h = os.urandom(16).hex()
    return f"{h[:12]}4{h[13:16]}{_VARIANT[h[16]]}{h[17:]}"


_VARIANT = {c: "89ab"[int(c, 16) & 3] for c in "0123456789abcdef"}


def to_struct(values: Mapping[str, Any] | None) -> Struct:
    """Convert a JSON-like dict to a protobuf Struct (numbers become doubles)."""
    struct = Struct()
    if values:
        try:
            struct.update(values)
        except (TypeError, ValueError, AttributeError):
            # Not plain JSON (dates, sets, non-string keys...): go through JSON text.
            struct.Clear()
            struct.update(json.loads(json.dumps(values, default=str)))
    return struct


def from_struct(struct: Struct) -> dict[str, Any]:
    """Convert a Struct back to a dict; integral doubles come back as ints."""
    fields = struct.fields  # keys then lookups: the map's items() view is pure Python
    return {key: _from_value(fields[key]) for key in fields}


def _from_value(value: Any) -> Any:
    # Walks the Struct directly: several times faster than json_format.MessageToDict.
    kind = value.WhichOneof("kind")
    if kind == "string_value":
        return value.string_value
    if kind == "number_value":
        number = value.number_value
        if number.is_integer() and abs(number) < 2**53:
            return int(number)
        return number
    if kind == "bool_value":
        return value.bool_value
    if kind == "struct_value":
        fields = value.struct_value.fields
        return {k: _from_value(fields[k]) for k in fields}
    if kind == "list_value":
        return [_from_value(v) for v in value.list_value.values]
    return None


def _integralise(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        return int(value)
    if isinstance(value, dict):
        return {k: _integralise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integralise(v) for v in value]
    return value


def step_to_json(step: ReactStep) -> str:
    """One step in protobuf's JSON mapping, on one line (the CLI's ``--json`` format)."""
    return json.dumps(json_format.MessageToDict(step), ensure_ascii=False, separators=(",", ":"))


def step_from_json(text: str) -> ReactStep:
    """Parse a step from protobuf's JSON mapping."""
    return json_format.Parse(text, ReactStep())
