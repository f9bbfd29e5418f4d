"""Eval file loading, argument matching rules and the metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edge_agent.evaluation import (
    EvalCase,
    EvalFileError,
    _parse_line,
    args_match,
    calls_match,
    is_wrong_action,
    load_cases,
    run_eval,
    token_f1,
)
from tests.edge.conftest import StubIntentModel
from understanding.decision import RouteDecision, ToolCall
from understanding.router import Router


def write(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "eval.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def line(**fields: object) -> str:
    base: dict[str, object] = {"route": "edge", "tool": None, "args": None, "expected_value": None}
    base.update(fields)
    return json.dumps(base)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        (line(query=""), "'query'"),
        (line(query="hi", route="moon"), "'route'"),
        (line(query="hi", args=[1]), "'args'"),
        (line(query="hi", expected_value="12"), "'expected_value'"),
        (line(query="hi", calls=[]), "'calls'"),
        (line(query="hi", calls=[{"args": {}}]), "'tool'"),
        (line(query="hi", calls=[{"tool": "add_note", "args": "milk"}]), "'args'"),
        (line(query="hi", route="cloud", calls=[{"tool": "add_note", "args": None}]), "'calls'"),
    ],
)
def test_malformed_line_names_its_number(tmp_path: Path, bad: str, message: str) -> None:
    path = write(tmp_path, [line(query="hello"), "", bad])
    with pytest.raises(EvalFileError, match=rf"eval.jsonl:3: .*{message}"):
        load_cases(path)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(EvalFileError, match="no such file"):
        load_cases(tmp_path / "nope.jsonl")
    with pytest.raises(EvalFileError, match="no eval lines"):
        load_cases(write(tmp_path, [""]))


def test_calls_match_one_to_one() -> None:
    timer = ("set_timer", {"seconds": 600})
    light = ("device_control", {"device": "light", "action": "off"})
    assert calls_match((timer, light), [light, timer])
    assert calls_match((timer, ("calculator", None)), [timer, ("calculator", {"expression": "1"})])
    assert not calls_match((timer, light), [timer])
    assert not calls_match((timer, timer), [timer, ("set_timer", {"seconds": 60})])


def test_argument_matching_rules() -> None:
    assert args_match(
        {"value": 3.5, "from_unit": "KG "}, {"value": 3.5000000001, "from_unit": "kg"}
    )
    assert not args_match({"value": 3.5}, {"value": 3.6})
    assert args_match({"text": "buy milk and eggs"}, {"text": "buy milk and eggs please"})
    assert not args_match({"text": "buy milk"}, {"text": "call the dentist"})
    assert not args_match({"device": "light"}, {"device": "light", "room": "kitchen"})
    assert args_match({"device": "light", "room": None}, {"device": "light"})
    assert not args_match({"device": "light"}, None)
    assert token_f1("the wifi password", "wifi password") == pytest.approx(0.8)


def test_metrics(tmp_path: Path, stub_router: Router) -> None:
    path = write(
        tmp_path,
        [
            line(query="what is 6 times 7", tool="calculator", expected_value=42),
            line(query="what is 6 times 8", tool="calculator", expected_value=42),
            line(query="convert 5 kg to lb", tool="unit_convert",
                 args={"value": 5, "from_unit": "kg", "to_unit": "lb"}),
            line(query="hello", tool=None),
            line(query="write a poem", route="cloud"),
            line(query="weather in paris and rome", route="cloud"),
            line(query="set a timer for 5 minutes", route="cloud"),
        ],
    )  # fmt: skip
    report = run_eval(stub_router, load_cases(path))
    metrics = report.metrics
    assert metrics["n"] == 7
    assert metrics["route_accuracy"] == pytest.approx(6 / 7, abs=1e-4)
    assert metrics["tool_accuracy"] == 1.0
    assert metrics["args_accuracy"] == pytest.approx(2 / 3, abs=1e-4)
    assert metrics["cloud_recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert metrics["edge_precision"] == pytest.approx(4 / 5, abs=1e-4)
    assert {"p50_ms", "p95_ms"} <= set(metrics)
    assert report.confusion[("cloud", "set_timer")] == 1
    assert {miss["line"] for miss in report.misses} == {2, 7}


class ScriptedRouter(Router):
    """A router whose decisions are written out per query (the eval is what is tested)."""

    def __init__(self, decisions: dict[str, RouteDecision]) -> None:
        super().__init__(StubIntentModel(), threshold=0.5)
        self.decisions = decisions

    def decide(self, text: str, settings: object = None, **_: object) -> RouteDecision:  # type: ignore[override]
        default = RouteDecision("cloud", None, None, 0.0, "unscripted")
        return self.decisions.get(text, default)


def edge(tool: str, **args: object) -> RouteDecision:
    return RouteDecision("edge", tool, dict(args), 0.9, f"one {tool} call")


def ask(tool: str, missing: str) -> RouteDecision:
    return RouteDecision("ask", tool, {}, 0.9, "asks", missing=missing, question="When?")


def test_wrong_actions_and_asking_back(tmp_path: Path) -> None:
    timer = {"seconds": 300}
    lamp = {"device": "light", "action": "off", "room": "all"}
    path = write(
        tmp_path,
        [
            line(query="is the plug on", route="cloud"),  # switched on: wrong
            line(query="set a timer", route="ask", tool="set_timer"),  # asked: right
            line(query="wake me up", route="ask", tool="set_timer"),  # guessed a time: wrong
            line(query="write a poem", route="cloud"),  # asked back: no wrong action
            line(query="timer 5 min", tool="set_timer", args=timer),  # right
            line(query="lights off everywhere", tool="device_control", args=lamp),  # room: wrong
            line(query="what's 2 plus 2", tool="calculator", expected_value=4),  # lookup only
            line(query="note milk", tool="add_note", args=None),  # tool alone: right
        ],
    )
    router = ScriptedRouter(
        {
            "is the plug on": edge("device_control", device="plug", action="on"),
            "set a timer": ask("set_timer", "seconds"),
            "wake me up": edge("set_timer", seconds=60),
            "write a poem": ask("add_note", "text"),
            "timer 5 min": edge("set_timer", seconds=300),
            "lights off everywhere": edge("device_control", device="light", action="off"),
            "what's 2 plus 2": edge("calculator", expression="2 + 3"),
            "note milk": edge("add_note", text="milk"),
        }
    )
    report = run_eval(router, load_cases(path))
    metrics = report.metrics
    assert metrics["wrong_actions"] == 3
    assert metrics["asked_back"] == 2
    assert metrics["cloud_recall"] == 0.5  # the poem was asked back, the plug switched
    assert metrics["route_accuracy"] == pytest.approx(5 / 8, abs=1e-4)
    assert report.confusion[("ask:set_timer", "ask:set_timer")] == 1
    flagged = {miss["line"] for miss in report.misses if miss["wrong_action"]}
    assert flagged == {1, 3, 6}


def test_is_wrong_action_on_compound_lines() -> None:
    expected = ({"tool": "set_timer", "args": {"seconds": 60}}, {"tool": "add_note", "args": None})
    case = load_case(line(query="q", calls=list(expected)))
    both = RouteDecision(
        "edge",
        "set_timer",
        {"seconds": 60},
        0.9,
        "2 calls",
        calls=(ToolCall("set_timer", {"seconds": 60}), ToolCall("add_note", {"text": "x"})),
    )
    assert not is_wrong_action(case, both)
    off = RouteDecision(
        "edge",
        "set_timer",
        {"seconds": 90},
        0.9,
        "2 calls",
        calls=(ToolCall("set_timer", {"seconds": 90}), ToolCall("add_note", {"text": "x"})),
    )
    assert is_wrong_action(case, off)
    assert not is_wrong_action(case, RouteDecision("cloud", None, None, 0.1, "cloud"))


def load_case(raw: str) -> EvalCase:
    return _parse_line(Path("x.jsonl"), 1, raw)


def test_an_ask_line_names_its_tool(tmp_path: Path) -> None:
    with pytest.raises(EvalFileError, match="names the 'tool'"):
        load_cases(write(tmp_path, [line(query="set a timer", route="ask")]))
