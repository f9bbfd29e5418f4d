"""RequestHandler.run computes a session in a task of its own, a bounded number of events
ahead of the consumer: same events, errors and cancellation reach the consumer."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from cloud_agent import handler as handling
from cloud_agent.backends import build_reasoner
from cloud_agent.config import CloudConfig
from cloud_agent.errors import ReasonerDeadlineError
from cloud_agent.handler import Event, RequestHandler
from cloud_agent.metrics import CloudMetrics
from edgeloop.transport.auth import Principal
from edgeloop.v1 import agent_pb2 as pb

LOCAL = Principal("local", "local")
QUERY = "weather in London, Paris and Rome"


@pytest.fixture
def handler() -> Any:
    config = CloudConfig(port=0)
    h = RequestHandler(config, build_reasoner(config), metrics=CloudMetrics())
    yield h
    h.close()


def request(session_id: str, query: str = QUERY) -> pb.ReasonRequest:
    return pb.ReasonRequest(session_id=session_id, query=query)


def outcomes(h: RequestHandler) -> dict[str, float]:
    assert h.metrics is not None
    return {
        sample.labels["outcome"]: sample.value
        for metric in h.metrics.sessions.collect()
        for sample in metric.samples
        if sample.name.endswith("_total")
    }


def test_events_are_the_sessions_steps_then_the_receipt(handler: RequestHandler) -> None:
    async def collect() -> list[Event]:
        return [e async for e in handler.run(LOCAL, request("p1"), trace_id="t")]

    events = asyncio.run(collect())
    assert [e.kind for e in events] == ["step"] * (len(events) - 1) + ["receipt"]
    steps = [e.step for e in events[:-1]]
    assert [s.step_index for s in steps if s is not None] == list(range(len(steps)))
    kinds = [s.step_type for s in steps if s is not None]
    assert kinds.count(pb.STEP_TYPE_ACTION) == 3 and kinds[-1] == pb.STEP_TYPE_FINAL_ANSWER
    receipt = events[-1].receipt
    assert receipt is not None and steps[-1] is not None
    assert receipt.receipt_id == steps[-1].receipt_id
    assert outcomes(handler) == {"completed": 1.0}


def test_the_session_runs_at_most_the_pipeline_depth_ahead(
    handler: RequestHandler, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(handling, "PIPELINE_DEPTH", 2)
    sessions: list[Any] = []
    start = handler.loop_for(frozenset()).start

    def spy(*args: Any, **kwargs: Any) -> Any:
        sessions.append(start(*args, **kwargs))
        return sessions[-1]

    monkeypatch.setattr(handler.loop_for(frozenset()), "start", spy)

    async def slow_consumer() -> list[int]:
        ahead = []
        async for event in handler.run(LOCAL, request("p2"), trace_id="t"):
            for _ in range(5):  # let the producer run as far as it may
                await asyncio.sleep(0)
            if event.step is not None:
                ahead.append(len(sessions[0].steps) - 1 - event.step.step_index)
        return ahead

    ahead = asyncio.run(slow_consumer())
    # It does run ahead, bounded: the pipe's depth, the event the producer waits to put,
    # and the kernel's batch (a THOUGHT and its ACTION exist together).
    assert 2 <= max(ahead) <= 2 + 2


def test_a_consumer_that_goes_away_cancels_the_session(handler: RequestHandler) -> None:
    async def first_then_leave() -> Any:
        events = handler.run(LOCAL, request("p3"), trace_id="t")
        first = await anext(events)
        await events.aclose()
        await asyncio.sleep(0)
        return first

    first = asyncio.run(first_then_leave())
    assert first.kind == "step"
    assert outcomes(handler) == {"canceled": 1.0}


def test_a_passed_deadline_reaches_the_consumer(handler: RequestHandler) -> None:
    async def run() -> None:
        past = time.monotonic() - 1
        async for _ in handler.run(LOCAL, request("p4"), trace_id="t", deadline=past):
            pass

    with pytest.raises(ReasonerDeadlineError):
        asyncio.run(run())
    assert outcomes(handler) == {"deadline": 1.0}


def test_a_device_action_pauses_the_producer_until_the_observation(
    handler: RequestHandler,
) -> None:
    async def converse() -> list[str]:
        kinds: list[str] = []
        answered = asyncio.Event()
        pending: list[pb.ReactStep] = []

        async def next_observation() -> pb.ReactStep | None:
            await answered.wait()
            answered.clear()
            action = pending.pop()
            return pb.ReactStep(
                step_type=pb.STEP_TYPE_OBSERVATION,
                act_id=action.act_id,
                status=pb.OBSERVATION_STATUS_OK,
                content="the tv is off",
            )

        events = handler.run(
            LOCAL,
            pb.ReasonRequest(session_id="p5", query="turn off the tv"),
            trace_id="t",
            next_observation=next_observation,
            rpc="Converse",
        )
        async for event in events:
            kinds.append(event.kind)
            if event.kind == "device_action" and event.step is not None:
                pending.append(event.step)
                answered.set()
        return kinds

    kinds = asyncio.run(converse())
    assert kinds.count("device_action") == 1
    assert kinds[-1] == "receipt" and "step" in kinds
    assert outcomes(handler) == {"completed": 1.0}
