"""Protocol edges of Converse and the tool schemas, as a client in another language meets
them: a real cloud server on 127.0.0.1 and a raw gRPC stub (no CloudLink)."""

from __future__ import annotations

import queue
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from jsonschema import Draft202012Validator

from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

LIGHTS_ON = "turn on the light in the kitchen and tell me the time in Tokyo"


class Outbox:
    """The device's side of a Converse stream: messages go out as the test puts them;
    ``close()`` half-closes."""

    def __init__(self, start: pb.ReasonRequest) -> None:
        self._queue: queue.Queue[pb.ConverseRequest | None] = queue.Queue()
        self._queue.put(pb.ConverseRequest(start=start))

    def send(self, message: pb.ConverseRequest) -> None:
        self._queue.put(message)

    def close(self) -> None:
        self._queue.put(None)

    def __iter__(self) -> Iterator[pb.ConverseRequest]:
        while (message := self._queue.get()) is not None:
            yield message


def converse(cloud: Any, query: str = LIGHTS_ON) -> tuple[Outbox, Any]:
    channel = grpc.insecure_channel(cloud.target)
    stub = pb_grpc.CloudReasonerServiceStub(channel)
    start = pb.ReasonRequest(
        session_id=uuid.uuid4().hex, query=query, device_tools=["device_control"]
    )
    outbox = Outbox(start)
    return outbox, stub.Converse(iter(outbox), timeout=15)


def until_device_action(responses: Any) -> pb.ReactStep:
    for response in responses:
        if response.WhichOneof("event") == "device_action":
            return response.device_action
    raise AssertionError("the cloud never asked the device for an action")


def test_half_close_while_an_action_waits_ends_the_turn_with_an_error(cloud: Any) -> None:
    outbox, responses = converse(cloud)
    action = until_device_action(responses)
    outbox.close()  # half-close without answering
    rest = []
    with pytest.raises(grpc.RpcError) as caught:
        rest.extend(responses)
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert action.act_id in (caught.value.details() or "")
    assert "device_control" in (caught.value.details() or "")
    steps = [r.step for r in rest if r.WhichOneof("event") == "step"]
    assert [s.step_type for s in steps] == [pb.STEP_TYPE_ERROR]
    assert steps[0].stop_reason == pb.STOP_REASON_CANCELED
    assert "closed its stream" in steps[0].content


def test_cancel_while_an_action_waits_ends_the_turn_with_an_error(cloud: Any) -> None:
    outbox, responses = converse(cloud)
    until_device_action(responses)
    outbox.send(pb.ConverseRequest(cancel=pb.CancelSession(reason="user left")))
    outbox.close()
    rest = list(responses)  # ends with status OK: the device asked for it
    steps = [r.step for r in rest if r.WhichOneof("event") == "step"]
    assert [s.step_type for s in steps] == [pb.STEP_TYPE_ERROR]
    assert "user left" in steps[0].content
    assert steps[0].stop_reason == pb.STOP_REASON_CANCELED


def test_a_refused_observation_names_the_field_and_the_type(cloud: Any) -> None:
    outbox, responses = converse(cloud)
    action = until_device_action(responses)
    wrong = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION, act_id=action.act_id)
    wrong.observation.update({"device": "light", "state": {"power": "on"}})
    outbox.send(pb.ConverseRequest(observation=wrong))
    seen = []
    for response in responses:
        seen.append(response)
        if response.WhichOneof("event") == "device_action":  # a second device action
            answer = pb.ReactStep(
                step_type=pb.STEP_TYPE_OBSERVATION, act_id=response.device_action.act_id
            )
            answer.observation.update({"device": "light", "state": "on"})
            outbox.send(pb.ConverseRequest(observation=answer))
    outbox.close()
    notices = [
        r.step for r in seen if r.WhichOneof("event") == "step" and r.step.act_id == action.act_id
    ]
    refusal = [s for s in notices if s.metadata.get("observation_refused") == "true"]
    assert len(refusal) == 1
    assert refusal[0].step_type == pb.STEP_TYPE_ERROR
    assert "field 'state' must be of type string, got object" in refusal[0].content
    # The device's own observations are never echoed back as OBSERVATION steps.
    assert not [s for s in notices if s.step_type == pb.STEP_TYPE_OBSERVATION]
    finals = [r.step for r in seen if r.step.step_type == pb.STEP_TYPE_FINAL_ANSWER]
    assert len(finals) == 1


def test_list_tools_serves_the_schemas_a_device_must_meet(cloud: Any) -> None:
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        reply = stub.ListTools(pb.ListToolsRequest(device_tools=["device_control"]), timeout=5)
        everything = stub.ListTools(pb.ListToolsRequest(), timeout=5)
    tools = {t.name: t for t in reply.tools}
    assert set(tools) == {
        "calculator",
        "unit_convert",
        "get_weather",
        "world_clock",
        "device_control",
    }
    assert tools["device_control"].executor == pb.ORIGIN_EDGE
    assert tools["get_weather"].executor == pb.ORIGIN_CLOUD
    assert {"add_note", "search_notes", "set_timer"} <= {t.name for t in everything.tools}
    observation = json_format.MessageToDict(tools["device_control"].observation_schema)
    validator = Draft202012Validator(observation)
    assert validator.is_valid({"device": "light", "state": "on"})
    assert not validator.is_valid({"device": "light", "state": {"power": "on"}})
    arguments = json_format.MessageToDict(tools["device_control"].input_schema)
    assert "device" in arguments["properties"]


def test_a_turn_answering_a_question_completes_its_request(cloud: Any) -> None:
    """Asking back over Converse: a client answers a CLARIFICATION (the last step of the
    history it sends) in the next turn of the session, and the cloud completes the
    request the question was about with the answer."""
    question = pb.ReactStep(
        step_type=pb.STEP_TYPE_CLARIFICATION, content="Of what?", act_id="q1",
        tool="calculator", missing_argument="expression",
    )  # fmt: skip
    question.metadata["query"] = "what is 15% of"
    sid = uuid.uuid4().hex
    start = pb.ReasonRequest(session_id=sid, query="80", history=[question], turn_id=1)
    with grpc.insecure_channel(cloud.target) as channel:
        stub = pb_grpc.CloudReasonerServiceStub(channel)
        steps = [
            r.step
            for r in stub.Converse(iter([pb.ConverseRequest(start=start)]), timeout=15)
            if r.WhichOneof("event") == "step"
        ]
    final = steps[-1]
    assert final.step_type == pb.STEP_TYPE_FINAL_ANSWER and "12" in final.content
    assert {s.turn_id for s in steps} == {1}
