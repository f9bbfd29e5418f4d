"""End to end: train a joint intent + slot model on a small annotated file of made-up
intents, register tools for them, and let `edge-agent ask` fill their arguments from
what the user said, including a compound request of two of them.

The training is real (the train extra's torch, a few dozen steps), once per session.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from edge_agent.cli import app
from understanding.intents.cli import eval_intents, train

pytest.importorskip("torch", reason="the train extra (torch) trains the slot model")

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "examples" / "slots.jsonl"

# `edge-agent` adds its trainer commands only when the command line names them (a cold
# `ask` skips importing them): the same functions, in an app of their own here.
trainer = typer.Typer()
trainer.command("train")(train)
trainer.command("eval-intents")(eval_intents)

TOOLS_MODULE = (ROOT / "examples" / "slot_tools.py").read_text("utf-8")


@pytest.fixture(scope="module")
def slot_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("slu") / "model"
    result = CliRunner().invoke(
        trainer, ["train", "--data", str(DATA), "--out", str(out), "--epochs", "15", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.splitlines()[-1])
    assert report["model"] == "joint intent + slot"
    assert report["int8_vs_fp32"]["intents_same"] >= 0.8
    return out


@pytest.fixture
def tools_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"slu_tools_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(TOOLS_MODULE, "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def _ask(model: Path, tools: str, tmp_path: Path, query: str) -> list[dict[str, object]]:
    result = CliRunner().invoke(
        app,
        [
            "ask", "--model", str(model), "--memory", str(tmp_path / "m.db"),
            "--tools", f"{tools}:TOOLS", "--json", query,
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines()]


def _actions(steps: list[dict[str, object]]) -> list[tuple[object, object]]:
    return [(s["tool"], s.get("arguments")) for s in steps if s["stepType"] == "STEP_TYPE_ACTION"]


def test_ask_fills_a_user_tools_arguments_from_slots(
    slot_model: Path, tools_module: str, tmp_path: Path
) -> None:
    steps = _ask(slot_model, tools_module, tmp_path, "can i get three large mochas please")
    assert _actions(steps) == [("order_coffee", {"count": 3, "size": "large", "drink": "mochas"})]
    assert steps[-1]["content"] == "Ordered 3 large mochas."
    steps = _ask(slot_model, tools_module, tmp_path, "book a table for two at half past seven")
    assert _actions(steps) == [("book_table", {"people": 2, "time": "07:30"})]


def test_ask_runs_a_compound_request_of_two_tools(
    slot_model: Path, tools_module: str, tmp_path: Path
) -> None:
    steps = _ask(
        slot_model,
        tools_module,
        tmp_path,
        "order two small lattes and then water the ficus with 300 ml",
    )
    assert _actions(steps) == [
        ("order_coffee", {"count": 2, "size": "small", "drink": "lattes"}),
        ("water_plants", {"plant": "ficus", "amount": 300}),
    ]
    assert steps[-1]["content"] == "Ordered 2 small lattes. Watered the ficus with 300 ml."


def test_a_required_argument_without_a_slot_goes_to_the_cloud(
    slot_model: Path, tools_module: str, tmp_path: Path
) -> None:
    steps = _ask(slot_model, tools_module, tmp_path, "water the basil")
    assert not _actions(steps)
    thought = steps[0]
    assert thought["metadata"]["route"] == "cloud"  # type: ignore[index]
    assert "amount" in str(thought["metadata"]["reason"])  # type: ignore[index]


def test_eval_intents_reports_joint_metrics(slot_model: Path) -> None:
    result = CliRunner().invoke(
        trainer, ["eval-intents", "--model", str(slot_model), "--data", str(DATA), "--json"]
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.output)
    for key in ("intent_accuracy", "slot_f1", "exact_match", "oos_recall", "in_scope_accuracy"):
        assert 0.0 <= metrics[key] <= 1.0
    assert metrics["slot_f1"] > 0.8  # mostly its own training lines: it must have learnt them


def test_training_without_the_crf_keeps_bio_constraints_alone(tmp_path: Path) -> None:
    """``train_slu(crf=False)`` (the shipped router's build pins it): the tag-to-tag
    scores stay 0, so the device decodes with BIO's constraints alone."""
    import numpy as np

    from understanding.slu.data import read_jsonl
    from understanding.slu.model import TRANSITIONS_FILE
    from understanding.slu.train import train_slu

    out = tmp_path / "model"
    train_slu(read_jsonl(DATA), None, out, epochs=1.0, crf=False)
    learned = np.load(out / TRANSITIONS_FILE)
    assert not learned["start"].any() and not learned["transitions"].any()
    assert json.loads((out / "manifest.json").read_text("utf-8"))["training"]["crf"] is False
