"""Loaders for labelled examples and their errors (each names the file and line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from understanding.intents.data import (
    Example,
    check_training_examples,
    examples_sha256,
    infer_format,
    load_clinc,
    load_examples,
    load_jsonl,
    stratified_split,
)
from understanding.intents.errors import IntentDataError


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_load_jsonl_reads_objects_and_skips_blank_lines(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "d.jsonl",
        [
            json.dumps({"text": " hi there ", "intent": "smalltalk"}),
            "",
            json.dumps({"text": "what is 2+2", "intent": "calculator", "extra": 1}),
        ],
    )
    examples = load_jsonl(path)
    assert [(e.text, e.intent) for e in examples] == [
        ("hi there", "smalltalk"),
        ("what is 2+2", "calculator"),
    ]
    assert examples[1].where.endswith("d.jsonl:3")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"text": "", "intent": "a"}', "empty text"),
        ('{"text": "   ", "intent": "a"}', "empty text"),
        ('{"text": "hello", "intent": ""}', "empty intent"),
        ('{"text": "hello"}', "missing 'intent'"),
        ('{"intent": "a"}', "missing 'text'"),
        ('{"text": 3, "intent": "a"}', "text must be a string"),
        ('{"text": "x", "intent": ["a"]}', "intent must be a string"),
        ('["hello", "a"]', "expected an object"),
        ("{not json", "not JSON"),
    ],
)
def test_load_jsonl_errors_name_the_line(tmp_path: Path, line: str, message: str) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", ['{"text": "ok", "intent": "a"}', line])
    with pytest.raises(IntentDataError, match=message) as info:
        load_jsonl(path)
    assert "bad.jsonl:2" in str(info.value)


def test_load_jsonl_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(IntentDataError, match="no such file"):
        load_jsonl(tmp_path / "nope.jsonl")
    with pytest.raises(IntentDataError, match="no examples"):
        load_jsonl(write_jsonl(tmp_path / "empty.jsonl", ["", "  "]))


def clinc_file(tmp_path: Path, **splits: object) -> Path:
    path = tmp_path / "clinc.json"
    path.write_text(json.dumps(splits), encoding="utf-8")
    return path


def test_load_clinc_reads_the_named_splits(tmp_path: Path) -> None:
    path = clinc_file(
        tmp_path,
        train=[["book a flight", "book_flight"], ["hello", "greeting"]],
        oos_train=[["what is love", "oos"]],
        val=[["fly me to rome", "book_flight"]],
    )
    splits = load_clinc(path, ["train", "oos_train", "test"])
    assert set(splits) == {"train", "oos_train"}
    assert splits["train"][1] == Example("hello", "greeting", f"{path}: train[1]")
    train = load_examples(path, "clinc", purpose="train")
    assert [e.intent for e in train] == ["book_flight", "greeting", "oos"]


def test_clinc_eval_uses_test_when_present_else_val(tmp_path: Path) -> None:
    base = {"train": [["a b", "x"]], "val": [["v", "x"]], "oos_val": [["o", "oos"]]}
    path = clinc_file(tmp_path, **base)
    assert [e.text for e in load_examples(path, "clinc", purpose="eval")] == ["v", "o"]
    path = clinc_file(tmp_path, **base, test=[["t", "x"]], oos_test=[["ot", "oos"]])
    assert [e.text for e in load_examples(path, "clinc", purpose="eval")] == ["t", "ot"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"train": [["ok", "a"], ["only text"]]}', r"train\[1\]: expected \[text, intent\]"),
        ('{"train": [["", "a"]]}', r"train\[0\]: empty text"),
        ('{"train": "nope"}', "not a list"),
        ("[1, 2]", "object of splits"),
        ('{"train": [\n["a", "b"],\n}', ":3: not JSON"),
        ('{"val": [["a", "b"]]}', "no 'train' split"),
    ],
)
def test_load_clinc_errors(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(IntentDataError, match=message):
        load_examples(path, "clinc", purpose="train")


def test_infer_format() -> None:
    assert infer_format(Path("a.json"), "auto") == "clinc"
    assert infer_format(Path("a.jsonl"), None) == "jsonl"
    assert infer_format(Path("a.json"), "jsonl") == "jsonl"
    with pytest.raises(IntentDataError, match="unknown format"):
        infer_format(Path("a.json"), "csv")


def ex(text: str, intent: str, line: int = 0) -> Example:
    return Example(text, intent, f"f.jsonl:{line}")


def test_an_intent_with_a_single_example_is_refused_naming_its_line() -> None:
    examples = [ex("a", "x", 1), ex("b", "x", 2), ex("c", "y", 3), ex("d", "z", 4)]
    with pytest.raises(IntentDataError, match=r"f.jsonl:3: intent 'y' has a single"):
        check_training_examples(examples)


def test_oos_may_have_a_single_example_but_two_intents_are_needed() -> None:
    check_training_examples(
        [ex("a", "x"), ex("b", "x"), ex("c", "y"), ex("d", "y"), ex("e", "oos")]
    )
    with pytest.raises(IntentDataError, match="at least 2"):
        check_training_examples([ex("a", "x"), ex("b", "x"), ex("c", "oos")])
    with pytest.raises(IntentDataError, match="no training examples"):
        check_training_examples([])


def test_held_out_split_needs_two_examples_per_intent() -> None:
    with pytest.raises(IntentDataError, match=r"f.jsonl:7: .*give a validation file"):
        stratified_split([ex("a", "x"), ex("b", "x"), ex("c", "oos", 7)])


@settings(max_examples=50, deadline=None)
@given(
    counts=st.dictionaries(
        st.sampled_from(["a", "b", "c", "d", "oos"]), st.integers(2, 30), min_size=2
    ),
    fraction=st.floats(0.05, 0.5),
    seed=st.integers(0, 5),
)
def test_stratified_split_is_a_deterministic_partition(
    counts: dict[str, int], fraction: float, seed: int
) -> None:
    examples = [ex(f"{intent} {i}", intent) for intent, n in counts.items() for i in range(n)]
    train, val = stratified_split(examples, fraction, seed)
    assert sorted(train + val, key=lambda e: e.text) == sorted(examples, key=lambda e: e.text)
    for intent in counts:  # every intent keeps an example on each side
        assert any(e.intent == intent for e in train)
        assert any(e.intent == intent for e in val)
    assert (train, val) == stratified_split(examples, fraction, seed)


def test_examples_sha256_depends_on_text_labels_and_order() -> None:
    a, b = ex("x", "1"), ex("y", "2")
    assert examples_sha256([a, b]) == examples_sha256([ex("x", "1", 9), ex("y", "2", 9)])
    assert examples_sha256([a, b]) != examples_sha256([b, a])
    assert examples_sha256([a]) != examples_sha256([ex("x", "2")])
