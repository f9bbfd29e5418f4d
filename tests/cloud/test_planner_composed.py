"""Two requests said as one keep both, and never make one of them a wrong action (issue
25): the kinds ``bench/composed_plans.py`` found when it joined single device requests
("A and B", "A, then B", "A. B")."""

from __future__ import annotations

from typing import Any

import pytest

from cloud_agent.planner import plan_check
from cloud_agent.planner.plan import make_plan
from examples.demo import load_router


@pytest.fixture(scope="module")
def router() -> Any:
    return load_router()[0]


def _calls(router: Any, query: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.tool, c.args) for c in make_plan(query, router=router).calls]


@pytest.mark.parametrize(
    ("query", "calls"),
    [
        # A complaint said twice over is one command.
        ("it's too quiet, i can barely hear the music and what did i write about the boiler",
         [("device_control", {"device": "speaker", "action": "volume_up"}),
          ("search_notes", {"query": "boiler"})]),
        # A place named after a command is no device's.
        ("speaker volume to 30 and will i need sunglasses in Dubai today",
         [("device_control", {"device": "speaker", "action": "set", "value": 30}),
          ("get_weather", {"city": "dubai", "day": "today"})]),
        # A note ends where a request opens, filler or not.
        ("jot down that the plumber comes friday and umm what's 10 percent of 80",
         [("add_note", {"text": "the plumber comes friday"}),
          ("calculator", {"expression": "10 % of 80"})]),
        ("jot down that the plumber comes friday and did i save anything about the printer",
         [("add_note", {"text": "the plumber comes friday"}),
          ("search_notes", {"query": "the printer"})]),
        # One duration in two words is no cut between two commands.
        ("ac on for an hour and a half, then close the blinds in the office",
         [("device_control", {"device": "ac", "action": "on", "for": 5400}),
          ("device_control", {"device": "blinds", "action": "close", "room": "office"})]),
        # A reminder with its time is an alarm with its words, as on the device.
        ("turn off the porch light at midnight, then remind me to call mum at 6pm",
         [("device_control", {"device": "light", "action": "off", "room": "porch", "at": "00:00"}),
          ("set_timer", {"at": "18:00", "label": "call mum"})]),
    ],
)  # fmt: skip
def test_both_requests_are_planned(router: Any, query: str, calls: list[Any]) -> None:
    assert _calls(router, query) == calls


@pytest.mark.parametrize(
    "query",
    [
        "add a note saying call the bank about the loan, then hows loud is the speaker",
        "the spare key is under the blue pot, remember that. The recipe wants 400 grams of "
        "flour, how much is that in kilograms",
        "add a note call the vet and another note pick up the kids",
        "note this down - gate code 4471, door code 1299. Lock the front door",
    ],
)
def test_no_note_is_made_of_another_request_or_of_its_own_frame(router: Any, query: str) -> None:
    notes = [args["text"] for tool, args in _calls(router, query) if tool == "add_note"]
    assert len(notes) <= 1, notes
    for text in notes:
        assert "note" not in text and "speaker" not in text and "recipe" not in text


def test_a_call_its_tool_does_not_take_runs_nothing() -> None:
    verdict = plan_check.check_plan("save a note, pick up prescription at 5", [
        ("add_note", {"at": "05:00"}),
    ])  # fmt: skip
    assert not verdict.ok and "does not take" in verdict.reason
    fed = plan_check.check_plan(
        "what is 8 minutes in seconds and set a timer for that long",
        [("unit_convert", {"value": 8, "from_unit": "min", "to_unit": "s"}),
         ("set_timer", {"seconds": "{prev}*1"})],
    )  # fmt: skip
    assert fed.ok, fed.reason


def test_no_more_notes_than_the_words_ask_for() -> None:
    two = [("add_note", {"text": "call the vet"}), ("add_note", {"text": "buy milk"})]
    assert not plan_check.check_plan("add a note call the vet, buy milk", two).ok
    assert plan_check.check_plan("add two notes: call the vet, buy milk", two).ok
