"""Kinds of misreading found by the fourth own held-out set (examples/understanding_own_24d
.jsonl, written before any change for it): each would have acted on words it dropped."""

from __future__ import annotations

import pytest

from understanding.arguments.devices import device_command, room_name
from understanding.arguments.qualifiers import (
    device_qualifiers,
    is_question,
    is_status_question,
    read_for,
)
from understanding.arguments.timer_labels import reminder_label
from understanding.grounding import grounded_values


@pytest.mark.parametrize(
    "words",
    [
        "telly in the living room - is it still on?",
        "quick question, is the tv in the den on",
        "dining room blinds, are they open or closed",
    ],
)
def test_a_question_after_its_topic_is_a_read(words: str) -> None:
    assert is_question(words) and is_status_question(words)


def test_a_topic_then_a_command_is_no_question() -> None:
    assert not is_question("the kitchen light, turn it off")
    assert not is_question("turn the lights off, is that ok")


def test_advice_asked_is_a_question_but_no_read() -> None:
    words = "should i switch the ac off while I'm out at work"
    assert is_question(words) and not is_status_question(words)
    assert grounded_values("device_control", {"device": "ac", "action": "off"}, words)


def test_excluding_leaves_the_room_out() -> None:
    assert device_qualifiers("turn off all the fans excluding the office") == {
        "room": "all",
        "except": ["office"],
    }
    assert device_qualifiers("lights off everywhere not including the hall") == {
        "room": "all",
        "except": ["hallway"],
    }


def test_a_fraction_of_an_hour_is_the_commands_time() -> None:
    assert read_for("stick the heater on for three quarters of an hour") == 2700
    assert read_for("switch on the ac for an hour and 0.5") == 5400  # numbers normalised
    assert device_qualifiers("set a timer for 10 minutes and 5 minutes") == {"for": 600}


def test_a_number_is_set_or_the_command_is_not_read() -> None:
    assert device_command("stick the thermostat on 20") == {
        "device": "thermostat",
        "action": "set",
        "value": 20,
    }
    assert device_command("turn on the tv on channel 5") is None


def test_off_mute_is_unmute() -> None:
    assert device_command("take the speaker off mute") == {"device": "speaker", "action": "unmute"}
    mute = {"device": "speaker", "action": "mute"}
    assert grounded_values("device_control", mute, "take the speaker off mute")


def test_an_appliance_no_tool_runs_is_never_dropped() -> None:
    words = "switch the oven off and the kitchen light while you're at it"
    why = grounded_values("device_control", {"device": "light", "action": "off"}, words)
    assert why is not None and "oven" in why
    plug = {"device": "plug", "action": "on"}
    assert grounded_values("device_control", plug, "switch on the kettle plug") is None


def test_a_place_of_its_own_keeps_its_name() -> None:
    assert room_name("the landing") == "landing"
    assert room_name("the study") == "study"
    assert room_name("the lounge") == "living room"  # the same room by another name
    assert device_command("turn the landing light on please") == {
        "device": "light",
        "action": "on",
        "room": "landing",
    }


def test_a_timers_name_holds_no_duration() -> None:
    assert reminder_label("start a timer for the noodles, 8 minutes") == "noodles"
    assert reminder_label("remind me to call mum in 10 minutes") == "call mum"
