"""Kinds of compound request found by the fourth own held-out set (examples/
compound_own_25d.jsonl, written before any change for it): lists pointed at by "these",
quantities compared, exceptions listed, restatements, questions after their topic."""

from __future__ import annotations

from cloud_agent.planner.clauses import split_clauses
from cloud_agent.planner.each import distributed
from cloud_agent.planner.plan import make_plan
from cloud_agent.planner.reasoner import load_edge_router

ROUTER = load_edge_router()  # the shipped router's parse gives the clauses, as served


def calls(query: str) -> list[tuple[str, dict[str, object]]]:
    return [(c.tool, c.args) for c in make_plan(query, router=ROUTER).calls]


def converts(query: str) -> list[tuple[object, object, object]]:
    return [(a["value"], a["from_unit"], a["to_unit"]) for t, a in calls(query)]


def test_a_list_pointed_at_by_these_takes_its_place() -> None:
    assert distributed("convert each of these to kg: 5 lb, 12 lb and 30 lb") == (
        "convert 5 lb, 12 lb and 30 lb to kg"
    )
    assert distributed("add each of these as its own note: milk, eggs") is None  # no quantities
    assert converts("how many miles is each of these: 5 km, 15 km and 42 km") == [
        (5, "km", "mi"),
        (15, "km", "mi"),
        (42, "km", "mi"),
    ]


def test_a_timer_for_each_listed_duration() -> None:
    got = calls("three mugs steeping for 3, 4 and 5 minutes, a timer each")
    assert got == [("set_timer", {"seconds": s}) for s in (180, 240, 300)]


def test_quantities_compared_are_converted_to_the_unit_asked() -> None:
    assert converts("in centimetres, which is longer: 40 inches or 3.5 feet?") == [
        (40, "in", "cm"),
        (3.5, "ft", "cm"),
    ]
    assert converts("which is quicker in km/h, 70 mph or 110 kph") == [(70, "mph", "kph")]
    assert converts("Which is longer, 5 miles or 8 kilometers?") == [(5, "mi", "km")]


def test_an_exception_list_is_one_command() -> None:
    assert split_clauses("switch all the lights off apart from the kitchen and porch ones") == [
        "switch all the lights off apart from the kitchen and porch ones"
    ]
    assert calls("switch all the lights off apart from the kitchen and porch ones") == [
        (
            "device_control",
            {"device": "light", "action": "off", "room": "all", "except": ["kitchen", "porch"]},
        )
    ]


def test_both_of_them_restates_the_list() -> None:
    got = calls("shut the blinds in the office and the bedroom, both of them")
    assert [a["room"] for _, a in got] == ["office", "bedroom"]


def test_a_device_question_after_its_topic_is_never_a_command() -> None:
    got = calls("telly in the living room - is it still on? oh and the forecast for Nice tomorrow")
    assert "device_control" not in [t for t, _ in got]  # declined whole today: no act
    assert "device_control" not in [t for t, _ in calls("telly in the lounge - is it on?")]
    assert calls("should i switch the ac off while I'm out at work") == []


def test_whats_time_is_no_city() -> None:
    got = calls("what time's it in Honolulu? and how hot's it there today")
    assert got == [
        ("world_clock", {"city": "honolulu"}),
        ("get_weather", {"city": "honolulu", "day": "today"}),
    ]


def test_an_appliance_no_tool_runs_declines_the_command() -> None:
    plan = make_plan("switch the oven off and the kitchen light while you're at it", router=ROUTER)
    assert not plan.calls and plan.refusal
