"""What a cold `edge-agent ask` holds in memory: the router's weights stay in a mapped
file, and an everyday ask imports nothing it does not use (bench/edge_bench.py measures
the peak RSS these keep under the 150 MB budget; docs/edge.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import cast

import pytest

from react_kernel.schema_check import surely_valid_schema
from understanding.router import DEFAULT_MODEL_DIR
from understanding.slu.model import MODEL_FILE, WEIGHTS_FILE

# Loaded by none of these asks: the schema validator (the kernel's fast checks answer for
# the built-in tools' arguments), gRPC (only to sync), the trainer's libraries, the HTTP client (no
# forecast service is set up), units (only unit conversions), the web page, the cloud, and
# the MCP SDK with its pydantic (only with --mcp or an edge.toml naming servers).
NOT_IMPORTED = (
    "jsonschema",
    "grpc",
    "torch",
    "onnx",
    "understanding.slu.train",
    "httpx",
    "pint",
    "starlette",
    "jinja2",
    "rich",
    "cloud_agent",
    "mcp",
    "pydantic",
    "understanding.tools.mcp_servers",
)

_ASK = """
import json, sys
from edge_agent import cli
sys.argv = ["edge-agent", "ask", sys.argv[1], "--memory", sys.argv[2]]
try:
    cli.main()
except SystemExit as exc:
    assert not exc.code, exc.code
print()
print(json.dumps(sorted(sys.modules)))
"""


@pytest.mark.parametrize(
    ("query", "answer"),
    [
        ("what's 15% of 80", "12"),
        ("what's the weather in paris tomorrow", "Paris"),
        ("what time is it in tokyo", "Tokyo"),
        ("turn off the kitchen lights", "kitchen"),
        ("set a timer for ten minutes", "10 minutes"),
        ("put eggs on the shopping list", "eggs"),
        ("what's on my shopping list", "shopping list"),
    ],
)
def test_an_everyday_ask_imports_only_what_it_uses(tmp_path: Path, query: str, answer: str) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _ASK, query, str(tmp_path / "edge.db")],
        capture_output=True,
        text=True,
        check=True,
    )
    *said, modules_line = out.stdout.strip().splitlines()
    assert answer in " ".join(said)
    modules = cast(list[str], json.loads(modules_line))
    loaded = {m for m in NOT_IMPORTED for name in modules if name == m or name.startswith(m + ".")}
    assert not loaded, f"{query!r} imported {sorted(loaded)}"


def test_the_shipped_router_keeps_its_weights_in_a_mapped_file() -> None:
    """onnxruntime maps external data instead of copying it onto the heap: a query holds
    only the pages it reads (a few rows of the 11.7 MB word-embedding table)."""
    graph = DEFAULT_MODEL_DIR / MODEL_FILE
    weights = DEFAULT_MODEL_DIR / WEIGHTS_FILE
    hint = "run understanding.slu.train.externalize_weights on the model (docs/edge.md)"
    assert weights.is_file(), hint
    assert graph.stat().st_size < 2_000_000 < weights.stat().st_size, hint


def test_registering_the_built_in_tools_needs_no_jsonschema() -> None:
    """The kernel's pre-check vouches for every built-in schema, so registering the tools
    (every ask does) imports no jsonschema (~6 MB and 60 ms of a cold ask)."""
    from understanding.tools import _NoMemory, builtin_specs

    for spec in builtin_specs(_NoMemory()):  # type: ignore[arg-type]
        for schema in (spec.input_schema, spec.output_schema):
            assert schema is None or surely_valid_schema(schema), spec.name
