"""Action Input that is not a JSON object, and values of the wrong type: ``key: value``
lines, a single string for a tool's one argument, and coercion of values to the types of
the tool's input schema (numbers in strings, "yes" for true, an enum in another case).

The verdict on validity stays with the registry's JSON Schema validator
(``react_kernel.schema_check`` and ``jsonschema``): this only turns what a model meant
into the shape the schema asks for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from react_kernel.tools import normalize_tool_name

KV_LINE = re.compile(
    r"^[ \t]*[-*]?[ \t]*[\"'`]?([A-Za-z_][\w\- ]{0,40}?)[\"'`]?[ \t]*[:=][ \t]*(.*)$"
)
KV_PAIR = re.compile(r"([A-Za-z_]\w*)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,]+?)\s*(?:,|$)")


def key_values(text: str, props: Mapping[str, Any]) -> dict[str, Any] | None:
    """``key: value`` lines (or ``k=v, k2=v2``) whose keys are the tool's arguments."""
    names = {normalize_tool_name(p): p for p in props}
    if not names:
        return None
    lines = [line for line in text.split("\n") if line.strip()]
    result: dict[str, Any] = {}
    if len(lines) == 1 and text.count("=") >= 2:
        pairs = KV_PAIR.findall(text)
        if pairs and all(normalize_tool_name(k) in names for k, _ in pairs):
            return {names[normalize_tool_name(k)]: scalar(v) for k, v in pairs}
    if lines and all(KV_LINE.match(line) for line in lines):
        for line in lines:
            m = KV_LINE.match(line)
            assert m is not None
            key = names.get(normalize_tool_name(m.group(1)))
            if key is None:
                return None
            result[key] = scalar(m.group(2))
        return result
    if len(lines) == 1 and "=" in text:
        pairs = KV_PAIR.findall(text)
        if pairs and all(normalize_tool_name(k) in names for k, _ in pairs):
            covered = sum(len(k) + len(v) + 1 for k, v in pairs)
            if covered >= len(re.sub(r"[\s,]", "", text)) * 0.8:
                return {names[normalize_tool_name(k)]: scalar(v) for k, v in pairs}
    return None


def scalar(raw: str) -> Any:
    text = raw.strip().rstrip(",").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    try:
        return json.loads(text)
    except ValueError:
        return text


def single_target(props: Mapping[str, Any], required: list[str]) -> str | None:
    if len(required) == 1:
        return required[0]
    strings = [
        p
        for p in (required or list(props))
        if isinstance(props.get(p), Mapping) and props[p].get("type") == "string"
    ]
    if len(strings) == 1:
        return strings[0]
    if len(props) == 1:
        return next(iter(props))
    if required:
        return required[0]
    return None


def coerce_value(value: Any, schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        if any(type_ok(value, k) for k in kind):
            return value
        kind = next((k for k in kind if k != "null"), None)
    if kind is None or type_ok(value, kind):
        if kind == "string" and isinstance(value, str) and "enum" in schema:
            return enum_match(value, schema["enum"])
        return value
    if kind in ("integer", "number") and isinstance(value, str):
        text = value.strip().replace(",", "") if value.count(",") <= 3 else value
        try:
            number = float(text)
        except ValueError:
            return value
        if kind == "integer" and number.is_integer():
            return int(number)
        return number if kind == "number" else value
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if kind == "boolean" and isinstance(value, str):
        low = value.strip().lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
        return value
    if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def enum_match(value: str, options: Any) -> Any:
    if not isinstance(options, list) or value in options:
        return value
    low = value.strip().lower()
    for option in options:
        if isinstance(option, str) and option.lower() == low:
            return option
    return value


def type_ok(value: Any, kind: str) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "object":
        return isinstance(value, Mapping)
    if kind == "array":
        return isinstance(value, list)
    if kind == "null":
        return value is None
    return True
