"""The planner: query classes, honest refusals, and the eval bars on held-out sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cloud_agent.cli import app
from cloud_agent.evaluation import args_match, evaluate, token_f1, wrong_actions
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.reasoner import PlannerReasoner, load_edge_router

DATA = Path(__file__).parent / "data"


def calls(query: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.tool, c.args) for c in make_plan(query).calls]


def test_several_calls_with_distributive_phrasing() -> None:
    assert calls("weather in Paris and Berlin") == [
        ("get_weather", {"city": "paris", "day": "today"}),
        ("get_weather", {"city": "berlin", "day": "today"}),
    ]


def test_comparison_over_results() -> None:
    plan = make_plan("is Tokyo warmer than Seoul today")
    assert [c.args["city"] for c in plan.calls] == ["tokyo", "seoul"]
    assert plan.compare == "warmer"
    later = make_plan("which is later, London or Dubai")
    assert [c.tool for c in later.calls] == ["world_clock", "world_clock"]
    assert later.compare == "later"


def test_sequence_of_device_actions() -> None:
    got = calls("lights off and lock the front door")
    assert [(t, a["device"], a["action"]) for t, a in got] == [
        ("device_control", "light", "off"),
        ("device_control", "door_lock", "lock"),
    ]


def test_conversion_feeds_calculation() -> None:
    plan = make_plan("convert 5 km to miles and add 3 to the result")
    assert [c.tool for c in plan.calls] == ["unit_convert", "calculator"]
    assert "{prev}" in str(plan.calls[1].args["expression"])


@pytest.mark.parametrize(
    "query",
    ["Who wrote Hamlet?", "Write a poem about the sea", "What's the best time to visit Tokyo?"],
)
def test_honest_refusal(query: str) -> None:
    plan = make_plan(query)
    assert plan.refusal and not plan.calls


def test_wrong_actions_counts_unasked_side_effects() -> None:
    expected = [{"tool": "add_note", "args": {"text": "buy milk"}}]
    assert wrong_actions(expected, [("add_note", {"text": "buy milk"})]) == 0
    assert wrong_actions(expected, [("add_note", {"text": "soak"})]) == 1
    # Reads never count; a side effect on a line that asked for none always does.
    assert wrong_actions([], [("get_weather", {"city": "oslo"})]) == 0
    assert wrong_actions([], [("device_control", {"device": "plug", "action": "on"})]) == 1
    twice = [("set_timer", {"seconds": 60}), ("set_timer", {"seconds": 60})]
    assert wrong_actions([{"tool": "set_timer", "args": {"seconds": 60}}], twice) == 1


def test_matching_rules() -> None:
    assert args_match("get_weather", {"city": "Paris "}, {"city": "paris", "day": "today"})
    assert args_match("unit_convert", {"value": 12}, {"value": 12.0000001})
    assert not args_match("unit_convert", {"value": 12}, {"value": 12.1})
    assert args_match("calculator", {"expression": "1+1"}, {"expression": "2"})
    assert token_f1("buy some milk", "buy milk") >= 0.6


@pytest.mark.parametrize("name", sorted(path.name for path in DATA.glob("compound_*.jsonl")))
def test_eval_bars_rules(name: str) -> None:
    """The clause rules alone hold the bars on every file they were written against."""
    reasoner = PlannerReasoner(router=load_edge_router(), split_with_model=False)
    metrics = evaluate(DATA / name, reasoner)
    assert metrics["plan_accuracy"] >= 0.90
    assert metrics["honest_refusal"] >= 0.95


def test_eval_bars_model_split(tmp_path: Path) -> None:
    """The default planner (the shipped joint router's parse, the rules where it declines)
    holds the bars over all the project's compound files together."""
    lines = [
        line
        for path in sorted(DATA.glob("compound_*.jsonl"))
        for line in path.read_text("utf-8").splitlines()
        if line.strip()
    ]
    (tmp_path / "all.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    metrics = evaluate(tmp_path / "all.jsonl")
    assert metrics["plan_accuracy"] >= 0.90
    assert metrics["honest_refusal"] >= 0.95


def test_eval_cli_json(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", str(DATA / "compound_heldout.jsonl"), "--json"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.output.strip().splitlines()[-1])
    assert {"plan_accuracy", "honest_refusal", "wrong_actions", "p50_ms"} <= set(metrics)


def test_eval_cli_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    result = CliRunner().invoke(app, ["eval", str(bad)])
    assert result.exit_code == 2


class _FakeRouter:
    """Stands in for the edge's router: keeps 'how is paris looking' on the device."""

    def decide(self, text: str) -> object:
        from types import SimpleNamespace

        if "looking" in text:
            city = text.split()[-1]
            return SimpleNamespace(route="edge", tool="get_weather", arguments={"city": city})
        return SimpleNamespace(route="cloud", tool=None, arguments=None)


def test_router_places_clauses_without_cue_words() -> None:
    query = "how is paris looking and lock the door"
    assert make_plan(query).refusal
    plan = make_plan(query, router=_FakeRouter())
    assert [c.tool for c in plan.calls] == ["get_weather", "device_control"]
