"""A call's durations, alarms and device commands grounded in the words
(``understanding.grounding``), as the side-effect policy checks them on the device and
in the cloud's plan check (issue 25)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from understanding.grounding import durations_said, grounded_values, named_devices
from understanding.policy import check_call

_WORDS = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=10),
    st.sampled_from(["", " and a half", " and a quarter"]),
    st.sampled_from([("hours", 3600), ("minutes", 60)]),
    st.booleans(),
)
def test_durations_are_read_whole(
    number: int, fraction: str, unit: tuple[str, int], spelt: bool
) -> None:
    said = _WORDS[number] if spelt else str(number)
    extra = {"": 0.0, " and a half": 0.5, " and a quarter": 0.25}[fraction]
    seconds = round((number + extra) * unit[1])
    words = f"set a timer for {said}{fraction} {unit[0]} and lock the door"
    assert seconds in durations_said(words)
    assert grounded_values("set_timer", {"seconds": seconds}, words) is None
    if extra:
        assert grounded_values("set_timer", {"seconds": number * unit[1]}, words) is not None


def test_an_hour_and_a_half_and_ninety_seconds() -> None:
    assert 5400 in durations_said("a timer for an hour and a half")
    assert 90 in durations_said("ninety seconds on the clock")
    assert {540, 1200} <= durations_said("timers for 9 and 20 minutes")


def test_a_unit_said_once_carries_to_the_number_after_it() -> None:
    assert {480, 720} <= durations_said("8 minutes for the pasta and 12 for the sauce")
    # A number with its own unit, a percentage or a number before another takes none.
    assert 120 not in durations_said("a timer for 10 minutes and 2 seconds")
    assert 60 not in durations_said("a timer for 2 minutes and another 1 for 4 minutes")
    assert 300 not in durations_said("a timer for 10 minutes and 5% of 80")


def test_an_alarm_needs_an_alarms_words() -> None:
    assert grounded_values("set_timer", {"at": "02:00"}, "two dishes, a timer") is not None
    assert grounded_values("set_timer", {"at": "07:00"}, "wake me at 7") is None


def test_a_device_command_is_the_words() -> None:
    assert grounded_values("device_control", {"device": "plug", "action": "on"}, "is the plug on")
    assert grounded_values(
        "device_control", {"device": "tv", "action": "off"}, "turn off the light"
    )
    assert grounded_values(
        "device_control", {"device": "light", "action": "on"}, "lights off please"
    )
    assert grounded_values(
        "device_control",
        {"device": "thermostat", "action": "set", "value": 25},
        "set the heat to 21",
    )
    assert (
        grounded_values(
            "device_control",
            {"device": "thermostat", "action": "set", "value": 21},
            "set the heat to twenty one",
        )
        is None
    )
    assert "door_lock" not in named_devices("lock in my answer")
    assert "door_lock" in named_devices("lock the front door")


def test_the_policy_refuses_an_ungrounded_duration_on_the_device() -> None:
    verdict = check_call("set_timer", {"seconds": 18000}, "set a timer for 7.5 hours", 0.9, 0.5)
    assert verdict.action == "cloud" and "18000" in verdict.reason
    assert (
        check_call("set_timer", {"seconds": 27000}, "set a timer for 7.5 hours", 0.9, 0.5).action
        == "allow"
    )


def test_a_coffee_asked_for_is_the_machines_brew_and_a_level_in_words_a_setting() -> None:
    brew = {"device": "coffee_machine", "action": "on"}
    for words in ("prepare coffee", "can i have an espresso please", "i'd like a latte"):
        assert grounded_values("device_control", brew, words) is None, words
    for words in ("we need coffee beans", "i want coffee pods", "the coffee table"):
        assert grounded_values("device_control", brew, words) is not None, words
    ninety = {"device": "speaker", "action": "set", "value": 90}
    assert grounded_values("device_control", ninety, "the music volume to ninety") is None
    assert grounded_values("device_control", ninety, "the music volume up a bit") is not None
