"""The tolerant parser: model text -> [THOUGHT?, ACTION] | [THOUGHT?, FINAL_ANSWER] | [ERROR].

It reads both forms that models produce:

- the text protocol: ``Thought:`` / ``Action:`` / ``Action Input:`` / ``Observation:`` /
  ``Final Answer:`` labels, in any case, in markdown bold or headings, numbered, with
  multi-line content, fences, leading chatter, ``<think>`` blocks and several blocks in
  one reply (the first action wins; anything after a hallucinated ``Observation:`` is
  dropped);
- JSON: ``{"thought", "action", "action_input"}`` and the usual variants (``tool`` /
  ``name`` / ``arguments`` / OpenAI ``tool_calls``), in fences or with text around it,
  repaired when it has single quotes, trailing commas or Python literals.

Tool names go through :meth:`ToolRegistry.match` (case, spaces, underscores, small
typos; never a guess between two tools). Action Input falls back from JSON to
``key: value`` lines to a single string argument; values are coerced to the schema's
types. Every fallback that fires is named on the step (``metadata["parser_fallbacks"]``)
and counted in a process-wide counter (:func:`parser_fallback_counts`, read by the
cloud's metrics exporter). It never raises: a reply it cannot use becomes an ERROR step
that says what was wrong, which the reasoner sees on its next turn.
"""

from __future__ import annotations

import ast
import json
import re
import threading
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import to_struct
from react_kernel.tools import ToolRegistry, ToolSpec, normalize_tool_name

__all__ = [
    "FALLBACKS",
    "ParseResult",
    "parse_model_output",
    "parser_fallback_counts",
    "reset_parser_fallback_counts",
]

#: Every fallback name the parser may record, with what it means.
FALLBACKS: dict[str, str] = {
    "think_block": "a <think> block was read as the thought",
    "leading_chatter": "text before the first label was read as the thought",
    "stripped_fence": "a markdown code fence was removed",
    "json_with_chatter": "a JSON reply had text around it",
    "input_trailing_text": "text after the JSON Action Input was ignored",
    "json_repaired": "invalid JSON was repaired (quotes, trailing commas, Python literals)",
    "arguments_as_string": "JSON arguments were given as a JSON string",
    "tool_name_normalized": "the tool name differed in case, spaces or separators",
    "tool_name_fuzzy": "the tool name had a typo (edit distance)",
    "tool_name_in_text": "the tool name was found inside a longer Action text",
    "input_inline": "the input was written inline: tool(...) or tool[...]",
    "input_unlabeled": "the input followed the Action without an 'Action Input:' label",
    "input_key_value": "the input was read as key: value lines",
    "input_single_string": "the input was read as the tool's single string argument",
    "input_positional": "a JSON list was mapped onto the required arguments in order",
    "input_keys_renamed": "argument names were matched to the schema ignoring case",
    "input_coerced": "argument values were coerced to the schema's types",
    "input_unwrapped": "arguments were nested in an extra object and unwrapped",
    "multiple_blocks": "several actions in one reply; the first was taken",
    "hallucinated_observation": "text after an invented 'Observation:' was dropped",
    "both_action_and_final": "a reply had both an action and a final answer; the first was taken",
    "final_answer_as_action": "a final answer was given as an action (final_answer tool)",
    "bare_text_final": "a reply with no labels was read as the final answer",
    "internal_error": "the parser hit a bug and returned an ERROR step",
}

_COUNTS: Counter[str] = Counter()
_COUNTS_LOCK = threading.Lock()


def parser_fallback_counts() -> dict[str, int]:
    """How many times each fallback fired in this process (for a Prometheus counter)."""
    with _COUNTS_LOCK:
        return dict(_COUNTS)


def reset_parser_fallback_counts() -> None:
    """Zero the fallback counters (tests)."""
    with _COUNTS_LOCK:
        _COUNTS.clear()


