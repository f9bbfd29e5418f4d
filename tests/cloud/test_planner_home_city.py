"""The cloud planner and the device's home city: a request that names no place and
carries none is about the home city, when the server can tell it (issue 12)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cloud_agent.backends import build_reasoner
from cloud_agent.config import CloudConfig
from cloud_agent.handler import RequestHandler
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.reasoner import PlannerReasoner
from cloud_agent.service import CloudServer
from edge_agent.cli import app as edge_app
from edgeloop.transport.auth import Principal
from edgeloop.transport.loop import EventLoopThread
from edgeloop.v1 import agent_pb2 as pb
from react_kernel.steps import from_struct
from understanding.settings import Settings

OSLO = Settings(home_city="oslo")


def calls(query: str, home: Settings | None) -> list[tuple[str, dict[str, object]]]:
    return [(c.tool, c.args) for c in make_plan(query, home=home).calls]


def test_a_part_naming_no_place_is_the_home_city() -> None:
    assert calls("convert 5 km to miles and what's the weather tomorrow", OSLO) == [
        ("unit_convert", {"value": 5, "from_unit": "km", "to_unit": "mi"}),
        ("get_weather", {"city": "oslo", "day": "tomorrow"}),
    ]
    # A place said after the request is still the request's ("the time and weather in
    # tokyo"), home or not.
    assert calls("what's the weather and the time in tokyo", OSLO) == [
        ("get_weather", {"city": "tokyo", "day": "today"}),
        ("world_clock", {"city": "tokyo"}),
    ]


def test_a_place_carried_over_wins_over_home() -> None:
    assert calls("weather in rome today and tomorrow", OSLO) == [
        ("get_weather", {"city": "rome", "day": "today"}),
        ("get_weather", {"city": "rome", "day": "tomorrow"}),
    ]


def test_without_a_home_a_request_naming_no_place_is_not_guessed() -> None:
    plan = make_plan("what's the weather", home=None)
    assert plan.calls == [] and plan.refusal is not None


def test_plans_for_two_homes_are_cached_apart() -> None:
    planner = PlannerReasoner()
    oslo, lima = (
        planner.plan("what's the weather", "oslo"),
        planner.plan("what's the weather", "lima"),
    )
    assert [c.args["city"] for c in oslo.calls] == ["oslo"]
    assert [c.args["city"] for c in lima.calls] == ["lima"]


@pytest.fixture
def handler() -> Iterator[RequestHandler]:
    config = CloudConfig(port=0)
    h = RequestHandler(config, build_reasoner(config))
    yield h
    h.close()


def test_the_handler_passes_the_callers_home_city_to_the_planner(handler: RequestHandler) -> None:
    handler.home_city_of = lambda principal: "oslo" if principal.user_id == "ana" else None

    async def actions(principal: Principal) -> list[tuple[str, dict[str, object]]]:
        request = pb.ReasonRequest(session_id=f"s-{principal.user_id}", query="what's the weather")
        steps = [e.step async for e in handler.run(principal, request, trace_id="t") if e.step]
        return [
            (s.tool, from_struct(s.arguments)) for s in steps if s.step_type == pb.STEP_TYPE_ACTION
        ]

    assert asyncio.run(actions(Principal("ana-phone", "ana"))) == [
        ("get_weather", {"city": "oslo", "day": "today"})
    ]
    assert asyncio.run(actions(Principal("bo-phone", "bo"))) == []


def test_the_server_reads_the_home_city_the_device_synced(tmp_path: Path) -> None:
    """`edge-agent config set home_city` on the device, `edge-agent sync`, and the cloud
    plans "what's the weather" for that city; a user with no memory here gets none (and
    no store is created for the asking)."""
    token = "s3cret-phone"
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"tokens": {token: {"device_id": "phone", "user_id": "ana"}}}))
    memory_dir = tmp_path / "cloud"
    device_db = str(tmp_path / "phone.db")
    runner = CliRunner()
    loop = EventLoopThread()
    server = CloudServer(CloudConfig(port=0, memory_dir=str(memory_dir), tokens_file=str(tokens)))
    port = loop.run(server.start())
    try:
        home_city_of = server.handler.home_city_of
        assert home_city_of is not None
        assert home_city_of(Principal("phone", "ana")) is None
        assert not list(memory_dir.glob("*.db"))
        setting = runner.invoke(
            edge_app, ["config", "set", "home_city", "Oslo", "--memory", device_db]
        )
        assert setting.exit_code == 0, setting.output
        synced = runner.invoke(
            edge_app,
            ["sync", "--cloud", f"127.0.0.1:{port}", "--memory", device_db, "--token", token],
        )
        assert synced.exit_code == 0, synced.output
        assert home_city_of(Principal("phone", "ana")) == "oslo"
        request = pb.ReasonRequest(session_id="s-ana", query="what's the weather")

        async def actions() -> list[tuple[str, dict[str, object]]]:
            events = server.handler.run(Principal("phone", "ana"), request, trace_id="t")
            steps = [e.step async for e in events if e.step]
            return [
                (s.tool, from_struct(s.arguments))
                for s in steps
                if s.step_type == pb.STEP_TYPE_ACTION
            ]

        assert loop.run(actions()) == [("get_weather", {"city": "oslo", "day": "today"})]
    finally:
        loop.run(server.stop(0.5))
        loop.close()
