"""`cloud-agent parse`'s function: run_parse."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from cloud_agent.parse_command import BUILTIN_TOOL_SCHEMAS, run_parse


def call(reply: str, *, json_output: bool, tools_path: str | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run_parse(reply, json_output=json_output, tools_path=tools_path, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_json_output_is_one_react_step_line() -> None:
    code, out, err = call("Action: Get Weather\nAction Input: city: paris", json_output=True)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 1
    step = json.loads(lines[0])
    assert step["stepType"] == "STEP_TYPE_ACTION" and step["tool"] == "get_weather"
    assert step["arguments"] == {"city": "paris"}
    assert step["metadata"]["parser_fallbacks"] == "tool_name_normalized,input_key_value"


def test_readable_output() -> None:
    code, out, _ = call("Thought: easy\nFinal Answer: Hello\nthere", json_output=False)
    assert code == 0
    assert "THOUGHT" in out and "FINAL_ANSWER" in out and "Hello" in out
    assert out.rstrip().endswith("fallbacks: none")


def test_unusable_reply_prints_the_error_step_and_fails() -> None:
    code, out, err = call("Action: launch_rocket\nAction Input: {}", json_output=True)
    assert code == 1
    assert json.loads(out)["stepType"] == "STEP_TYPE_ERROR"
    assert err.count("\n") == 1 and "unknown_tool" in err


def test_tools_file(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(
        json.dumps(
            [
                {
                    "name": "lookup_order",
                    "description": "Find an order.",
                    "input_schema": {
                        "type": "object",
                        "properties": {"order_id": {"type": "string"}},
                        "required": ["order_id"],
                    },
                }
            ]
        )
    )
    code, out, _ = call(
        "Action: lookup order\nAction Input: A-17", json_output=True, tools_path=str(path)
    )
    assert code == 0 and json.loads(out)["arguments"] == {"order_id": "A-17"}
    code, _, _ = call(
        "Action: calculator\nAction Input: 1+1", json_output=True, tools_path=str(path)
    )
    assert code == 1  # the built-in tools are not in that file


@pytest.mark.parametrize(
    "content",
    [
        None,
        "not json",
        "[]",
        '{"a": 1}',
        '[{"description": "no name"}]',
        '[{"name": "x", "input_schema": 3}]',
    ],
)
def test_bad_tools_file(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "tools.json"
    if content is not None:
        path.write_text(content)
    code, out, err = call("Final Answer: x", json_output=True, tools_path=str(path))
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_builtin_tools_are_the_edge_tools() -> None:
    assert [t["name"] for t in BUILTIN_TOOL_SCHEMAS] == [
        "calculator",
        "unit_convert",
        "get_weather",
        "device_control",
        "set_timer",
        "add_note",
        "search_notes",
        "remove_note",
        "device_status",
        "list_timers",
        "cancel_timer",
        "clear_list",
        "world_clock",
    ]
