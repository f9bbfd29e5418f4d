"""A fast, one-sided JSON Schema check compiled once per schema.

``jsonschema`` walks a schema through its generic keyword dispatch on every call (tens of
microseconds for a small tool's arguments, more than the tool itself). Tool schemas use a
small subset of the vocabulary (``type``, ``properties``, ``required``,
``additionalProperties``, ``enum``, ``const``, lengths, bounds, ``pattern``, ``items``,
and ``anyOf`` / ``oneOf`` over lists of ``required`` names), so
:func:`compile_fast_check` turns such a schema into a tree of plain closures once.

The check is *one-sided*: it returns True only when it is certain that ``jsonschema``'s
Draft 2020-12 validator (without a format checker, as the registry builds it) accepts the
instance. False means "invalid, or not sure": the caller then runs the full validator,
which gives the verdict and the error messages. So the fast path can never accept what
``jsonschema`` rejects, and every error message still comes from ``jsonschema``. A schema
using any keyword outside the subset compiles to None (always use ``jsonschema``).

:func:`surely_valid_schema` is the same idea for the schema itself: True only when
Draft 2020-12's meta-schema surely accepts it, so registering the usual tool needs no
``jsonschema`` import (60 ms of a cold command); anything else goes to ``check_schema``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["FastCheck", "compile_fast_check", "surely_valid_schema"]

FastCheck = Callable[[Any], bool]

# Keywords that never affect validity (annotations; ``format`` is an annotation without a
# format checker, and the registry's validators have none).
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
    }
)
_SUPPORTED = _ANNOTATIONS | {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "pattern",
    "items",
    "minItems",
    "maxItems",
    "const",
    "anyOf",
    "oneOf",
}
_TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})


class _Unsupported(Exception):
    """The schema uses something the fast check does not handle."""


def _keywords(schema: dict[str, Any]) -> set[str]:
    """The schema's keywords without the ``x-`` extensions (annotations to a validator,
    such as ``x-edgeloop-slots``)."""
    return {k for k in schema if not (isinstance(k, str) and k.startswith("x-"))}


def compile_fast_check(schema: Any) -> FastCheck | None:
    """A predicate that is True only for instances ``schema`` surely accepts (or None)."""
    try:
        return _compile(schema)
    except _Unsupported:
        return None


# The classes JSON decoding and ``from_struct`` produce. An instance of any other class
# (a str subclass, Decimal, a tuple...) is "not sure" wherever a rule looks at it.
_PLAIN = frozenset({dict, list, str, int, float, bool, type(None)})


def _is_number(value: Any) -> bool:
    cls = type(value)
    return cls is int or cls is float


def _type_check(name: str) -> FastCheck:
    # Exact classes only: anything unusual (bool subclasses, Decimal, tuples...) is "not
    # sure" and goes to jsonschema.
    if name == "object":
        return lambda v: type(v) is dict
    if name == "array":
        return lambda v: type(v) is list
    if name == "string":
        return lambda v: type(v) is str
    if name == "number":
        return _is_number
    if name == "integer":
        return lambda v: type(v) is int or (type(v) is float and v.is_integer())
    if name == "boolean":
        return lambda v: type(v) is bool
    return lambda v: v is None  # "null"


def _number(schema: dict[str, Any], key: str) -> float | int | None:
    value = schema.get(key)
    if value is None:
        return None
    if not _is_number(value):
        raise _Unsupported(key)
    return value  # type: ignore[no-any-return]


def _count(schema: dict[str, Any], key: str) -> int | None:
    value = schema.get(key)
    if value is None:
        return None
    if type(value) is not int or value < 0:
        raise _Unsupported(key)
    return value


def _compile(schema: Any) -> FastCheck:
    if schema is True or schema == {}:
        return _always
    if not isinstance(schema, dict) or not _keywords(schema) <= _SUPPORTED:
        raise _Unsupported("keyword")
    # One rule per group of keywords, built in this order (a schema the fast check cannot
    # handle fails in the first group that finds it out); an instance must pass them all.
    checks = [check for rule in _RULES if (check := rule(schema)) is not None]
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    return _all_of(checks)


def _type_rule(schema: dict[str, Any]) -> FastCheck | None:
    """``type``: one class, or any of a list of them."""
    kind = schema.get("type")
    if kind is None:
        return None
    names = [kind] if isinstance(kind, str) else kind
    if not isinstance(names, list) or not names or not set(names) <= _TYPES:
        raise _Unsupported("type")
    type_checks = [_type_check(name) for name in names]
    return type_checks[0] if len(type_checks) == 1 else _any_of(type_checks)


def _enum_rule(schema: dict[str, Any]) -> FastCheck | None:
    if "enum" not in schema:
        return None
    enum = schema["enum"]
    if not isinstance(enum, list):
        raise _Unsupported("enum")
    # Only strings are decided here (a str equals only an equal str in jsonschema's
    # ``equal``); any other instance is "not sure".
    allowed = frozenset(e for e in enum if isinstance(e, str))
    return lambda v: type(v) is str and v in allowed


def _string_rule(schema: dict[str, Any]) -> FastCheck | None:
    """``minLength``, ``maxLength`` and ``pattern``: they apply to strings only."""
    min_len, max_len = _count(schema, "minLength"), _count(schema, "maxLength")
    pattern = schema.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise _Unsupported("pattern")
    search = re.compile(pattern).search if pattern is not None else None
    if min_len is None and max_len is None and search is None:
        return None

    def string_rules(v: Any) -> bool:
        if type(v) is not str:
            return type(v) in _PLAIN  # not a string: these keywords do not apply
        if min_len is not None and len(v) < min_len:
            return False
        if max_len is not None and len(v) > max_len:
            return False
        return search is None or search(v) is not None

    return string_rules


def _number_rule(schema: dict[str, Any]) -> FastCheck | None:
    """The four bounds: they apply to numbers only."""
    bounds = [
        (_number(schema, "minimum"), lambda v, b: v >= b),
        (_number(schema, "maximum"), lambda v, b: v <= b),
        (_number(schema, "exclusiveMinimum"), lambda v, b: v > b),
        (_number(schema, "exclusiveMaximum"), lambda v, b: v < b),
    ]
    bounds = [(b, ok) for b, ok in bounds if b is not None]
    if not bounds:
        return None

    def number_rules(v: Any, bounds: Any = tuple(bounds)) -> bool:
        if not _is_number(v):
            return type(v) in _PLAIN  # not a number (bool included): bounds do not apply
        return all(ok(v, b) for b, ok in bounds)

    return number_rules


def _object_rule(schema: dict[str, Any]) -> FastCheck | None:
    """``properties``, ``required`` and ``additionalProperties``: they apply to objects
    only; each property's value is checked by its own compiled schema."""
    properties = schema.get("properties")
    required = schema.get("required")
    additional = schema.get("additionalProperties", True)
    if properties is None and required is None and additional is True:
        return None
    if properties is not None and not isinstance(properties, dict):
        raise _Unsupported("properties")
    if required is not None and (
        not isinstance(required, list) or not all(isinstance(r, str) for r in required)
    ):
        raise _Unsupported("required")
    compiled = {name: _compile(sub) for name, sub in (properties or {}).items()}
    needed = tuple(required or ())
    extra_check = None if additional is False else _compile(additional)

    def object_rules(v: Any) -> bool:
        if type(v) is not dict:
            return type(v) in _PLAIN  # not an object: these keywords do not apply
        for name in needed:
            if name not in v:
                return False
        for key, value in v.items():
            check = compiled.get(key, extra_check)
            if check is None or not check(value):
                return False
        return True

    return object_rules


