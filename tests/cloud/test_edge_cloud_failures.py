"""How the device lives with a cloud that refuses, throttles or dies (issue 14): a refusal
is one line and a non-zero exit, a transient failure keeps the query pending with the
cloud's hint, a pending query's side effects run once however often it is retried, and a
device action that needs approval is asked for on the device."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from edge_agent.agent import EdgeAgent
from edge_agent.cli import EXIT_PENDING, app
from edge_agent.cloud_link import CloudLink
from edgeloop.v1 import agent_pb2 as pb
from examples.demo import load_router
from sync.store import MemoryStore

TOKEN = "phone-token"
NOTE_AND_TIMER = "add a note buy milk and set a timer for 10 minutes"
UNLOCK_AND_TIMER = "unlock the front door and set a timer for 5 minutes"


@pytest.fixture
def router() -> Any:
    return load_router()[0]


@pytest.fixture
def tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": {TOKEN: {"device_id": "phone", "user_id": "alice"}}}))
    return path


@pytest.fixture
def links() -> Iterator[list[CloudLink]]:
    made: list[CloudLink] = []
    yield made
    for link in made:
        link.close()


def _ask(target: str, db: Path, query: str, *extra: str) -> Any:
    return CliRunner().invoke(
        app, ["ask", query, "--cloud", target, "--memory", str(db), *extra], catch_exceptions=False
    )


def _pending(db: Path) -> list[dict[str, Any]]:
    with MemoryStore(db) as store:
        return store.pending()


def test_a_refused_ask_is_one_line_and_a_non_zero_exit(
    make_cloud: Any, tokens: Path, tmp_path: Path
) -> None:
    cloud = make_cloud(tokens_file=str(tokens))
    db = tmp_path / "phone.db"
    result = _ask(cloud.target, db, NOTE_AND_TIMER, "--token", "wrong")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "UNAUTHENTICATED" in lines[0], result.output
    assert _pending(db) == []  # the same request would be refused again: not kept


def test_a_query_over_the_cloud_limit_is_refused_in_one_line(
    make_cloud: Any, tmp_path: Path
) -> None:
    cloud = make_cloud(max_query_chars=200)
    db = tmp_path / "phone.db"
    result = _ask(cloud.target, db, "tell me a story about " + "dragons " * 100)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "INVALID_ARGUMENT" in lines[0], result.output


def test_a_stored_query_over_the_limit_does_not_break_pending(
    make_cloud: Any, tmp_path: Path
) -> None:
    cloud = make_cloud(max_query_chars=200)
    db = tmp_path / "phone.db"
    with MemoryStore(db) as store:  # kept pending by an older version, offline
        store.add_pending("tell me a story about " + "dragons " * 2_000, "s-old")
        store.add_pending("what's the weather in Paris and Berlin", "s-new")
    command = ["pending", "--cloud", cloud.target, "--memory", str(db)]
    for _ in range(2):
        result = CliRunner().invoke(app, command, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert all(len(line) < 400 for line in result.output.splitlines())
    assert _pending(db) == []
    with MemoryStore(db) as store:
        answers = list(store.records("pending").values())
    refused = [a for a in answers if a and "INVALID_ARGUMENT" in (a.get("answer") or "")]
    assert len(refused) == 1


def test_over_the_rate_the_query_stays_pending_with_the_cloud_hint(
    make_cloud: Any, tmp_path: Path
) -> None:
    cloud = make_cloud(rate_per_s=0.01, rate_burst=1)
    db = tmp_path / "phone.db"
    first = _ask(cloud.target, db, "is Tokyo warmer than Seoul today")
    assert first.exit_code == 0, first.output
    second = _ask(cloud.target, db, "is Paris warmer than Berlin today", "--json")
    assert second.exit_code == EXIT_PENDING
    final = json.loads(second.output.strip().splitlines()[-1])
    assert final["metadata"]["pending_id"] and int(final["metadata"]["retry_after_ms"]) > 0
    assert "retry in" in final["content"]
    assert [p["query"] for p in _pending(db)] == ["is Paris warmer than Berlin today"]


@pytest.mark.parametrize("answered_after_s", [0, 45])
def test_a_pending_query_runs_its_side_effects_once(
    make_cloud: Any, tmp_path: Path, router: Any, links: list[CloudLink], answered_after_s: int
) -> None:
    """However late the cloud answers, the timer is the one set before it went away (a
    countdown re-anchored to when it was asked keeps its first try's idempotency key)."""
    memory = MemoryStore(tmp_path / "phone.db")
    cloud = make_cloud()
    links.append(CloudLink(cloud.target, deadline_s=5, retries=0))
    agent = EdgeAgent(memory, router, cloud=links[-1])
    run_here = agent.run_device_tool

    def run_then_die(action: pb.ReactStep, session_id: str = "", **kw: Any) -> pb.ReactStep:
        observation = run_here(action, session_id, **kw)
        if action.tool == "set_timer":  # the note and the timer are written; the cloud dies
            cloud.stop(grace=0)
        return observation

    agent.run_device_tool = run_then_die  # type: ignore[method-assign]
    steps = list(agent.ask(NOTE_AND_TIMER))
    assert steps[-1].metadata["offline"] == "true"
    assert [n["text"] for n in memory.notes()] == ["buy milk"]
    assert len(memory.timers()) == 1

    again = make_cloud()  # the cloud is back (a new process) and the device retries
    links.append(CloudLink(again.target, deadline_s=5, retries=0))
    later = datetime.now(UTC) + timedelta(seconds=answered_after_s)
    agent = EdgeAgent(memory, router, cloud=links[-1], now=lambda: later)
    resolved = agent.resolve_pending()
    assert len(resolved) == 1 and resolved[0][1][-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert [n["text"] for n in memory.notes()] == ["buy milk"]
    assert len(memory.timers()) == 1
    memory.close()


def test_a_device_action_of_the_cloud_asks_for_approval_on_the_device(
    cloud: Any, device_memory: Any, router: Any, links: list[CloudLink]
) -> None:
    links.append(CloudLink(cloud.target, deadline_s=10))
    agent = EdgeAgent(device_memory, router, cloud=links[-1])
    seen: list[pb.ReactStep] = []
    for step in agent.ask(UNLOCK_AND_TIMER):
        seen.append(step)
        if step.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
            assert step.metadata["via"] == "cloud" and step.tool == "device_control"
            assert agent.approve(step.session_id, step.act_id, True, "at the door") == []
    kinds = [s.step_type for s in seen]
    assert pb.STEP_TYPE_APPROVAL_REQUEST in kinds
    assert device_memory.get_device_state("door_lock", None)["state"] == "unlocked"
    assert seen[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER and "unlocked" in seen[-1].content

    denied: list[pb.ReactStep] = []
    device_memory.set_device_state("door_lock", None, {"state": "locked"})
    for step in agent.ask(UNLOCK_AND_TIMER):
        denied.append(step)
        if step.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
            agent.approve(step.session_id, step.act_id, False, "not now")
    observations = [s for s in denied if s.step_type == pb.STEP_TYPE_OBSERVATION]
    assert observations[0].status == pb.OBSERVATION_STATUS_REJECTED
    assert "not now" in observations[0].content
    assert device_memory.get_device_state("door_lock", None)["state"] == "locked"


def test_the_approve_rpc_continues_the_cloud_session(
    cloud: Any, device_memory: Any, router: Any, links: list[CloudLink]
) -> None:
    import asyncio

    import grpc

    from edge_agent.service import serve
    from edgeloop.v1 import agent_pb2_grpc as pb_grpc

    links.append(CloudLink(cloud.target, deadline_s=10))
    agent = EdgeAgent(device_memory, router, cloud=links[-1])

    async def scenario() -> list[pb.ReactStep]:
        server = await serve(agent, "127.0.0.1", 0)
        port = server.port
        steps: list[pb.ReactStep] = []
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.EdgeAgentServiceStub(channel)
                async for response in stub.Ask(pb.AskRequest(query=UNLOCK_AND_TIMER)):
                    steps.append(response.step)
                    if response.step.step_type == pb.STEP_TYPE_APPROVAL_REQUEST:
                        decision = pb.ApproveRequest(
                            session_id=response.step.session_id,
                            act_id=response.step.act_id,
                            approved=True,
                        )
                        assert not (await stub.Approve(decision)).steps
        finally:
            await server.stop(0)
        return steps

    steps = asyncio.run(scenario())
    assert steps[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER and "unlocked" in steps[-1].content
    assert device_memory.get_device_state("door_lock", None)["state"] == "unlocked"


def test_only_the_device_that_kept_a_query_resolves_it(
    cloud: Any, tmp_path: Path, router: Any, links: list[CloudLink]
) -> None:
    from sync.exchange import sync_stores

    with (
        MemoryStore(tmp_path / "phone.db", node_id="phone") as phone,
        MemoryStore(tmp_path / "tablet.db", node_id="tablet") as tablet,
    ):
        phone.add_pending(NOTE_AND_TIMER, "s-phone")
        sync_stores(phone, tablet)  # the user's tablet now holds the phone's pending query
        links.append(CloudLink(cloud.target, deadline_s=10))
        on_tablet = EdgeAgent(tablet, router, cloud=links[-1])
        assert on_tablet.own_pending() == [] and on_tablet.resolve_pending() == []
        on_phone = EdgeAgent(phone, router, cloud=links[-1])
        assert len(on_phone.resolve_pending()) == 1
        sync_stores(phone, tablet)
        assert [n["text"] for n in tablet.notes()] == ["buy milk"]
        assert tablet.pending() == [] and phone.pending() == []


def test_chat_asks_for_a_cloud_action_on_the_device(
    cloud: Any, device_memory: Any, router: Any, links: list[CloudLink], monkeypatch: Any
) -> None:
    import io

    from rich.console import Console

    from edge_agent.chat import run_chat

    links.append(CloudLink(cloud.target, deadline_s=10))
    agent = EdgeAgent(device_memory, router, cloud=links[-1])
    answers = iter([UNLOCK_AND_TIMER, "y", "exit"])
    monkeypatch.setattr("rich.console.Console.input", lambda self, *a, **k: next(answers))
    out = io.StringIO()
    run_chat(agent, Console(file=out, width=200, color_system=None))
    assert device_memory.get_device_state("door_lock", None)["state"] == "unlocked"
    assert "door_lock: unlocked" in out.getvalue()
