"""SLURP's mapping onto the device's intents, its deterministic split, and the joint
router's selection (scripts/build_slurp_data.py, scripts/build_router.py)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from understanding.router import Router
from understanding.slu.data import parse_inline
from understanding.slu.model import SluPart, SluPrediction

from .conftest import StubIntentModel

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "understanding" / "data"


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


slurp = _script("build_slurp_data")
build_router = _script("build_router")
snips = _script("build_snips_data")
clinc_device = _script("build_clinc_device")


def _rows(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("slurp_intent", "device"),
    [
        ("weather_query", "get_weather"),
        ("datetime_query", "world_clock"),
        ("qa_maths", "calculator"),
        ("iot_coffee", "device_control"),
        ("audio_volume_mute", "device_control"),
        ("alarm_set", "set_timer"),
        ("lists_createoradd", "add_note"),
        ("lists_query", "search_notes"),
        ("play_music", "oos"),
        ("transport_taxi", "oos"),
        ("calendar_set", None),
        ("alarm_remove", None),
        ("music", None),  # a broken label
    ],
)
def test_mapping(slurp_intent: str, device: str | None) -> None:
    assert slurp.device_intent(slurp_intent) == device


@given(st.text(alphabet="abcdefgh ", min_size=1, max_size=40))
def test_split_ignores_case_and_spacing(text: str) -> None:
    assert slurp.is_measure(text) == slurp.is_measure("  " + text.upper().replace(" ", "  "))


def test_inline_slots_parse() -> None:
    words, tags = parse_inline(slurp.inline("wake me at [time : five thirty am]"))
    assert words == ["wake", "me", "at", "five", "thirty", "am"]
    assert tags == ["O", "O", "O", "B-time", "I-time", "I-time"]


def _words(text: str) -> str:
    """The utterance as said: slots' words without their brackets."""
    return " ".join(re.sub(r"\[[^:\]]*:([^\]]*)\]", r"\1", text).split())


def _half_words(train: str, measure: str) -> tuple[set[str], set[str]]:
    """A SLURP half's utterances: its training file's, its eval file's."""
    trained = {_words(str(r["text"])).lower() for r in _rows(DATA / train)}
    return trained, {_words(str(r["query"])).lower() for r in _rows(DATA / measure)}


def test_committed_halves_are_disjoint_and_each_in_both_formats() -> None:
    """Two halves by a hash of the sentence, each written to train and to measure on."""
    a_train, a_eval = _half_words("slurp_train.jsonl", "slurp_train_eval.jsonl")
    b_train, b_eval = _half_words("slurp_measure_train.jsonl", "slurp_measure.jsonl")
    assert a_eval and b_eval and not a_eval & b_eval
    assert not any(slurp.is_measure(text) for text in a_eval)
    assert all(slurp.is_measure(text) for text in b_eval)
    # The same utterances in both formats, but for the one SLURP annotates otherwise than
    # its sentence ("orlando florida" annotated "orlando fl", half A's words).
    assert a_train == a_eval
    assert b_train - b_eval == {"what's the current time in orlando fl"} <= a_eval
    assert len(b_eval - b_train) == 1


@pytest.mark.parametrize("half", list(build_router.SLURP_HALVES))
def test_a_fold_trains_on_nothing_of_the_fold_it_is_measured_on(half: Path) -> None:
    """A build trained on one SLURP half (a fold of the cross-validation) neither trains
    nor validates on an utterance of the other half, nor on a generated line that says
    one."""
    (kept_out,) = build_router.measured_halves([half])
    assert kept_out != build_router.SLURP_HALVES[half]
    measured = {_words(str(r["query"])).lower() for r in _rows(kept_out)}
    train, val = build_router.joint_selection(
        DATA / "router_train.jsonl",
        DATA / "router_val.jsonl",
        [half],
        DATA / "clinc_cloud.jsonl",
        DATA / "snips_train.jsonl",
    )
    assert not measured & {_words(str(r["text"])).lower() for r in train + val}
    own = {_words(str(r["text"])).lower() for r in _rows(half)}
    assert own & {_words(str(r["text"])).lower() for r in train + val}


def test_the_shipped_build_trains_on_both_halves() -> None:
    """Nothing of SLURP's development split is kept out of the shipped router's
    selection: its SLURP figure is the two folds' (docs/edge.md, "SLURP")."""
    assert list(build_router.SLURP_HALVES) == build_router.SHIPPED_SLURP
    assert build_router.measured_halves(build_router.SHIPPED_SLURP) == []
    selected = {
        _words(str(r["text"])).lower()
        for name in ("router_joint_train.jsonl", "router_joint_val.jsonl")
        for r in _rows(DATA / name)
    }
    for train, measure in (
        ("slurp_train.jsonl", "slurp_train_eval.jsonl"),
        ("slurp_measure_train.jsonl", "slurp_measure.jsonl"),
    ):
        # A SLURP line that says a hand-written held-out query is kept out (never trained on).
        held_out = {
            _words(str(r["query"])).lower() for p in build_router.HELD_OUT for r in _rows(p)
        }
        assert _half_words(train, measure)[0] - held_out <= selected


