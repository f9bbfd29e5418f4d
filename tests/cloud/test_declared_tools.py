"""The cloud's check of the tools a device declares: names, bounds, schemas; each refusal
names the tool and the rule (INVALID_ARGUMENT), and anything else never escapes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cloud_agent.declared_tools import (
    MAX_DECLARATION_BYTES,
    NAME_PATTERN,
    check_declarations,
    check_name,
    check_proposals,
    reserved_names,
)
from cloud_agent.errors import InvalidRequestError
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.declarations import declaration_of, spec_of
from tests.cloud.water_plants import declaration, water_plants_spec


def test_a_well_formed_declaration_becomes_a_device_spec() -> None:
    (spec,) = check_declarations([declaration(needs_approval=True)])
    assert spec.name == "water_plants"
    assert spec.executor == "edge" and spec.func is None
    assert spec.side_effects and spec.needs_approval
    assert spec.examples == water_plants_spec().examples
    assert spec.output_schema["required"] == ["plant", "ml"]


def test_the_declaration_round_trips_through_the_spec() -> None:
    declared = declaration()
    assert declaration_of(spec_of(declared)) == declared


def _schema_of(size: int) -> dict[str, Any]:
    return {"type": "object", "description": "x" * size}


REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("Water_Plants", {}, "lowercase letters"),
    ("9lives", {}, "starting with a letter"),
    ("get_weather", {}, "reserved"),
    ("getweather", {}, "reserved"),
    ("set_timer", {}, "reserved"),
    ("water_plants", {"description": "d" * 1025}, "at most 1024"),
    ("water_plants", {"examples": tuple(f"water {i}" for i in range(9))}, "at most 8"),
    ("water_plants", {"examples": ("w" * 201,)}, "1-200 characters"),
    ("water_plants", {"examples": ("  ",)}, "1-200 characters"),
    ("water_plants", {"input_schema": _schema_of(9000)}, "at most 8192"),
    ("water_plants", {"input_schema": {"type": "array"}}, "object schema"),
    (
        "water_plants",
        {"input_schema": {"type": "object", "properties": {"a": {"type": 5}}}},
        "no valid draft 2020-12 schema",
    ),
    (
        "water_plants",
        {"input_schema": {"type": "object", "$ref": "https://example.com/s.json"}},
        "refers outside itself",
    ),
    (
        "water_plants",
        {"input_schema": {"type": "object", "$schema": "http://json-schema.org/draft-07/schema#"}},
        "draft 2020-12",
    ),
    ("water_plants", {"output_schema": {"type": "string"}}, "observation_schema"),
    (
        "water_plants",
        {"output_schema": {"type": "object", "properties": {"p": {"pattern": "^(a+)+$"}}}},
        "nested quantifiers",
    ),
    (
        "water_plants",
        {"input_schema": {"type": "object", "patternProperties": {"x" * 300: {}}}},
        "over 256 characters",
    ),
]


@pytest.mark.parametrize(("name", "changes", "rule"), REFUSALS)
def test_refusals_name_the_tool_and_the_rule(name: str, changes: dict[str, Any], rule: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        check_declarations([declaration(name=name, **changes)])
    message = str(caught.value)
    assert rule in message
    assert f"declared tool {name!r}" in message


def test_count_size_and_duplicates_are_bounded() -> None:
    many = [declaration(name=f"tool_{i}") for i in range(33)]
    with pytest.raises(InvalidRequestError, match="at most 32"):
        check_declarations(many)
    with pytest.raises(InvalidRequestError, match="declared twice"):
        check_declarations([declaration(), declaration()])
    big = [
        declaration(name=f"tool_{i}", input_schema=_schema_of(7000), examples=()) for i in range(10)
    ]
    with pytest.raises(InvalidRequestError, match=f"at most {MAX_DECLARATION_BYTES}"):
        check_declarations(big)


def test_proposals_are_bounded() -> None:
    call = pb.ProposedCall(tool="water_plants", span="water the fern", confidence=0.5)
    assert check_proposals([call])[0].span == "water the fern"
    with pytest.raises(InvalidRequestError, match="at most 32"):
        check_proposals([call] * 33)
    with pytest.raises(InvalidRequestError, match="within 0-1"):
        check_proposals([pb.ProposedCall(tool="x", confidence=2.0)])


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=70))
def test_a_name_is_accepted_exactly_when_it_is_well_formed_and_not_reserved(name: str) -> None:
    squashed = {known.replace("_", "") for known in reserved_names()}
    expected = NAME_PATTERN.fullmatch(name) is not None and name.replace("_", "") not in squashed
    try:
        check_name(name)
        accepted = True
    except InvalidRequestError:
        accepted = False
    assert accepted == expected


_names = st.one_of(st.from_regex(NAME_PATTERN, fullmatch=True), st.text(max_size=70))
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
_schemas = st.one_of(
    st.dictionaries(
        st.sampled_from(["type", "properties", "required", "$ref", "minimum", "items", "x"]),
        _json,
        max_size=4,
    ),
    st.just({"type": "object"}),
    st.builds(
        lambda p: {"type": "object", "properties": p},
        st.dictionaries(
            st.text(max_size=6), st.sampled_from([{"type": "string"}, {"type": "integer"}, {}])
        ),
    ),
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=_names,
    description=st.text(max_size=1100),
    examples=st.lists(st.text(max_size=210), max_size=10),
    input_schema=_schemas,
    output_schema=st.one_of(st.just({}), _schemas),
)
def test_any_declaration_is_accepted_within_bounds_or_refused_cleanly(
    name: str,
    description: str,
    examples: list[str],
    input_schema: dict[str, Any],
    output_schema: dict[str, Any],
) -> None:
    declared = pb.ToolDeclaration(name=name, description=description, examples=examples)
    try:
        declared.input_schema.update(input_schema)
        if output_schema:
            declared.observation_schema.update(output_schema)
    except (TypeError, ValueError):
        return  # not JSON a Struct holds: no device can send it
    try:
        (spec,) = check_declarations([declared])
    except InvalidRequestError as exc:
        assert str(exc).startswith(("declared tool ", "declared_tools: "))
        return
    assert re.fullmatch(NAME_PATTERN, spec.name)
    assert len(spec.description) <= 1024 and len(spec.examples) <= 8
    assert all(0 < len(e) <= 200 for e in spec.examples)
    assert spec.input_schema.get("type") == "object"
