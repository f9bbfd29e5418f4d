"""Kinds of misplanning found by the fifth own compound set (examples/compound_own_25e
.jsonl, written before any change for it): a list named once for all its items or pointed
back at, an addition never read as a removal, "on the speaker" switching nothing, an
everyday word no city, one note per item said "separate" (issue 25)."""

from __future__ import annotations

from cloud_agent.planner.plan import make_plan
from understanding.gazetteer.fuzzy import find_cities
from understanding.grounding import grounded_values


def calls(planner_router: object, words: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.tool, c.args) for c in make_plan(words, router=planner_router).calls]


def test_items_listed_before_one_list_share_it(planner_router: object) -> None:
    assert calls(planner_router, "add oat milk, bananas and coffee beans to the shopping list") == [
        ("add_note", {"text": "oat milk", "list": "shopping"}),
        ("add_note", {"text": "bananas", "list": "shopping"}),
        ("add_note", {"text": "coffee beans", "list": "shopping"}),
    ]


def test_a_list_pointed_back_at_takes_the_item(planner_router: object) -> None:
    assert calls(planner_router, "clear my to do list then add renew passport to it") == [
        ("clear_list", {"list": "to do"}),
        ("add_note", {"text": "renew passport", "list": "to do"}),
    ]


def test_the_items_these_point_at_go_on_the_list(planner_router: object) -> None:
    got = calls(planner_router, "put these on my to do list: call mum, pay rent")
    assert got == [
        ("add_note", {"text": "call mum", "list": "to do"}),
        ("add_note", {"text": "pay rent", "list": "to do"}),
    ]


def test_separate_notes_are_one_per_item(planner_router: object) -> None:
    got = calls(
        planner_router, "i need two separate notes: renew car insurance, email the landlord"
    )
    assert got == [
        ("add_note", {"text": "renew car insurance"}),
        ("add_note", {"text": "email the landlord"}),
    ]


def test_an_addition_is_never_a_removal(planner_router: object) -> None:
    words = "remove eggs from the shopping list and add cream instead"
    assert grounded_values("remove_note", {"text": "cream"}, words)
    assert grounded_values("remove_note", {"text": "eggs", "list": "shopping"}, words) is None
    assert ("remove_note", {"text": "cream"}) not in calls(planner_router, words)


def test_on_the_speaker_switches_nothing(planner_router: object) -> None:
    plan = make_plan("play some jazz on the speaker and set the living room light to 30")
    assert not plan.calls and plan.refusal


def test_a_loose_near_miss_is_a_city_only_beside_a_place() -> None:
    assert find_cities("recommend a good tapas place in lisbon") == [(6, "lisbon")]
    assert [c for _, c in find_cities("is tokio warmer than seoul rn?")] == ["tokyo", "seoul"]
    assert [c for _, c in find_cities("ahead of mexico city now")] == ["mexico city"]
