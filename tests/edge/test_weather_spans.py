"""The weather over a span of the forecast's 7 days (issue 12): the reader of the day or
span a phrase names (properties over generated phrases), the dates of each span, and the
get_weather tool answering a span from the cache, a provider or the synthetic one."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from sync.store import MemoryStore
from understanding.answers import tool_answer
from understanding.arguments.forecast_days import forecast_day, forecast_day_in
from understanding.arguments.places import weather_day
from understanding.forecast import SPANS, needs_fetch, remember_week, span_dates
from understanding.tools import weather

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
# Each served phrase's core and the day or span it is.
DAYS = {"today": "today", "tomorrow": "tomorrow", "tmrw": "tomorrow"} | {d: d for d in WEEKDAYS}
SPAN_CORES = {
    "week": "week",
    "week's": "week",
    "weekend": "weekend",
    "rest of the week": "rest_of_week",
    "next few days": "next_days",
    "next couple of days": "next_days",
    "coming days": "next_days",
    "next seven days": "week",
}
PREFIXES = ["", "for", "on", "this", "the", "for the", "over the", "during the", "this coming"]
PARTS = ["", "morning", "afternoon", "evening", "night", "at noon"]
# Times no forecast day or span holds: each must read as None whatever surrounds it.
OTHER = [
    "next week", "next weekend", "last week", "two weeks", "in 3 weeks", "the 5th",
    "december thirteenth", "next friday", "yesterday", "the day after tomorrow", "next month",
    "ten day", "next five days", "monday and friday", "tomorrow and friday",
]  # fmt: skip


@given(st.sampled_from(PREFIXES), st.sampled_from(sorted(DAYS)), st.sampled_from(PARTS))
def test_a_day_with_its_filler_and_its_part_is_that_day(prefix: str, core: str, part: str) -> None:
    phrase = " ".join(w for w in (prefix, core, part) if w)
    assert forecast_day(phrase) == DAYS[core]


@given(st.sampled_from(PREFIXES), st.sampled_from(PARTS[1:]))
def test_a_part_of_a_day_alone_is_today(prefix: str, part: str) -> None:
    assert forecast_day(f"{prefix} {part}") == "today"
    assert forecast_day(f"{prefix} tonight") == "today"


@given(st.sampled_from(PREFIXES), st.sampled_from(sorted(SPAN_CORES)))
def test_a_span_with_its_filler_is_that_span(prefix: str, core: str) -> None:
    assert forecast_day(f"{prefix} {core}") == SPAN_CORES[core]
    sentence = f"will it rain in lisbon {prefix} {core}"
    assert forecast_day_in(sentence) == SPAN_CORES[core]
    assert weather_day(sentence) == SPAN_CORES[core]


@given(st.sampled_from(["", "for", "in", "the"]), st.sampled_from(OTHER), st.sampled_from(PARTS))
def test_another_time_is_never_a_forecast_day(prefix: str, other: str, part: str) -> None:
    phrase = " ".join(w for w in (prefix, other, part) if w)
    assert forecast_day(phrase) is None
    sentence = f"what's the weather in paris {phrase}"
    assert forecast_day_in(sentence) is None
    assert weather_day(sentence) is None  # never today in its place


def test_a_weekday_of_this_week_is_that_weekday() -> None:
    assert forecast_day("monday this week") == "monday"
    assert weather_day("weather on monday this week") == "monday"
    assert weather_day("will it rain tomorrow and this weekend") is None  # two


@given(st.dates(date(2020, 1, 1), date(2040, 12, 31)), st.sampled_from(SPANS))
def test_span_dates_are_within_the_forecast_week(today: date, span: str) -> None:
    dates = span_dates(span, today)
    assert dates and dates == sorted(set(dates))
    assert all(0 <= (d - today).days < 7 for d in dates)
    if span == "week":
        assert len(dates) == 7 and dates[0] == today
    if span == "weekend":
        assert {d.weekday() for d in dates} <= {5, 6} and dates[-1].weekday() == 6
        assert len(dates) == (1 if today.weekday() == 6 else 2)
    if span == "rest_of_week":
        assert dates[0] == today and dates[-1].weekday() == 6
    if span == "next_days":
        assert dates == [today + timedelta(days=n) for n in (1, 2, 3)]


NOW = datetime(2026, 12, 1, 12, tzinfo=UTC)  # a Tuesday


def week_of(first: date, conditions: list[str]) -> dict[str, dict[str, Any]]:
    return {
        (first + timedelta(days=n)).isoformat(): {"temperature": 3 + n, "condition": c}
        for n, c in enumerate(conditions)
    }


RAIN_THU_FRI = ["cloudy", "cloudy", "rainy", "rainy", "sunny", "sunny", "cloudy"]


def test_a_span_from_the_cache_sums_up_its_days(memory: MemoryStore) -> None:
    remember_week(memory, "oslo", "open-meteo", NOW.isoformat(), week_of(NOW.date(), RAIN_THU_FRI))
    run = weather.make_run(memory, lambda: NOW + timedelta(minutes=10))
    out = run({"city": "oslo", "day": "week"})
    assert out["source"] == "open-meteo" and out["age_s"] == 600
    assert [d["name"] for d in out["days"]] == [
        "today", "tomorrow", "thursday", "friday", "saturday", "sunday", "monday"
    ]  # fmt: skip
    assert (out["temperature"], out["low"], out["condition"]) == (9, 3, "cloudy")
    assert weather.validate(out) is None
    assert Draft202012Validator(weather.OUTPUT_SCHEMA).is_valid(out)
    assert tool_answer("get_weather", {"city": "oslo", "day": "week"}, out) == (
        "This week in Oslo: cloudy today, tomorrow and on Monday, rainy on Thursday and "
        "Friday, sunny on Saturday and Sunday; 3 to 9°C."
    )
    weekend = run({"city": "oslo", "day": "weekend"})
    assert [d["date"] for d in weekend["days"]] == ["2026-12-05", "2026-12-06"]
    assert tool_answer("get_weather", {}, weekend, units="imperial") == (
        "This weekend in Oslo: sunny every day; 45 to 46°F."
    )
    assert not needs_fetch(memory, {"city": "oslo", "day": "week"}, NOW)


def test_a_span_the_cache_does_not_hold_whole_is_synthetic_and_says_so(
    memory: MemoryStore,
) -> None:
    remember_week(memory, "oslo", "open-meteo", NOW.isoformat(), week_of(NOW.date(), ["sunny"]))
    assert needs_fetch(memory, {"city": "oslo", "day": "week"}, NOW)
    assert not needs_fetch(memory, {"city": "oslo", "day": "today"}, NOW)
    out = weather.make_run(memory, lambda: NOW)({"city": "oslo", "day": "next_days"})
    assert out["source"] == "synthetic" and len(out["days"]) == 3
    assert "(synthetic forecast: no forecast service is set up)" in tool_answer(
        "get_weather", {}, out
    )


class WeekProvider:
    """A provider holding a fixed week (the cloud's side; Open-Meteo is tested against a
    local server in tests/cloud/test_forecast_provider.py)."""

    source = "stand-in"

    def __init__(self, week: dict[str, dict[str, Any]]) -> None:
        self.weeks = week

    def week(self, _place: Any, _today: date) -> dict[str, dict[str, Any]]:
        return self.weeks


def test_a_span_from_a_provider_carries_the_week_for_the_cache() -> None:
    week = week_of(NOW.date(), RAIN_THU_FRI)
    out = weather.make_run(None, lambda: NOW, WeekProvider(week))(
        {"city": "lisbon", "day": "rest_of_week"}
    )
    assert [d["name"] for d in out["days"]][-1] == "sunday" and out["week"] == week
    short = weather.make_run(None, lambda: NOW, WeekProvider(week_of(NOW.date(), ["sunny"])))
    with pytest.raises(ValueError, match="the forecast has no week"):
        short({"city": "lisbon", "day": "week"})


def test_the_day_enum_keeps_the_old_values_and_takes_the_spans() -> None:
    schema = weather.input_schema()
    assert schema["properties"]["day"]["enum"][:9] == ["today", "tomorrow", *WEEKDAYS]
    for day in (*SPANS, "today", "friday"):
        assert Draft202012Validator(schema).is_valid({"city": "oslo", "day": day})
    assert not Draft202012Validator(schema).is_valid({"city": "oslo", "day": "next_week"})
    with pytest.raises(ValueError, match="a span of the week"):
        weather.make_run(None, lambda: NOW)({"city": "oslo", "day": "fortnight"})
