"""Intent-only lines in the joint trainer: their slot loss is masked, so they move the
intent heads (and the encoder) but never the tagger, with or without the CRF.

The network is the real one (the train extra's torch and MiniLM weights); dropout is
off so that two passes over the same words give the same hidden states.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from understanding.slu.data import Utterance, intent_only

pytest.importorskip("torch", reason="the train extra (torch) trains the slot model")

INTENTS = ["get_weather", "set_timer"]
TAGS = ["O", "B-time", "I-time", "B-place_name", "I-place_name"]
TAGGED = [
    Utterance(
        ("set", "a", "timer", "for", "ten", "minutes"),
        ("O", "O", "O", "O", "B-time", "I-time"),
        ("set_timer",),
    ),
    Utterance(("weather", "in", "oslo"), ("O", "O", "B-place_name"), ("get_weather",)),
]
WORDS = st.lists(
    st.sampled_from(["what", "is", "the", "weather", "rain", "timer", "in", "tampa", "five"]),
    min_size=1,
    max_size=8,
)


@pytest.fixture(scope="module")
def net() -> Any:
    import torch

    from understanding.slu.network import JointNetwork

    torch.manual_seed(0)
    network = JointNetwork(len(INTENTS), len(TAGS))
    with torch.no_grad():  # CRF scores away from 0, so that their gradient could show
        network.tag_transitions.normal_()
        network.tag_start.normal_()
    network.eval()
    return network


def _encode(rows: list[Utterance]) -> list[Any]:
    from understanding.slu.batches import Encoded
    from understanding.slu.pieces import WordPiecer
    from understanding.slu.train import encoder_tokenizer

    piecer = WordPiecer(encoder_tokenizer())
    intents = {n: i for i, n in enumerate(INTENTS)}
    tags = {t: i for i, t in enumerate(TAGS)}
    return [Encoded(u, piecer, intents, tags) for u in rows]


def _grads(net: Any, rows: list[Utterance], crf: bool) -> dict[str, Any]:
    from understanding.slu.loss import batch_loss

    net.zero_grad()
    batch_loss(net, _encode(rows), crf=crf).backward()
    return {
        name: (p.grad.clone() if p.grad is not None else None) for name, p in net.named_parameters()
    }


def _zero(grad: Any) -> bool:
    return grad is None or not bool(grad.abs().gt(0).any())


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(WORDS, st.sampled_from(INTENTS)), min_size=1, max_size=4), st.booleans())
def test_an_intent_only_batch_moves_no_tagger_weight(
    net: Any, lines: list[tuple[list[str], str]], crf: bool
) -> None:
    grads = _grads(net, [intent_only(words, (intent,)) for words, intent in lines], crf)
    for name in ("slot.weight", "slot.bias", "tag_start", "tag_transitions"):
        assert _zero(grads[name]), name
    assert not _zero(grads["intent.weight"])  # the intent head does learn from them


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(WORDS, st.sampled_from(INTENTS)), min_size=1, max_size=3), st.booleans())
def test_intent_only_lines_leave_the_taggers_gradient_as_it_was(
    net: Any, lines: list[tuple[list[str], str]], crf: bool
) -> None:
    """Beside annotated lines, intent-only ones change neither the tag loss's positions
    nor its mean: the tagger's gradient is the annotated lines' alone."""
    import torch

    alone = _grads(net, TAGGED, crf)
    mixed = _grads(net, TAGGED + [intent_only(w, (i,)) for w, i in lines], crf)
    for name in ("slot.weight", "slot.bias", "tag_start", "tag_transitions"):
        if alone[name] is None:
            assert _zero(mixed[name]), name
        else:
            assert torch.allclose(alone[name], mixed[name], atol=1e-6), name


def test_the_same_words_as_known_o_tags_do_move_the_tagger(net: Any) -> None:
    """The mask is what keeps the tagger still: the same words read as "no slots"
    (every tag a known O) teach it that they hold none."""
    words = ("is", "it", "going", "to", "rain", "in", "tampa")
    none = Utterance(words, ("O",) * len(words), ("get_weather",))
    grads = _grads(net, [none], crf=False)
    assert not _zero(grads["slot.weight"])


def test_training_with_intent_only_lines(tmp_path: Path) -> None:
    """A model trains on annotated and intent-only lines together (composed compounds mix
    them), measures the intents of its intent-only validation lines and the slots of the
    annotated ones, and reads slots on the device."""
    from understanding.slu.data import read_jsonl
    from understanding.slu.model import SluModel
    from understanding.slu.train import train_slu

    root = Path(__file__).resolve().parents[2]
    data = tmp_path / "d.jsonl"
    lines = (root / "examples" / "slots.jsonl").read_text("utf-8").splitlines()
    extra = [
        {"text": text, "intent": "water_plants", "slots": None}
        for text in ("my plants look thirsty", "the garden needs watering", "water my herbs")
    ]
    data.write_text("\n".join(lines + [json.dumps(r) for r in extra]) + "\n", "utf-8")
    rows = read_jsonl(data)
    assert sum(not u.fully_tagged for u in rows) == 3
    val = [u for u in rows if not u.fully_tagged][:1] + [u for u in rows if u.fully_tagged][:5]
    report = train_slu(rows, val, tmp_path / "m", epochs=1.0, crf=True)
    assert 0.0 <= float(report.val_metrics["intent_accuracy"] or 0.0) <= 1.0
    model = SluModel.load(tmp_path / "m")
    assert model.predict_words(("water", "the", "fern", "with", "200", "ml")).intents