def _const_rule(schema: dict[str, Any]) -> FastCheck | None:
    if "const" not in schema:
        return None
    const = schema["const"]
    if type(const) not in (str, bool, int, type(None)):
        raise _Unsupported("const")
    # The same class and an equal value: jsonschema's ``equal`` then agrees (it tells
    # True from 1, which the class check does too).
    return lambda v: type(v) is type(const) and v == const


def _any_of_rule(schema: dict[str, Any]) -> FastCheck | None:
    return _required_choice(schema["anyOf"], exactly_one=False) if "anyOf" in schema else None


def _one_of_rule(schema: dict[str, Any]) -> FastCheck | None:
    return _required_choice(schema["oneOf"], exactly_one=True) if "oneOf" in schema else None


def _array_rule(schema: dict[str, Any]) -> FastCheck | None:
    """``items``, ``minItems`` and ``maxItems``: they apply to arrays only."""
    items = schema.get("items")
    min_items, max_items = _count(schema, "minItems"), _count(schema, "maxItems")
    if items is None and min_items is None and max_items is None:
        return None
    item_check = _compile(items) if items is not None else None

    def array_rules(v: Any) -> bool:
        if type(v) is not list:
            return type(v) in _PLAIN
        if min_items is not None and len(v) < min_items:
            return False
        if max_items is not None and len(v) > max_items:
            return False
        return item_check is None or all(item_check(x) for x in v)

    return array_rules


