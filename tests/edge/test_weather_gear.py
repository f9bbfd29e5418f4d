"""Questions about weather gear on a forecast day (issue 12): "should I wear a jacket
today", "do I need an umbrella for work today". The device answers with the forecast,
leading with the reading the item depends on, and gives no advice beyond it; a plan
around the weather (a trip, packing, "what should I wear") stays the cloud's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from edge_agent.cli import app
from understanding.answers import tool_answer
from understanding.arguments.gear import GEAR, gear_question
from understanding.structure import needs_reasoning


@pytest.mark.parametrize(
    ("query", "concern"),
    [
        ("should i wear a jacket today", "temperature"),
        ("should i wear layers sometime today", "temperature"),
        ("should i bring gloves with me tonight", "temperature"),
        ("do i need an umbrella for work today", "rain"),
        ("is umbrella necessary for my outing", "rain"),
        ("am i going to need to bring an umbrella to work today", "rain"),
        ("should i wear shorts or a t-shirt tomorrow", "temperature"),
        # Plans, not questions about the forecast: the cloud's.
        ("should i take an umbrella when i go to seattle tomorrow", None),
        ("should i bring an umbrella to paris tomorrow", None),
        ("what should i wear in toronto tomorrow", None),
        ("should i pack a coat for my trip next week", None),
        ("should i bring an umbrella or sunscreen", None),  # two readings: which one?
        ("what's the weather like", None),
    ],
)
def test_gear_question(query: str, concern: str | None) -> None:
    assert gear_question(query) == concern


@settings(deadline=None)
@given(
    st.sampled_from(sorted(GEAR)),
    st.sampled_from(["my trip", "my holiday", "the flight", "packing", "when i go to rome"]),
)
def test_a_plan_is_never_a_gear_question(item: str, plan: str) -> None:
    assert gear_question(f"should i bring a {item} for {plan}") is None
    assert gear_question(f"should i bring a {item} today") == GEAR[item]


def test_the_gate_lets_gear_through_but_not_comparisons() -> None:
    assert not needs_reasoning("should i wear a jacket today", "get_weather")
    assert needs_reasoning("what should i wear today", "get_weather")
    assert needs_reasoning("is it colder than yesterday, should i wear a coat", "get_weather")
    assert needs_reasoning("should i bring a coat for my trip next week", "get_weather")


def test_the_answer_leads_with_the_reading_the_item_depends_on() -> None:
    rainy = {"city": "london", "day": "today", "temperature": 8, "condition": "rainy"}
    cloudy = {"city": "london", "day": "friday", "temperature": 12, "condition": "cloudy"}
    args = {"city": "london", "day": "today"}
    umbrella = "do i need an umbrella today"
    assert tool_answer("get_weather", args, rainy, query=umbrella) == (
        "Rain is forecast in London today: 8°C and rainy."
    )
    assert tool_answer("get_weather", args, cloudy, query=umbrella) == (
        "No rain is forecast in London on Friday: 12°C and cloudy."
    )
    assert tool_answer("get_weather", args, rainy, "imperial", "should i wear a coat") == (
        "It'll be 46°F in London today, and rainy."
    )
    # Any other weather question reads as before.
    assert tool_answer("get_weather", args, rainy, query="weather today") == (
        "It's 8°C and rainy in London today."
    )


def test_gear_questions_end_to_end(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    runner = CliRunner()
    assert (
        runner.invoke(app, ["config", "set", "home_city", "london", "--memory", db]).exit_code == 0
    )
    result = runner.invoke(app, ["ask", "--memory", db, "--json", "should i wear a jacket today"])
    assert result.exit_code == 0, result.output
    steps = [json.loads(line) for line in result.output.splitlines()]
    action = next(s for s in steps if s["stepType"] == "STEP_TYPE_ACTION")
    assert (action["tool"], action["arguments"]) == (
        "get_weather",
        {"city": "london", "day": "today"},
    )
    assert steps[-1]["content"].startswith("It'll be ")
    assert " in London today, and " in steps[-1]["content"]
    result = runner.invoke(app, ["ask", "--memory", db, "--json", "what should i wear today"])
    assert json.loads(result.output.splitlines()[0])["metadata"]["route"] == "cloud"
