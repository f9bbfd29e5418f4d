"""`cloud-agent parse`: run one model reply through the kernel's tolerant parser.

Users debug their model's replies with it: the reply comes on standard input (the CLI
reads it), is parsed against the built-in edge tools (or a tools file), and the resulting
ReactStep is printed with the fallbacks that fired.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, TextIO

from google.protobuf import json_format

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolRegistry, ToolRegistryError, ToolSpec, parse_model_output
from understanding.tools import tool_catalogue

__all__ = ["BUILTIN_TOOL_SCHEMAS", "load_tools", "run_parse"]


#: Names, descriptions and input schemas of the built-in edge tools (enough to parse a
#: reply), read from the tools' own specs.
BUILTIN_TOOL_SCHEMAS: list[dict[str, Any]] = tool_catalogue()


def load_tools(path: str | None) -> ToolRegistry:
    """A registry of the tools in a JSON file (a list of {"name", "description",
    "input_schema"}), or of the built-in edge tools when ``path`` is None.

    Raises ValueError with a one-line message when the file is missing or malformed.
    """
    if path is None:
        entries: Any = BUILTIN_TOOL_SCHEMAS
    else:
        try:
            entries = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ValueError(f"cannot read tools file {path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise ValueError(f"tools file {path} is not valid JSON: {exc}") from None
    if isinstance(entries, dict) and isinstance(entries.get("tools"), list):
        entries = entries["tools"]
    if not isinstance(entries, list) or not entries:
        raise ValueError("a tools file must hold a non-empty JSON list of tool objects")
    registry = ToolRegistry()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ValueError(f"tool #{i}: expected an object with a string 'name'")
        schema = entry.get("input_schema", entry.get("parameters", {"type": "object"}))
        if not isinstance(schema, dict):
            raise ValueError(f"tool {entry['name']!r}: input_schema must be an object")
        try:
            registry.register(
                ToolSpec(
                    name=entry["name"],
                    description=str(entry.get("description", "")),
                    input_schema=schema,
                )
            )
        except ToolRegistryError as exc:
            raise ValueError(str(exc)) from None
    return registry


def _render(step: pb.ReactStep, fallbacks: list[str]) -> str:
    kind = pb.StepType.Name(step.step_type).removeprefix("STEP_TYPE_")
    lines = [kind]
    if step.step_type == pb.STEP_TYPE_ACTION:
        args = json_format.MessageToDict(step.arguments)
        lines.append(f"  tool:      {step.tool}")
        lines.append(f"  arguments: {json.dumps(args, ensure_ascii=False)}")
    else:
        body = step.content.replace("\n", "\n             ")
        lines.append(f"  content:   {body}")
    if step.metadata.get("parse_error"):
        lines.append(f"  error:     {step.metadata['parse_error']}")
    return "\n".join(lines)


def run_parse(
    reply: str,
    *,
    json_output: bool,
    tools_path: str | None,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    """Parse ``reply`` and print the result; returns the exit code.

    With ``json_output``: exactly one line, the decisive ReactStep (ACTION, FINAL_ANSWER or
    ERROR) in protobuf's JSON mapping; the fallbacks that fired are in its
    ``metadata.parser_fallbacks`` (comma-separated). Otherwise a readable rendering with a
    ``fallbacks:`` line. Exit codes: 0 an ACTION or FINAL_ANSWER, 1 the reply could not be
    used (the ERROR step is still printed on stdout, a one-line message on stderr), 2 the
    tools file could not be used.
    """
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    try:
        registry = load_tools(tools_path)
    except ValueError as exc:
        print(f"error: {exc}", file=err)
        return 2
    result = parse_model_output(reply, registry)
    step = result.step
    thought = next((s.content for s in result.steps if s.step_type == pb.STEP_TYPE_THOUGHT), None)
    if json_output:
        body = json_format.MessageToDict(step)
        print(json.dumps(body, ensure_ascii=False, separators=(",", ":")), file=out)
    else:
        if thought:
            print("THOUGHT\n  content:   " + thought.replace("\n", "\n             "), file=out)
        print(_render(step, result.fallbacks), file=out)
        print("fallbacks: " + (", ".join(result.fallbacks) or "none"), file=out)
    if not result.ok:
        reason = step.metadata.get("parse_error", "unparseable")
        print(f"error: the reply could not be parsed ({reason})", file=err)
        return 1
    return 0
