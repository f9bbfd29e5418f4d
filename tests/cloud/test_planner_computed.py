"""Computed answers come from the very readings they show (issue 25): for every shape
(warmer, colder, difference, spans of days, clocks ahead/behind/apart), the comparison's
winner and numbers are recomputed here from the observations the answer lists."""

from __future__ import annotations

import re
from typing import Any

import pytest

from cloud_agent.evaluation import run_query, scratch_memory
from cloud_agent.planner.reasoner import PlannerReasoner, load_edge_router
from cloud_agent.tools import local_registry

PLANNER = PlannerReasoner(router=load_edge_router())


def _run(query: str) -> tuple[list[tuple[str, dict[str, Any]]], list[dict[str, Any]], str]:
    with scratch_memory() as memory:
        tools = local_registry(memory)
        outcome = run_query(PLANNER, tools, query, "computed")
        observed = [tools.get(tool).func(args) for tool, args in outcome.calls]
    return outcome.calls, observed, outcome.answer


def _temperature(reading: dict[str, Any], kind: str) -> int:
    days = [int(d["temperature"]) for d in reading.get("days") or []]
    if days:
        return min(days) if kind == "colder" else max(days)
    return int(reading["temperature"])


WEATHER = [
    ("which is colder this weekend, oslo or stockholm", "colder"),
    ("is madrid warmer than rome tomorrow", "warmer"),
    ("berlin or vienna, which will be warmer", "warmer"),
    ("out of cairo, athens and lisbon which is the coldest today", "colder"),
    ("how much warmer is dubai than paris today", "difference"),
    ("will tomorrow be colder than today in helsinki", "colder"),
]


@pytest.mark.parametrize(("query", "kind"), WEATHER)
def test_weather_comparisons_follow_the_readings(query: str, kind: str) -> None:
    calls, observed, answer = _run(query)
    assert len(calls) >= 2 and all(tool == "get_weather" for tool, _ in calls), answer
    read = [
        (str(o["city"]), str(o["day"]), _temperature(o, "colder" if kind == "colder" else "x"))
        for o in observed
    ]
    values = [t for _, _, t in read]
    if len(set(values)) == 1:
        assert "same temperature" in answer
        return
    if kind == "difference":
        gap = max(values) - min(values)
        assert f"{gap}°C warmer" in answer, answer
        best = max(read, key=lambda r: r[2])
    else:
        best = (min if kind == "colder" else max)(read, key=lambda r: r[2])
    winners = {r for r in read if r[2] == best[2]}
    line = answer.split(". ")[-2] if "Synthetic" in answer else answer.split(". ")[-1]
    assert any(
        (name.title() in line if len({r[0] for r in read}) > 1 else day in line)
        for name, day, _ in winners
    ), answer
    # Every temperature the comparison states is one of the readings it compares.
    stated = [int(n) for n in re.findall(r"(-?\d+)°C against", line)]
    assert stated and all(n in values for n in stated), answer


CLOCKS = [
    ("tokyo or osaka, whose clock is further along", "later"),
    ("is lisbon behind berlin, by how much", "difference"),
    ("which is later right now, dubai or delhi", "later"),
    ("which is earlier right now, denver or halifax", "earlier"),
    ("how many hours apart are chicago and london", "difference"),
]


def _offset(text: str) -> int:
    sign = -1 if text.startswith("-") else 1
    hours, _, minutes = text.lstrip("+-").partition(":")
    return sign * (int(hours) * 60 + int(minutes or 0))


@pytest.mark.parametrize(("query", "kind"), CLOCKS)
def test_clock_comparisons_follow_the_readings(query: str, kind: str) -> None:
    calls, observed, answer = _run(query)
    assert len(calls) == 2 and all(tool == "world_clock" for tool, _ in calls), answer
    offsets = {str(o["city"]).title(): _offset(str(o["utc_offset"])) for o in observed}
    gap = abs(max(offsets.values()) - min(offsets.values())) / 60
    if gap == 0:
        assert "same local time" in answer
        return
    assert f"{gap:g} h" in answer, answer
    ahead = max(offsets, key=lambda c: offsets[c])
    behind = min(offsets, key=lambda c: offsets[c])
    first = ahead if kind != "earlier" else behind
    assert re.search(rf"(?:in|^|\. ){first}\b", answer), answer


@pytest.mark.parametrize(
    ("query", "value"),
    [
        ("my bonus is 6000, what's that per month", 500),
        ("the rent is 1450 a month, what is that for a year", 17400),
        ("i pay 26 a week for the gym, what is that per year", 1352),
        # A sum shared among the people said, asked for each one's part.
        ("dinner came to 150 and we're 6, how much per head", 25),
        ("the cabin costs 840 for 4 friends, what does each one pay", 210),
        ("the taxi was 36, split it 3 ways", 12),
    ],
)
def test_a_number_stated_then_used(query: str, value: float) -> None:
    calls, observed, answer = _run(query)
    assert [tool for tool, _ in calls] == ["calculator"], answer
    assert observed[0]["value"] == pytest.approx(value)


@pytest.mark.parametrize(
    ("query", "value"),
    [
        ("the plank is 8 feet long, how many meters is that", 2.4384),
        ("the drive took 3 hours, how many minutes would that be", 180),
    ],
)
def test_a_quantity_stated_then_asked_in_another_unit(query: str, value: float) -> None:
    calls, observed, answer = _run(query)
    assert [tool for tool, _ in calls] == ["unit_convert"], answer
    assert observed[0]["value"] == pytest.approx(value, rel=1e-3)


def test_a_share_needs_a_sum_a_count_and_a_question_of_it() -> None:
    for query in ("the bill is 96 and there are 4 of us", "there are 4 of us, what does each pay"):
        calls, _, _ = _run(query)
        assert calls == [], query


def test_a_comparison_in_casual_words_is_planned() -> None:
    calls, _, answer = _run("does vienna look sunnier than prague tomorrow or nah")
    assert calls == [
        ("get_weather", {"city": "vienna", "day": "tomorrow"}),
        ("get_weather", {"city": "prague", "day": "tomorrow"}),
    ], answer


@pytest.mark.parametrize(
    ("query", "seconds"),
    [
        ("what is 8 minutes in seconds, and set a timer for that long", 480),
        ("convert 2 hours to minutes and set a timer that long", 7200),
    ],
)
def test_a_timer_for_as_long_as_a_converted_time(query: str, seconds: int) -> None:
    calls, _, answer = _run(query)
    assert [tool for tool, _ in calls] == ["unit_convert", "set_timer"], answer
    assert calls[1][1]["seconds"] == pytest.approx(seconds)


def test_a_timer_as_long_as_no_time_is_named_as_left_out() -> None:
    calls, _, answer = _run("convert 5 miles to km and set a timer for that long")
    assert [tool for tool, _ in calls] == ["unit_convert"]
    assert "set a timer for that long" in answer
