"""Answering the parts it can (issue 25): when one part of a compound request cannot be
planned, the parts that only read are answered and the part left out is named; nothing
runs when another part would act."""

from __future__ import annotations

from typing import Any

import pytest

from cloud_agent.evaluation import run_query, scratch_memory
from cloud_agent.planner.partial import PARTIAL_KEY
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.reasoner import PlannerReasoner, load_edge_router
from cloud_agent.tools import local_registry
from understanding.tools import SIDE_EFFECT_TOOLS


@pytest.fixture(scope="module")
def router() -> Any:
    found = load_edge_router()
    if found is None:
        pytest.skip("the shipped router is not built")
    return found


@pytest.mark.parametrize("split", [False, True])
def test_reads_are_answered_and_the_part_named(router: Any, split: bool) -> None:
    plan = make_plan(
        "what time is it in Tokyo and preheat the oven", router=router, split_with_model=split
    )
    assert [(c.tool, c.args) for c in plan.calls] == [("world_clock", {"city": "tokyo"})]
    assert plan.refusal is None
    assert plan.unanswered == ["preheat the oven"]


def test_a_part_the_model_folded_into_a_read_is_named(router: Any) -> None:
    plan = make_plan("convert 200 grams to ounces and book a table for two", router=router)
    assert [c.tool for c in plan.calls] == ["unit_convert"]
    assert plan.unanswered == ["book a table for two"]  # the part as said


@pytest.mark.parametrize(
    "query",
    [
        "set a timer for 10 minutes and preheat the oven",
        "turn off the tv and book a table for two at 8",
        "set a timer for 5 minutes and order a pizza",
    ],
)
def test_nothing_runs_when_another_part_acts(router: Any, query: str) -> None:
    plan = make_plan(query, router=router)
    assert plan.calls == [] and plan.refusal
    assert not plan.unanswered


def test_open_knowledge_keeps_the_whole_request_for_the_model(router: Any) -> None:
    plan = make_plan("what's the weather in Rome and what should I wear there", router=router)
    assert plan.calls == [] and plan.refusal_kind == "needs_llm"


def test_the_final_answer_gives_the_reading_and_names_the_part(router: Any) -> None:
    reasoner = PlannerReasoner(router=router)
    with scratch_memory() as memory:
        outcome = run_query(
            reasoner,
            local_registry(memory),
            "what's the weather in Paris and warm up the oven",
            "p",
        )
    assert [tool for tool, _ in outcome.calls] == ["get_weather"]
    assert not any(tool in SIDE_EFFECT_TOOLS for tool, _ in outcome.calls)
    assert not outcome.refused
    assert "Paris" in outcome.answer
    assert "I couldn't do 'warm up the oven'" in outcome.answer


def test_the_part_is_in_the_final_answers_metadata(router: Any) -> None:
    from edgeloop.v1 import agent_pb2 as pb
    from react_kernel import ReasoningContext

    reasoner = PlannerReasoner(router=router)
    with scratch_memory() as memory:
        tools = local_registry(memory)
        query = "what time is it in Oslo and order a pizza"
        history: list[pb.ReactStep] = []
        for index in range(4):
            steps = reasoner.next_steps(
                ReasoningContext(query=query, history=history, tools=tools, session_id="m")
            )
            final = [s for s in steps if s.step_type == pb.STEP_TYPE_FINAL_ANSWER]
            if final:
                assert final[0].metadata[PARTIAL_KEY] == "order a pizza"
                return
            action = steps[-1]
            action.act_id = f"a{index}"
            history += [
                action,
                pb.ReactStep(step_type=pb.STEP_TYPE_OBSERVATION, act_id=f"a{index}"),
            ]
    raise AssertionError("no final answer")