_RULES: tuple[Callable[[dict[str, Any]], FastCheck | None], ...] = (
    _type_rule,
    _enum_rule,
    _string_rule,
    _number_rule,
    _object_rule,
    _const_rule,
    _any_of_rule,
    _one_of_rule,
    _array_rule,
)


def _always(_value: Any) -> bool:
    return True


def _required_choice(options: Any, *, exactly_one: bool) -> FastCheck:
    """``anyOf`` / ``oneOf`` over schemas that only list ``required`` properties (a tool
    that takes one argument or another): decided for an object, which holds all of an
    option's names or not; any other instance is "not sure"."""
    if not isinstance(options, list) or not options:
        raise _Unsupported("choice")
    names: list[tuple[str, ...]] = []
    for option in options:
        if not isinstance(option, dict) or _keywords(option) != {"required"}:
            raise _Unsupported("choice")
        if not _is_schema_list(option["required"]):
            raise _Unsupported("choice")
        names.append(tuple(option["required"]))

    def choice(value: Any) -> bool:
        if type(value) is not dict:
            return False
        held = sum(all(name in value for name in option) for option in names)
        return held == 1 if exactly_one else held >= 1

    return choice


def _any_of(checks: list[FastCheck]) -> FastCheck:
    options = tuple(checks)

    def any_of(value: Any) -> bool:
        return any(check(value) for check in options)

    return any_of


def _all_of(checks: list[FastCheck]) -> FastCheck:
    rules = tuple(checks)

    def all_of(value: Any) -> bool:
        for rule in rules:  # noqa: SIM110 - a loop is faster than all() over a generator
            if not rule(value):
                return False
        return True

    return all_of


# What Draft 2020-12's meta-schema asks of each keyword of the subset (``format`` and the
# other annotations included); a keyword outside it makes the pre-check "not sure".
def _is_schema_list(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _is_pattern(value: Any) -> bool:
    if type(value) is not str:
        return False
    try:
        re.compile(value)  # the meta-schema's "format": "regex", as check_schema tests it
    except re.error:
        return False
    return True


_KEYWORD_OK: dict[str, Callable[[Any], bool]] = {
    "title": lambda v: type(v) is str,
    "description": lambda v: type(v) is str,
    "$comment": lambda v: type(v) is str,
    "format": lambda v: type(v) is str,
    "default": lambda v: True,
    "const": lambda v: True,  # any JSON value (the meta-schema's "const": true)
    "examples": lambda v: type(v) is list,
    "deprecated": lambda v: type(v) is bool,
    "readOnly": lambda v: type(v) is bool,
    "writeOnly": lambda v: type(v) is bool,
    "type": lambda v: (
        v in _TYPES
        if type(v) is str
        else type(v) is list
        and bool(v)
        and all(type(t) is str and t in _TYPES for t in v)
        and len(set(v)) == len(v)
    ),
    "required": lambda v: _is_schema_list(v) and len(set(v)) == len(v),
    "enum": lambda v: type(v) is list,
    "minLength": _is_count,
    "maxLength": _is_count,
    "minItems": _is_count,
    "maxItems": _is_count,
    "minimum": _is_number,
    "maximum": _is_number,
    "exclusiveMinimum": _is_number,
    "exclusiveMaximum": _is_number,
    "pattern": _is_pattern,
}


def surely_valid_schema(schema: Any, _depth: int = 0) -> bool:
    """True only when ``jsonschema``'s Draft 2020-12 ``check_schema`` surely accepts
    ``schema``; False means "invalid, or not sure" (the caller runs ``check_schema``)."""
    if type(schema) is bool:
        return True
    if type(schema) is not dict or _depth > 32:
        return False
    for key, value in schema.items():
        if key == "properties":
            if type(value) is not dict or not all(
                surely_valid_schema(sub, _depth + 1) for sub in value.values()
            ):
                return False
        elif key in ("items", "additionalProperties", "not"):
            if not surely_valid_schema(value, _depth + 1):
                return False
        elif key in ("allOf", "anyOf", "oneOf"):
            if type(value) is not list or not value:
                return False
            if not all(surely_valid_schema(sub, _depth + 1) for sub in value):
                return False
        elif not (isinstance(key, str) and key.startswith("x-")):
            ok = _KEYWORD_OK.get(key)
            if ok is None or not ok(value):
                return False
    return True
