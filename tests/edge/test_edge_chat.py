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