@dataclass(slots=True)
class ParseResult:
    """The parsed steps and the fallbacks that fired, in the order they fired."""

    steps: list[pb.ReactStep]
    fallbacks: list[str] = field(default_factory=list)

    @property
    def step(self) -> pb.ReactStep:
        """The decisive step: the ACTION, FINAL_ANSWER or ERROR (always the last one)."""
        return self.steps[-1]

    @property
    def ok(self) -> bool:
        """False when the reply could not be used (the result is an ERROR step)."""
        return self.steps[-1].step_type != pb.STEP_TYPE_ERROR


class _ParseFailure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


_FORMAT_HINT = (
    "Reply with 'Thought: ...' then either 'Action: <tool>' and 'Action Input: <JSON object>', "
    "or 'Final Answer: <answer>'."
)


def parse_model_output(text: str, tools: ToolRegistry) -> ParseResult:
    """Parse one model reply against the registry's tools; never raises.

    Example:
        >>> result = parse_model_output(
        ...     "Thought: add them\\nAction: Calculator\\nAction Input: 2+2", registry
        ... )  # doctest: +SKIP
        >>> result.step.tool, result.fallbacks  # doctest: +SKIP
        ('calculator', ['tool_name_normalized', 'input_single_string'])
    """
    fallbacks: list[str] = []
    try:
        steps = _Parser(text if isinstance(text, str) else str(text), tools, fallbacks).parse()
    except _ParseFailure as failure:
        steps = [_error_step(failure.code, str(failure), text)]
    except Exception as exc:  # the contract is "never raises": a bug becomes an ERROR step
        fallbacks.append("internal_error")
        steps = [_error_step("internal_error", f"parser error: {type(exc).__name__}: {exc}", text)]
    if fallbacks:
        deduped = list(dict.fromkeys(fallbacks))
        fallbacks[:] = deduped
        joined = ",".join(deduped)
        for step in steps:
            step.metadata["parser_fallbacks"] = joined
        with _COUNTS_LOCK:
            _COUNTS.update(deduped)
    return ParseResult(steps, fallbacks)


def _error_step(code: str, message: str, text: object) -> pb.ReactStep:
    step = pb.ReactStep(step_type=pb.STEP_TYPE_ERROR, content=f"{message} {_FORMAT_HINT}")
    step.metadata["parse_error"] = code
    excerpt = str(text)[:200]
    if excerpt:
        step.metadata["reply_excerpt"] = excerpt
    return step


