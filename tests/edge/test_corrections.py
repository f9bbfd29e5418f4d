"""Self-corrections (understanding.corrections): the request as corrected, never the words
taken back; a correction no rule places runs nothing (issues 24, 25)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from understanding.corrections import read_correction
from understanding.router import Router
from understanding.settings import Settings


@pytest.mark.parametrize(
    ("words", "corrected"),
    [
        ("turn on the kitchen light no wait the bedroom one", "turn on the bedroom light"),
        ("put the thermostat on 19, sorry, make that 20", "put the thermostat on 20"),
        ("switch the tv off um no the speaker i mean", "switch the speaker off"),
        ("dim the lights sorry brighten them", "brighten the lights"),
        ("lock the door er i mean unlock it", "unlock the door"),
        ("set a timer for 10 actually make it 15 minutes", "set a timer for 15 minutes"),
        (
            "remind me in 10 minutes no make that 20 to check the oven",
            "remind me in 20 minutes to check the oven",
        ),
        ("add eggs to the to do list oh i mean the shopping list", "add eggs to the shopping list"),
        ("weather in sydney, scratch that, melbourne", "weather in melbourne"),
        ("convert 5 miles to km no to metres", "convert 5 miles to metres"),
        ("what's 5 times 6, sorry, 7 times 6", "what's 7 times 6"),
        (
            "weather in munich on friday sorry saturday and the time in berlin",
            "weather in munich on saturday and the time in berlin",
        ),
        (
            "add butter to the shopping list, scratch that, add margarine, and the time in oslo",
            "add margarine to the shopping list, and the time in oslo",
        ),
    ],
)
def test_the_correction_replaces_what_it_corrects(words: str, corrected: str) -> None:
    found = read_correction(words)
    assert found is not None and found.text == corrected


@pytest.mark.parametrize(
    "words",
    [
        "turn off the fan actually no leave it",  # taken back
        "set the heating to 20 no wait",  # nothing after the marker
        "turn on the porch light, scratch that, forget it",
    ],
)
def test_a_correction_no_rule_places_is_no_request(words: str) -> None:
    found = read_correction(words)
    assert found is not None and found.text is None


@pytest.mark.parametrize(
    "words",
    [
        "sorry to bother you, turn off the light",
        "no more than 5 minutes on the timer please",
        "actually can you turn the heating on",
        "is it actually raining in paris",
        "set a timer no longer than 10 minutes",
        "there's no milk, add it to the shopping list",
        "turn off the lights, no need to do the hall",
    ],
)
def test_words_that_only_sound_like_a_correction_correct_nothing(words: str) -> None:
    assert read_correction(words) is None


_WORDS = (
    "turn on off the kitchen light set a timer for 10 minutes weather in paris add milk "
    "to my list what's and then please 20 it them"
)
_PLAIN = st.lists(
    st.sampled_from(_WORDS.split()),
    max_size=14,
)


@given(_PLAIN)
def test_words_with_no_marker_are_never_changed(words: list[str]) -> None:
    assert read_correction(" ".join(words)) is None


@given(st.text(max_size=80))
def test_any_text_reads_without_error(words: str) -> None:
    found = read_correction(words)
    assert found is None or found.text is None or isinstance(found.text, str)


@pytest.fixture(scope="module")
def router() -> Router:
    return Router.load()


def test_the_device_acts_on_the_corrected_request(router: Router) -> None:
    decision = router.decide(
        "open the office blinds actually close them", settings=Settings(home_city="london")
    )
    assert decision.route == "edge" and decision.tool == "device_control"
    assert decision.arguments == {"device": "blinds", "action": "close", "room": "office"}
    assert "as corrected" in decision.reason


def test_a_request_taken_back_runs_nothing(router: Router) -> None:
    decision = router.decide("turn off the fan actually no leave it")
    assert decision.route == "cloud" and decision.tool is None


def test_the_planner_plans_the_corrected_request() -> None:
    from cloud_agent.planner.plan import make_plan

    plan = make_plan("time in sydney no wait melbourne and the weather in auckland tomorrow")
    assert [(c.tool, c.args.get("city")) for c in plan.calls] == [
        ("world_clock", "melbourne"),
        ("get_weather", "auckland"),
    ]
    taken_back = make_plan("turn off the fan actually no leave it and the time in oslo")
    assert not taken_back.calls and taken_back.refusal
