"""Weather days neither side serves are declined or sent on, never answered as today
(issue 14): a table of time expressions, each over many cities and sentence shapes, on the
cloud's planner and on the device's router and home-city defaults."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cloud_agent.planner.plan import make_plan
from tests.edge.conftest import StubIntentModel
from understanding.arguments.forecast_days import unserved_weather_day
from understanding.arguments.places import weather_day
from understanding.router import Router
from understanding.settings import Settings, complete_arguments

# Days the forecast serves, with the day the tool is asked for.
SERVED = {
    "today": "today",
    "tonight": "today",
    "this afternoon": "today",
    "right now": "today",
    "tomorrow": "tomorrow",
    "tomorrow morning": "tomorrow",
    "on friday": "friday",
    "this saturday": "saturday",
    "on sunday": "sunday",
    # Spans of the forecast's 7 days (issue 12).
    "this week": "week",
    "this weekend": "weekend",
    "for the rest of the week": "rest_of_week",
    "for the next few days": "next_days",
    "over the coming days": "next_days",
    "for the next 3 days": "next_days",
}
# Time expressions it does not read as one of those days: each must be declined by name.
UNSERVED = [
    "on the 5th",
    "on the 21st",
    "in 3 days",
    "in a couple of days",
    "two days from now",
    "a week from today",
    "later this month",
    "at the end of the month",
    "next week",
    "next weekend",
    "for the next 5 days",
    "in two weeks",
    "next month",
    "next friday",
    "the day after tomorrow",
    "yesterday",
    "last night",
    "on december 24",
    "on dec 5",
    "on 5 january",
    "on the first of march",
    "on 2026-12-24",
    "on 12/25",
    "in may",
    "in july",
    "on christmas day",
    "on new year's eve",
    "in the summer",
    "in 48 hours",
]
CLIMATE = {"in may", "in july", "in the summer"}
CITIES = ["tokyo", "paris", "oslo", "lima", "new york", "cairo"]
SHAPES = [
    "weather in {city} {when}",
    "what's the weather like in {city} {when}",
    "will it rain in {city} {when}",
    "{city} forecast {when}",
]


@pytest.mark.parametrize("when", UNSERVED)
def test_unserved_days_are_named(when: str) -> None:
    found = unserved_weather_day(f"weather in tokyo {when}")
    assert found is not None and found.lower() in when.lower()


@pytest.mark.parametrize("when", list(SERVED))
def test_served_days_are_not_flagged(when: str) -> None:
    assert unserved_weather_day(f"weather in tokyo {when}") is None


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(UNSERVED), st.sampled_from(CITIES), st.sampled_from(SHAPES))
def test_planner_declines_an_unserved_day_by_name(when: str, city: str, shape: str) -> None:
    plan = make_plan(shape.format(city=city, when=when))
    assert plan.calls == [], plan.calls  # never today's forecast in its place
    if when in CLIMATE:  # a month or season alone may be read as a climate question
        assert plan.refusal_kind in ("unserved_day", "needs_llm")
        return
    assert plan.refusal_kind == "unserved_day"
    # Named as read (the planner writes numbers as digits: "a couple of days" -> "2 days").
    named = re.search(r"a forecast for (.+?): only", plan.refusal or "")
    assert named is not None and named.group(1) not in SERVED


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(list(SERVED)), st.sampled_from(CITIES), st.sampled_from(SHAPES))
def test_planner_serves_the_days_it_reads(when: str, city: str, shape: str) -> None:
    plan = make_plan(shape.format(city=city, when=when))
    assert plan.refusal_kind is None
    assert [(c.tool, c.args) for c in plan.calls] == [
        ("get_weather", {"city": city, "day": SERVED[when]})
    ]


def test_the_issue_sentences_are_declined() -> None:
    for query, day in [
        ("weather in tokyo on the 5th", "the 5th"),
        ("weather in paris next weekend", "next weekend"),
    ]:
        plan = make_plan(query)
        assert plan.calls == [] and plan.refusal_kind == "unserved_day"
        assert f"a forecast for {day}:" in (plan.refusal or "")


@pytest.mark.parametrize("when", UNSERVED)
def test_device_sends_an_unserved_day_to_the_cloud(when: str) -> None:
    router = Router(StubIntentModel(), threshold=0.5)
    for city in ("tokyo", "paris"):
        text = f"weather in {city} {when}"
        assert weather_day(text) is None
        decision = router.decide(text)
        assert decision.route == "cloud" and decision.arguments is None, decision
    # With a home city set, a query naming no place is not answered with today's either.
    home = Settings(home_city="oslo")
    assert complete_arguments(home, "get_weather", f"what's the weather {when}", None) is None


@pytest.mark.parametrize(("when", "day"), list(SERVED.items()))
def test_device_keeps_the_days_it_serves(when: str, day: str) -> None:
    decision = Router(StubIntentModel(), threshold=0.5).decide(f"weather in paris {when}")
    assert decision.route == "edge"
    assert decision.arguments == {"city": "paris", "day": day}