_LABEL_NAMES = (
    r"(?P<label>thought|thinking|reasoning|action[ \t_]*input|tool[ \t_]*input|action|"
    r"observation|final[ \t_]*answer|answer)"
)
_LINE_LABEL = re.compile(
    r"^[ \t>*_#\-]*(?:\d+[.)][ \t]*)?"
    + _LABEL_NAMES
    + r"(?:[ \t]*\d+)?[ \t]*[*_]*[ \t]*:[*_]*[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_MID_LABEL = re.compile(
    r"(?<=\S)[ \t]+[*_]*(?P<label>Action Input|Action|Final Answer|Observation)[*_]*:[*_]*[ \t]*"
)
_THINK = re.compile(r"<(think|thinking|reasoning)>(.*?)</\1>", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_KV_LINE = re.compile(
    r"^[ \t]*[-*]?[ \t]*[\"'`]?([A-Za-z_][\w\- ]{0,40}?)[\"'`]?[ \t]*[:=][ \t]*(.*)$"
)
_KV_PAIR = re.compile(r"([A-Za-z_]\w*)\s*=\s*(\"[^\"]*\"|'[^']*'|[^,]+?)\s*(?:,|$)")
# strict=False: models put raw newlines and tabs inside JSON strings.
_DECODER = json.JSONDecoder(strict=False)
_FINAL_TOOL_NAMES = {"final_answer", "finalanswer", "final", "finish", "answer", "respond"}
_NO_TOOL_NAMES = {"none", "n_a", "na", "no_tool", "nothing", "null", "no_action"}

_ACTION_KEYS = ("action", "tool", "tool_name", "name", "function", "function_name", "command")
_INPUT_KEYS = (
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
_THOUGHT_KEYS = ("thought", "thoughts", "reasoning", "reason", "plan")
_FINAL_KEYS = ("final_answer", "finalanswer", "answer", "final", "response")


def _label_kind(raw: str) -> str:
    low = re.sub(r"[\s_]+", "", raw.lower())
    if low in ("thought", "thinking", "reasoning"):
        return "thought"
    if low in ("actioninput", "toolinput"):
        return "input"
    if low == "action":
        return "action"
    if low == "observation":
        return "observation"
    return "final"


@dataclass(slots=True)
class _Segment:
    kind: str
    start: int
    content: str
    line_start: bool


class _Parser:
    def __init__(self, text: str, tools: ToolRegistry, fallbacks: list[str]) -> None:
        self.text = text
        self.tools = tools
        self.fb = fallbacks
        self.thoughts: list[str] = []

    # -- entry ---------------------------------------------------------------------------

    def parse(self) -> list[pb.ReactStep]:
        text = self.text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "").strip()
        text = self._take_think_blocks(text)
        if not text:
            if self.thoughts:
                raise _ParseFailure("no_action", "The reply has only a thought and no action.")
            raise _ParseFailure("empty", "The reply was empty.")
        segments = self._segments(text)
        kinds = {s.kind for s in segments}
        if kinds & {"action", "final", "input"}:
            return self._text_protocol(text, segments)
        json_steps = self._json_form(text, segments)
        if json_steps is not None:
            return json_steps
        if kinds == {"thought"} or (kinds == {"thought", "observation"}):
            raise _ParseFailure(
                "no_action", "The reply has a Thought but no Action and no Final Answer."
            )
        if "observation" in kinds and not segments[0].start:
            raise _ParseFailure("only_observation", "The reply only repeats an Observation.")
        bare, _ = _strip_fences(text)
        if bare.lstrip()[:1] in ("{", "["):
            raise _ParseFailure(
                "bad_json",
                "The reply looks like JSON but has no usable 'action' or 'final_answer'.",
            )
        if not re.search(r"\w", bare):
            raise _ParseFailure("no_content", "The reply has no readable content.")
        self.fb.append("bare_text_final")
        body = text
        if segments and segments[0].kind == "thought":
            body = text[: segments[0].start].strip() or segments[0].content
        return self._final(_clean_final(body))

    # -- helpers shared by both forms ----------------------------------------------------

    def _take_think_blocks(self, text: str) -> str:
        if "<" not in text and "</" not in text:
            return text
        found = _THINK.findall(text)
        if found:
            self.fb.append("think_block")
            self.thoughts.extend(body.strip() for _, body in found if body.strip())
            text = _THINK.sub("", text).strip()
        # A reasoning model whose opening tag was cut off: everything before </think>.
        close = re.search(r"</(?:think|thinking|reasoning)>", text, re.IGNORECASE)
        if close:
            self.fb.append("think_block")
            before = text[: close.start()].strip()
            if before:
                self.thoughts.append(before)
            text = text[close.end() :].strip()
        return text

    def _steps(self, decisive: pb.ReactStep) -> list[pb.ReactStep]:
        thought = "\n".join(t for t in self.thoughts if t).strip()
        if thought:
            return [pb.ReactStep(step_type=pb.STEP_TYPE_THOUGHT, content=thought), decisive]
        return [decisive]

    def _final(self, content: str) -> list[pb.ReactStep]:
        if not content:
            raise _ParseFailure("empty_final", "The Final Answer was empty.")
        return self._steps(pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content=content))

    def _action(self, spec: ToolSpec, args: dict[str, Any]) -> list[pb.ReactStep]:
        step = pb.ReactStep(
            step_type=pb.STEP_TYPE_ACTION,
            tool=spec.name,
            arguments=to_struct(args),
            content=f"{spec.name}({json.dumps(args, ensure_ascii=False, default=str)})",
        )
        return self._steps(step)

    def _resolve_tool(self, raw_name: str) -> ToolSpec | None:
        name, kind = self.tools.match_kind(raw_name)
        if name is not None:
            if kind == "normalized":
                self.fb.append("tool_name_normalized")
            elif kind == "fuzzy":
                self.fb.append("tool_name_fuzzy")
            return self.tools.get(name)
        # "Use the calculator tool": exactly one registered name inside the text.
        norm = f"_{normalize_tool_name(raw_name)}_"
        inside = [n for n in self.tools.names() if f"_{normalize_tool_name(n)}_" in norm]
        if len(inside) == 1:
            self.fb.append("tool_name_in_text")
            return self.tools.get(inside[0])
        return None

    def _unknown_tool(self, raw_name: str) -> _ParseFailure:
        shown = raw_name.strip()[:60]
        available = ", ".join(self.tools.names()) or "(none)"
        return _ParseFailure(
            "unknown_tool", f"Unknown tool {shown!r}. Available tools: {available}."
        )

    # -- text protocol -------------------------------------------------------------------

    def _segments(self, text: str) -> list[_Segment]:
        marks: list[tuple[int, int, str, bool]] = []
        for m in _LINE_LABEL.finditer(text):
            marks.append((m.start(), m.end(), _label_kind(m.group("label")), True))
        line_starts = {start for start, _, _, _ in marks}
        for m in _MID_LABEL.finditer(text):
            if m.start() not in line_starts and not any(s <= m.start() < e for s, e, _, _ in marks):
                marks.append((m.start(), m.end(), _label_kind(m.group("label")), False))
        marks.sort()
        marks = _drop_marks_inside_json(text, marks)
        segments: list[_Segment] = []
        for i, (start, end, kind, at_line) in enumerate(marks):
            stop = marks[i + 1][0] if i + 1 < len(marks) else len(text)
            segments.append(_Segment(kind, start, text[end:stop].strip(), at_line))
        return segments

    def _text_protocol(self, text: str, segments: list[_Segment]) -> list[pb.ReactStep]:
        head = text[: segments[0].start].strip()
        if head:
            self.fb.append("leading_chatter")
            self.thoughts.append(_strip_fences(head)[0])
        # Cut at the first Observation that follows an action: the model invented it.
        seen_action = False
        kept: list[_Segment] = []
        for seg in segments:
            if seg.kind == "observation" and seen_action:
                self.fb.append("hallucinated_observation")
                break
            if seg.kind == "action":
                seen_action = True
            kept.append(seg)
        for seg in kept:
            if seg.kind == "thought" and seg.content:
                self.thoughts.append(seg.content)
        actions = [i for i, s in enumerate(kept) if s.kind == "action"]
        finals = [i for i, s in enumerate(kept) if s.kind == "final"]
        if finals and (not actions or finals[0] < actions[0]):
            if actions:
                self.fb.append("both_action_and_final")
            first = finals[0]
            # A multi-line final answer runs to the end, labels it quotes included.
            body = text[kept[first].start :]
            body = re.sub(r"^.*?:[*_]*[ \t]*", "", body, count=1, flags=re.DOTALL)
            body = _cut_hallucinated_tail(body)
            return self._final(_clean_final(body))
        if not actions:
            raise _ParseFailure(
                "input_without_action", "The reply has an Action Input but no Action."
            )
        if len(actions) > 1:
            self.fb.append("multiple_blocks")
        if finals:
            self.fb.append("both_action_and_final")
        index = actions[0]
        action_seg = kept[index]
        input_text: str | None = None
        for seg in kept[index + 1 :]:
            if seg.kind == "input":
                input_text = seg.content
                break
            if seg.kind in ("action", "final"):
                break
        return self._action_from_text(action_seg.content, input_text)

    def _action_from_text(self, action_text: str, input_text: str | None) -> list[pb.ReactStep]:
        action_text = action_text.strip()
        if action_text[:1] in ("{", "`"):
            # "Action:" followed by a JSON blob (LangChain structured chat, smolagents).
            blob, fenced = _strip_fences(action_text)
            if blob[:1] == "{":
                steps = self._json_form(blob, [])
                if steps is not None:
                    if fenced:
                        self.fb.append("stripped_fence")
                    return steps
        first_line, _, rest = action_text.partition("\n")
        first_line = first_line.strip()
        inline: str | None = None
        bracket = re.search(r"[(\[{]", first_line)
        name = first_line
        if bracket:
            name = first_line[: bracket.start()]
            inline = first_line[bracket.start() :]
            if inline[0] == "{":
                inline = inline + ("\n" + rest if rest else "")
            else:
                closing = ")" if inline[0] == "(" else "]"
                inner = inline[1:].rstrip().rstrip("`").rstrip()
                if inner.endswith(closing):
                    inner = inner[:-1]
                inline = inner
        name = re.sub(r"\s+(?:with|using)\b.*$", "", name.strip(), flags=re.IGNORECASE)
        norm = normalize_tool_name(name)
        if norm.replace("_", "") in _FINAL_TOOL_NAMES and self.tools.get(name) is None:
            self.fb.append("final_answer_as_action")
            payload = input_text if input_text is not None else (inline or rest)
            value = _loads_loose(payload.strip(), self.fb) if payload.strip() else None
            if isinstance(value, Mapping):
                value = next(iter(value.values()), "") if len(value) == 1 else json.dumps(value)
            return self._final(_clean_final(str(value) if value is not None else payload))
        if norm in _NO_TOOL_NAMES:
            raise _ParseFailure(
                "no_tool",
                f"Action {name.strip()!r} is not a tool; give a Final Answer if no tool is needed.",
            )
        spec = self._resolve_tool(name)
        if spec is None:
            spec = self._resolve_tool(first_line) if first_line != name else None
        if spec is None:
            raise self._unknown_tool(name or first_line)
        if input_text is None:
            if inline is not None and inline.strip():
                self.fb.append("input_inline")
                input_text = inline
            elif rest.strip():
                self.fb.append("input_unlabeled")
                input_text = rest
        return self._action(spec, self._arguments(spec, input_text))

    # -- arguments -----------------------------------------------------------------------

    def _arguments(self, spec: ToolSpec, raw: Any) -> dict[str, Any]:
        schema = spec.input_schema
        props: Mapping[str, Any] = schema.get("properties", {}) or {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            if required:
                raise _ParseFailure(
                    "missing_input",
                    f"The Action Input for {spec.name!r} is missing "
                    f"(required: {', '.join(required)}).",
                )
            return {}
        value: Any = raw
        if isinstance(raw, str):
            value = self._input_value(raw, props)
        if isinstance(value, list):
            names = required or list(props)
            if value and len(value) <= len(names):
                self.fb.append("input_positional")
                value = dict(zip(names, value, strict=False))
        if isinstance(value, Mapping):
            args = dict(value)
            args = self._unwrap(args, props)
            args = self._rename_keys(args, props)
        else:
            target = _single_target(props, required)
            if target is None:
                if not props:
                    return {}
                raise _ParseFailure(
                    "bad_input", f"Could not read the Action Input for {spec.name!r}."
                )
            self.fb.append("input_single_string")
            args = {target: value.strip() if isinstance(value, str) else value}
        return self._coerce(args, props)

    def _input_value(self, raw: str, props: Mapping[str, Any]) -> Any:
        text, fenced = _strip_fences(raw.strip())
        if fenced:
            self.fb.append("stripped_fence")
        text = text.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "`":
            text = text.strip("`").strip()
        if text[:1] in "{[":
            value = _loads_loose(text, self.fb, trailing_ok=True)
            if value is not None:
                return value
        elif text[:1] == '"' and text[-1:] == '"':
            try:
                return json.loads(text)
            except ValueError:
                return text[1:-1]
        kv = _key_values(text, props)
        if kv is not None:
            self.fb.append("input_key_value")
            return kv
        if len(text) >= 2 and text[0] == text[-1] and text[0] == "'":
            text = text[1:-1]
        return text

    def _unwrap(self, args: dict[str, Any], props: Mapping[str, Any]) -> dict[str, Any]:
        if len(args) == 1 and props:
            ((key, inner),) = args.items()
            if key not in props and isinstance(inner, Mapping) and key.lower() in _INPUT_KEYS:
                self.fb.append("input_unwrapped")
                return dict(inner)
        return args

    def _rename_keys(self, args: dict[str, Any], props: Mapping[str, Any]) -> dict[str, Any]:
        if not props or all(k in props for k in args):
            return args
        lookup = {normalize_tool_name(p): p for p in props}
        renamed: dict[str, Any] = {}
        changed = False
        for key, val in args.items():
            target = key if key in props else lookup.get(normalize_tool_name(key), key)
            changed |= target != key
            renamed[target] = val
        if changed:
            self.fb.append("input_keys_renamed")
        return renamed

    def _coerce(self, args: dict[str, Any], props: Mapping[str, Any]) -> dict[str, Any]:
        changed = False
        out: dict[str, Any] = {}
        for key, val in args.items():
            schema = props.get(key)
            new = _coerce_value(val, schema) if isinstance(schema, Mapping) else val
            changed |= new is not val and new != val
            out[key] = new
        if changed:
            self.fb.append("input_coerced")
        return out

    # -- JSON form -----------------------------------------------------------------------

    def _json_form(self, text: str, segments: list[_Segment]) -> list[pb.ReactStep] | None:
        _, fenced = _strip_fences(text)
        candidates = _json_objects(text, self.fb)
        if not candidates:
            return None
        steps: list[tuple[str, Any, Any, str | None]] = []  # (kind, name, input, thought)
        for obj, _start, _end in candidates:
            shape = _json_shape(obj)
            if shape is not None:
                steps.append(shape)
        if not steps:
            return None
        if fenced:
            self.fb.append("stripped_fence")
        outside = text
        for _obj, start, end in candidates:
            outside = outside.replace(text[start:end], " ")
        outside = re.sub(r"```[A-Za-z0-9_+-]*", " ", outside).strip()
        if outside:
            self.fb.append("json_with_chatter")
            for seg in segments:
                if seg.kind == "thought" and seg.content and not seg.content.startswith("{"):
                    self.thoughts.append(_first_line_block(seg.content))
        actions = [s for s in steps if s[0] == "action"]
        if len(actions) > 1:
            self.fb.append("multiple_blocks")
        kind, name, raw_input, thought = steps[0]
        if thought:
            self.thoughts.append(str(thought).strip())
        if kind == "final":
            if len(steps) > 1 and actions:
                self.fb.append("both_action_and_final")
            return self._final(_clean_final(_as_text(raw_input)))
        norm = normalize_tool_name(str(name))
        if norm.replace("_", "") in _FINAL_TOOL_NAMES and self.tools.get(str(name)) is None:
            self.fb.append("final_answer_as_action")
            value = raw_input
            if isinstance(value, Mapping) and len(value) == 1:
                value = next(iter(value.values()))
            return self._final(_clean_final(_as_text(value)))
        if norm in _NO_TOOL_NAMES:
            raise _ParseFailure(
                "no_tool", f"Action {name!r} is not a tool; give a Final Answer instead."
            )
        spec = self._resolve_tool(str(name))
        if spec is None:
            raise self._unknown_tool(str(name))
        if isinstance(raw_input, str) and raw_input.strip()[:1] in "{[":
            decoded = _loads_loose(raw_input.strip(), self.fb, trailing_ok=True)
            if decoded is not None:
                self.fb.append("arguments_as_string")
                raw_input = decoded
        return self._action(spec, self._arguments(spec, raw_input))


# -- module helpers ----------------------------------------------------------------------


def _drop_marks_inside_json(
    text: str, marks: list[tuple[int, int, str, bool]]
) -> list[tuple[int, int, str, bool]]:
    """Drop label-like text inside a JSON value that follows a label
    (``Action Input: {"text": "Action: buy milk"}`` has one label, not two)."""
    kept: list[tuple[int, int, str, bool]] = []
    skip_until = -1
    for mark in marks:
        start, end, kind, _ = mark
        if start < skip_until:
            continue
        kept.append(mark)
        if kind in ("input", "action"):
            body = end + (len(text) - end - len(text[end:].lstrip()))
            if text[body : body + 1] in ("{", "["):
                try:
                    _, stop = _DECODER.raw_decode(text, body)
                except ValueError:
                    continue
                skip_until = stop
    return kept


def _strip_fences(text: str) -> tuple[str, bool]:
    """The content of the first fenced block when the text has one (else the text)."""
    if "```" not in text:
        return text, False
    m = _FENCE.search(text)
    if not m:
        return text.replace("```", ""), True
    return m.group(2).strip(), True


def _first_line_block(text: str) -> str:
    return text.split("```", 1)[0].strip()


def _cut_hallucinated_tail(body: str) -> str:
    m = re.search(r"\n[ \t*_]*(?:Observation|Thought|Action)[ \t]*:[ \t]*", body)
    if m and re.match(r"\n[ \t*_]*Observation", body[m.start() :]):
        return body[: m.start()]
    return body


def _clean_final(text: str) -> str:
    text = text.strip()
    if text.startswith("```") and text.endswith("```") and text.count("```") == 2:
        text = _strip_fences(text)[0]
    elif text.endswith("```") and text.count("```") % 2 == 1:
        text = text[:-3]
    text = text.strip().strip("*_").strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            decoded = json.loads(text)
            if isinstance(decoded, str):
                text = decoded
        except ValueError:
            pass
    return text.strip()


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, default=str)


