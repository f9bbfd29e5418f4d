"""A note search finds notes, not the stored answers of earlier searches or of the note
being written: recall must not feed on its own answers (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.agent import EdgeAgent
from edge_agent.router import DEFAULT_MODEL_DIR, Router
from sync.store import MemoryStore


@pytest.mark.skipif(
    not (DEFAULT_MODEL_DIR / "router.json").is_file(), reason="shipped router not built"
)
def test_repeated_searches_find_the_one_note(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "edge.db") as memory:
        agent = EdgeAgent(memory, Router.load())
        list(agent.ask("add a note dentist on friday at 3"))
        list(agent.ask("what is 2 + 2"))
        answers = [list(agent.ask("search my notes for dentist"))[-1] for _ in range(4)]
        assert all(a.content.startswith("I found 1 note about") for a in answers), [
            a.content for a in answers
        ]
        hits = memory.search("dentist", limit=20)
        assert sum(1 for h in hits if h.kind == "answer") >= 4  # the answers are kept
