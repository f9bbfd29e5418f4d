"""The OpenAI-compatible backend plans with a declared tool: offered as a function tool
(native ``tools``) and in the ReAct text, called by a scripted chat server on 127.0.0.1
that answers with a tool call for whichever declared tool it was offered; the device runs
it and the receipt lists it. A call whose arguments the person never said is refused
before it reaches the device."""

from __future__ import annotations

import json
import uuid
from typing import Any

from edge_agent.cloud_link import CloudLink
from edgeloop.v1 import agent_pb2 as pb
from tests.cloud.test_openai_backend import ScriptedEndpoint, call, cloud_for, endpoint
from tests.cloud.water_plants import QUERY, Garden, declaration

__all__ = ["endpoint"]  # the scripted server's fixture, shared


def offered(body: dict[str, Any]) -> dict[str, Any]:
    """The declared tool's function as the request offered it (native ``tools``)."""
    (function,) = [
        t["function"] for t in body.get("tools", []) if t["function"]["name"] == "water_plants"
    ]
    return function


def tools_variant(plant: str = "fern") -> Any:
    """A reply made from the request: a tool call for the declared tool it offers, and the
    weather, as a model with function calling answers."""

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        function = offered(body)
        assert function["parameters"]["required"] == ["plant", "ml"]
        return {
            "content": None,
            "tool_calls": [
                call(function["name"], {"plant": plant, "ml": 200}, "call_w"),
                call("get_weather", {"city": "oslo", "day": "today"}, "call_o"),
            ],
        }

    return reply


def run(cloud: Any, garden: Garden) -> tuple[list[pb.ReactStep], Any]:
    with CloudLink(cloud.target, deadline_s=20, retries=0) as link:
        steps = list(
            link.run(
                QUERY,
                session_id=uuid.uuid4().hex,
                trace_id=uuid.uuid4().hex,
                run_device_tool=garden,
                declared_tools=[declaration()],
            )
        )
        return steps, link.last_receipt


def test_native_tools_variant_calls_the_declared_tool(
    endpoint: ScriptedEndpoint, make_cloud: Any
) -> None:
    endpoint.script = [
        tools_variant(),
        {"content": "I watered the fern with 200 ml. Oslo: -5°C."},
    ]
    cloud = cloud_for(endpoint, make_cloud, fallback=False, tools="native")
    garden = Garden()
    steps, receipt = run(cloud, garden)
    assert garden.watered == [{"plant": "fern", "ml": 200}]
    assert steps[-1].content == "I watered the fern with 200 ml. Oslo: -5°C."
    assert [e.tool for e in receipt.evidence] == ["water_plants", "get_weather"]
    results = [m for m in endpoint.requests[1]["messages"] if m["role"] == "tool"]
    assert any("watered the fern" in m["content"] for m in results)


def test_react_text_offers_the_declared_tool(endpoint: ScriptedEndpoint, make_cloud: Any) -> None:
    action = json.dumps({"plant": "fern", "ml": 200})
    endpoint.script = [
        {"content": f"Thought: water first.\nAction: water_plants\nAction Input: {action}"},
        {"content": "Final Answer: The fern has its 200 ml."},
    ]
    cloud = cloud_for(endpoint, make_cloud, fallback=False, tools="text")
    garden = Garden()
    steps, receipt = run(cloud, garden)
    system = endpoint.requests[0]["messages"][0]["content"]
    assert '"name": "water_plants"' in system
    assert garden.watered == [{"plant": "fern", "ml": 200}]
    assert [e.tool for e in receipt.evidence] == ["water_plants"]
    assert steps[-1].content == "The fern has its 200 ml."


def test_a_call_with_words_the_person_never_said_is_refused(
    endpoint: ScriptedEndpoint, make_cloud: Any
) -> None:
    endpoint.script = [tools_variant(plant="basil"), {"content": "I could not water it."}]
    cloud = cloud_for(endpoint, make_cloud, fallback=False, tools="native")
    garden = Garden()
    steps, receipt = run(cloud, garden)
    assert garden.watered == []
    refused = [s for s in steps if s.metadata.get("refused_tool") == "water_plants"]
    assert refused and "not all in the person's words" in refused[0].content
    assert "water_plants" not in [e.tool for e in receipt.evidence]
