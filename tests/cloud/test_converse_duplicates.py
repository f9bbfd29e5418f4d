"""A second observation of an act (docs/protocol.md, "Reason and Converse, step by
step", 3): after the turn's last action it is never read, so the turn ends as if it had
not been sent; while the cloud waits for another act it is INVALID_ARGUMENT. A real
cloud server on 127.0.0.1 and a raw gRPC stub, as a device in another language meets it."""

from __future__ import annotations

import queue
import uuid
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc

ONE_ACTION = "turn on the light in the kitchen and tell me the time in Tokyo"
TWO_ACTIONS = "turn on the light in the kitchen and turn off the light in the hall"


class Outbox:
    """The device's side of a Converse stream (``close()`` half-closes)."""

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


def _converse(cloud: Any, query: str) -> tuple[Outbox, Any, grpc.Channel]:
    channel = grpc.insecure_channel(cloud.target)
    stub = pb_grpc.CloudReasonerServiceStub(channel)
    start = pb.ReasonRequest(
        session_id=uuid.uuid4().hex, query=query, device_tools=["device_control"]
    )
    outbox = Outbox(start)
    return outbox, stub.Converse(iter(outbox), timeout=15), channel


def _answer(action: pb.ReactStep) -> pb.ConverseRequest:
    step = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION, act_id=action.act_id)
    step.observation.update({"device": "light", "state": "on"})
    return pb.ConverseRequest(observation=step)


def test_a_duplicate_observation_of_the_last_action_is_ignored(cloud: Any) -> None:
    outbox, responses, channel = _converse(cloud, ONE_ACTION)
    seen: list[pb.ConverseResponse] = []
    actions = []
    for response in responses:  # ends with status OK: no exception
        seen.append(response)
        if response.WhichOneof("event") == "device_action":
            actions.append(response.device_action)
            outbox.send(_answer(response.device_action))
            outbox.send(_answer(response.device_action))  # the same observation again
    outbox.close()
    channel.close()
    assert len(actions) == 1
    finals = [r.step for r in seen if r.step.step_type == pb.STEP_TYPE_FINAL_ANSWER]
    assert len(finals) == 1
    errors = [r.step for r in seen if r.step.step_type == pb.STEP_TYPE_ERROR]
    assert errors == []
    receipts = [r.receipt for r in seen if r.WhichOneof("event") == "receipt"]
    assert len(receipts) == 1
    cited = [e.act_id for e in receipts[0].evidence if e.tool == "device_control"]
    assert cited == [actions[0].act_id]  # counted once


def test_a_duplicate_while_another_action_waits_is_invalid_argument(cloud: Any) -> None:
    outbox, responses, channel = _converse(cloud, TWO_ACTIONS)
    actions = []
    with pytest.raises(grpc.RpcError) as caught:
        for response in responses:
            if response.WhichOneof("event") == "device_action":
                actions.append(response.device_action)
                if len(actions) == 1:
                    outbox.send(_answer(actions[0]))
                    outbox.send(_answer(actions[0]))  # read while act 2 waits
    outbox.close()
    channel.close()
    assert len(actions) == 2
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = caught.value.details() or ""
    assert "observation refused: no pending action" in details, details
    assert actions[0].act_id in details
