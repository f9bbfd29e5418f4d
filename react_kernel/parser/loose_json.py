"""JSON as models write it: with text around it, single quotes, trailing commas, Python
literals, several objects in one reply, and the usual shapes of a tool call (ReAct
``action``/``action_input``, ``tool``/``arguments``, OpenAI ``tool_calls``/``function``)."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from react_kernel.tools import normalize_tool_name

# strict=False: models put raw newlines and tabs inside JSON strings.
DECODER = json.JSONDecoder(strict=False)

ACTION_KEYS = ("action", "tool", "tool_name", "name", "function", "function_name", "command")
INPUT_KEYS = (
    "action_input",
    "actioninput",
    "arguments",
    "args",
    "tool_input",
    "input",
    "parameters",
    "params",
    "kwargs",
)
THOUGHT_KEYS = ("thought", "thoughts", "reasoning", "reason", "plan")
FINAL_KEYS = ("final_answer", "finalanswer", "answer", "final", "response")


def loads_loose(text: str, fb: list[str], *, trailing_ok: bool = False) -> Any:
    """JSON, or JSON with trailing text, or repaired JSON; None if nothing works."""
    decoder = DECODER
    try:
        value, end = decoder.raw_decode(text)
        if end == len(text) or not text[end:].strip():
            return value
        if trailing_ok:
            fb.append("input_trailing_text")
            return value
    except ValueError:
        pass
    span = balanced_end(text, 0) if text.startswith(("{", "[")) else None
    candidate = text[:span] if span else text
    repaired = repair_json(candidate)
    if repaired is not None:
        fb.append("json_repaired")
        return repaired
    return None


def balanced_end(text: str, start: int) -> int | None:
    """End index (exclusive) of the bracketed value starting at ``start``, or None."""
    opening = text[start]
    closing = "}" if opening == "{" else "]"
    depth = 0
    quote: str | None = None
    escaped = False
    for i in range(start, min(len(text), start + 20000)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1 if ch == closing else None
    return None


def repair_json(text: str) -> Any:
    try:
        value = ast.literal_eval(text)
        if isinstance(value, dict | list):
            return jsonable(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        pass
    fixed = re.sub(r",\s*([}\]])", r"\1", text)
    fixed = re.sub(r"\bTrue\b", "true", fixed)
    fixed = re.sub(r"\bFalse\b", "false", fixed)
    fixed = re.sub(r"\bNone\b", "null", fixed)
    fixed = re.sub(r"([{,]\s*)([A-Za-z_]\w*)\s*:", r'\1"\2":', fixed)
    if "'" in fixed and '"' not in fixed.replace('\\"', ""):
        fixed = fixed.replace("'", '"')
    try:
        return DECODER.decode(fixed)
    except ValueError:
        pass
    try:
        value = ast.literal_eval(re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", fixed)))
        return jsonable(value) if isinstance(value, dict | list) else None
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def json_objects(text: str, fb: list[str]) -> list[tuple[Any, int, int]]:
    """Top-level JSON objects found in ``text``: (value, start, end)."""
    found: list[tuple[Any, int, int]] = []
    decoder = DECODER
    pos = 0
    tries = 0
    while tries < 20:
        start = text.find("{", pos)
        if start < 0:
            break
        tries += 1
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            end_opt = balanced_end(text, start)
            if end_opt is None:
                pos = start + 1
                continue
            repaired = repair_json(text[start:end_opt])
            if not isinstance(repaired, dict):
                pos = start + 1
                continue
            fb.append("json_repaired")
            value, end = repaired, end_opt
        if isinstance(value, dict):
            found.append((value, start, end))
            pos = end
        else:
            pos = start + 1
    return found


def first_key(obj: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[bool, Any]:
    lowered = {str(k).lower().replace(" ", "_"): v for k, v in obj.items()}
    for key in keys:
        if key in lowered:
            return True, lowered[key]
    return False, None


def json_shape(obj: Mapping[str, Any]) -> tuple[str, Any, Any, str | None] | None:
    """Classify a JSON object: ("action", name, input, thought) or ("final", None, text, ...)."""
    _, thought = first_key(obj, THOUGHT_KEYS)
    thought_text = thought if isinstance(thought, str) else None
    calls = obj.get("tool_calls")
    if isinstance(calls, list) and calls and isinstance(calls[0], Mapping):
        inner = json_shape(calls[0])
        if inner is not None:
            return inner[0], inner[1], inner[2], thought_text or inner[3]
    has_fn, fn = first_key(obj, ("function",))
    if has_fn and isinstance(fn, Mapping):
        name = fn.get("name")
        if isinstance(name, str):
            return "action", name, fn.get("arguments", fn.get("parameters", {})), thought_text
    has_action, action = first_key(obj, ACTION_KEYS)
    if has_action and isinstance(action, str) and action.strip():
        _, raw_input = first_key(obj, INPUT_KEYS)
        if normalize_tool_name(action) in ("final_answer", "final", "finish", "answer"):
            return "final", None, raw_input, thought_text
        return "action", action, raw_input, thought_text
    if has_action and isinstance(action, Mapping):
        inner = json_shape(action)
        if inner is not None:
            return inner[0], inner[1], inner[2], thought_text or inner[3]
    has_final, final = first_key(obj, FINAL_KEYS)
    if has_final and final is not None:
        return "final", None, final, thought_text
    return None
