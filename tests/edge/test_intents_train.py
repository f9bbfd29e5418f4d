"""Training on a small synthetic set with the real INT8 encoder; the model folder; the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from understanding.encoder import Encoder
from understanding.intents import (
    Example,
    IntentDataError,
    IntentModel,
    IntentModelError,
    TrainReport,
    train_model,
)
from understanding.intents.cli import eval_intents, train
from understanding.intents.evaluate import METRIC_KEYS
from understanding.slu.evaluate import SIDE_EFFECT_KEYS

INTENTS = {
    "weather": [
        "what's the weather today",
        "will it rain tomorrow",
        "is it sunny outside",
        "weather forecast for the weekend",
        "how hot will it be today",
        "do i need an umbrella",
        "is it going to snow tonight",
        "what's the temperature outside",
        "how windy is it today",
        "tell me the forecast",
    ],
    "lights": [
        "turn on the lights",
        "switch off the kitchen light",
        "dim the bedroom lamp",
        "lights off please",
        "turn the living room lights on",
        "make the lights brighter",
        "switch the hallway light on",
        "turn off all the lamps",
        "set the lights to half brightness",
        "kill the lights",
    ],
    "timer": [
        "set a timer for five minutes",
        "start a ten minute timer",
        "timer for 30 seconds",
        "set a countdown for an hour",
        "remind me in 20 minutes with a timer",
        "start a timer for the pasta",
        "set an egg timer",
        "two minute timer please",
        "count down from 90 seconds",
        "put a timer on for 15 minutes",
    ],
    "oos": [
        "who wrote war and peace",
        "explain quantum entanglement",
        "write a poem about autumn",
        "what is the capital of peru",
        "summarize the french revolution",
        "how do i file my taxes",
        "recommend a good novel",
        "translate hello into german",
    ],
}


def examples() -> list[Example]:
    return [
        Example(text, intent, f"synthetic:{i}")
        for intent, texts in INTENTS.items()
        for i, text in enumerate(texts)
    ]


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder.load()


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory, encoder: Encoder) -> TrainReport:
    out = tmp_path_factory.mktemp("router")
    return train_model(examples(), None, out, encoder=encoder, max_escalation=0.0)


def test_training_holds_out_a_stratified_validation_split(trained: TrainReport) -> None:
    assert trained.held_out_validation
    assert trained.classes == ["lights", "timer", "weather", "oos"]
    assert trained.n_train + trained.n_val == len(examples())
    assert set(trained.val_metrics) == set(METRIC_KEYS)
    assert trained.val_metrics["escalated_in_scope"] == 0.0


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("could you switch the lamp off", "lights"),
        ("is it raining right now", "weather"),
        ("set a timer for three minutes", "timer"),
    ],
)
def test_the_trained_model_routes_new_queries(
    trained: TrainReport, encoder: Encoder, query: str, intent: str
) -> None:
    model = IntentModel.load(trained.out_dir, encoder=encoder)
    prediction = model.predict(query)
    assert prediction.top_intent == intent
    assert prediction.intent == intent
    assert prediction.in_scope
    assert prediction.oos_score <= model.threshold
    assert set(prediction.scores) == set(trained.classes)
    assert prediction.confidence == max(prediction.scores[c] for c in model.in_scope_classes)


def test_out_of_scope_queries_go_to_the_cloud(trained: TrainReport, encoder: Encoder) -> None:
    model = IntentModel.load(trained.out_dir, encoder=encoder)
    prediction = model.predict("what were the causes of the first world war")
    assert not prediction.in_scope
    assert prediction.intent == "oos"


def test_predict_embedding_accepts_layers_or_flat_features(
    trained: TrainReport, encoder: Encoder
) -> None:
    model = IntentModel.load(trained.out_dir, encoder=encoder)
    layers = encoder.embed_layers("turn on the lights")
    a = model.predict_embedding(layers)
    b = model.predict_embedding(layers.reshape(-1))
    assert a == b == model.predict("turn on the lights")
    with pytest.raises(ValueError, match="expected"):
        model.predict_embedding(np.zeros(384, dtype=np.float32))


def test_manifest_records_provenance_and_validation(trained: TrainReport, encoder: Encoder) -> None:
    manifest = json.loads((trained.out_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["classes"] == trained.classes
    assert manifest["threshold"] == trained.threshold
    assert manifest["method_name"] == trained.method
    assert manifest["training"]["held_out_validation"] is True
    assert manifest["training"]["refit_on_validation"] is True
    assert len(manifest["training"]["train_sha256"]) == 64
    assert (
        manifest["encoder"]["sha256"] == (encoder.manifest()["files"]["model_int8.onnx"]["sha256"])
    )
    assert set(manifest["validation"]) == set(METRIC_KEYS)
    assert (trained.out_dir / "heads.npz").is_file()


def test_load_refuses_a_model_for_another_encoder(
    trained: TrainReport, encoder: Encoder, tmp_path: Path
) -> None:
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "heads.npz").write_bytes((trained.out_dir / "heads.npz").read_bytes())
    manifest = json.loads((trained.out_dir / "manifest.json").read_text(encoding="utf-8"))
    manifest["encoder"]["sha256"] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(IntentModelError, match="retrain"):
        IntentModel.load(folder, encoder=encoder)
    manifest["format_version"] = 99
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(IntentModelError, match="format_version"):
        IntentModel.load(folder)
    with pytest.raises(IntentModelError, match="not found"):
        IntentModel.load(tmp_path / "missing")


def test_validation_intents_must_be_known(encoder: Encoder, tmp_path: Path) -> None:
    val = [Example("play some jazz", "music", "val.jsonl:4")]
    with pytest.raises(IntentDataError, match=r"val.jsonl:4: .*'music'"):
        train_model(examples(), val, tmp_path / "m", encoder=encoder)


# -- the CLI functions, through a tiny typer app (the lead's edge-agent registers them) --

app = typer.Typer()
app.command("train")(train)
app.command("eval-intents")(eval_intents)


def write_jsonl(path: Path, rows: list[Example]) -> Path:
    path.write_text(
        "".join(json.dumps({"text": e.text, "intent": e.intent}) + "\n" for e in rows),
        encoding="utf-8",
    )
    return path


def test_cli_train_then_eval_intents(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "train.jsonl", examples())
    runner = CliRunner()
    result = runner.invoke(
        app, ["train", "--data", str(data), "--out", str(tmp_path / "m"), "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["classes"] == 4
    result = runner.invoke(
        app, ["eval-intents", "--model", str(tmp_path / "m"), "--data", str(data), "--json"]
    )
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)
    assert list(metrics) == [
        "intent_accuracy",
        "slot_f1",
        "exact_match",
        *METRIC_KEYS,
        *SIDE_EFFECT_KEYS,
    ]
    assert metrics["slot_f1"] is None and metrics["exact_match"] is None  # intents only
    assert all(0.0 <= v <= 1.0 for v in metrics.values() if v is not None)


def test_cli_errors_are_one_line_with_exit_code_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "hi", "intent": "a"}\n{"text": "", "intent": "a"}\n', "utf-8")
    runner = CliRunner()
    result = runner.invoke(app, ["train", "--data", str(bad), "--out", str(tmp_path / "m")])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"error: {bad}:2: empty text"]
    single = write_jsonl(tmp_path / "single.jsonl", [*examples(), Example("play jazz", "music")])
    result = runner.invoke(app, ["train", "--data", str(single), "--out", str(tmp_path / "m")])
    assert result.exit_code == 2
    assert "single.jsonl:39: intent 'music' has a single" in result.stderr
    result = runner.invoke(
        app, ["eval-intents", "--model", str(tmp_path / "none"), "--data", str(single)]
    )
    assert result.exit_code == 2
    assert "not found" in result.stderr


def test_training_without_refit_records_it(encoder: Encoder, tmp_path: Path) -> None:
    report = train_model(examples(), None, tmp_path / "m", encoder=encoder, refit=False)
    manifest = json.loads((tmp_path / "m" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["training"]["refit_on_validation"] is False
    assert report.refit_s == 0.0
    model = IntentModel.load(tmp_path / "m", encoder=encoder)
    assert model.predict("switch the kitchen lights off").intent == "lights"


def test_the_side_effect_floor_is_stricter_and_recorded(
    trained: TrainReport, encoder: Encoder
) -> None:
    manifest = json.loads((trained.out_dir / "manifest.json").read_text(encoding="utf-8"))
    assert trained.side_effect_threshold <= trained.threshold
    assert manifest["side_effect_threshold"] == trained.side_effect_threshold
    assert set(manifest["validation_side_effect"]) == set(METRIC_KEYS)
    floor_escalated = manifest["validation_side_effect"]["escalated_in_scope"]
    assert floor_escalated >= manifest["validation"]["escalated_in_scope"]
    assert manifest["cross_validation"]["folds"] == 5
    assert "oos_recall_mean" in manifest["cross_validation"]
    model = IntentModel.load(trained.out_dir, encoder=encoder)
    for query in ("turn on the lights", "what were the causes of the first world war"):
        p = model.predict(query)
        assert p.side_effect_ok == (p.in_scope and p.oos_score <= model.side_effect_threshold)


def test_a_model_from_before_the_floor_uses_its_threshold(
    trained: TrainReport, encoder: Encoder, tmp_path: Path
) -> None:
    old = tmp_path / "old"
    old.mkdir()
    (old / "heads.npz").write_bytes((trained.out_dir / "heads.npz").read_bytes())
    manifest = json.loads((trained.out_dir / "manifest.json").read_text(encoding="utf-8"))
    del manifest["side_effect_threshold"]
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    model = IntentModel.load(old, encoder=encoder)
    assert model.side_effect_threshold == model.threshold


def test_a_training_stopped_early_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = write_jsonl(tmp_path / "train.jsonl", examples())

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt  # what Ctrl-C raises while the encoder embeds

    monkeypatch.setattr(Encoder, "embed_layers_many", interrupted)
    result = CliRunner().invoke(app, ["train", "--data", str(data), "--out", str(tmp_path / "m")])
    assert result.exit_code == 1
    lines = result.stderr.strip().splitlines()
    assert lines[-1].startswith("error: training stopped early: interrupted at 'embedding")
    assert "no model was saved" in lines[-1]
    assert not (tmp_path / "m" / "manifest.json").exists()
