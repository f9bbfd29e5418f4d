"""A note search finds notes, not the stored answers of earlier searches or of the note
being written: recall must not feed on its own answers (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edge_agent.agent import EdgeAgent
from sync.store import MemoryStore
from understanding.router import DEFAULT_MODEL_DIR, Router


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


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("add a note buy a book", "buy a book"),
        ("add a note to check the wok", "check the wok"),
        ("add a note call mom ok", "call mom"),
        ("add a note buy milk thanks", "buy milk"),
    ],
)
def test_a_note_keeps_words_that_end_like_a_courtesy(query: str, text: str) -> None:
    """'book' ends in 'ok': the courtesy at a note's end is a word of its own."""
    from understanding.arguments.free_text import _NOTE_TAIL

    assert _NOTE_TAIL.sub("", query.removeprefix("add a note ").removeprefix("to ")) == text
