"""Kinds of misreading found by the ninth own set (examples/understanding_own_24i.jsonl,
written before any change for it, in the words of older users, children, speakers of
other languages and speech recognition): "half a litre" read as one litre, a
self-correction inside a list item written whole, and "close the light" / "open the tv"
for off and on (issue 24)."""

from __future__ import annotations

import pytest

from understanding.arguments.units import unit_arguments
from understanding.corrections import unplaced_fix
from understanding.router import Router
from understanding.settings import Settings


def decide(router: Router, words: str) -> tuple[str, str | None, dict[str, object] | None]:
    decision = router.decide(words, settings=Settings(home_city="london"))
    return decision.route, decision.tool, decision.arguments


@pytest.mark.parametrize(
    ("words", "value", "unit"),
    [
        ("how much ml is in half a litre", 0.5, "l"),
        ("convert half a kilo to grams", 0.5, "kg"),
        ("a quarter of a mile in metres", 0.25, "mi"),
        ("how many grams in a pound", 1.0, "lb"),
    ],
)
def test_a_fraction_before_a_unit_is_the_value(words: str, value: float, unit: str) -> None:
    read = unit_arguments(words)
    assert read is not None
    assert read["value"] == pytest.approx(value)
    assert read["from_unit"] == unit


@pytest.mark.parametrize(
    ("text", "marker"),
    [
        ("bananas no apples", "no"),
        ("um bread sorry rolls", "sorry"),
        ("eggs i mean milk", "i mean"),
        ("milk with no sugar", None),
        ("there's no milk", None),
        ("no sugar yogurt", None),
        ("no more than two", None),
        ("call mum", None),
    ],
)
def test_a_correction_inside_the_words_to_keep_is_found(text: str, marker: str | None) -> None:
    assert unplaced_fix(text) == marker


def test_a_list_item_that_corrects_itself_is_not_written_whole(shipped_router: Router) -> None:
    route, tool, _ = decide(shipped_router, "add um bananas no apples to shopping list")
    assert (route, tool) == ("cloud", None)
    route, tool, arguments = decide(shipped_router, "add milk with no sugar to the list")
    assert (route, tool) == ("edge", "add_note")
    assert arguments == {"text": "milk with no sugar"}


@pytest.mark.parametrize(
    ("words", "arguments"),
    [
        ("close the light in bedroom", {"device": "light", "action": "off", "room": "bedroom"}),
        ("close the lounge lights", {"device": "light", "action": "off", "room": "living room"}),
        ("open the tv", {"device": "tv", "action": "on"}),
        ("close the fan", {"device": "fan", "action": "off"}),
        ("open the blinds", {"device": "blinds", "action": "open"}),
        ("close the door", {"device": "door_lock", "action": "lock"}),
    ],
)
def test_open_and_close_a_switch_are_on_and_off(
    shipped_router: Router, words: str, arguments: dict[str, object]
) -> None:
    assert decide(shipped_router, words) == ("edge", "device_control", arguments)


@pytest.mark.parametrize(
    "words", ["close netflix on the tv", "open youtube on the tv", "open spotify on the speaker"]
)
def test_closing_what_runs_on_a_device_switches_nothing(shipped_router: Router, words: str) -> None:
    route, tool, _ = decide(shipped_router, words)
    assert route == "cloud" and tool is None
