"""Where the tagger's slots say less than the words (issue 12): a second city the tagger
did not mark, a write beside a search, notes asked for by their order, an expression cut
short of its last number. The words decide, and a guess goes to the cloud."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.edge.slot_filling import arguments_or_cloud
from understanding.settings import Settings

HOME = Settings(home_city="london")
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def fill(tool: str, words: str, **spans: str) -> Any:
    return arguments_or_cloud(tool, words, HOME, NOW, **spans)


@pytest.mark.parametrize(
    ("tool", "words", "spans", "expected"),
    [
        # One city, however written.
        ("get_weather", "weather in paris texas", {"place_name": "paris"},
         {"city": "paris, texas", "day": "today"}),
        ("get_weather", "what's the weather in new york city", {"place_name": "new york city"},
         {"city": "new york", "day": "today"}),
        ("world_clock", "time in sao paulo brazil", {"place_name": "sao paulo"},
         {"city": "sao paulo"}),
        # A second city the tagger did not mark.
        ("world_clock", "what time is it in tokyo and in london", {"place_name": "tokyo"},
         ("cloud", "'london' too")),
        ("get_weather", "weather in rome or in madrid", {"place_name": "rome"},
         ("cloud", "'madrid' too")),
    ],
)  # fmt: skip
def test_one_city_or_a_guess(tool: str, words: str, spans: dict[str, str], expected: Any) -> None:
    got = fill(tool, words, **spans)
    if isinstance(expected, tuple):
        assert got[0] == "cloud" and expected[1] in got[1]
    else:
        assert got == expected


@pytest.mark.parametrize(
    ("words", "spans", "expected"),
    [
        ("what did i write about the plumber", {"query": "the plumber"}, {"query": "the plumber"}),
        ("what's on my shopping list", {"list_name": "shopping"}, {"list": "shopping"}),
        ("read my notes about the trip and make a packing list",
         {"query": "the trip", "list_name": "packing"}, ("cloud", "two requests")),
        ("find my notes on the boiler and add a reminder", {"query": "the boiler"},
         ("cloud", "two requests")),
        ("did i make a shopping list", {"list_name": "shopping"}, {"list": "shopping"}),
        ("read my last three notes to me", {}, ("cloud", "by when they were written")),
        ("what was my latest note", {}, ("cloud", "by when they were written")),
    ],
)  # fmt: skip
def test_a_search_is_one_search(words: str, spans: dict[str, str], expected: Any) -> None:
    got = fill("search_notes", words, **spans)
    if isinstance(expected, tuple):
        assert got[0] == "cloud" and expected[1] in got[1]
    else:
        assert got == expected


@settings(deadline=None)
@given(
    st.integers(1, 999),
    st.sampled_from([("divided by", "/"), ("plus", "+"), ("times", "*"), ("minus", "-")]),
    st.integers(1, 99),
)
def test_an_expression_cut_short_takes_its_last_number_from_the_words(
    a: int, op: tuple[str, str], b: int
) -> None:
    words = f"just work out {a} {op[0]} {b} for me"
    got = fill("calculator", words, expression=f"{a} {op[0]}")
    assert got == {"expression": f"{a} {op[1]} {b}"}


@settings(deadline=None)
@given(st.integers(2, 99), st.integers(2, 9))
def test_a_span_that_is_no_arithmetic_gives_way_to_the_words(a: int, b: int) -> None:
    """The tagger kept the base of "3 to the 4th power" only: the words read whole."""
    suffix = {2: "nd", 3: "rd"}.get(b, "th")
    words = f"what is {a} to the {b}{suffix} power"
    assert fill("calculator", words, expression=str(a)) == {"expression": f"{a} ^ {b}"}


def test_algebra_in_the_words_is_no_arithmetic_whatever_the_span() -> None:
    words = "solve x squared plus 2x equals 8"
    assert fill("calculator", words, expression="2x equals 8")[0] == "cloud"
