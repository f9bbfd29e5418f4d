"""One reply, read as the text protocol or as JSON, into the steps it means.

:class:`ReplyParser` finds the labels or the JSON objects, takes the first action (or the
final answer), matches the tool name against the registry and reads its input, recording
each fallback it needs in the list it was given.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.parser.coercion import (
    coerce_value,
    key_values,
    single_target,
)
from react_kernel.parser.loose_json import (
    INPUT_KEYS,
    json_objects,
    json_shape,
    loads_loose,
)
from react_kernel.parser.text import (
    LINE_LABEL,
    THINK,
    Segment,
    as_text,
    clean_final,
    cut_hallucinated_tail,
    drop_marks_inside_json,
    first_line_block,
    label_kind,
    strip_fences,
)
from react_kernel.steps import to_struct
from react_kernel.tools import ToolRegistry, ToolSpec, normalize_tool_name

FINAL_TOOL_NAMES = {"final_answer", "finalanswer", "final", "finish", "answer", "respond"}
NO_TOOL_NAMES = {"none", "n_a", "na", "no_tool", "nothing", "null", "no_action"}


class ParseFailure(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class ReplyParser:
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
                raise ParseFailure("no_action", "The reply has only a thought and no action.")
            raise ParseFailure("empty", "The reply was empty.")
        segments = self._segments(text)
        kinds = {s.kind for s in segments}
        if kinds & {"action", "final", "input"}:
            return self._text_protocol(text, segments)
        json_steps = self._json_form(text, segments)
        if json_steps is not None:
            return json_steps
        if kinds == {"thought"} or (kinds == {"thought", "observation"}):
            raise ParseFailure(
                "no_action", "The reply has a Thought but no Action and no Final Answer."
            )
        if "observation" in kinds and not segments[0].start:
            raise ParseFailure("only_observation", "The reply only repeats an Observation.")
        bare, _ = strip_fences(text)
        if bare.lstrip()[:1] in ("{", "["):
            raise ParseFailure(
                "bad_json",
                "The reply looks like JSON but has no usable 'action' or 'final_answer'.",
            )
        if not re.search(r"\w", bare):
            raise ParseFailure("no_content", "The reply has no readable content.")
        self.fb.append("bare_text_final")
        body = text
        if segments and segments[0].kind == "thought":
            body = text[: segments[0].start].strip() or segments[0].content
        return self._final(clean_final(body))

    # -- helpers shared by both forms ----------------------------------------------------

    def _take_think_blocks(self, text: str) -> str:
        if "<" not in text and "</" not in text:
            return text
        found = THINK.findall(text)
        if found:
            self.fb.append("think_block")
            self.thoughts.extend(body.strip() for _, body in found if body.strip())
            text = THINK.sub("", text).strip()
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
            raise ParseFailure("empty_final", "The Final Answer was empty.")
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

    def _unknown_tool(self, raw_name: str) -> ParseFailure:
        shown = raw_name.strip()[:60]
        available = ", ".join(self.tools.names()) or "(none)"
        return ParseFailure(
            "unknown_tool", f"Unknown tool {shown!r}. Available tools: {available}."
        )

    # -- text protocol -------------------------------------------------------------------

    def _segments(self, text: str) -> list[Segment]:
        marks: list[tuple[int, int, str, bool]] = []
        for m in LINE_LABEL.finditer(text):
            marks.append((m.start(), m.end(), label_kind(m.group("label")), True))
        # Markers count only at the start of a line: "Thought: the Final Answer: needs one
        # more fact" is a thought, not a final answer.
        marks.sort()
        marks = drop_marks_inside_json(text, marks)
        segments: list[Segment] = []
        for i, (start, end, kind, at_line) in enumerate(marks):
            stop = marks[i + 1][0] if i + 1 < len(marks) else len(text)
            segments.append(Segment(kind, start, text[end:stop].strip(), at_line))
        return segments

    def _text_protocol(self, text: str, segments: list[Segment]) -> list[pb.ReactStep]:
        head = text[: segments[0].start].strip()
        if head:
            self.fb.append("leading_chatter")
            self.thoughts.append(strip_fences(head)[0])
        # Cut at the first Observation that follows an action: the model invented it.
        seen_action = False
        kept: list[Segment] = []
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
            body = cut_hallucinated_tail(body)
            return self._final(clean_final(body))
        if not actions:
            raise ParseFailure(
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
            blob, fenced = strip_fences(action_text)
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
        if norm.replace("_", "") in FINAL_TOOL_NAMES and self.tools.get(name) is None:
            self.fb.append("final_answer_as_action")
            payload = input_text if input_text is not None else (inline or rest)
            value = loads_loose(payload.strip(), self.fb) if payload.strip() else None
            if isinstance(value, Mapping):
                value = next(iter(value.values()), "") if len(value) == 1 else json.dumps(value)
            return self._final(clean_final(str(value) if value is not None else payload))
        if norm in NO_TOOL_NAMES:
            raise ParseFailure(
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
                raise ParseFailure(
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
            target = single_target(props, required)
            if target is None:
                if not props:
                    return {}
                raise ParseFailure(
                    "bad_input", f"Could not read the Action Input for {spec.name!r}."
                )
            self.fb.append("input_single_string")
            args = {target: value.strip() if isinstance(value, str) else value}
        return self._coerce(args, props)

    def _input_value(self, raw: str, props: Mapping[str, Any]) -> Any:
        text, fenced = strip_fences(raw.strip())
        if fenced:
            self.fb.append("stripped_fence")
        text = text.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "`":
            text = text.strip("`").strip()
        if text.startswith(("{", "[")):
            value = loads_loose(text, self.fb, trailing_ok=True)
            if value is not None:
                return value
        elif text[:1] == '"' and text[-1:] == '"':
            try:
                return json.loads(text)
            except ValueError:
                return text[1:-1]
        kv = key_values(text, props)
        if kv is not None:
            self.fb.append("input_key_value")
            return kv
        if len(text) >= 2 and text[0] == text[-1] and text[0] == "'":
            text = text[1:-1]
        return text

    def _unwrap(self, args: dict[str, Any], props: Mapping[str, Any]) -> dict[str, Any]:
        if len(args) == 1 and props:
            ((key, inner),) = args.items()
            if key not in props and isinstance(inner, Mapping) and key.lower() in INPUT_KEYS:
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
            new = coerce_value(val, schema) if isinstance(schema, Mapping) else val
            changed |= new is not val and new != val
            out[key] = new
        if changed:
            self.fb.append("input_coerced")
        return out

    # -- JSON form -----------------------------------------------------------------------

    def _json_form(self, text: str, segments: list[Segment]) -> list[pb.ReactStep] | None:
        _, fenced = strip_fences(text)
        candidates = json_objects(text, self.fb)
        if not candidates:
            return None
        steps: list[tuple[str, Any, Any, str | None]] = []  # (kind, name, input, thought)
        for obj, _start, _end in candidates:
            shape = json_shape(obj)
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
                    self.thoughts.append(first_line_block(seg.content))
        actions = [s for s in steps if s[0] == "action"]
        if len(actions) > 1:
            self.fb.append("multiple_blocks")
        kind, name, raw_input, thought = steps[0]
        if thought:
            self.thoughts.append(str(thought).strip())
        if kind == "final":
            if len(steps) > 1 and actions:
                self.fb.append("both_action_and_final")
            return self._final(clean_final(as_text(raw_input)))
        norm = normalize_tool_name(str(name))
        if norm.replace("_", "") in FINAL_TOOL_NAMES and self.tools.get(str(name)) is None:
            self.fb.append("final_answer_as_action")
            value = raw_input
            if isinstance(value, Mapping) and len(value) == 1:
                value = next(iter(value.values()))
            return self._final(clean_final(as_text(value)))
        if norm in NO_TOOL_NAMES:
            raise ParseFailure(
                "no_tool", f"Action {name!r} is not a tool; give a Final Answer instead."
            )
        spec = self._resolve_tool(str(name))
        if spec is None:
            raise self._unknown_tool(str(name))
        if isinstance(raw_input, str) and raw_input.strip().startswith(("{", "[")):
            decoded = loads_loose(raw_input.strip(), self.fb, trailing_ok=True)
            if decoded is not None:
                self.fb.append("arguments_as_string")
                raw_input = decoded
        return self._action(spec, self._arguments(spec, raw_input))
