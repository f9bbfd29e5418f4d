"""A device declares ``water_plants(plant, ml)``, a tool the cloud has never heard of, and
the cloud plans with it (planner backend): from the device's proposed call, or by the
tool's examples without one; the device runs it, the cloud checks its observation against
the declared schema, and the receipt lists it. Real gRPC servers on 127.0.0.1."""

from __future__ import annotations

import uuid
from typing import Any

import grpc
import pytest

from edge_agent.cloud_link import CloudLink, CloudRequestError
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel.steps import from_struct
from tests.cloud.water_plants import QUERY, Garden, declaration, proposal


def converse(
    cloud: Any,
    garden: Garden,
    query: str = QUERY,
    declared: list[pb.ToolDeclaration] | None = None,
    proposals: list[pb.ProposedCall] | None = None,
) -> tuple[list[pb.ReactStep], pb.DecisionReceipt | None]:
    """One Converse through the Python device's link; its steps and the receipt."""
    with CloudLink(cloud.target, deadline_s=20, retries=0) as link:
        steps = list(
            link.run(
                query,
                session_id=uuid.uuid4().hex,
                trace_id=uuid.uuid4().hex,
                run_device_tool=garden,
                declared_tools=[declaration()] if declared is None else declared,
                proposed_calls=proposals or [],
            )
        )
        return steps, link.last_receipt


def actions(steps: list[pb.ReactStep]) -> list[tuple[str, dict[str, Any]]]:
    return [(s.tool, from_struct(s.arguments)) for s in steps if s.step_type == pb.STEP_TYPE_ACTION]


def assert_watered_and_weather(steps: list[pb.ReactStep], receipt: Any, garden: Garden) -> None:
    assert actions(steps) == [
        ("water_plants", {"plant": "fern", "ml": 200}),
        ("get_weather", {"city": "oslo", "day": "today"}),
    ]
    assert garden.watered == [{"plant": "fern", "ml": 200}]
    (watering,) = garden.actions
    assert watering.executor == pb.ORIGIN_EDGE
    final = steps[-1]
    assert final.step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert "watered the fern with 200 ml" in final.content and "Oslo" in final.content
    assert receipt is not None and receipt.receipt_id == final.receipt_id
    assert [e.tool for e in receipt.evidence] == ["water_plants", "get_weather"]


def test_planned_from_the_devices_proposed_call(cloud: Any) -> None:
    garden = Garden()
    steps, receipt = converse(cloud, garden, proposals=[proposal()])
    assert_watered_and_weather(steps, receipt, garden)


def test_planned_by_the_examples_without_a_proposed_call(cloud: Any) -> None:
    garden = Garden()
    steps, receipt = converse(cloud, garden)
    assert_watered_and_weather(steps, receipt, garden)


@pytest.mark.parametrize(
    "bad",
    [
        proposal(span="water the basil with 200 ml"),  # words not in the query
        proposal(plant="basil", ml=200),  # an argument the person did not say
        proposal(plant="fern", ml=5000),  # over the declared maximum
        proposal(plant="fern", ml="lots"),  # not the declared type
    ],
)
def test_a_bad_proposal_is_ignored_never_run(cloud: Any, bad: pb.ProposedCall) -> None:
    garden = Garden()
    steps, receipt = converse(cloud, garden, proposals=[bad])
    # Ignored: the clause is read by the tool's examples instead, as the person said it.
    assert_watered_and_weather(steps, receipt, garden)


def test_a_bad_observation_is_refused_and_not_evidence(cloud: Any) -> None:
    garden = Garden(observation={"plant": 7})
    steps, receipt = converse(cloud, garden, proposals=[proposal()])
    refused = [s for s in steps if s.metadata.get("observation_refused") == "true"]
    assert len(refused) == 1 and refused[0].tool == "water_plants"
    assert "'ml' is required" in refused[0].content
    assert receipt is not None
    assert [e.tool for e in receipt.evidence] == ["get_weather"]
    assert "did not work" in steps[-1].content


def test_approval_and_side_effect_flags_reach_the_device(cloud: Any) -> None:
    garden = Garden()
    converse(cloud, garden, declared=[declaration(needs_approval=True)], proposals=[proposal()])
    (watering,) = garden.actions
    assert watering.requires_approval
    assert watering.idempotency_key  # a side effect: replayed, never repeated, on a retry


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        ("water the tomatoes and tell me the weather in Oslo", "'ml'"),  # no amount said
        ("remind me to water the fern", "or for my"),  # a note of mine, or your tool?
    ],
)
def test_what_cannot_be_told_is_declined_not_guessed(cloud: Any, query: str, kind: str) -> None:
    garden = Garden()
    steps, _ = converse(cloud, garden, query=query)
    assert actions(steps) == [] and garden.watered == []
    assert kind in steps[-1].content


