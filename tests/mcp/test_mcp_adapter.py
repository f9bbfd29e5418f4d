"""The MCP adapter (understanding.tools.mcp_servers) against a real MCP server over stdio:
names, schemas and flags of the listed tools, calls through the kernel's executor, and the
ways a server goes wrong (an error result, a timeout, a crash, a failed start)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgeloop.v1 import agent_pb2 as pb
from react_kernel import ToolExecutor, ToolRegistry
from react_kernel.tools import normalize_tool_name
from tests.mcp.conftest import NEEDS_SDK, garden_command
from understanding.tools.mcp_servers import (
    McpServer,
    McpServerError,
    McpToolError,
    McpTools,
    observation_of,
    server_command,
    tool_name,
)

pytest.importorskip("mcp", reason=NEEDS_SDK)


NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("garden=python server.py", "garden"),
        ("python tests/mcp/garden_server.py --log x", "garden"),
        ("python3 -m mcp_server_time --local-timezone=Europe/Oslo", "time"),
        ("npx -y @modelcontextprotocol/server-filesystem /tmp", "filesystem"),
        ("npx -y @playwright/mcp@latest", "playwright"),
        ("uvx mcp-server-fetch", "fetch"),
        ("docker run -i --rm mcp/fetch", "fetch"),
        ("node /srv/weather/build/index.js", "weather"),
        ("/usr/local/bin/kiosk-tools", "kiosk_tools"),
        ("'my server' --flag", "my"),
    ],
)
def test_the_server_is_named_after_what_it_runs(command: str, name: str) -> None:
    assert server_command(command)[0] == name


@pytest.mark.parametrize("command", ["", "   ", "x='unbalanced", "=python server.py", "9=cmd"])
def test_a_command_that_cannot_run_is_refused_in_one_line(command: str) -> None:
    with pytest.raises(McpServerError) as raised:
        server_command(command)
    assert "\n" not in str(raised.value)


@given(st.text(max_size=80))
def test_any_command_line_gives_a_name_and_a_program_or_one_error(text: str) -> None:
    try:
        name, argv = server_command(text)
    except McpServerError as exc:
        assert "\n" not in str(exc).replace(repr(text), "")
        return
    assert re.fullmatch(r"[a-z][a-z0-9_]{0,23}", name), name
    assert argv and all(isinstance(arg, str) for arg in argv)


@given(st.text(max_size=40), st.text(max_size=120))
def test_every_tool_name_is_a_kernel_name(server: str, tool: str) -> None:
    name = tool_name(server, tool)
    assert NAME.match(name), name
    assert normalize_tool_name(name) == name  # the registry and the router take it as is


def test_long_names_stay_distinct() -> None:
    a, b = tool_name("garden", "x" * 70 + "a"), tool_name("garden", "x" * 70 + "b")
    assert a != b and len(a) == len(b) == 64


@pytest.mark.parametrize(
    ("result", "observation"),
    [
        ({"content": [], "structuredContent": {"ml": 200}}, {"ml": 200}),
        ({"content": [], "structuredContent": [1, 2]}, {"result": [1, 2]}),
        (
            {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"text": "a\nb"},
        ),
        (
            {"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]},
            {"text": "", "attachments": [{"type": "image", "mimeType": "image/png"}]},
        ),
    ],
)
def test_results_become_observations(result: dict[str, Any], observation: dict[str, Any]) -> None:
    assert observation_of(result) == observation


def test_an_error_result_is_an_error_with_the_tools_words() -> None:
    with pytest.raises(McpToolError, match="the fern drowned"):
        observation_of({"content": [{"type": "text", "text": "the fern drowned"}], "isError": True})


def test_the_listed_tools_become_specs(garden: McpTools) -> None:
    specs = {spec.name: spec for spec in garden.specs}
    assert set(specs) == {
        "mcp_garden_plant_info",
        "mcp_garden_water_plant",
        "mcp_garden_shout",
        "mcp_garden_wilt",
        "mcp_garden_doze",
        "mcp_garden_whoami",
        "mcp_garden_collapse",
    }
    water, info = specs["mcp_garden_water_plant"], specs["mcp_garden_plant_info"]
    # Not marked read-only: a side effect that waits for a person, replayed on a retry.
    assert (water.side_effects, water.needs_approval) == (True, True)
    assert water.idempotency_key is not None
    assert (info.side_effects, info.needs_approval) == (False, False)
    assert info.executor == "edge" and info.func is not None
    assert info.input_schema["required"] == ["plant"]
    assert info.output_schema["required"] == ["plant", "ml_per_week"]
    assert specs["mcp_garden_shout"].output_schema == {"type": "object"}  # text only
    assert "How many millilitres" in info.description and "garden" in info.description
    cloud = garden.servers[0].tools[1].spec("cloud")
    assert cloud.executor == "cloud" and not cloud.needs_approval


def test_calls_run_through_the_kernel(garden: McpTools, garden_log: Path) -> None:
    registry = ToolRegistry(garden.specs)
    executor = ToolExecutor(registry)

    def run(tool: str, args: dict[str, Any]) -> Any:
        return executor.call(registry.get(f"mcp_garden_{tool}"), args, session_id="s1")

    info = run("plant_info", {"plant": "fern"})
    assert info.status == pb.OBSERVATION_STATUS_OK, info.error
    assert info.output == {"plant": "fern", "ml_per_week": 200}
    assert run("shout", {"text": "water me"}).output == {"text": "WATER ME!"}
    watered = run("water_plant", {"plant": "basil", "ml": 150})
    assert watered.output == {"plant": "basil", "ml": 150, "total_ml": 150}
    assert garden_log.read_text() == "basil 150\n"
    refused = run("plant_info", {"plant": "rose"})
    assert refused.status == pb.OBSERVATION_STATUS_ERROR
    assert "no plant called 'rose' in the book" in refused.error
    wilted = run("wilt", {})
    assert wilted.status == pb.OBSERVATION_STATUS_ERROR
    assert "mcp tool 'wilt' (garden) reported an error" in wilted.error.lower()
    invalid = run("plant_info", {"plant": 3})  # the schema, checked before the server hears
    assert invalid.status == pb.OBSERVATION_STATUS_ERROR and "invalid input" in invalid.error


def test_a_slow_tool_times_out_with_an_error() -> None:
    with McpTools.start([garden_command()], timeout_s=0.5) as tools:
        doze = next(spec for spec in tools.specs if spec.name == "mcp_garden_doze")
        assert doze.func is not None
        with pytest.raises(McpToolError, match=r"doze.*(timed out|did not answer)"):
            doze.func({"seconds": 30})


def test_a_crashed_server_gives_errors_not_hangs() -> None:
    with McpTools.start([garden_command()]) as tools:
        funcs = {spec.name: spec.func for spec in tools.specs}
        with pytest.raises(McpToolError, match=r"collapse.*failed"):
            funcs["mcp_garden_collapse"]({})  # type: ignore[misc]
        with pytest.raises(McpToolError, match="garden"):
            funcs["mcp_garden_shout"]({"text": "anyone?"})  # type: ignore[misc]


def test_closing_ends_the_server_process() -> None:
    tools = McpTools.start([garden_command()])
    whoami = next(spec.func for spec in tools.specs if spec.name == "mcp_garden_whoami")
    assert whoami is not None
    pid = int(whoami({})["result"])
    os.kill(pid, 0)  # alive
    tools.close()
    tools.close()  # idempotent
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)
    with pytest.raises(McpToolError, match="not running"):
        whoami({})


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("ghost=no-such-program-for-edgeloop --x", "no-such-program-for-edgeloop"),
        (
            f"broken={sys.executable} -c \"import sys; sys.exit('config file missing')\"",
            "config file missing",
        ),
    ],
)
def test_a_server_that_cannot_start_is_one_line(command: str, said: str) -> None:
    with pytest.raises(McpServerError) as raised:
        McpTools.start([command])
    message = str(raised.value)
    assert said in message and "\n" not in message


def test_a_program_that_is_no_mcp_server_times_out_at_start() -> None:
    command = f"{sys.executable} -c \"print('hello'); import time; time.sleep(60)\""
    with pytest.raises(McpServerError, match="did not list its tools within 1 s"):
        McpServer(f"chatty={command}", start_timeout_s=1.0).start()


def test_two_servers_of_one_name_are_refused() -> None:
    with pytest.raises(McpServerError, match="two MCP servers are named 'garden'"):
        McpTools.start([garden_command(), garden_command(name=None)])


def test_without_the_sdk_the_error_says_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # what `import mcp` meets without the extra
    with pytest.raises(McpServerError, match=r"pip install 'edgeloop\[mcp\]'"):
        McpServer(garden_command()).start()