def test_joint_selection_is_deterministic() -> None:
    args = (
        DATA / "router_train.jsonl",
        DATA / "router_val.jsonl",
        build_router.SHIPPED_SLURP,
        DATA / "clinc_cloud.jsonl",
        DATA / "snips_train.jsonl",
    )
    more = [build_router.HWU64, build_router.SLURP_EXTRA]  # the build's default --more
    first = build_router.joint_selection(*args, more=more)
    assert first == build_router.joint_selection(*args, more=more)
    train, val = first
    assert not {r["text"] for r in train} & {r["text"] for r in val}
    assert (train, val) == (
        _rows(DATA / "router_joint_train.jsonl"),
        _rows(DATA / "router_joint_val.jsonl"),
    )


def test_clinc_device_lines_map_by_intent() -> None:
    """Every line of a kept CLINC intent, labelled with its tool and intent-only; the
    intents that mix what the device does with what it does not are left out whole."""
    clinc = {
        "train": [
            ["is it hot outside", "weather"],
            ["set my alarm for six", "alarm"],
            ["who is at the door", "smart_home"],
            ["remove wine and add beer", "shopping_list_update"],
            ["transfer $50 to savings", "transfer"],
        ],
        "val": [
            ["how many chores are on my todo list", "todo_list"],
            ["SET my alarm  for six", "alarm"],
        ],
        "test": [["never read", "weather"]],
    }
    assert clinc_device.device_lines(clinc) == [
        {"text": "set my alarm for six", "intent": "set_timer", "slots": None},
        {"text": "how many chores are on my todo list", "intent": "search_notes", "slots": None},
    ]
    for left_out in ("weather", "smart_home", "shopping_list_update", "todo_list_update"):
        assert left_out not in clinc_device.DEVICE_INTENTS


def test_committed_clinc_device_lines_are_intent_only() -> None:
    from understanding.slu.data import read_jsonl
    from understanding.tools import TOOL_NAMES

    rows = read_jsonl(DATA / "clinc_device.jsonl")
    assert len(rows) > 1000 and all(not u.fully_tagged and not u.has_slots for u in rows)
    assert {u.intents[0] for u in rows} <= set(TOOL_NAMES)


def test_the_device_lines_join_the_selection_as_intent_only_lines() -> None:
    """``--device``: the selection is the shipped one's plus the intent-only lines (none
    that a measured or a validation line says), deterministic."""
    args = [
        DATA / "router_train.jsonl",
        DATA / "router_val.jsonl",
        build_router.SHIPPED_SLURP,
        DATA / "clinc_cloud.jsonl",
        DATA / "snips_train.jsonl",
    ]
    train, val = build_router.joint_selection(*args)
    with_device = build_router.joint_selection(*args, DATA / "clinc_device.jsonl")
    assert with_device == build_router.joint_selection(*args, DATA / "clinc_device.jsonl")
    assert with_device[1] == val and with_device[0][: len(train)] == train
    added = with_device[0][len(train) :]
    assert len(added) > 1000 and all(r["slots"] is None for r in added)
    assert not {r["text"] for r in added} & {r["text"] for r in val}


def test_side_effects_need_the_action_bar() -> None:
    """Between the two thresholds a lookup runs on the device, an action goes to the cloud."""
    router = Router(StubIntentModel(confidence=0.7), threshold=0.5, action_threshold=0.8)
    assert router.decide("weather in Paris").route == "edge"
    decision = router.decide("turn off the kitchen lights")
    assert decision.route == "cloud"
    assert "0.80" in decision.reason
    assert (
        Router(StubIntentModel(0.9), threshold=0.5, action_threshold=0.8)
        .decide("turn off the kitchen lights")
        .route
        == "edge"
    )


class _TwoRequests:
    """A joint model's prediction for 'weather in paris and time in tokyo'."""

    def predict(self, text: str) -> SluPrediction:
        parts = (
            SluPart("get_weather", "weather in paris", (), 0.97),
            SluPart("world_clock", "time in tokyo", (), 0.96),
        )
        words = tuple(text.split())
        return SluPrediction("get_weather", 0.97, True, 0.03, words, ("O",) * len(words), (), parts)


def test_one_request_sends_compound_queries_to_the_cloud() -> None:
    text = "weather in paris and time in tokyo"
    assert Router(_TwoRequests(), threshold=0.5).decide(text).route == "edge"
    decision = Router(_TwoRequests(), threshold=0.5, one_request=True).decide(text)
    assert decision.route == "cloud"
    assert "2 requests" in decision.reason


# The slot vocabulary of the project's generated lines (SLURP's names where SLURP has
# them, and the project's own for what SLURP never marks).
VOCABULARY = {
    "place_name", "date", "time", "timeofday", "device_type", "house_place", "change_amount",
    "list_name", "weather_descriptor", "note_text", "query", "expression", "amount",
    "from_unit", "to_unit", "timer_name",
}  # fmt: skip