def test_a_query_with_no_declared_part_is_planned_as_always(cloud: Any) -> None:
    garden = Garden()
    steps, _ = converse(cloud, garden, query="weather in Oslo and Paris")
    assert [tool for tool, _ in actions(steps)] == ["get_weather", "get_weather"]
    assert garden.actions == []


def test_a_malformed_declaration_is_invalid_argument_on_both_calls(cloud: Any) -> None:
    with pytest.raises(CloudRequestError) as caught:
        converse(cloud, Garden(), declared=[declaration(name="get_weather")])
    assert caught.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "declared tool 'get_weather'" in str(caught.value)
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        request = pb.ReasonRequest(
            session_id=uuid.uuid4().hex, query=QUERY, declared_tools=[declaration(name="X")]
        )
        with pytest.raises(grpc.RpcError) as reason:
            list(stub.Reason(request, timeout=10))
    assert reason.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "lowercase letters" in str(reason.value.details())


def test_list_tools_lists_declared_tools_after_the_device_tools(cloud: Any) -> None:
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        tools = stub.ListTools(
            pb.ListToolsRequest(declared_tools=[declaration(needs_approval=True)]), timeout=10
        ).tools
        with pytest.raises(grpc.RpcError) as caught:
            stub.ListTools(
                pb.ListToolsRequest(declared_tools=[declaration(name="add_note")]), timeout=10
            )
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert tools[-1].name == "water_plants"
    assert tools[-1].declared and tools[-1].executor == pb.ORIGIN_EDGE
    assert tools[-1].side_effects and tools[-1].requires_approval
    assert from_struct(tools[-1].observation_schema)["required"] == ["plant", "ml"]
    assert not any(t.declared for t in tools[:-1])
    assert [t.executor for t in tools[:-1]] == sorted(
        (t.executor for t in tools[:-1]), key=lambda e: e != pb.ORIGIN_CLOUD
    )


def _proposed(tool: str, span: str, **arguments: Any) -> pb.ProposedCall:
    call = pb.ProposedCall(tool=tool, span=span, confidence=0.9)
    call.arguments.update(arguments)
    return call


class Home(Garden):
    """A device with lights and timers: answers every device action with OK."""

    def __call__(self, action: pb.ReactStep) -> pb.ReactStep:
        self.actions.append(action)
        step = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION)
        if action.tool == "device_control":
            step.observation.update({"device": "light", "state": "on"})
        else:
            step.observation.update({"timer_id": "t1", "seconds": 300, "label": ""})
        return step


def test_proposals_covering_every_request_are_planned_as_read(cloud: Any) -> None:
    # The device's reading (no room named: the cloud's own reading would name the kitchen)
    # is planned as it is when it covers the whole query: no second parse.
    query = "turn on the kitchen light and set a timer for 5 minutes"
    proposals = [
        _proposed("device_control", "turn on the kitchen light", device="light", action="on"),
        _proposed("set_timer", "set a timer for 5 minutes", seconds=300),
    ]
    steps, _ = converse(cloud, Home(), query=query, declared=[], proposals=proposals)
    assert actions(steps) == [
        ("device_control", {"device": "light", "action": "on"}),
        ("set_timer", {"seconds": 300}),
    ]
    alone, _ = converse(cloud, Home(), query=query, declared=[])
    assert actions(alone)[0][1]["room"] == "kitchen"


def test_proposals_covering_part_of_the_query_leave_it_to_the_cloud(cloud: Any) -> None:
    query = "weather in Paris and Berlin"
    proposals = [_proposed("get_weather", "weather in Paris", city="rome", day="today")]
    steps, _ = converse(cloud, Home(), query=query, declared=[], proposals=proposals)
    assert [a["city"] for _, a in actions(steps)] == ["paris", "berlin"]


def test_a_proposal_failing_the_plan_check_is_ignored(cloud: Any) -> None:
    query = "add a note soak ohdydzxtqd"
    proposals = [_proposed("add_note", query, text="soak")]
    steps, _ = converse(cloud, Home(), query=query, declared=[], proposals=proposals)
    assert all(a.get("text") != "soak" for _, a in actions(steps))


def test_a_declaration_is_the_sessions_alone(cloud: Any) -> None:
    converse(cloud, Garden(), proposals=[proposal()])  # declared in an earlier session
    garden = Garden()
    steps, _ = converse(cloud, garden, declared=[], proposals=[proposal()])
    assert garden.actions == []
    assert "water_plants" not in [tool for tool, _ in actions(steps)]
    # The same name declared otherwise (any observation accepted) is checked as declared.
    lenient = Garden(observation={"plant": 7})
    steps, receipt = converse(cloud, lenient, declared=[declaration(output_schema={})])
    assert not [s for s in steps if s.metadata.get("observation_refused")]
    assert receipt is not None and "water_plants" in [e.tool for e in receipt.evidence]
