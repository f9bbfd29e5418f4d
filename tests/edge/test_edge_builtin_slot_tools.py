"""End to end: a joint intent + slot model trained on a small annotated file of the
built-in tools' requests, and `edge-agent ask` filling the built-in tools from its slots
(an alarm at a clock time, an item on a named list, a device in a room, two requests in
one utterance), and `edge-agent eval` scoring every call of a compound line.

The training is real (the train extra's torch, a few dozen steps), once per module.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from edge_agent.cli import app
from understanding.intents.cli import train

pytest.importorskip("torch", reason="the train extra (torch) trains the slot model")

DATA = Path(__file__).resolve().parent / "data" / "builtin_slots.jsonl"

trainer = typer.Typer()
trainer.command("train")(train)
trainer.command("unused")(lambda: None)  # two commands: typer keeps "train" as a name


@pytest.fixture(scope="module")
def builtin_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("slu-builtin") / "model"
    result = CliRunner().invoke(
        trainer, ["train", "--data", str(DATA), "--out", str(out), "--epochs", "15", "--json"]
    )
    assert result.exit_code == 0, result.output
    return out


def _ask(model: Path, tmp_path: Path, query: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(
        app,
        ["ask", "--model", str(model), "--memory", str(tmp_path / "m.db"), "--json", query],
    )
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines()]


def _actions(steps: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(s["tool"], s.get("arguments")) for s in steps if s["stepType"] == "STEP_TYPE_ACTION"]


def test_an_alarm_at_a_clock_time_from_the_time_slot(builtin_model: Path, tmp_path: Path) -> None:
    steps = _ask(builtin_model, tmp_path, "set an alarm for six am")
    assert _actions(steps) == [("set_timer", {"at": "06:00"})]


def test_a_list_item_from_the_note_text_and_list_name_slots(
    builtin_model: Path, tmp_path: Path
) -> None:
    steps = _ask(builtin_model, tmp_path, "add milk to my shopping list")
    assert _actions(steps) == [("add_note", {"text": "milk", "list": "shopping"})]


def test_a_device_in_a_room_from_the_house_place_slot(builtin_model: Path, tmp_path: Path) -> None:
    steps = _ask(builtin_model, tmp_path, "turn off the lights in the bedroom")
    assert _actions(steps) == [
        ("device_control", {"device": "light", "action": "off", "room": "bedroom"})
    ]


def test_two_requests_in_one_utterance_are_two_calls(builtin_model: Path, tmp_path: Path) -> None:
    steps = _ask(
        builtin_model, tmp_path, "set a timer for ten minutes and turn off the kitchen lights"
    )
    assert _actions(steps) == [
        ("set_timer", {"seconds": 600}),
        ("device_control", {"device": "light", "action": "off", "room": "kitchen"}),
    ]


def test_eval_scores_every_call_of_a_compound_line(builtin_model: Path, tmp_path: Path) -> None:
    query = "set a timer for ten minutes and turn off the kitchen lights"
    timer = {"tool": "set_timer", "args": {"seconds": 600}}
    lights = {"device": "light", "action": "off"}
    right = [timer, {"tool": "device_control", "args": {**lights, "room": "kitchen"}}]
    wrong_second = [timer, {"tool": "device_control", "args": {**lights, "room": "bedroom"}}]
    eval_file = tmp_path / "compound.jsonl"
    eval_file.write_text(
        "\n".join(
            json.dumps({"query": query, "route": "edge", "calls": calls})
            for calls in (right, wrong_second)
        )
        + "\n",
        "utf-8",
    )
    result = CliRunner().invoke(
        app, ["eval", str(eval_file), "--model", str(builtin_model), "--json"]
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.output.splitlines()[-1])
    assert metrics["tool_accuracy"] == 1.0
    assert metrics["args_accuracy"] == 0.5  # the second call's room is scored too
