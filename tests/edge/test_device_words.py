"""Device words (issue 12): the everyday words for a device's actions and value ranges,
read by the vocabulary and the grammar of each action, never from whole sentences.

Levels on a 0-100 scale ("set the volume to low", "the loudest setting"), light steps
("lights down", "bright the lights"), the coffee machine's and the vacuum's own runs
("set the coffee maker running", "clean the flat"), mute ("be muted"), a temperature set in
°F ("set the thermostat to 68"), "every light" (a count, not a schedule), and a timer's
number whose unit the tagger left out ("in two hours": a countdown, never 02:00).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from edge_agent.cli import app
from sync.store import MemoryStore
from tests.edge.slot_filling import arguments_or_cloud
from understanding.arguments.devices import LEVEL_DEVICES, LEVELS, device_command, level_value
from understanding.structure import request_reason
from understanding.tools import devices
from understanding.tools.devices import FAHRENHEIT_SETPOINTS, SET_RANGES, celsius_setpoint

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


def fill(tool: str, words: str, *, home: Any = None, **spans: str) -> Any:
    """The tool's arguments from slots at their places in ``words`` (type=span), or
    ("cloud", reason)."""
    return arguments_or_cloud(tool, words, home, NOW, **spans)


@pytest.mark.parametrize(
    ("words", "spans", "expected"),
    [
        # Levels: the device's own scale (min 10, low 25, medium 50, high 75, max 100).
        ("set the volume to low", {"device_type": "volume"},
         {"device": "speaker", "action": "set", "value": 25}),
        ("please turn the volume to the loudest setting", {"device_type": "volume"},
         {"device": "speaker", "action": "set", "value": 100}),
        ("turn the lights on full", {}, {"device": "light", "action": "set", "value": 100}),
        ("fan on high", {"device_type": "fan"}, {"device": "fan", "action": "set", "value": 75}),
        ("put the tv at medium volume", {"device_type": "tv"},
         {"device": "tv", "action": "set", "value": 50}),
        ("dim the bedroom lights to the lowest setting", {"house_place": "bedroom"},
         {"device": "light", "action": "set", "value": 10, "room": "bedroom"}),
        # Light steps: a light's own up or down, "bright" as a verb.
        ("lights down", {}, {"device": "light", "action": "brightness_down"}),
        ("kitchen lights up a bit", {"house_place": "kitchen"},
         {"device": "light", "action": "brightness_up", "room": "kitchen"}),
        ("can you bright the lights please", {}, {"device": "light", "action": "brightness_up"}),
        ("every light of room increase its intensity", {"house_place": "room"},
         {"device": "light", "action": "brightness_up"}),
        # Mute, louder, softer: the speaker, with no device named.
        ("can you please be muted for a while", {}, {"device": "speaker", "action": "mute"}),
        ("can you speak louder", {}, {"device": "speaker", "action": "volume_up"}),
        ("softer", {}, {"device": "speaker", "action": "volume_down"}),
        # A machine's own run.
        ("would you set the coffee maker running", {"device_type": "coffee maker"},
         {"device": "coffee_machine", "action": "on"}),
        ("get the vacuum going", {}, {"device": "vacuum", "action": "on"}),
        ("run the fan", {"device_type": "fan"}, {"device": "fan", "action": "on"}),
        ("get the heater going", {"device_type": "heater"}, {"device": "heater", "action": "on"}),
        # Cleaning a home, a floor or a room is the vacuum's, whatever the machine is called.
        ("clean the flat", {"device_type": "flat"}, {"device": "vacuum", "action": "on"}),
        ("start house cleanup", {"house_place": "house"}, {"device": "vacuum", "action": "on"}),
        ("clean my carpet", {"device_type": "carpet"}, {"device": "vacuum", "action": "on"}),
        ("hoover the bedroom", {"house_place": "bedroom"},
         {"device": "vacuum", "action": "on", "room": "bedroom"}),
        # A device span the vocabulary does not read: the request's words say the device.
        ("turn on disco lights in my apartment",
         {"device_type": "disco", "house_place": "apartment"}, {"device": "light", "action": "on"}),
        # A device word tagged as a place is the device, no room of its own.
        ("turn on the roomba", {"house_place": "roomba"}, {"device": "vacuum", "action": "on"}),
        # A temperature above the °C range, an indoor setpoint in °F: kept as said.
        ("set the thermostat to 68", {"device_type": "thermostat", "change_amount": "68"},
         {"device": "thermostat", "action": "set", "value": 68}),
    ],
)  # fmt: skip
def test_device_words(words: str, spans: dict[str, Any], expected: dict[str, Any]) -> None:
    assert fill("device_control", words, **spans) == expected


@pytest.mark.parametrize(
    ("words", "spans"),
    [
        ("clean the dishes", {}),  # no home, floor or room to clean: no vacuum
        ("nighttime mode", {"device_type": "nighttime"}),  # no device the words name
        ("please shut off", {}),  # which device? a guess
        ("set the heater to ninety", {"device_type": "heater", "change_amount": "ninety"}),
        ("set the thermostat to low", {"device_type": "thermostat"}),  # no level scale
        ("turn the volume to low and the lights to max", {}),  # two devices
        ("is the coffee maker running", {"device_type": "coffee maker"}),  # a question
    ],
)
def test_device_words_refuse(words: str, spans: dict[str, Any]) -> None:
    assert fill("device_control", words, **spans)[0] == "cloud"


def test_every_counts_devices_but_schedules_with_a_time() -> None:
    assert request_reason("switch off every lamp in the house", "device_control") is None
    for scheduled in ("turn on the heater every ten minutes", "each day at 7 open the blinds",
                      "turn off the fan every other day", "lights on every monday"):  # fmt: skip
        assert request_reason(scheduled, "device_control") is not None, scheduled


_LEVEL_DEVICE_WORDS = {"light": "lights", "fan": "fan", "tv": "tv", "speaker": "volume"}


@settings(deadline=None)
@given(
    st.sampled_from(sorted(LEVELS)),
    st.sampled_from(sorted(LEVEL_DEVICES)),
    st.sampled_from(
        [
            "set the {d} to {l}",
            "turn the {d} to the {l} setting",
            "{d} on {l}",
            "put the {d} at {l}",
        ]
    ),
)
def test_a_level_word_sets_its_device_value(level: str, device: str, form: str) -> None:
    words = form.format(d=_LEVEL_DEVICE_WORDS[device], l=level)
    assert level_value(words) == LEVELS[level]
    assert device_command(words) == {"device": device, "action": "set", "value": LEVELS[level]}


@settings(deadline=None)
@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", max_size=40))
def test_a_level_is_only_read_from_a_level_word(text: str) -> None:
    value = level_value(text)
    assert value is None or value in LEVELS.values()
    if value is not None:
        assert any(word in text.split() for word in LEVELS)


@settings(deadline=None)
@given(st.sampled_from(sorted(devices.TEMPERATURE_DEVICES)), st.floats(-50, 150))
def test_a_temperature_is_celsius_or_an_indoor_fahrenheit(device: str, value: float) -> None:
    _what, low, high = SET_RANGES[device]
    set_to = celsius_setpoint(device, value)
    if low <= value <= high:
        assert set_to == value  # a °C value is never read as °F
    elif set_to != value:
        assert FAHRENHEIT_SETPOINTS[0] <= value <= FAHRENHEIT_SETPOINTS[1]
        assert 10 <= set_to <= 30 and abs(set_to - (value - 32) * 5 / 9) <= 0.25
    problem = devices.check_arguments({"device": device, "action": "set", "value": value})
    assert (problem is None) == (low <= set_to <= high)


@settings(deadline=None)
@given(st.integers(1, 12), st.sampled_from(["hours", "minutes", "hour", "mins", "seconds"]))
def test_a_number_whose_unit_the_tagger_left_out_is_a_countdown(n: int, unit: str) -> None:
    words = f"i need a reminder in {n} {unit}"
    per = {"h": 3600, "m": 60, "s": 1}[unit[0]]
    assert fill("set_timer", words, time=str(n)) == {"seconds": n * per}


def test_in_a_bare_number_is_no_clock_time() -> None:
    result = fill("set_timer", "remind me in five", time="five")
    assert result[0] == "cloud" and "in five" in result[1]
    assert fill("set_timer", "set an alarm for six", time="six") == {"at": "06:00"}


def _ask(db: Path, query: str) -> tuple[list[dict[str, Any]], str]:
    result = CliRunner().invoke(app, ["ask", "--memory", str(db), "--json", query])
    assert result.exit_code == 0, result.output
    steps = [json.loads(line) for line in result.output.splitlines()]
    return steps, str(steps[-1]["content"])


def _actions(steps: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    return [(s["tool"], s.get("arguments")) for s in steps if s["stepType"] == "STEP_TYPE_ACTION"]


def test_device_words_end_to_end(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    steps, answer = _ask(db, "set the volume to low")
    assert _actions(steps) == [("device_control", {"device": "speaker", "action": "set",
                                                   "value": 25})]  # fmt: skip
    assert answer == "Done: the speaker is set to 25."
    steps, answer = _ask(db, "set the thermostat to 68")
    assert _actions(steps) == [("device_control", {"device": "thermostat", "action": "set",
                                                   "value": 68})]  # fmt: skip
    assert answer == "Done: the thermostat is set to 20°C (68°F)."
    with MemoryStore(db) as memory:
        assert memory.get_device_state("thermostat", None)["value"] == 20  # type: ignore[index]
    steps, answer = _ask(db, "clean the flat")
    assert _actions(steps) == [("device_control", {"device": "vacuum", "action": "on"})]
    assert answer == "Done: the vacuum is cleaning."
