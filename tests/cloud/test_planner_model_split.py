"""The planner with a joint intent + slot router: the model's parse gives the clauses and
each call is filled from its request's slots (issue 12 item 6, issue 11 item 2).

One test drives a real small joint model (trained once per session on the built-in
tools' annotated requests); the others hand the planner a parse of the model's kind
(``SluPrediction``, the type the model returns), to pin what the planner makes of each
shape of parse: repeated slots cut, a reference to an earlier result, a parse the rules
disagree with, a query the model declines.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from cloud_agent.cli import app
from cloud_agent.planner import model_split
from cloud_agent.planner.calls import PREV
from cloud_agent.planner.clauses import normalise
from cloud_agent.planner.plan import make_plan
from understanding.router import Router
from understanding.settings import Settings
from understanding.slu.data import split_words
from understanding.slu.model import Slot, SluPart, SluPrediction

Calls = list[tuple[str, dict[str, Any]]]


class ParsedModel:
    """A joint model's answer for one utterance, given: ``parts`` name, for each request,
    its intent and the words (in order) the model gave it, with slot words in brackets:
    ``("set_timer", "set a timer for [time: 10 minutes]")``."""

    tags = ("O",)

    def __init__(self, *parts: tuple[str, str], in_scope: bool = True) -> None:
        self.parts = parts
        self.in_scope = in_scope

    def predict(self, text: str) -> SluPrediction:
        return self.predict_words(split_words(text))

    def predict_words(self, words: Sequence[str]) -> SluPrediction:
        found: list[SluPart] = []
        cursor = 0
        for intent, annotated in self.parts:
            slots: list[Slot] = []
            plain: list[str] = []
            for chunk in annotated.replace("]", "[").split("["):
                kind, _, value = chunk.partition(":") if ":" in chunk else ("", "", chunk)
                chunk_words = split_words(value)
                start = words.index(chunk_words[0], cursor) if chunk_words else cursor
                if kind and chunk_words:
                    slots.append(
                        Slot(kind.strip(), " ".join(chunk_words), start, start + len(chunk_words))
                    )
                plain += chunk_words
                cursor = start + len(chunk_words)
            found.append(SluPart(intent, " ".join(plain), tuple(slots), 0.99))
        first = found[0].intent if found else "oos"
        return SluPrediction(
            first if self.in_scope else "oos",
            0.99,
            self.in_scope,
            0.01,
            tuple(words),
            (),
            tuple(p.intent for p in found),
            tuple(found),
        )


def planned(query: str, *parts: tuple[str, str], **kwargs: Any) -> Calls:
    router = Router(ParsedModel(*parts, in_scope=kwargs.pop("in_scope", True)), threshold=0.3)
    plan = make_plan(query, router=router, split_with_model=True, **kwargs)
    assert plan.refusal is None, plan.refusal
    return [(c.tool, c.args) for c in plan.calls]


def refusal(query: str, *parts: tuple[str, str]) -> str | None:
    router = Router(ParsedModel(*parts), threshold=0.3)
    return make_plan(query, router=router, split_with_model=True).refusal


def test_each_request_is_filled_from_its_own_slots() -> None:
    assert planned(
        "will it rain in lisbon this friday and set an alarm for six am",
        (
            "get_weather",
            "will it [weather_descriptor: rain] in [place_name: lisbon] this [date: friday]",
        ),
        ("set_timer", "set an alarm for [time: 6 am]"),
    ) == [
        ("get_weather", {"city": "lisbon", "day": "friday"}),
        ("set_timer", {"at": "06:00"}),
    ]


def test_one_intent_with_its_slots_repeated_is_cut_between_them() -> None:
    # The model gives each intent its words: two device commands are one part.
    assert planned(
        "turn off the tv and lock the front door",
        ("device_control", "turn off the [device_type: tv] and lock the [device_type: front door]"),
    ) == [
        ("device_control", {"device": "tv", "action": "off"}),
        ("device_control", {"device": "door_lock", "action": "lock"}),
    ]


def test_a_fragment_takes_what_the_request_before_it_lends() -> None:
    assert planned(
        "weather in beijing and shanghai tomorrow",
        (
            "get_weather",
            "weather in [place_name: beijing] and [place_name: shanghai] [date: tomorrow]",
        ),
    ) == [
        ("get_weather", {"city": "beijing", "day": "tomorrow"}),
        ("get_weather", {"city": "shanghai", "day": "tomorrow"}),
    ]


def test_a_step_on_the_result_before_is_the_planners_reference_reading() -> None:
    calls = planned(
        "convert 10 miles to km and double it",
        ("unit_convert", "convert [amount: 10] [from_unit: miles] to [to_unit: km] and double it"),
    )
    assert calls[0] == ("unit_convert", {"value": 10, "from_unit": "mi", "to_unit": "km"})
    assert calls[1][0] == "calculator" and PREV in calls[1][1]["expression"]


def test_a_parse_the_rules_disagree_with_goes_to_the_rules() -> None:
    # The model gives the weather words to the clock: the rules read a weather request,
    # so the rules plan the query alone (as for a query the model declines).
    assert planned(
        "weather in toronto and what time is it there",
        ("world_clock", "weather in [place_name: toronto] and what time is it there"),
    ) == [
        ("get_weather", {"city": "toronto", "day": "today"}),
        ("world_clock", {"city": "toronto"}),
    ]


def test_a_parse_the_rules_disagree_with_and_cannot_read_is_declined() -> None:
    # The parse and the rules disagree, and the rules read no plan: nothing is guessed.
    message = refusal(
        "lock in my answer: b and what time is it there",
        ("device_control", "lock in my answer: b and what time is it there"),
    )
    assert message is not None and "won't guess" in message


def test_a_request_the_slots_cannot_fill_declines_the_query() -> None:
    # A timer is never read from anything but its slot; half a plan would drop it.
    message = refusal(
        "set a timer and turn on the fan",
        ("set_timer", "set a timer"),
        ("device_control", "turn on the [device_type: fan]"),
    )
    assert message is not None


def test_what_the_model_declines_goes_to_the_rules() -> None:
    # Comparisons are out of the device's scope: the clause rules plan them.
    assert planned(
        "is tokyo warmer than seoul", ("get_weather", "is tokyo warmer than seoul"), in_scope=False
    ) == [
        ("get_weather", {"city": "tokyo", "day": "today"}),
        ("get_weather", {"city": "seoul", "day": "today"}),
    ]


def test_a_part_naming_no_place_is_the_homes() -> None:
    assert planned(
        "what's the weather and set a timer for ten minutes",
        ("get_weather", "what is the weather"),
        ("set_timer", "set a timer for [time: 10 minutes]"),
        home=Settings(home_city="oslo"),
    ) == [("get_weather", {"city": "oslo", "day": "today"}), ("set_timer", {"seconds": 600})]


def test_cut_points_need_a_joiner_between_the_repeated_slots() -> None:
    words = ["turn", "on", "the", "kitchen", "bedroom", "lights"]
    assert model_split.cut_points(words, [(3, 4), (4, 5)]) == []


def test_with_intent_heads_only_the_rules_split() -> None:
    class Heads:
        def predict(self, text: str) -> Any:
            raise AssertionError("the clause rules place these clauses themselves")

    router = Router(Heads())
    assert model_split.parse_query(router, "weather in paris and berlin") is None
    assert [
        c.tool
        for c in make_plan(
            "weather in paris and berlin", router=router, split_with_model=True
        ).calls
    ] == [
        "get_weather",
        "get_weather",
    ]


def test_a_real_joint_model_splits_a_compound_query(builtin_slot_model: Path) -> None:
    router = Router.load(builtin_slot_model)
    query = "set a timer for ten minutes and turn off the kitchen lights"
    parse = model_split.parse_query(router, normalise(query))
    assert parse is not None and parse.declined is None
    assert [r.tool for r in parse.requests] == ["set_timer", "device_control"]
    plan = make_plan(query, router=router, split_with_model=True)
    assert [(c.tool, c.args) for c in plan.calls] == [
        ("set_timer", {"seconds": 600}),
        ("device_control", {"device": "light", "action": "off", "room": "kitchen"}),
    ]


def test_eval_plans_with_a_joint_router(builtin_slot_model: Path, tmp_path: Path) -> None:
    data = tmp_path / "compound.jsonl"
    data.write_text(
        '{"query": "set a timer for ten minutes and turn off the kitchen lights", '
        '"answerable": true, "calls": [{"tool": "set_timer", "args": {"seconds": 600}}, '
        '{"tool": "device_control", "args": {"device": "light", "action": "off", '
        '"room": "kitchen"}}]}\n'
    )
    result = CliRunner().invoke(
        app, ["eval", str(data), "--json", "--router", str(builtin_slot_model), "--split", "model"]
    )
    assert result.exit_code == 0, result.output
    assert '"plan_accuracy": 1.0' in result.output


def test_eval_rejects_an_unknown_split(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["eval", str(tmp_path / "x.jsonl"), "--split", "both"])
    assert result.exit_code == 2


def test_the_server_setting_turns_the_model_split_on(builtin_slot_model: Path) -> None:
    from cloud_agent.backends import build_reasoner
    from cloud_agent.config import CloudConfig

    query = "set a timer for ten minutes and turn off the kitchen lights"
    config = CloudConfig(port=0, planner_split="model", planner_router=str(builtin_slot_model))
    (planner,) = build_reasoner(config).backends
    assert [c.tool for c in planner.plan(query).calls] == ["set_timer", "device_control"]
    with pytest.raises(ValueError, match="planner-split"):
        CloudConfig(planner_split="both")


_WORDS = st.sampled_from(["and", "then", ",", "the", "lights", "tv", "off", "in", "kitchen"])


@given(
    words=st.lists(_WORDS, min_size=2, max_size=14),
    cuts=st.lists(st.integers(min_value=0, max_value=13), max_size=6),
)
def test_cuts_fall_on_joiners_between_the_spans(words: list[str], cuts: list[int]) -> None:
    # Spans: one-word ranges at sorted distinct positions.
    starts = sorted({c for c in cuts if c < len(words)})
    spans = [(s, s + 1) for s in starts]
    found = model_split.cut_points(words, spans)
    assert found == sorted(set(found))
    for cut in found:
        assert words[cut] in {"and", "then", ","}
        assert not any(s <= cut < e for s, e in spans)  # never inside a span
    # At most one cut between two spans, and one wherever a joiner stands between them.
    for (_, end), (start, _) in itertools.pairwise(spans):
        inside = [c for c in found if end <= c < start]
        joiners = [i for i in range(end, start) if words[i] in {"and", "then", ","}]
        assert len(inside) == (1 if joiners else 0)
