"""Reading the text protocol: the labels (``Thought:``, ``Action:``, ``Action Input:``,
``Observation:``, ``Final Answer:``) in their many spellings, fences, ``<think>`` blocks,
and cleaning a final answer."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from react_kernel.parser.loose_json import DECODER

LABEL_NAMES = (
    r"(?P<label>thought|thinking|reasoning|action[ \t_]*input|tool[ \t_]*input|action|"
    r"observation|final[ \t_]*answer|answer)"
)
LINE_LABEL = re.compile(
    r"^[ \t>*_#\-]*(?:\d+[.)][ \t]*)?"
    + LABEL_NAMES
    + r"(?:[ \t]*\d+)?[ \t]*[*_]*[ \t]*:[*_]*[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
THINK = re.compile(r"<(think|thinking|reasoning)>(.*?)</\1>", re.IGNORECASE | re.DOTALL)
FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)


def label_kind(raw: str) -> str:
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
class Segment:
    kind: str
    start: int
    content: str
    line_start: bool


def drop_marks_inside_json(
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
                    _, stop = DECODER.raw_decode(text, body)
                except ValueError:
                    continue
                skip_until = stop
    return kept


def strip_fences(text: str) -> tuple[str, bool]:
    """The content of the first fenced block when the text has one (else the text)."""
    if "```" not in text:
        return text, False
    m = FENCE.search(text)
    if not m or not m.group(2).strip():  # a bare or closing fence: drop the fence marks
        return text.replace("```", "").strip(), True
    return m.group(2).strip(), True


def first_line_block(text: str) -> str:
    return text.split("```", 1)[0].strip()


def cut_hallucinated_tail(body: str) -> str:
    m = re.search(r"\n[ \t*_]*(?:Observation|Thought|Action)[ \t]*:[ \t]*", body)
    if m and re.match(r"\n[ \t*_]*Observation", body[m.start() :]):
        return body[: m.start()]
    return body


def clean_final(text: str) -> str:
    text = text.strip()
    if text.startswith("```") and text.endswith("```") and text.count("```") == 2:
        text = strip_fences(text)[0]
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


def as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False, default=str)
