"""The Python device declares its own tools when it goes to the cloud: a ``--tools`` tool
the cloud has never heard of (``water_plants``) is planned by the cloud and run here, and
the device sends its router's reading of each clause as proposed calls."""

from __future__ import annotations

from typing import Any

import pytest

from edge_agent.agent import EdgeAgent
from edge_agent.cloud_link import CloudLink
from edge_agent.declaring import cloud_extras, declared_tools, proposed_calls
from edgeloop.v1 import agent_pb2 as pb
from examples.demo import load_router
from react_kernel.steps import from_struct
from tests.cloud.water_plants import EXAMPLES, INPUT, OUTPUT, QUERY
from understanding.tools.user import device_tool

WATERED: list[dict[str, Any]] = []


def _water(args: dict[str, Any]) -> dict[str, Any]:
    WATERED.append(dict(args))
    return {"plant": args["plant"], "ml": args["ml"]}


@pytest.fixture
def router() -> Any:
    router = load_router()[0]
    router.add_tool(
        device_tool(
            "water_plants",
            "Water one plant with an amount of water in millilitres.",
            INPUT,
            _water,
            output_schema=OUTPUT,
            side_effects=True,
            examples=EXAMPLES,
        )
    )
    WATERED.clear()
    return router


def test_only_the_devices_own_tools_are_declared(router: Any, device_memory: Any) -> None:
    agent = EdgeAgent(device_memory, router)
    (declared,) = declared_tools(agent.tools)
    assert declared.name == "water_plants" and declared.side_effects
    assert list(declared.examples) == list(EXAMPLES)
    assert from_struct(declared.observation_schema) == OUTPUT


def test_the_routers_reading_of_each_clause_is_proposed(router: Any) -> None:
    proposals = proposed_calls(router, QUERY)
    weather = [p for p in proposals if p.tool == "get_weather"]
    assert len(weather) == 1 and weather[0].span == "tell me the weather in Oslo"
    assert from_struct(weather[0].arguments)["city"] == "oslo"
    assert all(p.span in QUERY for p in proposals)
    assert proposed_calls(router, "tell me the weather in Oslo") == []  # one clause


def test_extras_are_empty_for_a_device_with_built_in_tools_only(device_memory: Any) -> None:
    agent = EdgeAgent(device_memory, load_router()[0])
    assert "declared_tools" not in cloud_extras(agent.tools, agent.router, "what's 2+2")


# Either order: the device's router sees the watering as a request of its own (a command no
# built-in tool does), so it sends the whole query on rather than answering the weather.
REVERSED = "tell me the weather in Oslo and water the fern with 200 ml"


@pytest.mark.parametrize("query", [QUERY, REVERSED])
def test_the_cloud_plans_the_devices_tool_and_the_device_runs_it(
    cloud: Any, device_memory: Any, router: Any, query: str
) -> None:
    WATERED.clear()
    with CloudLink(cloud.target, deadline_s=20, retries=0, device_id="phone") as link:
        agent = EdgeAgent(device_memory, router, cloud=link)
        steps = list(agent.ask(query))
    assert steps[0].metadata["route"] == "cloud"
    assert WATERED == [{"plant": "fern", "ml": 200}]
    ran = sorted(
        s.tool
        for s in steps
        if s.step_type == pb.STEP_TYPE_OBSERVATION and s.status == pb.OBSERVATION_STATUS_OK
    )
    assert ran == ["get_weather", "water_plants"]
    final = steps[-1]
    assert final.step_type == pb.STEP_TYPE_FINAL_ANSWER and final.origin == pb.ORIGIN_CLOUD
    receipt = device_memory.get_receipt(final.receipt_id)
    assert sorted(e.tool for e in receipt.evidence) == ["get_weather", "water_plants"]


def test_the_device_keeps_its_declarations_within_the_bounds() -> None:
    from cloud_agent.declared_tools import check_declarations
    from tests.cloud.water_plants import water_plants_spec

    specs = [
        water_plants_spec(description="d" * 2000, examples=tuple(f"water {i}" for i in range(12))),
        water_plants_spec(name="Water-Plants"),  # an MCP server's name, say
        water_plants_spec(name="big_one", input_schema={"type": "object", "x": "y" * 9000}),
        *[water_plants_spec(name=f"tool_{i}") for i in range(40)],
    ]
    declared = declared_tools(specs)
    assert declared[0].name == "water_plants" and len(declared[0].description) == 1024
    assert len(declared[0].examples) == 8
    assert "Water-Plants" not in [d.name for d in declared]
    assert "big_one" not in [d.name for d in declared]
    assert len(declared) == 32
    assert len(check_declarations(declared)) == 32  # the cloud accepts what the device sends


def test_the_readme_garden_example_runs(
    cloud: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README, "The cloud plans with your tools too": garden.py as printed there, and the
    `edge-agent ask ... --tools garden:TOOLS` line against a cloud on 127.0.0.1."""
    import json
    import re
    from pathlib import Path

    from typer.testing import CliRunner

    from edge_agent.cli import app

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("**The cloud plans with your tools too.**") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    line = re.search(r"^edge-agent ask \"([^\"]+)\" .*--tools garden:TOOLS$", section, re.M)
    assert code is not None and line is not None
    (tmp_path / "garden.py").write_text(code.group(1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    args = ["ask", line.group(1), "--cloud", cloud.target, "--tools", "garden:TOOLS"]
    result = CliRunner().invoke(app, [*args, "--memory", str(tmp_path / "e.db"), "--json"])
    assert result.exit_code == 0, result.output
    steps = [json.loads(text) for text in result.output.splitlines()]
    ran = [s["tool"] for s in steps if s["stepType"] == "STEP_TYPE_OBSERVATION"]
    assert ran == ["get_weather", "water_plants"]
    assert "Done (water plants): ml: 200; plant: fern" in steps[-1]["content"]