def test_generated_lines_mark_their_slots() -> None:
    """Every built-in tool's lines carry slots of the shared vocabulary, the words as
    said come back without the marks, and compound lines name their requests."""
    from understanding.tools import TOOL_NAMES, input_schemas

    rows = _rows(DATA / "router_train.jsonl")
    with_slots: dict[str, int] = {}
    for row in rows:
        text, intent = str(row["text"]), str(row["intent"])
        words, tags = parse_inline(text)
        kinds = {tag[2:] for tag in tags if tag != "O"}
        assert kinds <= VOCABULARY, (text, kinds - VOCABULARY)
        assert words == parse_inline(build_router.plain_text(text))[0]
        if kinds:
            with_slots[intent] = with_slots.get(intent, 0) + 1
        if "#" in intent:
            assert len(intent.split("#")) == 2
            assert set(intent.split("#")) <= set(TOOL_NAMES)
    # The tools with a required argument: its words are in the request ("what timers do I
    # have" names nothing).
    schemas = input_schemas()
    needing = [t for t in TOOL_NAMES if schemas[t].get("required")]
    counts = {i: sum(str(r["intent"]) == i for r in rows) for i in needing}
    for tool in needing:
        assert with_slots.get(tool, 0) >= 0.75 * counts[tool], tool


def test_frozen_trainer_reads_the_words_and_compounds_as_oos() -> None:
    examples = build_router.frozen_examples(DATA / "router_val.jsonl")
    rows = _rows(DATA / "router_val.jsonl")
    assert len(examples) == len(rows)
    assert not any("[" in e.text or "]" in e.text for e in examples)
    for example, row in zip(examples, rows, strict=True):
        want = "oos" if "#" in str(row["intent"]) else row["intent"]
        assert example.intent == want


def test_generator_is_deterministic() -> None:
    generator = _script("build_router_data")
    first = generator.build(7, 12)
    assert first == generator.build(7, 12)
    assert first != generator.build(8, 12)


SNIPS_LINES = """what O
will O
the O
weather O
be O
in O
Gold B-city
Beach I-city
, O
OR B-state
at O
noon B-timeRange
GetWeather

will O
it O
be O
chilly B-condition_temperature
here B-current_location
next B-timeRange
year I-timeRange
GetWeather

is O
it O
going O
to O
snow B-condition_description
tomorrow B-timeRange
near B-spatial_relation
Oslo B-city
GetWeather

play O
some O
jazz B-genre
PlayMusic

"""


def test_snips_weather_lines_map_to_the_device(tmp_path: Path) -> None:
    """Places with their region are one place_name; a day the forecast does not serve
    makes the line the cloud's, without slots; other intents are the cloud's."""
    path = tmp_path / "train.txt"
    path.write_text(SNIPS_LINES, "utf-8")
    rows = snips.build(path, other_per_intent=5)
    assert [(r["text"], r["intent"]) for r in rows] == [
        (
            "what will the weather be in [place_name : Gold Beach , OR] at [time : noon]",
            "get_weather",
        ),
        ("will it be chilly here next year", "oos"),
        (
            "is it going to [weather_descriptor : snow] [date : tomorrow] near [place_name : Oslo]",
            "get_weather",
        ),
        ("play some jazz", "oos"),
    ]
    assert [r["snips_intent"] for r in rows] == ["GetWeather"] * 3 + ["PlayMusic"]


@pytest.mark.parametrize(
    ("span", "kind"),
    [("noon", "time"), ("7 am", "time"), ("in one hour", "time"), ("tomorrow", "date"),
     ("next year", "date"), ("seven weeks from now", "date"), ("this week", "date")],
)  # fmt: skip
def test_snips_time_ranges_are_times_or_dates(span: str, kind: str) -> None:
    assert snips.time_range_type(span) == kind


def test_committed_snips_lines_agree_with_the_forecast() -> None:
    """Each get_weather line's day is one the device's forecast serves, and its slots
    are of the shared vocabulary; the oos lines carry no slots."""
    rows = _rows(DATA / "snips_train.jsonl")
    assert {str(r["intent"]) for r in rows} == {"get_weather", "oos"}
    for row in rows:
        words, tags = parse_inline(str(row["text"]))
        kinds = {tag[2:] for tag in tags if tag != "O"}
        if row["intent"] == "oos":
            assert not kinds
            continue
        assert kinds <= VOCABULARY, row
        spans = [(t[2:], i) for i, t in enumerate(tags) if t.startswith("B-")]
        ends = {i: i + 1 + next((k for k, t in enumerate(tags[i + 1 :]) if not t.startswith("I-")),
                                len(tags) - i - 1) for _, i in spans}  # fmt: skip
        assert snips.forecast_serves(words, [(k, i, ends[i]) for k, i in spans]), row
