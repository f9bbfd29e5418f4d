"""`edge-agent chat` renders each step and asks before an approval."""

from __future__ import annotations

import io
from datetime import datetime

from rich.console import Console

from edge_agent.agent import EdgeAgent
from edge_agent.chat import run_chat
from sync.store import MemoryStore
from understanding.router import Router


def test_chat_session(
    memory: MemoryStore, stub_router: Router, fixed_now: datetime, monkeypatch
) -> None:
    agent = EdgeAgent(memory, stub_router, now=lambda: fixed_now)
    answers = iter(["time in tokyo", "", "unlock the door", "y", "exit"])
    monkeypatch.setattr("rich.console.Console.input", lambda self, *a, **k: next(answers))
    out = io.StringIO()
    run_chat(agent, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "thought (edge)" in text
    assert "action (edge) world_clock" in text
    assert "answer It's 21:00 on Monday 2026-06-01 in Tokyo (Asia/Tokyo)." in text
    assert "approval (edge)" in text
    assert "Done: the door lock is unlocked." in text
    assert memory.get_device_state("door_lock", None)["state"] == "unlocked"


def test_chat_wraps_between_words() -> None:
    from edge_agent.chat import render
    from edgeloop.v1 import agent_pb2 as pb

    answer = "Done: the kitchen light is on, and the living room heater is set to 21 degrees."
    for width in range(24, 60, 3):
        out = io.StringIO()
        step = pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION, content=answer)
        render(Console(file=out, width=width, color_system=None), step)
        lines = out.getvalue().splitlines()
        # No line longer than the terminal: the terminal would break it mid-word.
        assert max(len(line) for line in lines) <= width, (width, lines)
        assert set(answer.split()) <= set(" ".join(lines).split())


def test_an_approval_is_shown_once_at_the_terminal() -> None:
    from edge_agent.cli import _shown
    from edgeloop.v1 import agent_pb2 as pb

    request = pb.ReactStep(step_type=pb.STEP_TYPE_APPROVAL_REQUEST, content="Approve unlock?")
    assert _shown(request, verbose=True, interactive=True) is None  # the prompt shows it
    assert _shown(request, verbose=True, interactive=False) == "approval: Approve unlock?"
    answer = pb.ReactStep(step_type=pb.STEP_TYPE_FINAL_ANSWER, content="Done.")
    assert _shown(answer, verbose=False, interactive=True) == "Done."
