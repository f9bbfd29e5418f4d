"""MCP servers as tools of both agents: the device runs the actions the cloud asks for
(approval for what is not read-only), `edge-agent ask --mcp` and edge.toml start them,
and `cloud-agent serve --mcp` offers their read-only tools to its LLM backend, which
calls one for a query asked with `edge-agent ask --cloud`."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct, to_struct
from tests.cloud.openai_stand_in import ScriptedEndpoint, call
from tests.mcp.conftest import NEEDS_SDK, garden_command
from understanding.tools.mcp_servers import McpTools

pytest.importorskip("mcp", reason=NEEDS_SDK)


ROOT = Path(__file__).resolve().parents[2]


def _action(tool: str, args: dict[str, Any], act_id: str) -> pb.ReactStep:
    """A device ACTION as the cloud sends it."""
    step = pb.ReactStep(
        step_type=pb.STEP_TYPE_ACTION,
        session_id="cloud-session-1",
        act_id=act_id,
        tool=tool,
        executor=pb.ORIGIN_EDGE,
        origin=pb.ORIGIN_CLOUD,
    )
    step.arguments.CopyFrom(to_struct(args))
    return step


def test_the_device_runs_mcp_tools_the_cloud_asks_for(tmp_path: Path) -> None:
    from edge_agent.agent import EdgeAgent
    from sync.store import MemoryStore
    from understanding.router import Router

    log = tmp_path / "watered.log"
    with McpTools.start([garden_command(log)]) as tools:
        memory = MemoryStore.device(tmp_path / "edge.db")
        try:
            agent = EdgeAgent(memory, Router.load(tools=tools.specs))
            assert agent.tools.get("mcp_garden_plant_info") is not None

            info = agent.run_device_tool(_action("mcp_garden_plant_info", {"plant": "fern"}, "a1"))
            assert info.status == pb.OBSERVATION_STATUS_OK, info.content
            assert from_struct(info.observation) == {"plant": "fern", "ml_per_week": 200}

            water = _action("mcp_garden_water_plant", {"plant": "fern", "ml": 200}, "a2")
            outcome = agent.run_device_tool(water)  # not read-only: a person decides first
            assert not isinstance(outcome, pb.ReactStep)
            asked = next(outcome)
            assert asked.step_type == pb.STEP_TYPE_APPROVAL_REQUEST
            assert not log.exists()
            agent.approve(water.session_id, water.act_id, True, "yes")
            done = next(outcome)
            assert done.status == pb.OBSERVATION_STATUS_OK, done.content
            assert log.read_text() == "fern 200\n"

            again = _action("mcp_garden_water_plant", {"plant": "fern", "ml": 200}, "a3")
            outcome = agent.run_device_tool(again)
            assert not isinstance(outcome, pb.ReactStep)
            next(outcome)
            agent.approve(again.session_id, again.act_id, False, "no")
            refused = next(outcome)
            assert refused.status == pb.OBSERVATION_STATUS_REJECTED
            assert log.read_text() == "fern 200\n"
        finally:
            memory.close()


def _edge(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "edge_agent", *args],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


def test_edge_agent_ask_starts_and_stops_the_servers(tmp_path: Path) -> None:
    memory = str(tmp_path / "edge.db")
    done = _edge("ask", "what's 2 + 2", "--memory", memory, "--mcp", garden_command())
    assert done.returncode == 0, done.stderr
    assert "4" in done.stdout and done.stderr == ""


def test_a_server_that_cannot_start_fails_the_command_in_one_line(tmp_path: Path) -> None:
    memory = str(tmp_path / "edge.db")
    done = _edge("ask", "what's 2 + 2", "--memory", memory, "--mcp", "ghost=no-such-edgeloop-mcp")
    assert done.returncode == 2
    assert done.stderr.startswith("error: MCP server 'ghost'") and done.stderr.count("\n") == 1


def test_edge_toml_beside_the_memory_lists_servers(tmp_path: Path) -> None:
    memory = str(tmp_path / "edge.db")
    (tmp_path / "edge.toml").write_text('mcp = ["ghost=no-such-edgeloop-mcp"]\n')
    done = _edge("ask", "what's 2 + 2", "--memory", memory)
    assert done.returncode == 2 and "MCP server 'ghost'" in done.stderr
    (tmp_path / "edge.toml").write_text('mcp = "not a list"\nplugins = 1\n')
    done = _edge("ask", "what's 2 + 2", "--memory", memory)
    assert done.returncode == 2 and "unknown keys plugins" in done.stderr


@contextmanager
def _cloud_agent_serve(endpoint: ScriptedEndpoint, *options: str) -> Iterator[str]:
    """`cloud-agent serve` with the openai backend (the scripted endpoint) on a free port."""
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from cloud_agent.cli import main; main()",
            "serve",
            "--port",
            "0",
            "--backend",
            "openai",
            "--openai-base-url",
            endpoint.base_url,
            "--openai-model",
            "test-model",
            *options,
        ],
        cwd=ROOT,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stderr is not None
        said = []
        for line in process.stderr:
            said.append(line)
            if match := re.search(r"serving on 127\.0\.0\.1:(\d+)", line):
                break
        else:
            pytest.fail("cloud-agent serve did not start: " + "".join(said))
        yield f"127.0.0.1:{match.group(1)}"
    finally:
        os.kill(process.pid, signal.SIGTERM)
        process.communicate(timeout=60)


@pytest.fixture
def cloud_with_garden(endpoint: ScriptedEndpoint, tmp_path: Path) -> Iterator[str]:
    """`cloud-agent serve --mcp` with the garden server, on a free port."""
    with _cloud_agent_serve(endpoint, "--mcp", garden_command(tmp_path / "cloud.log")) as target:
        yield target


def test_cloud_agent_serve_mcp_runs_a_tool_for_edge_agent_ask(
    endpoint: ScriptedEndpoint, cloud_with_garden: str, tmp_path: Path
) -> None:
    endpoint.script = [
        {"content": None, "tool_calls": [call("mcp_garden_plant_info", {"plant": "fern"})]},
        {"content": "A fern needs about 200 ml of water a week."},
    ]
    done = _edge(
        "ask",
        "how much water does my fern need",
        "--cloud",
        cloud_with_garden,
        "--memory",
        str(tmp_path / "edge.db"),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    steps = [json.loads(line) for line in done.stdout.splitlines()]
    observed = [s for s in steps if s["stepType"] == "STEP_TYPE_OBSERVATION"]
    assert observed and observed[0]["tool"] == "mcp_garden_plant_info"
    assert observed[0]["observation"] == {"plant": "fern", "ml_per_week": 200}
    assert observed[0]["origin"] == "ORIGIN_CLOUD"
    assert steps[-1]["content"] == "A fern needs about 200 ml of water a week."
    offered = {tool["function"]["name"] for tool in endpoint.requests[0]["tools"]}
    # Read-only tools only: the cloud has nobody to approve the watering can.
    assert "mcp_garden_plant_info" in offered and "mcp_garden_water_plant" not in offered
    answered = [m for m in endpoint.requests[1]["messages"] if m["role"] == "tool"]
    assert "200" in answered[0]["content"]


def test_edge_agent_ask_mcp_runs_the_tools_the_cloud_plans(
    endpoint: ScriptedEndpoint, tmp_path: Path
) -> None:
    """The device declares its MCP tools; the cloud's model plans one of each kind; the
    device runs the read-only one and, with nobody at the terminal, refuses the other."""
    pytest.importorskip("edge_agent.declaring", reason="the device declares its own tools")
    log = tmp_path / "device.log"
    endpoint.script = [
        {"content": None, "tool_calls": [call("mcp_garden_plant_info", {"plant": "fern"})]},
        {
            "content": None,
            "tool_calls": [call("mcp_garden_water_plant", {"plant": "fern", "ml": 200})],
        },
        {"content": "A fern needs 200 ml a week; I could not water it without your yes."},
    ]
    with _cloud_agent_serve(endpoint) as target:
        done = _edge(
            "ask",
            "how much water does my fern need? water it with 200 ml",
            "--cloud",
            target,
            "--memory",
            str(tmp_path / "edge.db"),
            "--mcp",
            garden_command(log),
            "--json",
        )
    assert done.returncode == 0, done.stderr
    steps = [json.loads(line) for line in done.stdout.splitlines()]
    observed = {s["tool"]: s for s in steps if s["stepType"] == "STEP_TYPE_OBSERVATION"}
    info = observed["mcp_garden_plant_info"]
    assert info["origin"] == "ORIGIN_EDGE"
    assert info["observation"] == {"plant": "fern", "ml_per_week": 200}
    asked = [s for s in steps if s["stepType"] == "STEP_TYPE_APPROVAL_REQUEST"]
    assert [s["tool"] for s in asked] == ["mcp_garden_water_plant"]
    assert observed["mcp_garden_water_plant"]["status"] == "OBSERVATION_STATUS_REJECTED"
    assert not log.exists()  # nobody approved: the watering can never moved
    offered = {tool["function"]["name"] for tool in endpoint.requests[0]["tools"]}
    assert {"mcp_garden_plant_info", "mcp_garden_water_plant"} <= offered


@pytest.mark.parametrize("side_effects", [False, True])
def test_the_cloud_lists_its_mcp_tools_and_stops_their_servers(side_effects: bool) -> None:
    import asyncio

    from cloud_agent.config import CloudConfig
    from cloud_agent.service import CloudServer

    config = CloudConfig(port=0, mcp=(garden_command(),), mcp_side_effects=side_effects)

    async def run() -> tuple[dict[str, int], int]:
        cloud = CloudServer(config)
        await cloud.start()
        try:
            schemas = {s.name: s.executor for s in cloud.handler.tool_schemas()}
            whoami = next(t for t in cloud.handler.cloud_tools if t.name == "mcp_garden_whoami")
            assert whoami.func is not None
            pid = int((await asyncio.to_thread(whoami.func, {}))["result"])
        finally:
            await cloud.stop(0)
        return schemas, pid

    schemas, pid = asyncio.run(run())
    assert schemas["mcp_garden_plant_info"] == pb.ORIGIN_CLOUD
    assert ("mcp_garden_water_plant" in schemas) is side_effects
    with pytest.raises(ProcessLookupError):  # stopping the cloud stopped its servers
        os.kill(pid, 0)


def test_the_cloud_config_file_lists_servers(tmp_path: Path) -> None:
    from cloud_agent.config import CloudConfig

    path = tmp_path / "cloud.toml"
    path.write_text('mcp = ["garden=python garden.py"]\nmcp_side_effects = true\n')
    config = CloudConfig.load(path)
    assert config.mcp == ("garden=python garden.py",) and config.mcp_side_effects
    assert CloudConfig.load(path, mcp=("files=npx fs",)).mcp == ("files=npx fs",)
    with pytest.raises(ValueError, match="mcp must be a list"):
        CloudConfig(mcp=("",))


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('mcp = "garden=python garden.py"\n', "mcp must be a list"),
        ("mcp = [1]\n", "mcp must be a list"),
        ('mcp = ["a=b"]\nplugins = []\n', "unknown keys plugins"),
        ("mcp = [\n", "cannot read"),
    ],
)
def test_a_bad_edge_toml_is_one_settings_error(tmp_path: Path, text: str, problem: str) -> None:
    from edge_agent.config_file import ConfigFile, load_config_file
    from understanding.errors import SettingsError

    assert load_config_file(tmp_path) == ConfigFile()  # none: nothing to start
    (tmp_path / "edge.toml").write_text(text)
    with pytest.raises(SettingsError, match=problem):
        load_config_file(tmp_path)
