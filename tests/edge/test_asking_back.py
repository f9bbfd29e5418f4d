"""Asking back (issue 24 part 4): the device asks for a missing argument with a
CLARIFICATION step and the next turn of the same session answers it, in the agent, over
EdgeAgentService on 127.0.0.1, in the CLI, and for a question the cloud asks through the
device (a cloud reasoner served on 127.0.0.1 that asks back)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from edge_agent.agent import EdgeAgent
from edge_agent.cli import EXIT_ASKED, app
from edge_agent.cloud_link import CloudLink
from edge_agent.service import serve
from edgeloop.v1 import agent_pb2 as pb
from edgeloop.v1 import agent_pb2_grpc as pb_grpc
from react_kernel.steps import from_struct
from sync.store import MemoryStore
from understanding.asking import fold, is_withdrawal, question_for
from understanding.router import Router

Q = pb.STEP_TYPE_CLARIFICATION


@pytest.fixture(scope="module")
def router() -> Router:
    return Router.load()


def test_the_router_asks_for_what_a_clear_request_leaves_out(router: Router) -> None:
    timer = router.decide("set a timer")
    assert (timer.route, timer.tool, timer.missing, timer.question) == (
        "ask", "set_timer", "seconds", "For how long?",
    )  # fmt: skip
    alarm = router.decide("wake me up")
    assert (alarm.route, alarm.missing, alarm.question) == ("ask", "at", "For what time?")
    # A time the device cannot read is no missing argument: not asked, not guessed.
    assert router.decide("set a timer for a fortnight").route == "cloud"
    assert router.decide("set a timer for 5 minutes").route == "edge"


def test_question_rule_and_fold() -> None:
    assert question_for("set_timer", "set a timer until the pasta is done") is None
    assert question_for("calculator", "calculate") is None
    assert fold("set a timer", "for", "in 10 minutes") == "set a timer in 10 minutes"
    assert fold("wake me up!", "at", "seven.") == "wake me up at seven"
    assert is_withdrawal("Never mind") and is_withdrawal("cancel that")
    assert not is_withdrawal("cancel at seven")


@given(st.text(alphabet="abcdefgh xyz", min_size=1, max_size=30).filter(str.strip))
def test_fold_keeps_every_word_of_the_request_and_the_answer(answer: str) -> None:
    completed = fold("set a timer", "for", answer).split()
    assert completed[:3] == ["set", "a", "timer"]
    assert completed[-len(answer.split()) :] == answer.split()


def test_the_answer_completes_the_request_in_the_same_session(
    memory: MemoryStore, router: Router
) -> None:
    agent = EdgeAgent(memory, router)
    asked = list(agent.ask("set a timer"))
    question = asked[-1]
    assert [s.step_type for s in asked] == [pb.STEP_TYPE_THOUGHT, Q]
    assert question.content == "For how long?" and question.tool == "set_timer"
    assert question.missing_argument == "seconds" and question.act_id
    assert from_struct(question.argument_schema)["type"] == "integer"
    assert memory.timers() == []  # nothing set on a guess
    sid = question.session_id
    assert memory.get_record("sessions", sid)["state"] == "input_required"
    # An answer that does not give the duration asks again, in the next turn.
    again = list(agent.ask("five", session_id=sid))
    assert again[-1].step_type == Q and again[-1].turn_id == 1
    assert again[-1].content == "Sorry, I didn't get that. For how long?"
    done = list(agent.ask("10 minutes", session_id=sid))
    assert done[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
    assert {s.session_id for s in done} == {sid} and {s.turn_id for s in done} == {2}
    assert {s.answers_act_id for s in done} == {again[-1].act_id}
    (timer,) = memory.timers()
    assert timer["seconds"] == 600
    stored = memory.steps(sid)
    assert [s.turn_id for s in stored] == [0, 0, 1, 1, 2, 2, 2, 2]
    assert all(s.answers_act_id == again[-1].act_id for s in stored if s.turn_id == 2)
    assert agent.open_question(sid) is None


def test_never_mind_withdraws_the_request(memory: MemoryStore, router: Router) -> None:
    agent = EdgeAgent(memory, router)
    sid = list(agent.ask("wake me up"))[-1].session_id
    (final,) = list(agent.ask("never mind", session_id=sid))
    assert final.step_type == pb.STEP_TYPE_FINAL_ANSWER and memory.timers() == []
    assert agent.open_question(sid) is None


def test_ask_back_over_edge_agent_service(memory: MemoryStore, router: Router) -> None:
    agent = EdgeAgent(memory, router)

    async def scenario() -> None:
        server = await serve(agent, "127.0.0.1", 0)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = pb_grpc.EdgeAgentServiceStub(channel)
                asked = [r.step async for r in stub.Ask(pb.AskRequest(query="wake me up"))]
                question = asked[-1]
                assert question.step_type == Q and question.missing_argument == "at"
                assert from_struct(question.argument_schema)["type"] == "string"
                sid = question.session_id
                waiting = await stub.GetSession(pb.GetSessionRequest(session_id=sid))
                assert waiting.state == pb.SESSION_STATE_INPUT_REQUIRED
                answer = pb.AskRequest(query="7:30 am", session_id=sid)
                done = [r.step async for r in stub.Ask(answer)]
                assert done[-1].step_type == pb.STEP_TYPE_FINAL_ANSWER
                assert "07:30" in done[-1].content
                session = await stub.GetSession(pb.GetSessionRequest(session_id=sid))
                assert session.state == pb.SESSION_STATE_COMPLETED
        finally:
            await server.stop(0)

    asyncio.run(scenario())
    assert len(memory.timers()) == 1


def test_cli_prints_the_question_and_exits_3(tmp_path: Path) -> None:
    db = str(tmp_path / "edge.db")
    runner = CliRunner()
    asked = runner.invoke(app, ["ask", "set a timer", "--memory", db])
    assert asked.exit_code == EXIT_ASKED == 3
    assert asked.stdout.strip() == "For how long?"
    sid = asked.stderr.split("--session ")[1].split()[0]
    done = runner.invoke(app, ["ask", "--session", sid, "seven minutes", "--memory", db])
    assert done.exit_code == 0 and done.stdout.startswith("Timer set for 7 minutes")
    late = runner.invoke(app, ["ask", "--session", sid, "seven minutes", "--memory", db])
    assert late.exit_code == 2 and "not waiting for an answer" in late.output


class AskingCloud(pb_grpc.CloudReasonerServiceServicer):
    """A cloud reasoner that asks back: turn 0 asks which city, the next turn answers
    from the question it finds at the end of the history."""

    def __init__(self) -> None:
        self.requests: list[pb.ReasonRequest] = []

    def Converse(self, request_iterator: Iterator[pb.ConverseRequest], context: Any) -> Any:
        start = next(request_iterator).start
        self.requests.append(start)
        step = pb.ReactStep(session_id=start.session_id, turn_id=start.turn_id,
                            origin=pb.ORIGIN_CLOUD)  # fmt: skip
        if start.turn_id == 0:
            step.step_type = Q
            step.content = "Which city?"
            step.act_id = "q1"
            step.tool = "book_table"
            step.missing_argument = "city"
            step.argument_schema.update({"type": "string"})
        else:
            assert start.history[-1].step_type == Q and start.history[-1].act_id == "q1"
            step.step_type = pb.STEP_TYPE_FINAL_ANSWER
            step.content = f"Booked in {start.query}."
        yield pb.ConverseResponse(step=step)


def test_the_cloud_asks_back_through_the_device(memory: MemoryStore, router: Router) -> None:
    cloud = AskingCloud()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_CloudReasonerServiceServicer_to_server(cloud, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        agent = EdgeAgent(memory, router, CloudLink(f"127.0.0.1:{port}", deadline_s=10))
        asked = list(agent.ask("book me a table for two at an italian place tonight"))
        assert asked[-1].step_type == Q and asked[-1].origin == pb.ORIGIN_CLOUD
        assert memory.pending() == []  # a question, not an outage
        sid = asked[-1].session_id
        assert agent.open_question(sid) is not None
        done = list(agent.ask("Turin", session_id=sid))
        assert done[-1].content == "Booked in Turin."
        second = cloud.requests[-1]
        assert (second.session_id, second.turn_id, second.query) == (sid, 1, "Turin")
    finally:
        server.stop(0)


def test_chat_answers_the_question_with_the_next_line(
    memory: MemoryStore, router: Router, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from rich.console import Console

    from edge_agent.chat import run_chat

    agent = EdgeAgent(memory, router)
    lines = iter(["set a timer", "20 minutes", "exit"])
    monkeypatch.setattr("rich.console.Console.input", lambda self, *a, **k: next(lines))
    out = io.StringIO()
    run_chat(agent, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "question For how long?" in text
    assert "Timer set for 20 minutes" in text
    (timer,) = memory.timers()
    assert timer["seconds"] == 1200


@pytest.mark.node
def test_a_node_client_answers_the_question(memory: MemoryStore, router: Router) -> None:
    """Any gRPC client can answer: tests/node/ask_back_client.mjs loads agent.proto at run
    time, reads the CLARIFICATION (the argument's name and JSON Schema) and answers it."""
    import json
    import shutil
    import subprocess

    if shutil.which("node") is None:
        pytest.skip("node is not installed: the cross-language test needs Node.js")
    node_dir = Path(__file__).resolve().parents[1] / "node"
    assert (node_dir / "node_modules" / "@grpc" / "proto-loader").exists(), (
        "tests/node/node_modules missing: run `python3.11 dev.py setup`"
    )
    agent = EdgeAgent(memory, router)

    async def scenario() -> list[dict[str, Any]]:
        server = await serve(agent, "127.0.0.1", 0)
        try:
            result = await asyncio.to_thread(
                subprocess.run,
                [
                    "node",
                    str(node_dir / "ask_back_client.mjs"),
                    f"127.0.0.1:{server.port}",
                    "set a timer",
                    "10 minutes",
                ],
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        finally:
            await server.stop(0)
        assert result.returncode == 0, result.stderr
        return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]

    steps = asyncio.run(scenario())
    question = next(s for s in steps if s["stepType"] == "STEP_TYPE_CLARIFICATION")
    assert question["missingArgument"] == "seconds"
    assert question["argumentSchema"]["type"] == "integer"
    assert steps[-1]["stepType"] == "STEP_TYPE_FINAL_ANSWER"
    assert steps[-1]["answersActId"] == question["actId"] and steps[-1]["turnId"] == 1
    assert [t["seconds"] for t in memory.timers()] == [600]


def test_a_free_text_argument_is_the_answer_itself(memory: MemoryStore) -> None:
    """An "ask" decision of the contract (route "ask", missing, question; the router of
    issue 24a makes them for more requests) for a free-text argument: the answer, whole,
    is the argument."""
    from understanding.decision import RouteDecision

    router = Router.load()
    reads = router.decide

    def decide(text: str, settings: object = None) -> RouteDecision:
        if text == "add something to my shopping list":
            return RouteDecision(
                "ask", "add_note", {"list": "shopping"}, 0.9, "no item", "add_note",
                missing="text", question="What should I add?",
            )  # fmt: skip
        return reads(text, settings)  # type: ignore[arg-type]

    router.decide = decide  # type: ignore[method-assign]
    agent = EdgeAgent(memory, router)
    question = list(agent.ask("add something to my shopping list"))[-1]
    assert question.step_type == Q and question.missing_argument == "text"
    assert from_struct(question.arguments) == {"list": "shopping"}
    assert from_struct(question.argument_schema)["type"] == "string"
    done = list(agent.ask("oat milk and a dozen eggs", session_id=question.session_id))
    assert done[-1].content == "Added “oat milk and a dozen eggs” to your shopping list."
    assert [n["text"] for n in memory.notes()] == ["shopping list: oat milk and a dozen eggs"]
