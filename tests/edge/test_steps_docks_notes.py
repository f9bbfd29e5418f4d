"""A step said with its amount, a vacuum sent to its dock, a note the tagger cut short:
each read whole or not acted on (issue 24)."""

from __future__ import annotations

import pytest

from understanding.arguments.builtin_notes import _whole_note
from understanding.arguments.devices import device_command
from understanding.arguments.qualifiers import find_qualifiers
from understanding.router import Router
from understanding.settings import Settings


@pytest.fixture(scope="module")
def router() -> Router:
    return Router.load()


def test_down_by_an_amount_is_no_clock_time() -> None:
    assert not [q for q in find_qualifiers("turn the volume down by 20") if q.kind == "time"]
    assert [q.word for q in find_qualifiers("turn the lights off by 10 pm")] == ["by 10 pm"]


@pytest.mark.parametrize(
    ("words", "action", "value"),
    [
        ("turn the volume on the tv down by 20", "volume_down", 20),
        ("turn the volume down on the tv", "volume_down", None),
        ("turn the volume of the tv up a bit", "volume_up", None),
    ],
)
def test_the_volume_of_a_named_device_is_that_device(
    words: str, action: str, value: int | None
) -> None:
    command = device_command(words)
    assert command is not None and command["device"] == "tv" and command["action"] == action
    assert command.get("value") == value


def test_a_thermostat_step_has_no_action_to_run() -> None:
    assert device_command("turn the thermostat down by 2") is None


@pytest.mark.parametrize(
    "words", ["send the vacuum back to its dock", "dock the robot vacuum", "vacuum, go home"]
)
def test_a_vacuum_docked_is_off(words: str) -> None:
    assert device_command(words) == {"device": "vacuum", "action": "off"}


def test_a_vacuum_told_to_clean_and_dock_runs_neither() -> None:
    assert device_command("vacuum the living room then go back to the dock") is None
    assert device_command("vacuum the home") == {"device": "vacuum", "action": "on"}


@pytest.mark.parametrize(
    ("words", "tagged", "whole"),
    [
        ("Note that Tom prefers tea, not coffee", "Tom prefers tea", "Tom prefers tea, not coffee"),
        (
            "remember that the wifi router is in the cupboard under the stairs",
            "the wifi router is in the cupboard",
            "the wifi router is in the cupboard under the stairs",
        ),
    ],
)
def test_a_note_cut_short_is_the_words_said(words: str, tagged: str, whole: str) -> None:
    assert _whole_note(words, tagged) == whole


@pytest.mark.parametrize(
    "words",
    [
        "note that the milk is off and turn off the lights",
        "note that the milk is off, turn off the lights",
        "remember the bins go out tuesday, what's the weather tomorrow",
    ],
)
def test_a_note_never_grows_over_another_request(words: str) -> None:
    tagged = words.split(" ", 2)[2].split(" and ")[0].split(",")[0]
    assert _whole_note(words, tagged) == tagged


def test_the_router_stores_the_whole_note(router: Router) -> None:
    decision = router.decide(
        "remember that the wifi router is in the cupboard under the stairs",
        settings=Settings(home_city="london"),
    )
    assert decision.route == "edge" and decision.tool == "add_note"
    assert decision.arguments == {"text": "the wifi router is in the cupboard under the stairs"}
