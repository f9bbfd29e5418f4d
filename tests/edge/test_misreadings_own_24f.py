"""Kinds of misreading found by the sixth own set (examples/understanding_own_24f.jsonl,
written before any change for it): an "on" of a place or a service switching something,
a denied state read as the state, a report in the perfect tense, someone's room dropped,
"not X, Y" and a list item corrected, a reminder at a bare hour (issue 24)."""

from __future__ import annotations

import pytest

from understanding.arguments.devices import says_on
from understanding.arguments.numbers import tokenize
from understanding.arguments.speech_acts import not_a_command
from understanding.asking import fold
from understanding.corrections import read_correction
from understanding.router import Router
from understanding.settings import Settings


def decide(shipped_router: Router, words: str) -> tuple[str, str | None, dict[str, object] | None]:
    decision = shipped_router.decide(words, settings=Settings(home_city="london"))
    return decision.route, decision.tool, decision.arguments


@pytest.mark.parametrize(
    ("words", "switch"),
    [
        ("buy more coffee pods on amazon", False),
        ("play some jazz on spotify", False),
        ("put the match on the telly", False),
        ("watch the film on monday", False),
        ("lights on please", True),
        ("the lights on in the kitchen", True),
        ("put the fan on for an hour", True),
        ("chuck the telly on mate", True),
        ("switch on kitchen lights", True),
        ("turn the heater on", True),
        ("my dining room vacuum on, we're heading out", True),
    ],
)
def test_an_on_of_a_place_or_a_service_is_no_switch(words: str, switch: bool) -> None:
    assert says_on(tokenize(words)) is switch


@pytest.mark.parametrize(
    "words",
    [
        "make sure the heater isn't on in the office",
        "the heater isn't on",
        "i've just locked the back door",
        "tom says put the fan on in his room",
        "put the fan on in her room",
        "turn off the light in their room",
    ],
)
def test_a_denied_state_a_report_or_someones_room_switches_nothing(
    shipped_router: Router, words: str
) -> None:
    assert decide(shipped_router, words)[0] == "cloud"


def test_a_perfect_tense_report_and_a_named_relay_are_no_commands() -> None:
    assert not_a_command("i've just locked the back door") is not None
    assert not_a_command("tom says put the fan on") is not None
    assert not_a_command("turn the heater on") is None


@pytest.mark.parametrize(
    ("words", "corrected"),
    [
        ("turn the light off, not the bedroom, the kitchen", "turn the kitchen light off"),
        ("add apples to the shopping list, er no, pears", "add pears to the shopping list"),
        ("put milk on the list, sorry, oat milk", "put oat milk on the list"),
        (
            "add apples to the shopping list, actually make that pears, and set a 15 minute timer",
            "add pears to the shopping list, and set a 15 minute timer",
        ),
    ],
)
def test_not_this_that_and_an_item_corrected(words: str, corrected: str) -> None:
    fixed = read_correction(words)
    assert fixed is not None and fixed.text == corrected


def test_an_exception_with_no_correction_after_it_is_left_alone() -> None:
    assert read_correction("turn off the lights, not the bedroom") is None
    assert read_correction("remind me to buy bread, actually quite a lot") is None


def test_a_corrected_room_is_the_room_acted_on(shipped_router: Router) -> None:
    assert decide(shipped_router, "turn the light off, not the bedroom, the kitchen") == (
        "edge",
        "device_control",
        {"device": "light", "action": "off", "room": "kitchen"},
    )


@pytest.mark.parametrize(
    "words",
    [
        "remind me at 3 to call mum",
        "remind me at quarter past 5 to feed the cat",
        "switch the lights off at ten past eleven",
        "turn the lights off at 10 past 11",
    ],
)
def test_a_reminder_or_command_at_a_bare_hour_is_asked_back(
    shipped_router: Router, words: str
) -> None:
    route, _tool, _args = decide(shipped_router, words)
    assert route == "ask"


def test_the_answer_to_morning_or_evening_qualifies_the_clock_time(shipped_router: Router) -> None:
    completed = fold("remind me at 3 to call mum", "", "afternoon")
    assert completed == "remind me at 3 in the afternoon to call mum"
    assert decide(shipped_router, completed) == (
        "edge",
        "set_timer",
        {"at": "15:00", "label": "call mum"},
    )
    assert fold("turn the heater on at 8", "", "pm") == "turn the heater on at 8 pm"


def test_a_kids_room_keeps_its_name(shipped_router: Router) -> None:
    _route, _tool, args = decide(shipped_router, "turn the lights off in the kids' room")
    assert args is not None and args["room"] == "kids room"
