"""Follow-ups: a conversation remembers its last list, device and city for a few minutes,
so "and coffee too", "what's on it now", "turn it on" and "and in Paris?" mean what they
mean; a reference to nothing is asked back, and nothing runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edge_agent.agent import EdgeAgent
from edge_agent.followups import KEEP_S, AskBack, Context, rewrite
from edgeloop.v1 import agent_pb2 as pb
from sync.store import MemoryStore
from understanding.router import Router


@pytest.fixture(scope="module")
def router() -> Router:
    return Router.load()


def _answer(agent: EdgeAgent, query: str) -> pb.ReactStep:
    return list(agent.ask(query))[-1]


def test_a_list_is_followed(tmp_path: Path, router: Router) -> None:
    with MemoryStore(tmp_path / "edge.db") as memory:
        agent = EdgeAgent(memory, router)
        _answer(agent, "add milk to the shopping list")
        assert "coffee" in _answer(agent, "and coffee too").content
        assert [n["text"] for n in memory.notes()][-1].endswith("coffee")
        now = _answer(agent, "what's on it now").content
        assert "milk" in now and "coffee" in now
        assert memory.get_device_state("coffee_machine", None) is None  # not a command


def test_a_device_and_a_city_are_followed(tmp_path: Path, router: Router) -> None:
    with MemoryStore(tmp_path / "edge.db") as memory:
        agent = EdgeAgent(memory, router)
        _answer(agent, "turn off the kitchen light")
        _answer(agent, "turn it on")
        assert (memory.get_device_state("light", "kitchen") or {})["state"] == "on"
        _answer(agent, "what time is it in tokyo")
        assert "Sydney" in _answer(agent, "and in Sydney?").content


def test_a_reference_to_nothing_is_asked_back_and_nothing_runs(
    tmp_path: Path, router: Router
) -> None:
    with MemoryStore(tmp_path / "edge.db") as memory:
        agent = EdgeAgent(memory, router)
        steps = list(agent.ask("turn it off"))
        assert [s.step_type for s in steps] == [pb.STEP_TYPE_THOUGHT, pb.STEP_TYPE_FINAL_ANSWER]
        assert steps[-1].content == "Which device should I turn off?"
        assert memory.records("device_state") == {} and memory.pending() == []
        assert _answer(agent, "what's on it now").content == "Which list do you mean?"


def test_the_context_is_forgotten_after_a_few_minutes() -> None:
    context = Context()
    context.remember("add_note", {"text": "milk", "list": "shopping"})
    assert rewrite("and eggs too", context) == "add eggs to the shopping list"
    when, tool, args = context.last or (0.0, "", {})
    context.last = (when - KEEP_S - 1, tool, args)
    context.entities = {k: (t - KEEP_S - 1, v) for k, (t, v) in context.entities.items()}
    assert rewrite("and eggs too", context) is None
    assert isinstance(rewrite("what's on it", context), AskBack)


@given(st.sampled_from(["what time is it", "is it raining", "what is it like in rome",
                        "how long is it until friday", "is it cold in oslo today"]))  # fmt: skip
def test_a_question_with_it_but_no_reference_is_left_alone(query: str) -> None:
    context = Context()
    context.remember("device_control", {"device": "light", "action": "on", "room": "hall"})
    assert rewrite(query, context) is None
