"""ReactStep survives binary and JSON round trips; the contract's field numbers hold."""

from __future__ import annotations

from google.protobuf import json_format
from hypothesis import given
from hypothesis import strategies as st

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct, step_from_json, step_to_json, to_struct

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**53), max_value=2**53),
    st.text(max_size=20),
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=10,
)


@st.composite
def react_steps(draw: st.DrawFn) -> pb.ReactStep:
    step = pb.ReactStep(
        session_id=draw(st.text(max_size=40)),
        turn_id=draw(st.integers(min_value=0, max_value=2**31 - 1)),
        step_type=draw(st.sampled_from(list(pb.StepType.values()))),
        content=draw(st.text(max_size=200)),
        act_id=draw(st.text(alphabet="0123456789abcdef", max_size=32)),
        tool=draw(st.text(max_size=20)),
        status=draw(st.sampled_from(list(pb.ObservationStatus.values()))),
        origin=draw(st.sampled_from(list(pb.Origin.values()))),
        latency_ms=draw(st.floats(min_value=0, max_value=1e6, allow_nan=False)),
        trace_id=draw(st.text(max_size=32)),
        stop_reason=draw(st.sampled_from(list(pb.StopReason.values()))),
    )
    step.metadata.update(draw(st.dictionaries(st.text(max_size=10), st.text(max_size=20))))
    step.arguments.CopyFrom(
        to_struct(draw(st.dictionaries(st.text(max_size=8), json_values, max_size=4)))
    )
    step.created_at.FromMilliseconds(draw(st.integers(min_value=0, max_value=4_102_444_800_000)))
    return step


@given(react_steps())
def test_binary_round_trip(step: pb.ReactStep) -> None:
    assert pb.ReactStep.FromString(step.SerializeToString()) == step


@given(react_steps())
def test_json_round_trip(step: pb.ReactStep) -> None:
    assert step_from_json(step_to_json(step)) == step


@given(st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_struct_round_trip_keeps_integers(values: dict[str, object]) -> None:
    assert from_struct(to_struct(values)) == values


def test_contract_field_numbers() -> None:
    fields = pb.ReactStep.DESCRIPTOR.fields_by_name
    expected = {"session_id": 1, "turn_id": 2, "step_type": 3, "content": 4, "metadata": 5}
    assert {name: fields[name].number for name in expected} == expected
    for name in ["act_id", "tool", "arguments", "status", "origin"]:
        assert name in fields
    assert fields["arguments"].message_type.full_name == "google.protobuf.Struct"
    assert pb.StepType.Name(0) == "STEP_TYPE_UNSPECIFIED"


def test_json_mapping_uses_enum_names() -> None:
    step = pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content="done")
    assert json_format.MessageToDict(step)["stepType"] == "STEP_TYPE_FINAL_ANSWER"
