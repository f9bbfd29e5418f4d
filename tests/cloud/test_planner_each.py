"""Lists of items (issue 25): a request asked for each item of a list is one call per
item, and the plan check refuses a plan whose count of side effects is not the list's."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cloud_agent.planner.clauses import normalise
from cloud_agent.planner.each import listed_items, listed_values
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.plan_check import check_plan


def calls(query: str) -> list[tuple[str, dict[str, object]]]:
    plan = make_plan(query)
    assert plan.refusal is None, plan.refusal
    return [(c.tool, dict(c.args)) for c in plan.calls]


def test_each_of_a_list_of_notes_is_a_note() -> None:
    assert calls("jot each of these down: passport, charger and a towel") == [
        ("add_note", {"text": "passport"}),
        ("add_note", {"text": "charger"}),
        ("add_note", {"text": "a towel"}),
    ]
    assert [a["text"] for _, a in calls("make two notes: ring the vet, pay the gas bill")] == [
        "ring the vet",
        "pay the gas bill",
    ]


def test_one_note_of_a_list_said_as_one_stays_one() -> None:
    """No head asks for each: "add a note: milk, bread, eggs" is one note, as said."""
    assert calls("add a note: milk, bread, eggs") == [("add_note", {"text": "milk, bread, eggs"})]


def test_a_command_for_every_one_of_these_rooms_is_one_per_room() -> None:
    got = calls("switch the heater off in every one of these rooms: office, hallway, bedroom")
    assert [a.get("room") for _, a in got] == ["office", "hallway", "bedroom"]
    assert {(a["device"], a["action"]) for _, a in got} == {("heater", "off")}


def test_a_list_of_values_with_one_unit_is_one_conversion_each() -> None:
    got = calls("convert 10, 20 and 35 kilograms to pounds")
    assert [a["value"] for _, a in got] == [10, 20, 35]
    assert {(a["from_unit"], a["to_unit"]) for _, a in got} == {("kg", "lb")}


def test_timers_in_the_plural_are_one_per_duration() -> None:
    got = calls("start timers for 6 and 11 minutes")
    assert sorted(a["seconds"] for _, a in got) == [360, 660]
    # "times" is arithmetic, never a typo of "timers"
    assert ("calculator", {"expression": "12 * 4"}) in [
        (t, a) for t, a in calls("what is 12 times 4 and set a timer for 2 minutes")
    ]


@pytest.mark.parametrize(
    ("query", "planned"),
    [
        ("note each of these: milk, bread, eggs", [("add_note", {"text": "milk, bread, eggs"})]),
        (
            "turn off the fan in each of these rooms: bedroom, office",
            [("device_control", {"device": "fan", "action": "off", "room": "bedroom"})],
        ),
    ],
)
def test_the_check_refuses_a_plan_with_fewer_calls_than_items(
    query: str, planned: list[tuple[str, dict[str, object]]]
) -> None:
    verdict = check_plan(normalise(query), [(t, dict(a)) for t, a in planned])
    assert not verdict.ok
    assert "items were listed" in verdict.reason


def test_a_request_about_the_note_no_tool_does_declines_the_whole() -> None:
    plan = make_plan("add a note to pick up the keys and text it to sam")
    assert plan.calls == []
    assert "text it to sam" in str(plan.refusal)
    # A to-do that points at nothing is the note's content.
    assert calls("add a note to call mum and ask about sunday") == [
        ("add_note", {"text": "call mum and ask about sunday"})
    ]


_ITEM = st.text(alphabet="abcdefghij", min_size=1, max_size=6)


@given(st.lists(_ITEM, min_size=2, max_size=5, unique=True))
def test_listed_items_reads_back_what_was_listed(items: list[str]) -> None:
    said = ", ".join(items[:-1]) + " and " + items[-1]
    listed = listed_items(f"note each of these: {said}")
    assert listed is not None and listed.items == tuple(items)
    # A count the list does not match reads no list at all.
    assert listed_items(f"the following {len(items) + 1} notes: {said}") is None


@given(st.lists(st.integers(1, 999), min_size=2, max_size=5))
def test_listed_values_are_the_numbers_before_the_unit(values: list[int]) -> None:
    said = ", ".join(map(str, values[:-1])) + f" and {values[-1]}"
    assert listed_values(f"convert {said} miles to km") == [float(v) for v in values]
