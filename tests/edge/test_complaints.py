"""Indirect requests (issue 24): a complaint about the room is the command that ends it,
read only when it is about here and now; everything else is no command at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from understanding.arguments.complaints import complaint_command
from understanding.arguments.devices import device_command
from understanding.grounding import grounded_values

from .test_edge_everyday_requests import actions, ask


@pytest.mark.parametrize(
    ("words", "command"),
    [
        (
            "it's getting so dark in the study",
            {"device": "light", "action": "on", "room": "study"},
        ),
        ("ugh i cant see a thing", {"device": "light", "action": "on"}),
        ("i can barely hear the telly", {"device": "tv", "action": "volume_up"}),
        ("the speaker is far too quiet", {"device": "speaker", "action": "volume_up"}),
        ("that's deafening", {"device": "speaker", "action": "volume_down"}),
        ("the television is way too loud", {"device": "tv", "action": "volume_down"}),
        ("it's chilly in the kitchen", {"device": "heater", "action": "on", "room": "kitchen"}),
        ("we're boiling in here", {"device": "ac", "action": "on"}),
    ],
)
def test_a_complaint_is_the_command_that_ends_it(words: str, command: dict[str, str]) -> None:
    assert device_command(words) == command
    assert device_command(words, strict=True) == command
    # The side-effect policy's grounding accepts the complaint as the device's words.
    assert grounded_values("device_control", command, words) is None


@pytest.mark.parametrize(
    "words",
    [
        "it's not too loud",  # negated
        "it isn't dark yet",
        "it's cold outside",  # not this room
        "it will be hot tomorrow in the garden",  # not now
        "i'm cold",  # no place: a person may be ill; the cloud or a question
        "turn on dark mode",  # a thing that is dark
        "i'm boiling pasta in the kitchen",
        "pour me a cold drink in the kitchen",
        "book a taxi home before dark",
        "it's dark and cold in here",  # two fixes: not one command
        "the lamp is too loud",  # a complaint no lamp can end
    ],
)
def test_what_is_no_complaint_commands_nothing(words: str) -> None:
    assert device_command(words) is None


@given(
    st.lists(
        st.sampled_from(
            [
                "it's",
                "so",
                "dark",
                "cold",
                "loud",
                "not",
                "in",
                "here",
                "the",
                "tv",
                "outside",
                "too",
                "hear",
                "can't",
            ]
        ),
        max_size=8,
    )
)
def test_a_complaint_read_is_one_fix_of_the_table(tokens: list[str]) -> None:
    """Whatever the words, a complaint yields nothing or one device with an action the
    device table allows for it; a negation always yields nothing."""
    fix = complaint_command(tokens, placed=True)
    if fix is None:
        return
    device, action = fix
    assert (device, action) in {
        ("light", "on"),
        ("speaker", "volume_up"),
        ("speaker", "volume_down"),
        ("heater", "on"),
        ("ac", "on"),
    }
    assert "not" not in tokens


def test_the_device_fixes_what_it_is_told_is_wrong(tmp_path: Path) -> None:
    """Through `edge-agent ask` with the shipped router: the complaint runs the command
    whose words it never said, and a negated one runs nothing."""
    db = tmp_path / "m.db"
    steps, _answer = ask(db, "ugh it's so dark in here")
    assert actions(steps) == [("device_control", {"device": "light", "action": "on"})]
    steps, _answer = ask(db, "i can barely hear the telly")
    assert actions(steps) == [("device_control", {"device": "tv", "action": "volume_up"})]
