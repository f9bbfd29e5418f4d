"""The compiled fast schema check never accepts what jsonschema rejects, and does fire."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from react_kernel import ToolExecutor, ToolRegistry, ToolSpec
from react_kernel.schema_check import compile_fast_check, surely_valid_schema

CITIES = ["paris", "rome", "new york", "tokyo"]
SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {"expression": {"type": "string", "minLength": 1, "maxLength": 8}},
        "required": ["expression"],
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {
            "city": {"type": "string", "enum": CITIES},
            "day": {"type": "string", "enum": ["today", "tomorrow"], "default": "today"},
        },
        "required": ["city"],
        "additionalProperties": False,
    },
    {
        "type": "object",
        "properties": {
            "temperature": {"type": "integer", "minimum": -100, "maximum": 60},
            "condition": {"type": "string", "enum": ["sunny", "cloudy"]},
            "value": {"type": ["number", "null"]},
            "time": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$"},
        },
        "required": ["temperature"],
    },
    {
        "type": "object",
        "properties": {
            "count": {"type": "integer", "minimum": 0},
            "results": {
                "type": "array",
                "maxItems": 3,
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "score": {"type": "number"}},
                    "required": ["id"],
                },
            },
        },
        "required": ["count", "results"],
        "additionalProperties": {"type": "boolean"},
    },
    {"minimum": 0, "exclusiveMaximum": 10, "description": "no type: bounds on numbers only"},
    {"enum": ["a", 1, True, None]},
    {},
    {
        "type": "object",
        "properties": {
            "seconds": {"type": "integer", "minimum": 1},
            "at": {"type": "string"},
            "lists": {"type": "boolean", "const": True},
            "id": {"const": "n1"},
        },
        "oneOf": [{"required": ["seconds"]}, {"required": ["at"]}],
        "anyOf": [{"required": ["seconds"]}, {"required": ["at", "lists"]}],
        "additionalProperties": False,
    },
]

KEYS = ["city", "day", "temperature", "condition", "value", "time", "count", "results"]
KEYS += ["id", "score", "expression", "extra", "seconds", "at", "lists"]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-200, 200)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "paris", "tokyo", "today", "sunny", "12:30", "99:99", "abc", "a"])
    | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(KEYS),
            children,
            max_size=5,
        )
    ),
    max_leaves=12,
)


def near(valid: Any) -> st.SearchStrategy[Any]:
    """Mostly the valid value, sometimes anything."""
    return st.one_of(st.just(valid), st.just(valid), json_values)


# Instances close to each schema's valid ones (random values rarely get past "required").
NEAR_VALID: list[st.SearchStrategy[Any]] = [
    st.fixed_dictionaries(
        {"expression": near("2+2") | st.text(max_size=10)}, optional={"extra": json_values}
    ),
    st.fixed_dictionaries(
        {"city": st.sampled_from([*CITIES, "oslo", "Paris"]) | json_values},
        optional={"day": near("tomorrow"), "extra": json_values},
    ),
    st.fixed_dictionaries(
        {"temperature": st.integers(-120, 80) | st.floats() | json_values},
        optional={
            "condition": near("sunny"),
            "value": near(None) | st.floats(),
            "time": near("12:30") | st.text(max_size=6),
        },
    ),
    st.fixed_dictionaries(
        {
            "count": st.integers(-2, 3) | json_values,
            "results": st.lists(
                st.fixed_dictionaries(
                    {"id": near("n1")}, optional={"score": near(0.5), "x": json_values}
                )
                | json_values,
                max_size=4,
            ),
        },
        optional={"flag": near(True)},
    ),
    json_values,
    json_values,
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "seconds": near(60) | st.just(True),
            "at": near("05:30"),
            "lists": near(True) | st.just(1),
            "id": near("n1") | st.just(1),
            "extra": json_values,
        },
    ),
]


@settings(max_examples=500, deadline=None)
@given(st.data())
def test_fast_check_never_accepts_what_jsonschema_rejects(data: st.DataObject) -> None:
    index = data.draw(st.sampled_from(range(len(SCHEMAS))))
    value = data.draw(NEAR_VALID[index] | json_values)
    schema = SCHEMAS[index]
    check = compile_fast_check(schema)
    assert check is not None
    if check(value):
        assert Draft202012Validator(schema).is_valid(value), (schema, value)


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        (SCHEMAS[0], {"expression": "2+2"}),
        (SCHEMAS[1], {"city": "new york", "day": "tomorrow"}),
        (SCHEMAS[2], {"temperature": 21, "condition": "sunny", "value": None, "time": "09:05"}),
        (SCHEMAS[2], {"temperature": 21.0}),
        (SCHEMAS[3], {"count": 1, "results": [{"id": "n1", "score": 0.5}], "flag": True}),
        (SCHEMAS[4], 9.5),
        (SCHEMAS[4], "not a number"),
        (SCHEMAS[5], "a"),
        (SCHEMAS[7], {"seconds": 60}),
        (SCHEMAS[7], {"at": "05:30", "lists": True, "id": "n1"}),
    ],
)
def test_fast_check_accepts_ordinary_valid_instances(schema: dict[str, Any], value: Any) -> None:
    check = compile_fast_check(schema)
    assert check is not None and check(value)
    assert Draft202012Validator(schema).is_valid(value)


@pytest.mark.parametrize(
    "value",
    [
        {"temperature": True},  # a bool is not an integer
        {"temperature": 61},
        {"temperature": 1.5},
        {"temperature": Decimal(5)},  # not a plain JSON value: jsonschema decides
        {"condition": "sunny"},  # required temperature missing
        {"temperature": 5, "time": "99:99"},
    ],
)
def test_fast_check_defers_what_it_is_not_sure_of(value: Any) -> None:
    check = compile_fast_check(SCHEMAS[2])
    assert check is not None and not check(value)


@pytest.mark.parametrize(
    "value",
    [
        {"seconds": 60, "at": "05:30", "lists": True},  # oneOf: both options hold
        {"at": "05:30"},  # anyOf: neither option holds
        {"seconds": 60, "lists": 1},  # const True is no 1
        {"seconds": 60, "id": "n2"},
        [],  # not an object: jsonschema decides
    ],
)
def test_fast_check_defers_the_choices_it_is_not_sure_of(value: Any) -> None:
    check = compile_fast_check(SCHEMAS[7])
    assert check is not None and not check(value)


def test_unsupported_keywords_compile_to_none() -> None:
    assert compile_fast_check({"type": "object", "oneOf": [{}, {}]}) is None
    assert compile_fast_check({"$ref": "#/$defs/x", "$defs": {"x": {}}}) is None
    assert compile_fast_check({"properties": {"a": {"not": {}}}}) is None
    assert compile_fast_check({"anyOf": [{"type": "string"}, {"required": ["a"]}]}) is None
    assert compile_fast_check({"const": {"a": 1}}) is None


def test_executor_messages_still_come_from_jsonschema() -> None:
    spec = ToolSpec("weather", "", SCHEMAS[1], output_schema=SCHEMAS[2], func=lambda a: {})
    executor = ToolExecutor(ToolRegistry([spec]))
    assert executor.validate_input(spec, {"city": "paris"}) is None
    problem = executor.validate_input(spec, {"city": "oslo", "x": 1})
    expected = [e.message for e in Draft202012Validator(SCHEMAS[1]).iter_errors({"city": "oslo"})]
    assert problem is not None and expected[0] in problem and "Additional properties" in problem
    assert executor.check_output(spec, {"temperature": 20}) is None
    assert "maximum" in (executor.check_output(spec, {"temperature": 99}) or "")


# Schemas built from the subset's keywords with values of every shape, right and wrong.
_KEYWORD_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 5),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.sampled_from(["object", "string", "integer", "nope", "^a+$", "(", "[a-", "x"]),
    st.lists(st.sampled_from(["string", "null", "number", "bogus", "string"]), max_size=3),
    st.lists(st.integers(0, 3), max_size=2),
)
_KEYWORDS = [
    "type", "required", "enum", "minLength", "maxLength", "minItems", "maxItems", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "title", "description",
    "format", "default", "examples", "deprecated", "readOnly", "$comment", "$schema", "const",
]  # fmt: skip
schemas = st.recursive(
    st.booleans() | st.dictionaries(st.sampled_from(_KEYWORDS), _KEYWORD_VALUES, max_size=4),
    lambda children: st.dictionaries(
        st.sampled_from(["properties", "items", "additionalProperties", "not", "anyOf", "oneOf"]),
        children
        | st.dictionaries(st.sampled_from(KEYS), children, max_size=3)
        | st.lists(children, max_size=2),
        max_size=4,
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(schemas)
def test_surely_valid_schema_never_accepts_what_check_schema_rejects(schema: Any) -> None:
    from jsonschema.exceptions import SchemaError

    if surely_valid_schema(schema):
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:  # pragma: no cover - a failure of the pre-check
            pytest.fail(f"pre-check accepted an invalid schema: {exc.message}")


def test_surely_valid_schema_fires_on_tool_schemas() -> None:
    assert all(surely_valid_schema(schema) for schema in SCHEMAS)
    assert surely_valid_schema({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]})
    assert surely_valid_schema({"type": "boolean", "const": True})
    assert not surely_valid_schema({"oneOf": []})
    assert not surely_valid_schema({"type": "strin"})
    assert not surely_valid_schema({"pattern": "("})
    assert not surely_valid_schema({"$schema": "https://json-schema.org/draft/2020-12/schema"})


def test_registry_still_rejects_an_invalid_schema() -> None:
    from react_kernel import ToolRegistryError

    bad = ToolSpec("bad", "", {"type": "strin"}, func=lambda a: a)
    with pytest.raises(ToolRegistryError, match="invalid schema"):
        ToolRegistry([bad])
