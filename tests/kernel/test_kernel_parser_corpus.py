"""Replays tests/kernel/parser_corpus.jsonl: realistic malformed model outputs.

Each line: {"name", "reply", "expect": {"step_type": "ACTION"|"FINAL_ANSWER"|"ERROR",
"tool"?, "arguments"? (compared exactly), "content_contains"?}}. The replies are the
failure shapes reported against LangChain, LlamaIndex and smolagents; the tools are a
snapshot of the built-in edge tools' names and input schemas (``parser_tools.json``, so
the kernel's tests import only the kernel). The corpus is data: other tests (the cloud's,
through a fake OpenAI-compatible server) replay it too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolRegistry, ToolSpec, from_struct, parse_model_output

CORPUS = Path(__file__).with_name("parser_corpus.jsonl")
CASES = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
TOOLS = ToolRegistry(
    ToolSpec(t["name"], t["description"], t["input_schema"])
    for t in json.loads(Path(__file__).with_name("parser_tools.json").read_text("utf-8"))
)


def test_corpus_is_big_and_well_formed() -> None:
    assert len(CASES) >= 40
    assert len({c["name"] for c in CASES}) == len(CASES)
    kinds = {c["expect"]["step_type"] for c in CASES}
    assert kinds == {"ACTION", "FINAL_ANSWER", "ERROR"}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_corpus_case(case: dict[str, Any]) -> None:
    result = parse_model_output(case["reply"], TOOLS)
    step, expect = result.step, case["expect"]
    assert pb.StepType.Name(step.step_type) == "STEP_TYPE_" + expect["step_type"]
    if "tool" in expect:
        assert step.tool == expect["tool"]
    if "arguments" in expect:
        assert from_struct(step.arguments) == expect["arguments"]
    if "content_contains" in expect:
        assert expect["content_contains"] in step.content
