"""Words about a device that command nothing (understanding.arguments.speech_acts): a report,
a relayed request, a state kept, a delay of no length, a spoken clock with no am/pm."""

from __future__ import annotations

import pytest

from understanding.arguments.bare_hours import ambiguous_hour
from understanding.arguments.qualifiers import find_qualifiers
from understanding.arguments.speech_acts import not_a_command
from understanding.grounding import grounded_values


@pytest.mark.parametrize(
    "words",
    [
        "i turned the heater off already",
        "my husband's just switched off the garage light",
        "the kitchen light is on again",
        "my wife said to switch the heating off",
        "mum says turn the music down",
        "leave the fan on",
        "keep the porch light off",
    ],
)
def test_a_report_a_relay_or_a_state_kept_commands_nothing(words: str) -> None:
    assert not_a_command(words) is not None


@pytest.mark.parametrize(
    "words",
    [
        "turn off the lights",
        "let's put the heating on",
        "i left the heater on, turn it off",
        "the lights are off, turn them on",
        "the tv is too loud",
        "turn off all the lights but leave the hall on",
        "can you turn the heater on",
    ],
)
def test_a_command_is_still_one(words: str) -> None:
    assert not_a_command(words) is None


def test_the_grounding_runs_no_command_on_a_report() -> None:
    args = {"device": "heater", "action": "off"}
    assert grounded_values("device_control", args, "i turned the heater off already")
    assert not grounded_values("device_control", args, "turn the heater off")


def test_a_delay_of_no_length_is_a_time() -> None:
    assert [q.word for q in find_qualifiers("turn the telly off in a tick")] == ["in a tick"]


@pytest.mark.parametrize(
    ("words", "ambiguous"),
    [
        ("open the blinds at half six", True),
        ("start the coffee at quarter to seven", True),
        ("turn the heater on at six thirty", True),
        ("open the blinds at half six in the morning", False),
        ("turn on the lights at 6:30", False),
        ("start the coffee at three", True),
    ],
)
def test_a_spoken_clock_with_no_am_or_pm_is_asked(words: str, ambiguous: bool) -> None:
    assert ambiguous_hour(words) is ambiguous