def _loads_loose(text: str, fb: list[str], *, trailing_ok: bool = False) -> Any:
    """JSON, or JSON with trailing text, or repaired JSON; None if nothing works."""
    decoder = _DECODER
    try:
        value, end = decoder.raw_decode(text)
        if end == len(text) or not text[end:].strip():
            return value
        if trailing_ok:
            fb.append("input_trailing_text")
            return value
    except ValueError:
        pass
    span = _balanced(text, 0) if text[:1] in "{[" else None
    candidate = text[:span] if span else text
    repaired = _repair_json(candidate)
    if repaired is not None:
        fb.append("json_repaired")
        return repaired
    return None


def _balanced(text: str, start: int) -> int | None:
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


def _repair_json(text: str) -> Any:
    try:
        value = ast.literal_eval(text)
        if isinstance(value, dict | list):
            return _jsonable(value)
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
        return _DECODER.decode(fixed)
    except ValueError:
        pass
    try:
        value = ast.literal_eval(re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", fixed)))
        return _jsonable(value) if isinstance(value, dict | list) else None
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def _json_objects(text: str, fb: list[str]) -> list[tuple[Any, int, int]]:
    """Top-level JSON objects found in ``text``: (value, start, end)."""
    found: list[tuple[Any, int, int]] = []
    decoder = _DECODER
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
            end_opt = _balanced(text, start)
            if end_opt is None:
                pos = start + 1
                continue
            repaired = _repair_json(text[start:end_opt])
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


def _get(obj: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[bool, Any]:
    lowered = {str(k).lower().replace(" ", "_"): v for k, v in obj.items()}
    for key in keys:
        if key in lowered:
            return True, lowered[key]
    return False, None


def _json_shape(obj: Mapping[str, Any]) -> tuple[str, Any, Any, str | None] | None:
    """Classify a JSON object: ("action", name, input, thought) or ("final", None, text, ...)."""
    _, thought = _get(obj, _THOUGHT_KEYS)
    thought_text = thought if isinstance(thought, str) else None
    calls = obj.get("tool_calls")
    if isinstance(calls, list) and calls and isinstance(calls[0], Mapping):
        inner = _json_shape(calls[0])
        if inner is not None:
            return inner[0], inner[1], inner[2], thought_text or inner[3]
    has_fn, fn = _get(obj, ("function",))
    if has_fn and isinstance(fn, Mapping):
        name = fn.get("name")
        if isinstance(name, str):
            return "action", name, fn.get("arguments", fn.get("parameters", {})), thought_text
    has_action, action = _get(obj, _ACTION_KEYS)
    if has_action and isinstance(action, str) and action.strip():
        _, raw_input = _get(obj, _INPUT_KEYS)
        if normalize_tool_name(action) in ("final_answer", "final", "finish", "answer"):
            return "final", None, raw_input, thought_text
        return "action", action, raw_input, thought_text
    if has_action and isinstance(action, Mapping):
        inner = _json_shape(action)
        if inner is not None:
            return inner[0], inner[1], inner[2], thought_text or inner[3]
    has_final, final = _get(obj, _FINAL_KEYS)
    if has_final and final is not None:
        return "final", None, final, thought_text
    return None


def _key_values(text: str, props: Mapping[str, Any]) -> dict[str, Any] | None:
    """``key: value`` lines (or ``k=v, k2=v2``) whose keys are the tool's arguments."""
    names = {normalize_tool_name(p): p for p in props}
    if not names:
        return None
    lines = [line for line in text.split("\n") if line.strip()]
    result: dict[str, Any] = {}
    if len(lines) == 1 and text.count("=") >= 2:
        pairs = _KV_PAIR.findall(text)
        if pairs and all(normalize_tool_name(k) in names for k, _ in pairs):
            return {names[normalize_tool_name(k)]: _scalar(v) for k, v in pairs}
    if lines and all(_KV_LINE.match(line) for line in lines):
        for line in lines:
            m = _KV_LINE.match(line)
            assert m is not None
            key = names.get(normalize_tool_name(m.group(1)))
            if key is None:
                return None
            result[key] = _scalar(m.group(2))
        return result
    if len(lines) == 1 and "=" in text:
        pairs = _KV_PAIR.findall(text)
        if pairs and all(normalize_tool_name(k) in names for k, _ in pairs):
            covered = sum(len(k) + len(v) + 1 for k, v in pairs)
            if covered >= len(re.sub(r"[\s,]", "", text)) * 0.8:
                return {names[normalize_tool_name(k)]: _scalar(v) for k, v in pairs}
    return None


def _scalar(raw: str) -> Any:
    text = raw.strip().rstrip(",").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        return text[1:-1]
    try:
        return json.loads(text)
    except ValueError:
        return text


def _single_target(props: Mapping[str, Any], required: list[str]) -> str | None:
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


def _coerce_value(value: Any, schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type")
    if isinstance(kind, list):
        if any(_type_ok(value, k) for k in kind):
            return value
        kind = next((k for k in kind if k != "null"), None)
    if kind is None or _type_ok(value, kind):
        if kind == "string" and isinstance(value, str) and "enum" in schema:
            return _enum_match(value, schema["enum"])
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


def _enum_match(value: str, options: Any) -> Any:
    if not isinstance(options, list) or value in options:
        return value
    low = value.strip().lower()
    for option in options:
        if isinstance(option, str) and option.lower() == low:
            return option
    return value


def _type_ok(value: Any, kind: str) -> bool:
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
